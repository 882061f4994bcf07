// A contract violation: what kind, where (JSON Pointer) and one actionable line
// that goes back to the model verbatim on a retry.
#pragma once
#include <string>
#include <string_view>

#include "core/support/json.h"

namespace revline::contract {

enum class ErrorKind { Empty, NoJson, Refusal, Truncated, Syntax, Shape, MissingField, EmptyString, Type, InvalidEnum, OutOfRange, Ambiguous };
std::string_view toString(ErrorKind kind);  // "empty", "no_json", ..., "ambiguous"

struct Problem {
  ErrorKind kind;
  std::string pointer;  // JSON Pointer of the offending value ("" for the whole reply)
  std::string message;  // one actionable line, e.g. `/findings/0/severity: "CRITICAL" is not one of BLOCKER, MAJOR, MINOR, NIT`
  bool operator==(const Problem&) const = default;
};

// Builds a Problem whose message is `<pointer>: <detail>` (just `<detail>` for
// the whole reply).
Problem makeProblem(ErrorKind kind, std::string pointer, std::string_view detail);

// A value as the model wrote it, as compact JSON cut to about 80 characters
// (on a UTF-8 boundary), for messages. Never throws on invalid UTF-8.
std::string showValue(const json& value);
std::string showString(std::string_view text);  // showValue of a JSON string

// Appends one reference token to a JSON Pointer, escaping '~' and '/'.
std::string childPointer(const std::string& parent, std::string_view token);
std::string childPointer(const std::string& parent, std::size_t index);

}  // namespace revline::contract
