// nlohmann/json as used across revline, plus std::optional support: Debian 12's
// nlohmann 3.11.2 has none, and absent/null must stay distinct from a value.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>

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
}
