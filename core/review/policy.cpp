#include "core/review/policy.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>

#include "core/review/pipeline.h"
#include "core/support/text.h"

namespace revline::review {
namespace {

using contract::Severity;

// Blocker is the most severe and the smallest enumerator; spelled out so the
// comparison does not silently depend on enum order.
int rank(Severity s) {
  switch (s) {
    case Severity::Blocker: return 0;
    case Severity::Major: return 1;
    case Severity::Minor: return 2;
    case Severity::Nit: return 3;
  }
  return 4;
}

bool atLeastAsSevere(Severity s, Severity bar) { return rank(s) <= rank(bar); }

std::string trim(std::string_view s) { return std::string(trimmed(s)); }

bool isContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Cuts `s` to at most `maxChars` code points, the last being "…", never inside
// a UTF-8 sequence. Counting code points (not bytes) keeps the cap meaningful
// for non-Latin text; stray continuation bytes count with their predecessor.
void capCodePoints(std::string& s, std::size_t maxChars) {
  std::size_t count = 0, keepBytes = 0;
  const std::size_t keep = maxChars > 0 ? maxChars - 1 : 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i > 0 && isContinuationByte(s[i])) continue;
    if (count == keep) keepBytes = i;
    ++count;
  }
  if (count <= maxChars) return;
  s.resize(keepBytes);
  s += "…";
}

// The finding that wins a duplicate: more severe, then more confident, then first seen.
bool outranks(const contract::Finding& a, const contract::Finding& b) {
  if (rank(a.severity) != rank(b.severity)) return rank(a.severity) < rank(b.severity);
  return a.confidence > b.confidence;
}

}  // namespace

PolicyConfig::PolicyConfig()
    : blockingCategories(contract::kDefaultBlockingCategories.begin(), contract::kDefaultBlockingCategories.end()) {}

bool blocks(const contract::Finding& f, const PolicyConfig& policy) {
  return policy.blockingCategories.count(f.category) > 0 && atLeastAsSevere(f.severity, policy.blockingSeverity) &&
         f.confidence >= policy.confidenceThreshold;
}

contract::Verdict decideVerdict(const std::vector<PublishedFinding>& findings, const PolicyConfig& policy) {
  const bool anyBlocks = std::any_of(findings.begin(), findings.end(),
                                     [&](const PublishedFinding& p) { return blocks(p.finding, policy); });
  if (anyBlocks) return contract::Verdict::RequestChanges;
  return findings.empty() ? contract::Verdict::Approve : contract::Verdict::Comment;
}

contract::Verdict decideVerdict(const std::vector<PublishedFinding>& findings, const PolicyConfig& policy,
                                const ApprovalEvidence& evidence) {
  const contract::Verdict verdict = decideVerdict(findings, policy);
  if (verdict == contract::Verdict::Approve &&
      (evidence.unplacedBlocking > 0 || evidence.changesRequestedNotShown || evidence.partsNotReviewed > 0))
    return contract::Verdict::Comment;
  return verdict;
}

std::vector<PublishedFinding> applyPublicationFilters(std::vector<PublishedFinding> findings,
                                                      const PolicyConfig& policy, std::size_t* overCap) {
  std::vector<PublishedFinding> kept;
  kept.reserve(findings.size());
  // Where each (file, line, title) was kept: a lookup, not a scan of what is kept
  // (the builtin rules can answer tens of thousands of findings on a large change).
  std::map<std::tuple<std::string, std::int64_t, std::string>, std::size_t> keptAt;
  for (auto& p : findings) {
    auto& f = p.finding;
    f.title = trim(f.title);
    f.explanation = trim(f.explanation);
    if (f.suggestedFix) {
      f.suggestedFix = trim(*f.suggestedFix);
      if (f.suggestedFix->empty()) f.suggestedFix.reset();
    }
    if (f.title.empty() || f.explanation.empty()) continue;
    capCodePoints(f.explanation, policy.maxExplanationChars);

    // Dedupe on (file, line, title).
    const auto [at, added] = keptAt.try_emplace({f.file, f.line, f.title}, kept.size());
    if (added) {
      kept.push_back(std::move(p));
    } else if (outranks(f, kept[at->second].finding)) {
      kept[at->second] = std::move(p);
    }
  }

  // Total order on the sort keys and a stable sort: the same input always
  // publishes in the same order.
  std::stable_sort(kept.begin(), kept.end(), [](const PublishedFinding& a, const PublishedFinding& b) {
    const auto& x = a.finding;
    const auto& y = b.finding;
    return std::tuple(rank(x.severity), -x.confidence, std::string_view(x.file), x.line, x.lastLine()) <
           std::tuple(rank(y.severity), -y.confidence, std::string_view(y.file), y.line, y.lastLine());
  });
  if (overCap) *overCap = kept.size() > policy.maxFindings ? kept.size() - policy.maxFindings : 0;
  if (kept.size() > policy.maxFindings) kept.resize(policy.maxFindings);
  return kept;
}

void notePublicationCap(std::string& summary, std::size_t overCap, const PolicyConfig& policy) {
  if (overCap == 0) return;
  if (!summary.empty()) summary += summary.find('\n') == std::string::npos ? " " : "\n";
  summary += "Not shown: " + std::to_string(overCap) + (overCap == 1 ? " more finding" : " more findings") +
             ", past the max_findings cap of " + std::to_string(policy.maxFindings) +
             " (the most severe and most confident are shown; raise policy.max_findings to see more).";
}

}  // namespace revline::review
