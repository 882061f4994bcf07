// What the contract says about one field, written next to the field itself in
// contract.h. The schema, serialization, coercion and validation visitors read
// these specs, so a rule is stated once and enforced everywhere.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace revline::contract {

struct FieldSpec {
  std::string_view description;  // sent to the model in the schema; empty: none

  bool notBlankRule = false;     // whitespace-only is an error (empty_string)
  bool notEmptyRule = false;     // "" is an error, whitespace is text
  bool blankIsNull = false;      // optional strings: blank reads as null when parsing
  std::size_t maxChars = 0;      // 0: unlimited; counted in Unicode code points

  std::optional<std::int64_t> minInt, maxInt;
  std::string_view integerNoun;  // what the integer is, for messages

  std::optional<double> minNumber, maxNumber;

  // Cross-field rules point at the sibling in the same object; the visitor
  // always sees the sibling first because fields() lists it first.
  const std::int64_t* notBeforeValue = nullptr;
  std::string_view notBeforeName;
  const std::string* differsFromValue = nullptr;
  std::string_view differsFromName;

  explicit constexpr FieldSpec(std::string_view desc = {}) : description(desc) {}

  FieldSpec notBlank() const { auto s = *this; s.notBlankRule = true; return s; }
  FieldSpec notEmpty() const { auto s = *this; s.notEmptyRule = true; return s; }
  FieldSpec blankMeansNull() const { auto s = *this; s.blankIsNull = true; return s; }
  FieldSpec maxLength(std::size_t n) const { auto s = *this; s.maxChars = n; return s; }
  // A new-file line number: an integer in [1, 2^31-1].
  FieldSpec lineNumber() const {
    auto s = *this;
    s.minInt = 1;
    s.maxInt = 2147483647;
    s.integerNoun = "a new-file line number";
    return s;
  }
  FieldSpec range(double lo, double hi) const {
    auto s = *this;
    s.minNumber = lo;
    s.maxNumber = hi;
    return s;
  }
  FieldSpec notBefore(std::string_view name, const std::int64_t& sibling) const {
    auto s = *this;
    s.notBeforeName = name;
    s.notBeforeValue = &sibling;
    return s;
  }
  FieldSpec differsFrom(std::string_view name, const std::string& sibling) const {
    auto s = *this;
    s.differsFromName = name;
    s.differsFromValue = &sibling;
    return s;
  }
};

}  // namespace revline::contract
