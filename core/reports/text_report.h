// `revline review --format text`: the human-readable report for a terminal.
#pragma once
#include <string>

#include "core/review/pipeline.h"

namespace revline::reports {

// Verdict line, summary, every published finding as
//   path:line[-end]: SEVERITY CATEGORY title (confidence 0.82)
// followed by its indented explanation, suggested fix and edit (as -/+ lines),
// then the rejected findings with their reasons, then the counts.
// `colour` adds ANSI colours (callers decide: a TTY and no NO_COLOR).
std::string renderText(const review::ReviewOutcome& outcome, bool colour = false);

// "0.82": the confidence as every report prints it.
std::string formatConfidence(double confidence);

}  // namespace revline::reports
