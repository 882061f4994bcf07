// Reading a model's reply (shared/design/replies.md): find the report in the
// text, apply the accepted syntax repairs, coerce to the contract, validate.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/contract/contract.h"
#include "core/contract/problem.h"

namespace revline::contract {

struct ReplyParse {
  std::optional<ReviewReport> report;  // set when a candidate parsed, coerced and validated
  std::vector<Problem> problems;       // why not, when report is empty
  std::vector<std::string> warnings;   // repairs applied, unknown keys ignored, multiple_candidates;
                                       // each starts with its code, e.g. "trailing_comma: ..."
  bool ok() const { return report.has_value(); }
};

// Replies longer than this are cut before parsing (a cut value reads as truncated).
inline constexpr std::size_t kMaxReplyBytes = 1 << 20;

// Never throws: every way a reply can be wrong is a Problem.
ReplyParse parseReply(std::string_view raw);

}  // namespace revline::contract
