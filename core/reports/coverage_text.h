// Coverage in words, the same in every report (text, SARIF, GitHub review):
// what the reviewer was shown of the change, and what it was not and why.
#pragma once
#include <cstdint>
#include <string>

#include "core/review/pipeline.h"

namespace revline::reports {

// Files left out by choice (include/exclude, the default exclusions such as
// lock files), as opposed to parts a request limit left out. `files` counts
// whole files; `lines` also a notebook's outputs left out of a reviewed file.
struct Excluded {
  int files = 0;
  std::int64_t lines = 0;
};
Excluded excludedOf(const review::Coverage& coverage);

// "reviewed 3 of 4 files (120 of 130 changed lines)". When files were excluded,
// the counts are of the files not excluded and the sentence names them:
// "reviewed 62 of 62 files not excluded (4382 of 4382 changed lines); excluded:
// go.sum (16 changed lines)"; a part of a file left out by choice (a notebook's
// outputs) as "part of a.ipynb". Files partly reviewed for a limit are said:
// "reviewed 2 of 2 files, 1 of them partly (...)". "no file changed" for an empty change.
std::string coverageSentence(const review::Coverage& coverage);

// A skipped file and why, as the reports list it: "go.sum: lock file; ...", or
// "command_test.go (partly reviewed): not reviewed: lines 1-509 ..." when other
// hunks of it were reviewed, "part of a.ipynb: its outputs, ..." for a part left
// out by choice. `asCode` puts the path in backticks (Markdown).
std::string skippedFileText(const review::SkippedFile& skipped, bool asCode = false);

// Why the verdict is not APPROVE because of coverage, or empty: parts of the
// change were left out by a request limit (token budget, max_requests).
std::string notReviewedReason(const review::Coverage& coverage);

}  // namespace revline::reports
