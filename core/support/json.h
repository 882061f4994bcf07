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

// How deeply arrays and objects nest in JSON `text` (0 for a scalar), read
// without parsing it. nlohmann parses any depth but copies and prints a value
// recursively: text from outside (a model's reply, its tool arguments) is
// checked against a limit first, or a value 100,000 levels deep overflows the stack.
inline std::size_t jsonNesting(std::string_view text) {
  std::size_t depth = 0, deepest = 0;
  bool inString = false, escaped = false;
  for (const char c : text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}
}  // namespace revline
