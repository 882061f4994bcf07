#include "core/contract/enums.h"

namespace revline::contract {

std::string_view toString(Severity value) { return enumName(value); }
std::string_view toString(Category value) { return enumName(value); }
std::string_view toString(Verdict value) { return enumName(value); }
std::optional<Severity> parseSeverity(std::string_view name) { return parseEnum<Severity>(name); }
std::optional<Category> parseCategory(std::string_view name) { return parseEnum<Category>(name); }
std::optional<Verdict> parseVerdict(std::string_view name) { return parseEnum<Verdict>(name); }

}  // namespace revline::contract
