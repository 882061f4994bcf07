#include "core/contract/problem.h"

#include "core/support/text.h"

namespace revline::contract {

std::string_view toString(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Empty: return "empty";
    case ErrorKind::NoJson: return "no_json";
    case ErrorKind::Refusal: return "refusal";
    case ErrorKind::Truncated: return "truncated";
    case ErrorKind::Syntax: return "syntax";
    case ErrorKind::Shape: return "shape";
    case ErrorKind::MissingField: return "missing_field";
    case ErrorKind::EmptyString: return "empty_string";
    case ErrorKind::Type: return "type";
    case ErrorKind::InvalidEnum: return "invalid_enum";
    case ErrorKind::OutOfRange: return "out_of_range";
    case ErrorKind::Ambiguous: return "ambiguous";
  }
  return "unknown";
}

Problem makeProblem(ErrorKind kind, std::string pointer, std::string_view detail) {
  std::string message = pointer.empty() ? std::string(detail) : pointer + ": " + std::string(detail);
  return Problem{kind, std::move(pointer), std::move(message)};
}

namespace {
constexpr std::size_t kShownChars = 80;

}  // namespace

std::string showValue(const json& value) {
  // At most kShownChars bytes plus the ellipsis, never inside a UTF-8 sequence.
  const std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  return text.size() <= kShownChars ? text : text.substr(0, utf8Boundary(text, kShownChars)) + "…";
}

std::string showString(std::string_view text) { return showValue(json(std::string(text))); }

std::string childPointer(const std::string& parent, std::string_view token) {
  std::string out = parent + "/";
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string childPointer(const std::string& parent, std::size_t index) {
  return parent + "/" + std::to_string(index);
}

}  // namespace revline::contract
