#include "core/reports/text_report.h"

#include <cstdio>
#include <map>
#include <sstream>
#include <string_view>
#include <vector>

#include "core/reports/coverage_text.h"
#include "core/reports/names.h"
#include "core/reports/usage_report.h"
#include "core/support/terminal_text.h"

namespace revline::reports {

using contract::Severity;
using contract::Verdict;

namespace {

constexpr std::size_t kSkippedShown = 20;  // files named under "Skipped"; the rest are counted

struct Palette {
  bool on;
  std::string wrap(std::string_view code, std::string_view text) const {
    if (!on) return std::string(text);
    return "\x1b[" + std::string(code) + "m" + std::string(text) + "\x1b[0m";
  }
};

std::string_view severityColour(Severity s) {
  switch (s) {
    case Severity::Blocker: return "1;31";
    case Severity::Major: return "31";
    case Severity::Minor: return "33";
    case Severity::Nit: return "36";
  }
  return "0";
}

std::string_view verdictColour(Verdict v) {
  switch (v) {
    case Verdict::RequestChanges: return "1;31";
    case Verdict::Comment: return "1;33";
    case Verdict::Approve: return "1;32";
  }
  return "1";
}

// File names and the model's words are untrusted: shown, never obeyed by the
// terminal (support/terminal_text.h). One-line fields keep to one line.
std::string line(std::string_view text) { return terminalSafe(text, Newlines::Escape); }
std::string lines(std::string_view text) { return terminalSafe(text); }

std::string location(const contract::Finding& f) {
  std::string s = line(f.file) + ":" + std::to_string(f.line);
  if (f.endLine && *f.endLine != f.line) s += "-" + std::to_string(*f.endLine);
  return s;
}

// Writes `text` line by line, each line prefixed by `prefix` (indent + marker).
void writeIndented(std::ostream& out, std::string_view untrusted, const std::string& prefix) {
  const std::string safe = lines(untrusted);
  const std::string_view text = safe;
  std::size_t start = 0;
  while (true) {
    const std::size_t nl = text.find('\n', start);
    out << prefix << text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start) << "\n";
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
}

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

}  // namespace

std::string formatConfidence(double confidence) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", confidence);
  return buf;
}

