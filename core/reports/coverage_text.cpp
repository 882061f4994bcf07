#include "core/reports/coverage_text.h"

#include <algorithm>

namespace revline::reports {

std::string coverageSentence(const review::Coverage& c) {
  return "reviewed " + std::to_string(c.filesReviewed) + " of " + std::to_string(c.filesTotal) +
         (c.filesTotal == 1 ? " file (" : " files (") + std::to_string(c.linesReviewed) + " of " +
         std::to_string(c.linesTotal) + " changed lines)";
}

std::string notReviewedReason(const review::Coverage& c) {
  const auto n = std::count_if(c.filesSkipped.begin(), c.filesSkipped.end(),
                               [](const review::SkippedFile& s) { return s.overLimit; });
  if (n == 0) return "";
  return "Part of the change was not reviewed (" + std::to_string(n) + (n == 1 ? " file" : " files") +
         " over the request token budget or the max_requests cap, listed as skipped), so the verdict cannot be "
         "APPROVE.";
}

}  // namespace revline::reports
