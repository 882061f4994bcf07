// Coercion of a parsed JSON value to the contract (replies.md §3), derived
// from the field lists in contract.h, with the rules of validate.h applied to
// every value that coerced. Collects every problem, not just the first.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "core/contract/contract.h"
#include "core/contract/problem.h"
#include "core/support/json.h"

namespace revline::contract {

struct Coerced {
  ReviewReport report;                // meaningful only when problems is empty
  std::vector<Problem> problems;      // in document order of the fields
  std::vector<std::string> warnings;  // "unknown_key: ..." for ignored keys
};

// duplicateKeys: JSON Pointers of keys the reader saw twice in one object
// (ReadResult::duplicateKeys); they are ambiguous like keys that normalise alike.
Coerced coerceReport(const json& root, const std::set<std::string>& duplicateKeys = {});

// How keys are matched: ASCII lower-case, without '_', '-' and spaces
// ("suggested_fix" and "Suggested Fix" both name suggestedFix).
std::string normaliseKey(std::string_view key);

// How enum spellings are matched: trimmed, upper-cased, runs of spaces and
// hyphens turned into one '_' ("request changes" names REQUEST_CHANGES).
std::string normaliseEnum(std::string_view text);

}  // namespace revline::contract
