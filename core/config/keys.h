// The table of configuration keys: one entry per key with its type, allowed
// values, description and how it reads/writes Config. Both the reader
// (config.cpp) and the JSON Schema (schema.cpp) are derived from it, so the
// schema cannot drift from what is accepted. Internal to core/config.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/config/config.h"

namespace revline::config::detail {

enum class KeyType { String, Enum, Integer, Number, StringList, EnumList, Object };

// A value after type checking: String/Enum -> string, Integer -> int64,
// Number -> double, StringList/EnumList -> vector<string>.
using Value = std::variant<std::string, std::int64_t, double, std::vector<std::string>>;

struct KeySpec {
  std::string name;
  KeyType type = KeyType::String;
  std::string description;
  std::vector<std::string> values;    // Enum, EnumList: the allowed names
  double minimum = 0, maximum = 0;    // Integer, Number: inclusive bounds
  std::string pattern;                // String: a JSON Schema regex equivalent to `check`, if any
  // String or list item: what is wrong with it, phrased to follow "expected",
  // or nullopt. `echo` false keeps the value out of the message (it may be a secret).
  std::function<std::optional<std::string>(const std::string&)> check;
  bool echo = true;
  std::function<void(Config&, const Value&)> set;  // absent for "$schema" and objects
  std::function<json(const Config&)> get;          // the value in a Config (schema defaults)
  std::vector<KeySpec> children;                   // Object
};

// The top-level keys of `.revline.json`, in documentation order.
const std::vector<KeySpec>& configKeys();

}  // namespace revline::config::detail
