// Validation of a report against the contract's rules (contract.md
// "Validation"), derived from the field lists in contract.h. Pure.
#pragma once
#include <vector>

#include "core/contract/contract.h"
#include "core/contract/problem.h"

namespace revline::contract {

// Every violation, in field order; empty when the report is valid. Messages
// are `<JSON Pointer>: got <value>, expected <rule>`, the same as the reply
// parser's, e.g. `/findings/2/line: got 0, expected a new-file line number >= 1`.
std::vector<Problem> validate(const ReviewReport& report);
std::vector<Problem> validate(const Finding& finding, const std::string& pointer = "");

}  // namespace revline::contract
