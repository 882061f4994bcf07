#include "core/reports/json_report.h"

#include "core/diff/diff.h"
#include "core/reports/coverage_text.h"
#include "core/reports/names.h"
#include "core/reports/usage_report.h"

namespace revline::reports {

json coverageJson(const review::Coverage& c) {
  json skipped = json::array();
  for (const auto& s : c.filesSkipped) {
    json entry = {{"path", diff::jsonPath(s.path)}, {"reason", s.reason}};
    if (s.overLimit) entry["overLimit"] = true;  // a request limit, not a choice: not all reviewed
    if (s.partial) entry["partial"] = true;      // only some hunks of the file
    skipped.push_back(std::move(entry));
  }
  // The totals are of the whole change; what of it was excluded by choice is
  // given beside them (added fields: the totals keep their meaning).
  const Excluded excluded = excludedOf(c);
  return {{"filesReviewed", c.filesReviewed}, {"filesTotal", c.filesTotal},
          {"linesReviewed", c.linesReviewed}, {"linesTotal", c.linesTotal},
          {"filesExcluded", excluded.files},  {"linesExcluded", excluded.lines},
          {"filesSkipped", std::move(skipped)}};
}

json chunkingJson(const review::Chunking& c) {
  return {{"budgetTokens", c.budgetTokens},   {"fixedTokens", c.fixedTokens},     {"reserveTokens", c.reserveTokens},
          {"diffTokens", c.diffTokens},       {"requests", c.requests},           {"minimumRequests", c.minimumRequests}};
}

json renderJson(const review::ReviewOutcome& outcome) {
  json findings = json::array();
  for (const auto& published : outcome.findings) {
    json f = findingJson(published.finding);
    f["file"] = diff::jsonPath(published.finding.file);  // a name that is not UTF-8 as git quotes it, not U+FFFD
    f["id"] = published.id;
    if (published.editDroppedReason) f["editDroppedReason"] = *published.editDroppedReason;
    if (published.rangeClamped) f["rangeClamped"] = *published.rangeClamped;
    findings.push_back(std::move(f));
  }
  json rejected = json::array();
  for (const auto& r : outcome.rejected) {
    rejected.push_back({{"finding", findingJson(r.finding)}, {"reason", r.reason}});
  }
  json j = json::object();
  j["verdict"] = verdictName(outcome.verdict);
  j["modelVerdict"] = outcome.modelVerdict ? json(verdictName(*outcome.modelVerdict)) : json(nullptr);
  j["summary"] = outcome.summary;
  j["findings"] = std::move(findings);
  j["rejected"] = std::move(rejected);
  j["unplacedBlocking"] = outcome.unplacedBlocking;
  if (outcome.groundingRetry)
    j["groundingRetry"] = {{"rejected", outcome.groundingRetry->rejected}, {"placed", outcome.groundingRetry->placed}};
  j["coverage"] = coverageJson(outcome.coverage);
  j["attempts"] = outcome.attempts;
  j["toolCalls"] = outcome.toolCalls;
  j["requests"] = outcome.usage.requests;
  j["provider"] = outcome.provider;
  j["model"] = outcome.model;
  j["usage"] = usageJson(outcome.usage, outcome.prices);
  if (outcome.chunking) j["chunking"] = chunkingJson(*outcome.chunking);
  j["warnings"] = outcome.warnings;  // also on stderr; here for a CI job that keeps only the report
  return j;
}

}  // namespace revline::reports
