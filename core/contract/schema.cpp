#include "core/contract/schema.h"

#include <string_view>
#include <type_traits>

#include "core/contract/contract.h"
#include "core/contract/default_policy.h"
#include "core/contract/rules.h"

namespace revline::contract {
namespace {

using ojson = nlohmann::ordered_json;

template <ContractObject T>
ojson objectSchema(bool nullable);

class SchemaWriter {
 public:
  SchemaWriter(ojson& properties, ojson& required) : properties_(properties), required_(required) {}

  template <class T>
  void field(std::string_view name, const T&, const FieldSpec& spec) {
    ojson node = typeOf(static_cast<const T*>(nullptr));
    std::string description(spec.description);
    auto append = [&description](const std::string& more) {
      if (!more.empty()) description += (description.empty() ? "" : " ") + more;
    };
    append(valuesText(static_cast<const T*>(nullptr)));
    append(statedRules(spec));
    if (!description.empty()) node["description"] = std::move(description);
    properties_[std::string(name)] = std::move(node);
    required_.push_back(std::string(name));  // strict mode: every property is required
  }

 private:
  static ojson type(const char* name, bool nullable) {
    if (nullable) return ojson{{"type", ojson::array({name, "null"})}};
    return ojson{{"type", name}};
  }
  static ojson typeOf(const std::string*) { return type("string", false); }
  static ojson typeOf(const std::optional<std::string>*) { return type("string", true); }
  static ojson typeOf(const std::int64_t*) { return type("integer", false); }
  static ojson typeOf(const std::optional<std::int64_t>*) { return type("integer", true); }
  static ojson typeOf(const double*) { return type("number", false); }
  template <ContractEnum E>
  static ojson typeOf(const E*) {
    ojson node = type("string", false);
    ojson values = ojson::array();
    for (const auto& [v, name] : EnumTable<E>::names) values.push_back(std::string(name));
    node["enum"] = std::move(values);
    return node;
  }
  template <ContractObject T>
  static ojson typeOf(const T*) { return objectSchema<T>(false); }
  template <ContractObject T>
  static ojson typeOf(const std::optional<T>*) { return objectSchema<T>(true); }
  template <ContractObject T>
  static ojson typeOf(const std::vector<T>*) {
    ojson node = type("array", false);
    node["items"] = objectSchema<T>(false);
    return node;
  }

  // An enum's values, each with its one-line meaning and, for categories and
  // severities, whether it blocks under the default policy.
  template <class T>
  static std::string valuesText(const T*) { return {}; }
  template <ContractEnum E>
  static std::string valuesText(const E*) {
    std::string out;
    for (const auto& [v, name] : EnumTable<E>::names) {
      out += (out.empty() ? "" : " ") + std::string(name) + ": " + std::string(describe(v));
      if constexpr (!std::is_same_v<E, Verdict>) out += blocksByDefault(v) ? " (blocks)." : ".";
      else out += ".";
    }
    if constexpr (std::is_same_v<E, Category>)
      out += " \"(blocks)\": under the default policy a finding of this category blocks the change when its severity "
             "is " + std::string(enumName(kDefaultBlockingSeverity)) + " or worse and its confidence at least " +
             json(kDefaultConfidenceThreshold).dump() + ".";
    if constexpr (std::is_same_v<E, Severity>)
      out += " \"(blocks)\": under the default policy this severity blocks the change in a blocking category with "
             "confidence at least " + json(kDefaultConfidenceThreshold).dump() + ".";
    return out;
  }

  ojson& properties_;
  ojson& required_;
};

// A nullable object is anyOf [{object}, {"type": "null"}] rather than the
// type array ["object","null"] that contract.md names (primitives keep their
// type arrays). anyOf is the form OpenAI documents for strict mode and emits
// itself for optional nested models, and Anthropic and llama.cpp accept it; a
// type array holding "object" next to "properties" is not documented by
// OpenAI and has been reported rejected for non-primitive types.
template <ContractObject T>
ojson objectSchema(bool nullable) {
  ojson properties = ojson::object();
  ojson required = ojson::array();
  SchemaWriter writer(properties, required);
  const T sample{};
  T::fields(sample, writer);
  ojson node = {{"type", "object"}};
  node["properties"] = std::move(properties);
  node["required"] = std::move(required);
  node["additionalProperties"] = false;
  if (!nullable) return node;
  return ojson{{"anyOf", ojson::array({std::move(node), ojson{{"type", "null"}}})}};
}

}  // namespace

nlohmann::ordered_json reportSchemaOrdered() { return objectSchema<ReviewReport>(false); }
json reportSchema() { return json(reportSchemaOrdered()); }
std::string reportSchemaText() { return reportSchemaOrdered().dump(); }

}  // namespace revline::contract