std::string renderText(const review::ReviewOutcome& outcome, bool colour) {
  const Palette p{colour};
  std::ostringstream out;

  out << "revline: " << p.wrap(verdictColour(outcome.verdict), verdictName(outcome.verdict));
  if (outcome.modelVerdict && *outcome.modelVerdict != outcome.verdict)
    out << (outcome.provider == "builtin" ? " (the builtin rules said " : " (the model said ")
        << verdictName(*outcome.modelVerdict) << ")";  // no model ran with builtin
  out << "\n";
  if (!outcome.summary.empty()) {
    // Its later lines indented: none of the model's lines reads as one of revline's
    // own ("revline: APPROVE", "No findings.", "Coverage: ...") at the line's start.
    const std::string summary = lines(outcome.summary);
    const std::size_t firstEnd = summary.find('\n');
    out << summary.substr(0, firstEnd) << "\n";
    if (firstEnd != std::string::npos) writeIndented(out, std::string_view(summary).substr(firstEnd + 1), "  ");
  }

  for (const auto& published : outcome.findings) {
    const contract::Finding& f = published.finding;
    out << "\n"
        << p.wrap("1", location(f)) << ": " << p.wrap(severityColour(f.severity), severityName(f.severity)) << " "
        << categoryName(f.category) << " " << line(f.title) << " (confidence " << formatConfidence(f.confidence) << ")\n";
    if (!f.explanation.empty()) writeIndented(out, f.explanation, "    ");
    if (f.suggestedFix) writeIndented(out, "Fix: " + *f.suggestedFix, "    ");
    if (f.edit) {
      out << "    Edit:\n";
      writeIndented(out, f.edit->original, "      " + p.wrap("31", "- "));
      if (f.edit->replacement.empty()) {
        out << "      " << p.wrap("32", "+") << "\n";
      } else {
        writeIndented(out, f.edit->replacement, "      " + p.wrap("32", "+ "));
      }
    }
    if (published.editDroppedReason) out << "    (fix withheld: " << lines(*published.editDroppedReason) << ")\n";
    if (published.rangeClamped) out << "    (" << lines(*published.rangeClamped) << ")\n";
  }
  if (outcome.findings.empty()) out << "\nNo findings.\n";

  if (!outcome.rejected.empty()) {
    out << "\nRejected (not published):\n";
    for (const auto& r : outcome.rejected) {
      out << "  " << location(r.finding) << ": " << severityName(r.finding.severity) << " "
          << categoryName(r.finding.category) << " " << line(r.finding.title) << "\n";
      writeIndented(out, r.reason, "    ");
    }
  }

  if (outcome.groundingRetry)
    out << "\nGrounding feedback: " << outcome.groundingRetry->rejected << " unplaced finding(s) sent back to the model; "
        << outcome.groundingRetry->placed << " placed on the second answer.\n";
  if (outcome.unplacedBlocking > 0)
    out << "\n" << plural(static_cast<std::size_t>(outcome.unplacedBlocking), "blocking finding", "blocking findings")
        << " could not be placed on the diff (see Rejected), so the verdict is not APPROVE.\n";
  // The files not reviewed first (a limit, not a choice), then the excluded; past
  // kSkippedShown a count: a vendored node_modules/ is 10,000 lines of "Skipped".
  {
    std::vector<const review::SkippedFile*> skipped;
    for (bool overLimit : {true, false})
      for (const auto& s : outcome.coverage.filesSkipped)
        if (s.overLimit == overLimit) skipped.push_back(&s);
    for (std::size_t i = 0; i < skipped.size() && i < kSkippedShown; ++i)
      out << "Skipped " << lines(skippedFileText(*skipped[i])) << "\n";
    if (skipped.size() > kSkippedShown) {
      std::size_t notReviewed = 0;
      for (std::size_t i = kSkippedShown; i < skipped.size(); ++i) notReviewed += skipped[i]->overLimit;
      out << "Skipped " << skipped.size() - kSkippedShown << " more files (" << notReviewed << " not reviewed, "
          << skipped.size() - kSkippedShown - notReviewed << " excluded); --format json lists every one.\n";
    }
  }
  const auto& c = outcome.coverage;
  // Every report states its coverage, an empty change's too.
  out << "Coverage: " << lines(coverageSentence(c)) << ".\n";
  if (const std::string reason = notReviewedReason(c); !reason.empty()) out << lines(reason) << "\n";

  std::map<Severity, std::size_t> bySeverity;
  for (const auto& published : outcome.findings) ++bySeverity[published.finding.severity];
  out << "\n" << plural(outcome.findings.size(), "finding", "findings");
  if (!bySeverity.empty()) {
    out << " (";
    bool first = true;
    for (const auto& [severity, n] : bySeverity) {
      out << (first ? "" : ", ") << n << " " << severityName(severity);
      first = false;
    }
    out << ")";
  }
  out << ", " << outcome.rejected.size() << " rejected; " << plural(static_cast<std::size_t>(outcome.attempts), "attempt", "attempts")
      << ", " << plural(static_cast<std::size_t>(outcome.toolCalls), "tool call", "tool calls");
  if (!outcome.provider.empty()) {
    out << "; " << line(outcome.provider);
    if (!outcome.model.empty() && outcome.model != outcome.provider) out << " " << line(outcome.model);
  }
  out << "\n";
  if (const std::string usage = spentSentence(outcome); !usage.empty()) out << "Usage: " << usage << ".\n";
  // Whole lines as printed: a CI log obeys none of them (terminal_text.h).
  return ciLogSafe(out.str());
}

}  // namespace revline::reports
