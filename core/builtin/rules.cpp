#include "core/builtin/rules.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/builtin/introduced.h"
#include "core/builtin/rule_sets.h"
#include "core/builtin/scan.h"
#include "core/builtin/suppressions.h"

namespace revline::builtin {
namespace {

// The new-file text of the finding's lines, as the diff shows them.
std::string statementOf(const ScanFile& file, const contract::Finding& f) {
  std::string text;
  for (std::int64_t n = f.line; n <= f.lastLine(); ++n)
    if (const ScanLine* l = file.shownLine(n)) text += l->text();
  return normalizedStatement(text);
}

contract::Severity atMostMinor(contract::Severity s) {
  return s == contract::Severity::Blocker || s == contract::Severity::Major ? contract::Severity::Minor : s;
}

}  // namespace

std::vector<contract::Finding> reviewDiff(const diff::Diff& diff, const SourceLookup& source) {
  const RemovedText removed(diff);
  std::vector<contract::Finding> all;
  for (const auto& fileDiff : diff.files) {
    if (fileDiff.binary || !fileDiff.newPath || fileDiff.hunks.empty()) continue;  // deleted files add nothing
    const ScanFile file = scanFile(fileDiff, source ? source(*fileDiff.newPath) : std::nullopt);
    Findings found;
    checkSecrets(file, found);
    checkConflictMarkers(file, found);
    checkJavaStringIdentity(file, found);
    checkBigDecimalEquals(file, found);
    checkCheckThenAct(file, found);
    checkSqlInjection(file, found);
    checkUnsafeCalls(file, found);
    const bool nonShipping = isNonShippingPath(file.path);
    std::vector<contract::Finding> kept;
    for (auto& rf : found) {
      if (removed.contains(statementOf(file, rf.finding))) continue;  // a reformat or a move: not new
      if (isSuppressed(file, rf)) continue;
      // Rules below 9-in-10 precision, and anything in tests, fixtures,
      // examples or CI, report as comments: they never block by default.
      if (!ruleInfo(rf.rule).blocks() || (nonShipping && rf.rule != RuleId::MergeConflict))
        rf.finding.severity = atMostMinor(rf.finding.severity);
      kept.push_back(std::move(rf.finding));
    }
    std::stable_sort(kept.begin(), kept.end(),
                     [](const contract::Finding& a, const contract::Finding& b) { return a.line < b.line; });
    all.insert(all.end(), std::make_move_iterator(kept.begin()), std::make_move_iterator(kept.end()));
  }
  return all;
}

}  // namespace revline::builtin
