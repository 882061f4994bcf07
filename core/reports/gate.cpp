#include "core/reports/gate.h"

#include <algorithm>

#include "core/reports/names.h"

namespace revline::reports {

namespace {
// Lower rank = more severe (the enum is declared most severe first).
int rank(contract::Severity s) { return static_cast<int>(s); }

// The published findings at least as severe as `failOn` (none without it).
std::size_t meeting(const review::ReviewOutcome& outcome, std::optional<contract::Severity> failOn) {
  if (!failOn) return 0;
  return static_cast<std::size_t>(std::count_if(outcome.findings.begin(), outcome.findings.end(), [&](const auto& p) {
    return rank(p.finding.severity) <= rank(*failOn);
  }));
}
}  // namespace

int exitCodeFor(const review::ReviewOutcome& outcome, std::optional<contract::Severity> failOn) {
  return outcome.verdict == contract::Verdict::RequestChanges || meeting(outcome, failOn) > 0 ? 1 : 0;
}

std::string failOnNotice(const review::ReviewOutcome& outcome, std::optional<contract::Severity> failOn) {
  if (outcome.verdict == contract::Verdict::RequestChanges) return {};
  const std::size_t met = meeting(outcome, failOn);
  if (met == 0) return {};
  const std::string level(severityName(*failOn));
  return std::to_string(met) + (met == 1 ? " finding" : " findings") + " at " + level + " or above (--fail-on " + level +
         "): exit 1, although the verdict is " + std::string(verdictName(outcome.verdict));
}

std::vector<std::string> unplacedBlockingLines(const review::ReviewOutcome& outcome) {
  std::vector<std::string> out;
  if (outcome.unplacedBlocking <= 0) return out;
  for (const auto& r : outcome.rejected) {
    if (!r.blocking) continue;
    const contract::Finding& f = r.finding;
    std::string where = f.file + ":" + std::to_string(f.line);
    if (f.endLine && *f.endLine != f.line) where += "-" + std::to_string(*f.endLine);
    out.push_back("a blocking finding could not be placed on the diff, so the verdict is not APPROVE: " +
                  std::string(severityName(f.severity)) + " " + where + ": " + f.title + " (" + r.reason + ")");
  }
  return out;
}

std::optional<contract::Severity> parseFailOn(std::string_view value) { return parseSeverityName(value); }

}  // namespace revline::reports
