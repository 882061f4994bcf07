// Every builtin rule by id: its name (for `revline: ignore[name]`), the codes
// other tools use for the same concern (so their suppression comments count),
// the words an intent comment must use to silence it, and its measured
// precision, which is the confidence it reports. Only a rule right at least 9
// times in 10 on the corpus (docs/PERFORMANCE.md, "Builtin reviewer precision")
// may block; the others report at most MINOR, as comments.
#pragma once
#include <initializer_list>
#include <string_view>
#include <vector>

#include "core/contract/contract.h"

namespace revline::builtin {

enum class RuleId {
  HardcodedToken,     // formats that are credentials by shape (AWS key id, private key, GitHub/Slack token, API key)
  HardcodedPassword,  // password/secret = "value" assignments
  MergeConflict,
  StringIdentity,     // Java String == / !=
  BigDecimalEquals,
  CheckThenAct,
  SqlInjection,
  UnboundedCString,   // strcpy/strcat/sprintf from a non-literal
  GetsCall,           // gets(), unbounded by definition
  DynamicEval,        // eval/exec of a built string
  ShellCommand,       // subprocess(..., shell=True) on a built command
  RawHtml,            // innerHTML/outerHTML assignment
};

struct RuleInfo {
  RuleId id;
  std::string_view name;                  // stable id users write in revline: ignore[name]
  double precision;                       // measured on the corpus; reported as the confidence
  std::vector<std::string_view> codes;    // noqa / nosec / nolint / eslint rule codes for this concern
  std::vector<std::string_view> concern;  // phrases an intent comment must contain (lower case)
  bool blocks() const { return precision >= 0.9; }
};

const RuleInfo& ruleInfo(RuleId id);
const std::vector<RuleInfo>& allRules();

// A finding with the rule that made it, until suppressions and severity
// context are applied.
struct RuleFinding {
  RuleId rule;
  contract::Finding finding;
};

}  // namespace revline::builtin
