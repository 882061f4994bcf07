// nlohmann/json as used across revline, plus std::optional support: Debian 12's
// nlohmann 3.11.2 has none, and absent/null must stay distinct from a value.
#pragma once
#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace nlohmann {
template <typename T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& v) {
    if (v) j = *v; else j = nullptr;
  }
  static void from_json(const json& j, std::optional<T>& v) {
    if (j.is_null()) v.reset(); else v = j.get<T>();
  }
};
}  // namespace nlohmann

namespace revline {
using json = nlohmann::json;

// What JSON `text` holds, read without parsing it: how deeply arrays and
// objects nest (0 for a scalar), and how many values and keys it has (each
// array, object, string and other scalar started).
// nlohmann parses any depth but copies and prints a value recursively, and
// keeps each value in some 50 to 100 bytes: text from outside (a model's
// reply, its tool arguments, an error body) is checked against limits first,
// or a value 100,000 levels deep overflows the stack, and 32 MiB of `{},`
// takes gigabytes.
struct JsonShape {
  std::size_t deepest = 0;
  std::size_t values = 0;
};
inline JsonShape jsonShape(std::string_view text) {
  JsonShape shape;
  std::size_t depth = 0;
  bool inString = false, escaped = false;
  char before = ',';  // the last character outside strings that is not a space: a scalar starts after [ { : ,
  for (const char c : text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') inString = false;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    if (c == '"') {
      inString = true;
      ++shape.values;
    } else if (c == '[' || c == '{') {
      shape.deepest = std::max(shape.deepest, ++depth);
      ++shape.values;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (before == '[' || before == '{' || before == ':' || before == ',') {
      shape.values += c != ']' && c != '}' && c != ',' && c != ':';  // a number, true, false, null
    }
    before = c;
  }
  return shape;
}
inline std::size_t jsonNesting(std::string_view text) { return jsonShape(text).deepest; }

// The most values read from a model's reply or an error body (jsonShape): a
// reply of a thousand findings with their tool calls has some tens of thousands.
inline constexpr std::size_t kMaxReplyValues = 1000000;
inline constexpr std::size_t kMaxReplyNesting = 128;  // a reply is a few levels deep

// `text` parsed when its shape is within a reply's limits, else discarded (as
// text that is not JSON is): for bodies that are only looked into.
inline json parseReplyJson(std::string_view text) {
  const JsonShape shape = jsonShape(text);
  if (shape.deepest > kMaxReplyNesting || shape.values > kMaxReplyValues) return json(json::value_t::discarded);
  return json::parse(text, nullptr, false);
}
}  // namespace revline
