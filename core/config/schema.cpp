#include "core/config/config.h"
#include "core/config/keys.h"

namespace revline::config {
namespace {

using detail::KeySpec;
using detail::KeyType;

json propertySchema(const KeySpec& spec, const Config& defaults);

json propertiesOf(const std::vector<KeySpec>& keys, const Config& defaults) {
  json properties = json::object();
  for (const auto& k : keys) properties[k.name] = propertySchema(k, defaults);
  return properties;
}

json propertySchema(const KeySpec& spec, const Config& defaults) {
  json s = {{"description", spec.description}};
  switch (spec.type) {
    case KeyType::String:
      s["type"] = "string";
      if (!spec.pattern.empty()) s["pattern"] = spec.pattern;
      break;
    case KeyType::Enum:
      s["type"] = "string";
      s["enum"] = spec.values;
      break;
    case KeyType::Integer:
      s["type"] = "integer";
      s["minimum"] = static_cast<std::int64_t>(spec.minimum);
      s["maximum"] = static_cast<std::int64_t>(spec.maximum);
      break;
    case KeyType::Number:
      s["type"] = "number";
      s["minimum"] = spec.minimum;
      s["maximum"] = spec.maximum;
      break;
    case KeyType::StringList:
      s["type"] = "array";
      s["items"] = {{"type", "string"}, {"minLength", 1}};
      break;
    case KeyType::EnumList:
      s["type"] = "array";
      s["items"] = {{"type", "string"}, {"enum", spec.values}};
      break;
    case KeyType::Object:
      s["type"] = "object";
      s["additionalProperties"] = false;
      s["properties"] = propertiesOf(spec.children, defaults);
      break;
  }
  if (spec.get && spec.type != KeyType::Object) s["default"] = spec.get(defaults);
  return s;
}

}  // namespace

json configSchema() {
  return {
      {"$schema", "https://json-schema.org/draft/2020-12/schema"},
      {"title", "revline configuration (.revline.json)"},
      {"description",
       "Configuration at the repository root. Command-line flags override it; the language server also accepts "
       "these keys in initializationOptions and workspace/didChangeConfiguration. API keys are never stored here: "
       "api_key_env names the environment variable that holds the key."},
      {"type", "object"},
      {"additionalProperties", false},
      {"properties", propertiesOf(detail::configKeys(), Config{})},
  };
}

}  // namespace revline::config
