// Redaction at the source for a remote provider: the diff's lines are cleaned
// before the prompt numbers them (a secret then never reaches a detector glued
// to a line number), one hunk at a time so a key body spanning lines is found whole.
#pragma once
#include "core/diff/diff.h"
#include "core/review/provider.h"

namespace revline::review {

// A copy of `diff` whose line texts have every secret `finder` reports replaced
// by "[REDACTED:<kind>]". Hunk structure, line kinds and numbers are unchanged.
diff::Diff redactDiff(const diff::Diff& diff, const SecretFinder& finder);

}  // namespace revline::review
