#include "core/builtin/builtin_provider.h"

#include <array>
#include <utility>

#include "core/contract/serialize.h"
#include "core/review/pipeline.h"
#include "core/review/policy.h"

namespace revline::builtin {

BuiltinProvider::BuiltinProvider(diff::Diff diff, SourceLookup source, SkippedFiles skipped)
    : diff_(std::move(diff)), source_(std::move(source)), skipped_(std::move(skipped)) {}

std::string BuiltinProvider::model() const { return kRulesVersion; }

contract::ReviewReport BuiltinProvider::report() const {
  contract::ReviewReport r;
  r.findings = reviewDiff(diff_, source_);
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

review::ModelResponse BuiltinProvider::complete(const review::ModelRequest& /*request*/, const CancelToken& cancel) {
  if (cancel.cancelled()) throw Cancelled();
  review::ModelResponse response;
  // A line that is not UTF-8 is quoted with U+FFFD (JSON holds Unicode); grounding
  // then drops an edit that would rewrite those bytes.
  response.text = contract::toJson(report()).dump(-1, ' ', false, json::error_handler_t::replace);
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
