#include "core/builtin/rule_catalog.h"

#include <algorithm>

namespace revline::builtin {

// precision: the share of a rule's findings in shipping code (where it could
// block) that were true problems, on the two corpora of docs/PERFORMANCE.md
// ("Builtin reviewer precision": 8 SQL-heavy repositories, then 19 in Go, Java,
// Kotlin, C#, TS/JS, C++, PHP, Ruby, shell and YAML; every finding judged by
// reading it). Findings in tests, docs or CI never block, so they do not count.
// A rule with no finding in shipping code there is UNMEASURED and is set at the
// blocking floor, 0.9, on the evidence of its labelled suite (tests/unit/builtin)
// and of having raised no false positive on the corpora; PERFORMANCE.md lists
// which ones.
const std::vector<RuleInfo>& allRules() {
  static const std::vector<RuleInfo> rules{
      {RuleId::HardcodedToken, "hardcoded-token", 0.9, {"S105", "S106", "B105", "B106", "G101", "gosec", "no-secrets/no-secrets"},
       {"not a secret", "not a real", "fake", "dummy", "placeholder", "example key", "test key"}},
      {RuleId::HardcodedPassword, "hardcoded-password", 0.02, {"S105", "S106", "S107", "B105", "B106", "B107", "G101", "gosec"},
       {"not a secret", "not a real", "fake password", "dummy", "placeholder", "test password", "example password"}},
      {RuleId::MergeConflict, "merge-conflict", 1.0, {}, {}},
      {RuleId::StringIdentity, "string-identity", 0.6, {"S4973", "StringEquality"},
       {"identity", "same instance", "same object", "reference equality", "interned"}},
      {RuleId::BigDecimalEquals, "bigdecimal-equals", 1.0, {"S4973", "BigDecimalEquals"}, {"scale"}},
      {RuleId::CheckThenAct, "check-then-act", 0.0, {"S2886"},
       {"thread-safe", "threadsafe", "single-threaded", "single thread", "not shared", "thread-confined", "synchronized",
        "under lock", "guarded by"}},
      {RuleId::SqlInjection, "sql-injection", 0.02, {"S608", "B608", "G201", "G202", "S2077", "S3649", "gosec"},
       {"sql injection", "injection-safe", "trusted sql", "sanitized", "sanitised", "escaped", "allowlist", "whitelist"}},
      {RuleId::UnboundedCString, "unbounded-c-string", 0.0, {"S5782", "S1081"},
       {"bounded", "fits", "length checked", "size checked", "checked above"}},
      {RuleId::GetsCall, "gets-call", 0.9, {"S5782", "S1081"}, {}},
      {RuleId::DynamicEval, "dynamic-eval", 0.0,
       {"S102", "S307", "B102", "B307", "no-eval", "no-implied-eval", "security/detect-eval-with-expression", "S1523"},
       {"trusted code", "trusted input", "user-supplied code", "runs user code", "sandbox", "deliberate", "intentional"}},
      {RuleId::ShellCommand, "shell-command", 0.9, {"S602", "S604", "S605", "B602", "B604", "B605", "S4721"},
       {"trusted command", "shell injection", "no user input", "shell=true is intended", "deliberate", "intentional"}},
      {RuleId::RawHtml, "raw-html", 0.0,
       {"no-unsanitized/property", "no-unsanitized/method", "react/no-danger", "S5247"},
       {"sanitized", "sanitised", "trusted html", "escaped", "dompurify"}},
  };
  return rules;
}

const RuleInfo& ruleInfo(RuleId id) {
  const auto& rules = allRules();
  return *std::find_if(rules.begin(), rules.end(), [&](const RuleInfo& r) { return r.id == id; });
}

}  // namespace revline::builtin
