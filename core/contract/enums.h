// The wire names of the contract's enums, one table each. Parsing is exact and
// case-sensitive: an unknown name is an error, never a default (unlike
// NLOHMANN_JSON_SERIALIZE_ENUM, which would read "CRITICAL" as the first value).
#pragma once
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace revline::contract {

enum class Severity { Blocker, Major, Minor, Nit };
enum class Category { Correctness, Security, Concurrency, DataLoss, Performance, Maintainability, Style, Testing };
enum class Verdict { Approve, Comment, RequestChanges };

template <class E>
struct EnumTable;  // specialised below: a constexpr array `names` of {value, wire name}

template <>
struct EnumTable<Severity> {
  static constexpr std::array<std::pair<Severity, std::string_view>, 4> names{{
      {Severity::Blocker, "BLOCKER"}, {Severity::Major, "MAJOR"}, {Severity::Minor, "MINOR"}, {Severity::Nit, "NIT"}}};
};

template <>
struct EnumTable<Category> {
  static constexpr std::array<std::pair<Category, std::string_view>, 8> names{{
      {Category::Correctness, "CORRECTNESS"},
      {Category::Security, "SECURITY"},
      {Category::Concurrency, "CONCURRENCY"},
      {Category::DataLoss, "DATA_LOSS"},
      {Category::Performance, "PERFORMANCE"},
      {Category::Maintainability, "MAINTAINABILITY"},
      {Category::Style, "STYLE"},
      {Category::Testing, "TESTING"}}};
};

template <>
struct EnumTable<Verdict> {
  static constexpr std::array<std::pair<Verdict, std::string_view>, 3> names{{
      {Verdict::Approve, "APPROVE"}, {Verdict::Comment, "COMMENT"}, {Verdict::RequestChanges, "REQUEST_CHANGES"}}};
};

template <class E>
concept ContractEnum = requires { EnumTable<E>::names; };

template <ContractEnum E>
constexpr std::string_view enumName(E value) {
  for (const auto& [v, name] : EnumTable<E>::names)
    if (v == value) return name;
  return "?";  // unreachable for a value of the enum
}

template <ContractEnum E>
constexpr std::optional<E> parseEnum(std::string_view name) {
  for (const auto& [v, n] : EnumTable<E>::names)
    if (n == name) return v;
  return std::nullopt;
}

// Every value of a contract enum, in the table's order (reports list categories
// from here, so a new category cannot be missed).
template <ContractEnum E>
constexpr auto allValues() {
  std::array<E, EnumTable<E>::names.size()> out{};
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = EnumTable<E>::names[i].first;
  return out;
}

// "BLOCKER, MAJOR, MINOR, NIT": the allowed values, for messages.
template <ContractEnum E>
std::string allowedNames() {
  std::string out;
  for (const auto& [v, name] : EnumTable<E>::names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

// The one-line meaning of each value, written for the model (sent in the schema).
std::string_view describe(Severity value);
std::string_view describe(Category value);
std::string_view describe(Verdict value);

std::string_view toString(Severity value);
std::string_view toString(Category value);
std::string_view toString(Verdict value);
std::optional<Severity> parseSeverity(std::string_view name);  // exact, case-sensitive
std::optional<Category> parseCategory(std::string_view name);
std::optional<Verdict> parseVerdict(std::string_view name);

}  // namespace revline::contract
