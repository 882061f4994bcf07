// The per-field rules of the contract (FieldSpec), checked on one value. Both
// validate() and the reply coercion call these, so a report read from a model
// and a report built in code are held to the same rules with the same messages
// (`/findings/2/line: got 0, expected a new-file line number >= 1`).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/contract/field_spec.h"
#include "core/contract/problem.h"

namespace revline::contract {

bool isBlank(std::string_view text);
std::size_t codePointCount(std::string_view utf8);

// The rules of `spec` as sentences for the schema description, e.g. "Rules: at
// most 120 characters." (empty when the field has none). The numbers are the
// ones the checks below enforce.
std::string statedRules(const FieldSpec& spec);

void checkString(const std::string& value, const FieldSpec& spec, const std::string& pointer,
                 std::vector<Problem>& out);
// nullable: the field also accepts null, which the message says.
void checkInteger(std::int64_t value, const FieldSpec& spec, bool nullable, const std::string& pointer,
                  std::vector<Problem>& out);
void checkNumber(double value, const FieldSpec& spec, const std::string& pointer, std::vector<Problem>& out);

}  // namespace revline::contract
