// Coverage in words, the same in every report (text, SARIF, GitHub review):
// what the reviewer was shown of the change, and what it was not and why.
#pragma once
#include <string>

#include "core/review/pipeline.h"

namespace revline::reports {

// "reviewed 3 of 4 files (120 of 130 changed lines)".
std::string coverageSentence(const review::Coverage& coverage);

// Why the verdict is not APPROVE because of coverage, or empty: parts of the
// change were left out by a request limit (token budget, max_requests).
std::string notReviewedReason(const review::Coverage& coverage);

}  // namespace revline::reports
