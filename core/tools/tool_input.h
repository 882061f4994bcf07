// Typed tool inputs with one field list per struct, like the contract: the JSON
// Schema sent to the model and the parsing/validation of the model's arguments
// are both derived from that list, so they cannot disagree.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "core/support/json.h"

namespace revline::tools {

template <class S>
struct InputField {
  using Member = std::variant<std::string S::*, std::optional<std::string> S::*, std::optional<std::int64_t> S::*>;
  std::string_view name;         // the JSON name
  std::string_view description;  // sent to the model
  Member member;
  bool required() const { return std::holds_alternative<std::string S::*>(member); }
};

struct ReadFileInput {
  std::string path;
  std::optional<std::int64_t> startLine;
  std::optional<std::int64_t> endLine;
  static const std::array<InputField<ReadFileInput>, 3>& fields() {
    static const std::array<InputField<ReadFileInput>, 3> f{{
        {"path", "Repository-relative path of the file, e.g. src/main/java/App.java.", &ReadFileInput::path},
        {"start_line", "First line to return (1-based). Default: 1.", &ReadFileInput::startLine},
        {"end_line", "Last line to return (inclusive). Default: start_line + 499 or the end of the file.",
         &ReadFileInput::endLine},
    }};
    return f;
  }
};

struct SearchTextInput {
  std::string query;
  std::optional<std::string> pathGlob;
  static const std::array<InputField<SearchTextInput>, 2>& fields() {
    static const std::array<InputField<SearchTextInput>, 2> f{{
        {"query", "Literal text to find (not a regular expression). Case-insensitive when it has no upper-case letter.",
         &SearchTextInput::query},
        {"path_glob", "Only search files matching this glob, e.g. src/**/*.java or *.py.", &SearchTextInput::pathGlob},
    }};
    return f;
  }
};

struct GlobInput {
  std::string pattern;
  static const std::array<InputField<GlobInput>, 1>& fields() {
    static const std::array<InputField<GlobInput>, 1> f{{
        {"pattern",
         "Glob over repository-relative paths: * within a path segment, ** across directories, ? one character, "
         "[abc] a set, {a,b} alternatives. A pattern without / matches file names in any directory.",
         &GlobInput::pattern},
    }};
    return f;
  }
};

struct FindUsagesInput {
  std::string symbol;
  static const std::array<InputField<FindUsagesInput>, 1>& fields() {
    static const std::array<InputField<FindUsagesInput>, 1> f{{
        {"symbol", "An identifier (function, method, class, field, variable), matched as a whole word.",
         &FindUsagesInput::symbol},
    }};
    return f;
  }
};

// The JSON Schema of an input struct: an object with one property per field,
// the non-optional ones required, no other properties.
template <class S>
json inputSchema() {
  json properties = json::object();
  json required = json::array();
  for (const auto& f : S::fields()) {
    json p;
    std::visit(
        [&](auto member) {
          using M = std::remove_cvref_t<decltype(std::declval<S&>().*member)>;
          if constexpr (std::is_same_v<M, std::optional<std::int64_t>>) {
            p["type"] = "integer";
          } else {
            p["type"] = "string";
          }
        },
        f.member);
    p["description"] = std::string(f.description);
    properties[std::string(f.name)] = std::move(p);
    if (f.required()) required.push_back(std::string(f.name));
  }
  return {{"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)},
          {"additionalProperties", false}};
}

namespace detail {
std::string describe(const json& value);  // the value as the model sent it, cut for messages
std::optional<std::int64_t> integerValue(const json& value);  // 12, 12.0, "12"
json argumentsObject(const json& arguments, std::string& error);  // accepts an object or a JSON string holding one
}  // namespace detail

// Parses the model's arguments into S. On failure returns the message the model sees.
template <class S>
std::variant<S, std::string> parseInput(const json& arguments, std::string_view tool) {
  const std::string prefix = std::string(tool) + ": ";
  std::string error;
  json args = detail::argumentsObject(arguments, error);
  if (!error.empty()) return prefix + error;
  std::string names;
  for (const auto& f : S::fields()) names += (names.empty() ? "" : ", ") + std::string(f.name);
  for (auto it = args.begin(); it != args.end(); ++it) {
    bool known = false;
    for (const auto& f : S::fields()) known |= f.name == it.key();
    if (!known) return prefix + "unknown argument \"" + it.key() + "\"; the arguments are: " + names;
  }
  S out{};
  for (const auto& f : S::fields()) {
    const std::string name(f.name);
    const bool present = args.contains(name) && !args[name].is_null();
    std::string failure;
    std::visit(
        [&](auto member) {
          using M = std::remove_cvref_t<decltype(out.*member)>;
          if (!present) {
            if constexpr (std::is_same_v<M, std::string>) {
              failure = "missing required argument \"" + name + "\" (a string)";
            }
            return;
          }
          const json& v = args[name];
          if constexpr (std::is_same_v<M, std::optional<std::int64_t>>) {
            auto n = detail::integerValue(v);
            if (!n) failure = "argument \"" + name + "\" must be an integer, got " + detail::describe(v);
            else out.*member = *n;
          } else {
            if (!v.is_string()) failure = "argument \"" + name + "\" must be a string, got " + detail::describe(v);
            else out.*member = v.get<std::string>();
          }
        },
        f.member);
    if (!failure.empty()) return prefix + failure;
  }
  return out;
}

}  // namespace revline::tools
