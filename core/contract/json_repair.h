// A tolerant JSON reader for model replies (replies.md §2). It accepts the
// listed spelling slips and records each as a warning: trailing commas, // and
// /* */ comments, single-quoted strings, unquoted identifier keys, Python
// True/False/None, raw control characters (newlines, tabs) in strings, unknown
// escapes (kept literally), lone surrogate escapes and invalid UTF-8 (both
// U+FFFD). It repairs nothing else: unquoted values, missing commas, stray
// quotes, NaN/Infinity, hex/+1/.5 numbers are syntax errors, and input that
// ends inside a value is truncated, never closed for the model.
#pragma once
#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/support/json.h"

namespace revline::contract {

enum class ReadStatus { Ok, Syntax, Truncated };

struct ReadResult {
  ReadStatus status = ReadStatus::Syntax;
  json value;                        // when Ok
  std::size_t end = 0;               // Ok: one past the value; otherwise where reading stopped
  std::string error;                 // Syntax / Truncated: what went wrong, with line and column
  std::string pointer;               // JSON Pointer of the value being read when it went wrong
  std::vector<std::string> repairs;  // one warning per kind of repair, "<code>: <what>", first seen first
  std::set<std::string> duplicateKeys;  // pointers of keys that appear twice in one object
  bool ok() const { return status == ReadStatus::Ok; }
};

// Reads one value starting at `begin` (after whitespace and comments) from
// text[begin, limit). Positions and line/column refer to `text`.
ReadResult readJsonValue(std::string_view text, std::size_t begin, std::size_t limit);

// Reads text[begin, limit) as exactly one value; anything but whitespace and
// comments after it is a syntax error.
ReadResult readJsonDocument(std::string_view text, std::size_t begin, std::size_t limit);

// "line 3, column 7" of a byte offset (columns count bytes, from 1).
std::string describePosition(std::string_view text, std::size_t offset);

}  // namespace revline::contract
