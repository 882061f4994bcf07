// The builtin rules, one function per family; rules.cpp runs them on each file.
// Every rule reports only problems on ADDED lines.
#pragma once
#include <vector>

#include "core/builtin/scan.h"
#include "core/contract/contract.h"

namespace revline::builtin {

using Findings = std::vector<RuleFinding>;

// java_equality_rules.cpp: String compared with ==/!=, BigDecimal.equals.
void checkJavaStringIdentity(const ScanFile& file, Findings& out);
void checkBigDecimalEquals(const ScanFile& file, Findings& out);

// check_then_act_rule.cpp: containsKey/get-null then put on a plain map.
void checkCheckThenAct(const ScanFile& file, Findings& out);

// sql_injection_rule.cpp: SQL built from strings and passed to a query call.
void checkSqlInjection(const ScanFile& file, Findings& out);

// unsafe_call_rules.cpp: strcpy/sprintf/gets, eval/exec, shell=True, innerHTML.
void checkUnsafeCalls(const ScanFile& file, Findings& out);

// text_rules.cpp: rules on raw text that apply to every file type.
void checkSecrets(const ScanFile& file, Findings& out);
void checkConflictMarkers(const ScanFile& file, Findings& out);

}  // namespace revline::builtin
