#include "core/builtin/rules.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "core/builtin/introduced.h"
#include "core/builtin/rule_sets.h"
#include "core/builtin/scan.h"
#include "core/builtin/secrets.h"
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

// Which rules run: the old side of a change skips the text rules, whose findings
// are never old (a credential edited to another value is a new secret, and a
// conflict marker is never carried over).
enum class RuleScope { All, CodeOnly };

Findings runRules(const ScanFile& file, RuleScope scope = RuleScope::All) {
  Findings found;
  if (scope == RuleScope::All) {
    checkSecrets(file, found);
    checkConflictMarkers(file, found);
  }
  checkJavaStringIdentity(file, found);
  checkBigDecimalEquals(file, found);
  checkCheckThenAct(file, found);
  checkSqlInjection(file, found);
  checkUnsafeCalls(file, found);
  return found;
}

bool isTextRule(RuleId rule) {
  return rule == RuleId::HardcodedToken || rule == RuleId::HardcodedPassword || rule == RuleId::MergeConflict;
}

bool hasRemovedLines(const diff::FileDiff& file) {
  for (const auto& h : file.hunks)
    for (const auto& l : h.lines)
      if (l.kind == diff::LineKind::Removed) return true;
  return false;
}

// An edit this close to the statement it replaced (a rename inside a call, an
// argument added at the end) leaves the same problem, not a new one.
constexpr double kSameStatement = 0.7;

// The index of the hunk whose new side holds `line`, or -1.
int hunkOf(const diff::FileDiff& file, std::int64_t line) {
  for (std::size_t i = 0; i < file.hunks.size(); ++i) {
    const diff::Hunk& h = file.hunks[i];
    // A hunk cut from one of git's (a notebook's source runs) counts as that one.
    if (line >= h.newStart && line < h.newStart + std::max(1, h.newCount)) return h.origin >= 0 ? h.origin : static_cast<int>(i);
  }
  return -1;
}

// What the rules said of the file before the change, on the lines the change
// removed: by rule and hunk, the statements they sat on. Only the hunk the new
// finding is in counts: an old problem elsewhere in the file does not make a
// new one old.
struct OldFinding {
  RuleId rule;
  int hunk;
  std::string statement;
};
struct OldFindings {
  std::vector<OldFinding> found;
  // `whole`: the old statement also counts when it holds the new one whole (the
  // line as it was, with the comment the change removed after it).
  bool raised(RuleId rule, int hunk, const std::string& statement, bool whole = false) const {
    for (const OldFinding& old : found)
      if (old.rule == rule && old.hunk == hunk && hunk >= 0 &&
          (statementSimilarity(old.statement, statement) >= kSameStatement ||
           statementSimilarity(withoutPointerCasts(old.statement), withoutPointerCasts(statement)) >= kSameStatement ||
           (whole && old.statement.find(statement) != std::string::npos)))
        return true;
    return false;
  }
};

// The file before the change, scanned once: what the code rules raised on it
// (an edit to such a statement is no new problem), and what any rule raised
// there that a suppression comment silenced (a change that removes the
// comment, and so edits the line, brings the finding back: it is new to the gate).
struct OldSideFindings {
  OldFindings raised;
  OldFindings suppressed;
};

OldSideFindings oldFindingsOf(const diff::FileDiff& fileDiff, const std::optional<std::string>& newText) {
  OldSideFindings out;
  const diff::FileDiff oldSide = oldSideOf(fileDiff);  // its hunks in the same order as the new side's
  const ScanFile old = scanFile(oldSide, oldTextOf(fileDiff, newText), /*notebookLinesAlone=*/true);
  for (const RuleFinding& rf : runRules(old, RuleScope::All)) {
    const OldFinding found{rf.rule, hunkOf(oldSide, rf.finding.line), statementOf(old, rf.finding)};
    if (isSuppressed(old, rf)) out.suppressed.found.push_back(found);
    else if (!isTextRule(rf.rule)) out.raised.found.push_back(found);  // a text rule's finding is never old
  }
  return out;
}

