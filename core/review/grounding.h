// Grounding (contract.md "Grounding"): keep only findings that point at lines
// this diff actually shows on the new side, and only edits whose `original` is
// the real text of those lines. Pure function of the findings and the diff.
#pragma once
#include <vector>

#include "core/contract/contract.h"
#include "core/diff/diff.h"
#include "core/review/pipeline.h"

namespace revline::review {

struct GroundingResult {
  std::vector<PublishedFinding> grounded;  // input order; file rewritten to the diff's path; id set
  std::vector<RejectedFinding> rejected;   // input order; finding exactly as the model sent it
};

// A finding is grounded when diff.findFile(finding.file) names a file that is
// not deleted and every line of line..lastLine is an added or context line of
// its hunks. No fuzzy matching: a near miss is rejected with a reason naming
// the file or the first line that is not shown.
//
// A grounded finding keeps its edit only when edit.original equals the new-file
// text of those lines joined with "\n", compared exactly except for two
// tolerances, both because they cannot change which text is meant:
//  - a "\r" ending a line is part of a CRLF line ending, not of the line's text,
//    on both sides (models rarely reproduce "\r" in JSON strings);
//  - ONE trailing newline of original is ignored (models often end a snippet
//    with one); a trailing newline of replacement is then dropped too, so the
//    kept edit maps lines to lines.
// A kept edit's original is rewritten to the canonical text. Otherwise the edit
// is dropped and editDroppedReason says which line differs and how.
//
// `finder` is set when the model was shown the diff redacted (a remote model):
// an original that has a secret's "[REDACTED:<kind>]" marker where the line
// has the secret means that line (the fix that moves a secret out of the code
// is kept), a replacement that still has a marker is dropped (it would write
// the marker into the file), and every reason quotes the lines as redacted: a
// reason goes into reports and pull-request comments.
GroundingResult ground(const std::vector<contract::Finding>& findings, const diff::Diff& diff,
                       const SecretFinder& finder = {});

}  // namespace revline::review
