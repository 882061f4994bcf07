// `revline: ignore` comments for every reviewer's findings, a model's too: a
// line a team marked deliberate is not reported again, in CI as in the editor
// (the builtin rules read more forms, with their rule ids: builtin/suppressions.h).
// Over the diff's new-side lines only: the comment must be on a line the diff shows.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/contract/contract.h"
#include "core/diff/diff.h"
#include "core/review/published_finding.h"

namespace revline::review {

// Whether `line` holds a `revline: ignore` comment that covers a finding of
// `category`: bare (every finding) or naming it (`revline: ignore[security]`,
// any case; other names, such as a builtin rule's id, do not). The marker must
// stand in the line's comment: after its first opener (#, //, /*, --, <!--, ;,
// %) outside a string literal ("#revline: ignore" inside a URL is no comment).
// With `ownLine`, nothing but blanks may precede that opener (the comment
// stands alone on its line, as a comment above a finding must).
bool ignoreCommentCovers(std::string_view line, contract::Category category, bool ownLine);

// The new-file line whose comment suppresses `finding`: one of its own lines,
// or the line just above when the comment stands alone there; nullopt when none.
std::optional<std::int64_t> suppressedAt(const contract::Finding& finding, const diff::FileDiff& file);

// Drops the findings suppressedAt() finds a comment for, and adds a warning
// naming where (up to five places and a count), so a suppression a change
// adds is seen. runReview applies it to a fresh answer (unless the provider
// applies suppressions itself), the per-hunk cache to the findings it carries over.
void dropSuppressed(std::vector<PublishedFinding>& findings, const diff::Diff& scope, std::vector<std::string>& warnings);

}  // namespace revline::review