// The secret values the change removed, in any file (a credential moved, or its
// line edited around it, is the credential that was there).
class RemovedSecrets {
 public:
  explicit RemovedSecrets(const diff::Diff& diff) : diff_(diff) {}
  bool has(const std::string& value) {
    if (!values_) {
      values_.emplace();
      for (const auto& f : diff_.files)
        for (const auto& h : f.hunks)
          for (const auto& l : h.lines)
            if (l.kind == diff::LineKind::Removed)
              for (const SecretMatch& m : findSecrets(l.text, f.path()))
                values_->insert(std::string(l.text.substr(m.offset, m.length)));
    }
    return values_->count(value) > 0;
  }

 private:
  const diff::Diff& diff_;
  std::optional<std::set<std::string>> values_;
};

// A secret finding whose every value the change also removed: the line around
// a credential was edited (a comment added, the key renamed, an argument
// dropped), not the credential. Re-raised on any edit of the line before; a
// credential edited to another value is still a new secret.
bool secretsAlreadyThere(const ScanFile& file, const contract::Finding& f, RemovedSecrets& removed) {
  const ScanLine* line = file.shownLine(f.line);
  if (!line) return false;
  const std::string text(line->text());
  const auto matches = findSecrets(text, file.path);
  return !matches.empty() && std::all_of(matches.begin(), matches.end(), [&](const SecretMatch& m) {
    return removed.has(text.substr(m.offset, m.length));
  });
}

}  // namespace

std::vector<contract::Finding> reviewDiff(const diff::Diff& diff, const SourceLookup& source, const CancelToken* cancel) {
  const RemovedText removed(diff);
  RemovedSecrets removedSecrets(diff);
  std::vector<contract::Finding> all;
  for (const auto& fileDiff : diff.files) {
    if (cancel && cancel->cancelled()) throw Cancelled();
    if (fileDiff.binary || !fileDiff.newPath || fileDiff.hunks.empty()) continue;  // deleted files add nothing
    const std::optional<std::string> newText = source ? source(*fileDiff.newPath) : std::nullopt;
    const ScanFile file = scanFile(fileDiff, newText);
    Findings found = runRules(file);
    // The old side is read only when there is something to compare with it.
    std::optional<OldSideFindings> before;
    if (!found.empty() && hasRemovedLines(fileDiff)) before = oldFindingsOf(fileDiff, newText);
    const bool nonShipping = isNonShippingPath(file.path);
    const bool testCode = isTestOrExamplePath(file.path);
    std::vector<contract::Finding> kept;
    for (auto& rf : found) {
      const std::string statement = statementOf(file, rf.finding);
      const int hunk = hunkOf(fileDiff, rf.finding.line);
      const bool unsuppressed = before && before->suppressed.raised(rf.rule, hunk, statement, /*whole=*/true);
      if (removed.contains(statement) && !unsuppressed) continue;  // a reformat or a move: not new
      if ((rf.rule == RuleId::HardcodedPassword || rf.rule == RuleId::HardcodedToken) && !unsuppressed &&
          secretsAlreadyThere(file, rf.finding, removedSecrets))
        continue;
      // The statement it edits had it: not new.
      if (before && before->raised.raised(rf.rule, hunk, statement)) continue;
      if (isSuppressed(file, rf)) continue;
      // Rules below 9-in-10 precision, and anything in tests, fixtures,
      // examples, docs or CI, report as comments: they never block by default;
      // but a token of a known shape blocks in docs and CI, where it leaks.
      const bool keepsSeverity = rf.rule == RuleId::MergeConflict || (rf.rule == RuleId::HardcodedToken && !testCode);
      if (!ruleInfo(rf.rule).blocks() || (nonShipping && !keepsSeverity))
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
