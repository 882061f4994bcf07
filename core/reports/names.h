// The contract's wire names and Finding JSON as the reports use them: thin
// wrappers over core/contract (enums.h, serialize.h), plus the case-insensitive
// severity parsing that command-line flags want.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "core/contract/contract.h"
#include "core/contract/enums.h"
#include "core/support/json.h"

namespace revline::reports {

std::string_view severityName(contract::Severity severity);  // "BLOCKER", "MAJOR", "MINOR", "NIT"
std::string_view categoryName(contract::Category category);  // "CORRECTNESS", ..., "DATA_LOSS", ...
std::string_view verdictName(contract::Verdict verdict);     // "APPROVE", "COMMENT", "REQUEST_CHANGES"

// Case-insensitive, surrounding spaces ignored; nullopt for anything else.
std::optional<contract::Severity> parseSeverityName(std::string_view text);

// A Finding with the contract's JSON field names (every field present; nullable ones as null).
json findingJson(const contract::Finding& finding);

// Every category, from the contract's enum table.
inline constexpr auto kAllCategories = contract::allValues<contract::Category>();

}  // namespace revline::reports
