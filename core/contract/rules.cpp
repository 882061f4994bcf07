#include "core/contract/rules.h"

#include <cmath>

namespace revline::contract {

bool isBlank(std::string_view text) {
  for (char c : text)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') return false;
  return true;
}

std::size_t codePointCount(std::string_view utf8) {
  std::size_t n = 0;
  for (char c : utf8)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

namespace {
std::string number(double v) { return json(v).dump(); }
}  // namespace

std::string statedRules(const FieldSpec& spec) {
  std::vector<std::string> rules;
  if (spec.notBlankRule) rules.push_back("not blank");
  if (spec.notEmptyRule) rules.push_back("not empty");
  if (spec.maxChars) rules.push_back("at most " + std::to_string(spec.maxChars) + " characters");
  if (spec.minInt && spec.maxInt)
    rules.push_back("an integer from " + std::to_string(*spec.minInt) + " to " + std::to_string(*spec.maxInt));
  if (spec.notBeforeValue) rules.push_back("when not null, at least " + std::string(spec.notBeforeName));
  if (spec.minNumber && spec.maxNumber)
    rules.push_back("a number from " + number(*spec.minNumber) + " to " + number(*spec.maxNumber));
  if (spec.differsFromValue) rules.push_back("different from " + std::string(spec.differsFromName));
  if (spec.blankIsNull) rules.push_back("a blank string reads as null");
  if (rules.empty()) return {};
  std::string out = "Rules: ";
  for (std::size_t i = 0; i < rules.size(); ++i) out += (i ? "; " : "") + rules[i];
  return out + ".";
}

void checkString(const std::string& value, const FieldSpec& spec, const std::string& pointer,
                 std::vector<Problem>& out) {
  if (spec.notBlankRule && isBlank(value)) {
    out.push_back(makeProblem(ErrorKind::EmptyString, pointer, "got " + showString(value) + ", expected non-blank text"));
    return;
  }
  if (spec.notEmptyRule && value.empty()) {
    out.push_back(makeProblem(ErrorKind::EmptyString, pointer, "got \"\", expected a non-empty string"));
    return;
  }
  if (spec.maxChars != 0) {
    std::size_t n = codePointCount(value);
    if (n > spec.maxChars)
      out.push_back(makeProblem(ErrorKind::OutOfRange, pointer,
                                "got " + showString(value) + " (" + std::to_string(n) + " characters), expected at most " +
                                    std::to_string(spec.maxChars) + " characters"));
  }
  // An empty sibling is already reported by its own rule; comparing with it
  // would only add noise.
  if (spec.differsFromValue && !spec.differsFromValue->empty() && value == *spec.differsFromValue)
    out.push_back(makeProblem(ErrorKind::OutOfRange, pointer,
                              "got the same text as " + std::string(spec.differsFromName) +
                                  ", expected text that differs from " + std::string(spec.differsFromName)));
}

void checkInteger(std::int64_t value, const FieldSpec& spec, bool nullable, const std::string& pointer,
                  std::vector<Problem>& out) {
  const std::string noun = spec.integerNoun.empty() ? std::string("an integer") : std::string(spec.integerNoun);
  const std::string expected = nullable ? "null or " + noun : noun;
  const std::string got = "got " + std::to_string(value) + ", expected ";
  if (spec.minInt && value < *spec.minInt) {
    out.push_back(makeProblem(ErrorKind::OutOfRange, pointer, got + expected + " >= " + std::to_string(*spec.minInt)));
    return;
  }
  if (spec.maxInt && value > *spec.maxInt) {
    out.push_back(makeProblem(ErrorKind::OutOfRange, pointer, got + expected + " <= " + std::to_string(*spec.maxInt)));
    return;
  }
  // Compare only with a sibling that is itself valid; an invalid one has its own problem.
  if (spec.notBeforeValue && (!spec.minInt || *spec.notBeforeValue >= *spec.minInt) && value < *spec.notBeforeValue)
    out.push_back(makeProblem(ErrorKind::OutOfRange, pointer,
                              got + expected + " >= " + std::string(spec.notBeforeName) + " (" +
                                  std::to_string(*spec.notBeforeValue) + ")"));
}

void checkNumber(double value, const FieldSpec& spec, const std::string& pointer, std::vector<Problem>& out) {
  const bool tooLow = spec.minNumber && !(value >= *spec.minNumber);
  const bool tooHigh = spec.maxNumber && !(value <= *spec.maxNumber);
  if (!tooLow && !tooHigh) return;
  // 90 reads better than 90.0 when the model wrote 90.
  const bool whole = std::trunc(value) == value && std::fabs(value) < 1e15;
  const json shown = whole ? json(static_cast<std::int64_t>(value)) : json(value);
  std::string detail = "got " + (std::isnan(value) ? std::string("NaN") : showValue(shown)) + ", expected a number";
  if (spec.minNumber && spec.maxNumber)
    detail += " from " + json(*spec.minNumber).dump() + " to " + json(*spec.maxNumber).dump();
  else if (spec.minNumber)
    detail += " >= " + json(*spec.minNumber).dump();
  else
    detail += " <= " + json(*spec.maxNumber).dump();
  // The usual slip on a [0, 1] scale is a percentage.
  if (spec.maxNumber == 1.0 && value > 1 && value <= 100) detail += " (write 0.9 for 90%)";
  out.push_back(makeProblem(ErrorKind::OutOfRange, pointer, detail));
}

}  // namespace revline::contract
