// A small JSON Schema (draft-04) validator for the keywords the SARIF 2.1.0
// schema uses. Any keyword it does not know is reported as an error, so a
// schema that needs more cannot pass silently. Test-only.
#pragma once
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "core/support/json.h"

namespace revline::reports::testing {

class SchemaCheck {
 public:
  explicit SchemaCheck(json root) : root_(std::move(root)) {}

  // Every violation as "<json pointer>: <what>"; empty when `doc` is valid.
  std::vector<std::string> validate(const json& doc) const {
    std::vector<std::string> errors;
    check(root_, doc, "", errors);
    return errors;
  }

 private:
  json root_;

  const json& resolve(const std::string& ref) const {
    if (ref.rfind("#", 0) != 0) throw std::runtime_error("external $ref not supported: " + ref);
    return root_.at(json::json_pointer(ref.substr(1)));
  }

  static bool typeMatches(const std::string& type, const json& v) {
    if (type == "object") return v.is_object();
    if (type == "array") return v.is_array();
    if (type == "string") return v.is_string();
    if (type == "boolean") return v.is_boolean();
    if (type == "null") return v.is_null();
    if (type == "number") return v.is_number();
    if (type == "integer") {
      if (v.is_number_integer()) return true;
      return v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<long long>(v.get<double>()));
    }
    throw std::runtime_error("unknown type " + type);
  }

  // RFC 3986 characters (unreserved, reserved) and %HH escapes only.
  static bool uriCharsOnly(const std::string& s) {
    static const std::string allowed =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=";
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '%') {
        if (i + 2 >= s.size() || !std::isxdigit(static_cast<unsigned char>(s[i + 1])) ||
            !std::isxdigit(static_cast<unsigned char>(s[i + 2])))
          return false;
        i += 2;
      } else if (allowed.find(s[i]) == std::string::npos) {
        return false;
      }
    }
    return true;
  }

  void check(const json& schema, const json& v, const std::string& at, std::vector<std::string>& errors) const {
    static const std::set<std::string> known = {
        "$schema", "id", "title", "description", "default", "definitions", "type", "properties",
        "additionalProperties", "required", "items", "minItems", "uniqueItems", "enum", "minimum", "maximum",
        "pattern", "format", "anyOf", "oneOf", "allOf", "$ref"};
    for (auto it = schema.begin(); it != schema.end(); ++it) {
      if (!known.count(it.key())) errors.push_back(at + ": validator does not support keyword " + it.key());
    }
    if (schema.contains("$ref")) {
      check(resolve(schema["$ref"]), v, at, errors);
      return;  // draft-04: siblings of $ref are ignored
    }
    if (schema.contains("type")) {
      const json& t = schema["type"];
      bool ok = false;
      if (t.is_string()) ok = typeMatches(t, v);
      for (const auto& alt : t.is_array() ? t : json::array()) ok = ok || typeMatches(alt, v);
      if (!ok) {
        errors.push_back(at + ": expected type " + t.dump() + ", got " + v.dump());
        return;
      }
    }
    if (schema.contains("enum")) {
      bool found = false;
      for (const auto& e : schema["enum"]) found = found || e == v;
      if (!found) errors.push_back(at + ": " + v.dump() + " is not one of " + schema["enum"].dump());
    }
    if (v.is_object()) {
      for (const auto& r : schema.value("required", json::array())) {
        if (!v.contains(r.get<std::string>())) errors.push_back(at + ": missing required property " + r.dump());
      }
      const json props = schema.value("properties", json::object());
      for (auto it = v.begin(); it != v.end(); ++it) {
        const std::string child = at + "/" + it.key();
        if (props.contains(it.key())) {
          check(props[it.key()], it.value(), child, errors);
        } else if (schema.contains("additionalProperties")) {
          const json& ap = schema["additionalProperties"];
          if (ap.is_boolean() && !ap.get<bool>()) errors.push_back(child + ": property not allowed here");
          if (ap.is_object()) check(ap, it.value(), child, errors);
        }
      }
    }
    if (v.is_array()) {
      if (schema.contains("minItems") && v.size() < schema["minItems"].get<std::size_t>())
        errors.push_back(at + ": fewer than " + schema["minItems"].dump() + " items");
      if (schema.value("uniqueItems", false)) {
        for (std::size_t i = 0; i < v.size(); ++i)
          for (std::size_t k = i + 1; k < v.size(); ++k)
            if (v[i] == v[k]) errors.push_back(at + ": items " + std::to_string(i) + " and " + std::to_string(k) + " are equal");
      }
      if (schema.contains("items")) {
        for (std::size_t i = 0; i < v.size(); ++i) check(schema["items"], v[i], at + "/" + std::to_string(i), errors);
      }
    }
    if (v.is_number()) {
      if (schema.contains("minimum") && v.get<double>() < schema["minimum"].get<double>())
        errors.push_back(at + ": " + v.dump() + " is below the minimum " + schema["minimum"].dump());
      if (schema.contains("maximum") && v.get<double>() > schema["maximum"].get<double>())
        errors.push_back(at + ": " + v.dump() + " is above the maximum " + schema["maximum"].dump());
    }
    if (v.is_string()) {
      const std::string s = v.get<std::string>();
      if (schema.contains("pattern") && !std::regex_search(s, std::regex(schema["pattern"].get<std::string>())))
        errors.push_back(at + ": " + v.dump() + " does not match " + schema["pattern"].dump());
      if (schema.contains("format")) {
        const std::string format = schema["format"];
        if ((format == "uri" || format == "uri-reference") && !uriCharsOnly(s))
          errors.push_back(at + ": " + v.dump() + " is not a valid " + format);
        if (format == "uri" && !std::regex_search(s, std::regex("^[A-Za-z][A-Za-z0-9+.-]*:")))
          errors.push_back(at + ": " + v.dump() + " is not an absolute uri");
      }
    }
    if (schema.contains("allOf")) {
      for (const auto& sub : schema["allOf"]) check(sub, v, at, errors);
    }
    for (const char* key : {"anyOf", "oneOf"}) {
      if (!schema.contains(key)) continue;
      int passing = 0;
      for (const auto& sub : schema[key]) {
        std::vector<std::string> subErrors;
        check(sub, v, at, subErrors);
        if (subErrors.empty()) ++passing;
      }
      if (passing == 0) errors.push_back(at + ": matches none of " + std::string(key));
      if (std::string(key) == "oneOf" && passing > 1) errors.push_back(at + ": matches more than one of oneOf");
    }
  }
};

}  // namespace revline::reports::testing
