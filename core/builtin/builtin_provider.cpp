#include "core/builtin/builtin_provider.h"

#include <algorithm>
#include <array>
#include <utility>

#include "core/contract/reply_parser.h"
#include "core/contract/serialize.h"
#include "core/review/pipeline.h"
#include "core/review/policy.h"

namespace revline::builtin {

BuiltinProvider::BuiltinProvider(diff::Diff diff, SourceLookup source, SkippedFiles skipped)
    : diff_(std::move(diff)), source_(std::move(source)), skipped_(std::move(skipped)) {}

std::string BuiltinProvider::model() const { return kRulesVersion; }

contract::ReviewReport BuiltinProvider::report(const CancelToken* cancel) const {
  contract::ReviewReport r;
  r.findings = reviewDiff(diff_, source_, cancel);
  r.summary = summarize(r.findings, diff_.files.size());
  if (skipped_) {
    // Reported, not fatal: the rules still saw these files' diff lines.
    const std::vector<std::string> notes = skipped_();
    if (!notes.empty()) {
      r.summary += " Not read whole (only their diff lines were checked):";
      for (const auto& n : notes) r.summary += " " + n + ".";
    }
  }
  r.verdict = verdictFor(r.findings);
  return r;
}

namespace {

// A line that is not UTF-8 is quoted with U+FFFD (JSON holds Unicode); grounding
// then drops an edit that would rewrite those bytes.
std::string asReplyText(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

int severityRank(contract::Severity s) {
  switch (s) {
    case contract::Severity::Blocker: return 0;
    case contract::Severity::Major: return 1;
    case contract::Severity::Minor: return 2;
    case contract::Severity::Nit: return 3;
  }
  return 4;
}

// The answer within what the reply parser reads (contract::kMaxReplyBytes), as
// a model's is within its output limit: when the findings do not all fit, the
// most severe are listed (in their order), and the summary says how many were
// left out. The verdict is the one over them all; the listed ones keep it.
void fitTheReply(contract::ReviewReport& report, std::size_t maxBytes) {
  std::vector<std::size_t> bytes;
  std::size_t total = 0;
  for (const auto& f : report.findings) {
    bytes.push_back(asReplyText(contract::toJson(f)).size() + 1);
    total += bytes.back();
  }
  const std::size_t room = maxBytes - std::min(maxBytes, asReplyText(contract::toJson(report)).size() - total + 1024);
  if (total <= room) return;
  std::vector<std::size_t> byRank(report.findings.size());
  for (std::size_t i = 0; i < byRank.size(); ++i) byRank[i] = i;
  std::stable_sort(byRank.begin(), byRank.end(), [&](std::size_t a, std::size_t b) {
    return severityRank(report.findings[a].severity) < severityRank(report.findings[b].severity);
  });
  std::vector<bool> listed(report.findings.size(), false);
  std::size_t used = 0, kept = 0;
  for (std::size_t i : byRank) {
    if (used + bytes[i] > room) break;
    used += bytes[i];
    listed[i] = true;
    ++kept;
  }
  std::vector<contract::Finding> shown;
  for (std::size_t i = 0; i < listed.size(); ++i)
    if (listed[i]) shown.push_back(std::move(report.findings[i]));
  report.summary += " This answer lists " + std::to_string(kept) + " of them, the most severe first; the other " +
                    std::to_string(listed.size() - kept) + " did not fit in one reply (" +
                    std::to_string(maxBytes >> 20) + " MB): fix these and review again.";
  report.findings = std::move(shown);
}

}  // namespace

review::ModelResponse BuiltinProvider::complete(const review::ModelRequest& /*request*/, const CancelToken& cancel) {
  if (cancel.cancelled()) throw Cancelled();
  contract::ReviewReport answer = report(&cancel);
  fitTheReply(answer, contract::kMaxReplyBytes);
  review::ModelResponse response;
  response.text = asReplyText(contract::toJson(answer));
  response.finish = review::FinishReason::Stop;
  return response;
}

std::string summarize(const std::vector<contract::Finding>& findings, std::size_t changedFiles) {
  const std::string files = std::to_string(changedFiles) + (changedFiles == 1 ? " changed file." : " changed files.");
  if (findings.empty()) return "No problems found by the builtin rules in " + files;
  static constexpr std::array<std::pair<contract::Severity, const char*>, 4> order{
      {{contract::Severity::Blocker, "blocker"}, {contract::Severity::Major, "major"},
       {contract::Severity::Minor, "minor"}, {contract::Severity::Nit, "nit"}}};
  std::string counts;
  for (const auto& [severity, word] : order) {
    std::size_t n = 0;
    for (const auto& f : findings) n += f.severity == severity ? 1 : 0;
    if (n == 0) continue;
    if (!counts.empty()) counts += ", ";
    counts += std::to_string(n) + " " + word;
  }
  const std::size_t n = findings.size();
  return "The builtin rules found " + std::to_string(n) + (n == 1 ? " problem (" : " problems (") + counts + ") in " + files;
}

contract::Verdict verdictFor(const std::vector<contract::Finding>& findings) {
  std::vector<review::PublishedFinding> asPublished;
  for (const auto& f : findings) asPublished.push_back({f, {}, {}, {}});
  // The default policy's blocking categories and severity, defined once; the
  // rules' measured confidence is left to the configured policy (as before).
  review::PolicyConfig policy;
  policy.confidenceThreshold = 0.0;
  return review::decideVerdict(asPublished, policy);
}

}  // namespace revline::builtin
