#include "core/reports/gate.h"

#include "core/reports/names.h"

namespace revline::reports {

namespace {
// Lower rank = more severe (the enum is declared most severe first).
int rank(contract::Severity s) { return static_cast<int>(s); }
}  // namespace

int exitCodeFor(const review::ReviewOutcome& outcome, std::optional<contract::Severity> failOn) {
  if (outcome.verdict == contract::Verdict::RequestChanges) return 1;
  if (failOn) {
    for (const auto& published : outcome.findings) {
      if (rank(published.finding.severity) <= rank(*failOn)) return 1;
    }
  }
  return 0;
}

std::string failOnNotice(const review::ReviewOutcome& outcome, std::optional<contract::Severity> failOn) {
  if (!failOn || outcome.verdict == contract::Verdict::RequestChanges) return {};
  std::size_t met = 0;
  for (const auto& published : outcome.findings) met += rank(published.finding.severity) <= rank(*failOn) ? 1 : 0;
  if (met == 0) return {};
  const std::string level(severityName(*failOn));
  return std::to_string(met) + (met == 1 ? " finding" : " findings") + " at " + level + " or above (--fail-on " + level +
         "): exit 1, although the verdict is " + std::string(verdictName(outcome.verdict));
}

std::optional<contract::Severity> parseFailOn(std::string_view value) { return parseSeverityName(value); }

}  // namespace revline::reports
