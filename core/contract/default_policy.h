// The policy revline applies when the configuration says nothing. It lives in
// the contract because the schema tells the model which categories and
// severities block by default; review::PolicyConfig takes its defaults from here,
// so the statement and the behaviour are one definition.
#pragma once
#include <algorithm>
#include <array>

#include "core/contract/enums.h"

namespace revline::contract {

inline constexpr std::array<Category, 4> kDefaultBlockingCategories{Category::Correctness, Category::Security,
                                                                    Category::Concurrency, Category::DataLoss};
inline constexpr Severity kDefaultBlockingSeverity = Severity::Major;  // this severity or worse blocks
inline constexpr double kDefaultConfidenceThreshold = 0.6;

constexpr bool blocksByDefault(Category c) {
  return std::find(kDefaultBlockingCategories.begin(), kDefaultBlockingCategories.end(), c) !=
         kDefaultBlockingCategories.end();
}
// Severities are listed worst first (EnumTable<Severity>).
constexpr bool blocksByDefault(Severity s) { return static_cast<int>(s) <= static_cast<int>(kDefaultBlockingSeverity); }

}  // namespace revline::contract
