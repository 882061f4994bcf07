#include "core/builtin/rules.h"

#include <algorithm>

#include "core/builtin/rule_sets.h"
#include "core/builtin/scan.h"

namespace revline::builtin {

std::vector<contract::Finding> reviewDiff(const diff::Diff& diff, const SourceLookup& source) {
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
    std::stable_sort(found.begin(), found.end(),
                     [](const contract::Finding& a, const contract::Finding& b) { return a.line < b.line; });
    all.insert(all.end(), std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()));
  }
  return all;
}

}  // namespace revline::builtin
