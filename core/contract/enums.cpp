#include "core/contract/enums.h"

namespace revline::contract {

std::string_view describe(Severity value) {
  switch (value) {
    case Severity::Blocker: return "must not merge (security hole, data loss, crash)";
    case Severity::Major: return "a real bug or risk";
    case Severity::Minor: return "worth fixing";
    case Severity::Nit: return "taste";
  }
  return "";
}

std::string_view describe(Category value) {
  switch (value) {
    case Category::Correctness: return "wrong results, crashes, broken edge cases, contract or API misuse";
    case Category::Security: return "injection, missing authorization or validation, leaked secrets, unsafe input";
    case Category::Concurrency: return "races, deadlocks, unsafe sharing between threads or requests";
    case Category::DataLoss: return "data silently lost, corrupted or not persisted";
    case Category::Performance: return "needless work, quadratic loops, blocking I/O on a hot path";
    case Category::Maintainability: return "hard to change or understand: duplication, dead code, misleading names";
    case Category::Style: return "formatting and conventions with no effect on behaviour";
    case Category::Testing: return "missing, removed, weakened or wrong tests";
  }
  return "";
}

std::string_view describe(Verdict value) {
  switch (value) {
    case Verdict::Approve: return "no problem worth a comment";
    case Verdict::Comment: return "problems worth reading, none that must block";
    case Verdict::RequestChanges: return "a problem that must be fixed before merging";
  }
  return "";
}

std::string_view toString(Severity value) { return enumName(value); }
std::string_view toString(Category value) { return enumName(value); }
std::string_view toString(Verdict value) { return enumName(value); }
std::optional<Severity> parseSeverity(std::string_view name) { return parseEnum<Severity>(name); }
std::optional<Category> parseCategory(std::string_view name) { return parseEnum<Category>(name); }
std::optional<Verdict> parseVerdict(std::string_view name) { return parseEnum<Verdict>(name); }

}  // namespace revline::contract
