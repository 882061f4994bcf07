#include "core/reports/json_report.h"

#include "core/reports/names.h"

namespace revline::reports {

json renderJson(const review::ReviewOutcome& outcome) {
  json findings = json::array();
  for (const auto& published : outcome.findings) {
    json f = findingJson(published.finding);
    f["id"] = published.id;
    findings.push_back(std::move(f));
  }
  json rejected = json::array();
  for (const auto& r : outcome.rejected) {
    rejected.push_back({{"finding", findingJson(r.finding)}, {"reason", r.reason}});
  }
  json j = json::object();
  j["verdict"] = verdictName(outcome.verdict);
  j["modelVerdict"] = verdictName(outcome.modelVerdict);
  j["summary"] = outcome.summary;
  j["findings"] = std::move(findings);
  j["rejected"] = std::move(rejected);
  j["attempts"] = outcome.attempts;
  j["toolCalls"] = outcome.toolCalls;
  j["provider"] = outcome.provider;
  j["model"] = outcome.model;
  j["usage"] = {{"inputTokens", outcome.usage.inputTokens}, {"outputTokens", outcome.usage.outputTokens}};
  return j;
}

}  // namespace revline::reports
