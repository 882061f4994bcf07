// `revline: ignore` comments for every reviewer's findings, a model's too: a
// line a team marked deliberate is not reported again, in CI as in the editor
// (the builtin rules read more forms, with their rule ids: builtin/suppressions.h).
// Over the diff's new-side lines only: the comment must be on a line the diff shows.
#pragma once
#include <optional>
#include <string_view>

#include "core/contract/contract.h"
#include "core/diff/diff.h"

namespace revline::review {

// Whether `line` holds a `revline: ignore` comment that covers a finding of
// `category`: bare (every finding) or naming it (`revline: ignore[security]`,
// any case; other names, such as a builtin rule's id, do not). The marker must
// follow a comment opener on the line (#, //, /*, --, <!--, ;, %); with
// `ownLine`, nothing but blanks may precede that opener (the comment stands
// alone on its line, as a comment above a finding must).
bool ignoreCommentCovers(std::string_view line, contract::Category category, bool ownLine);

// The new-file line whose comment suppresses `finding`: one of its own lines,
// or the line just above when the comment stands alone there; nullopt when none.
std::optional<std::int64_t> suppressedAt(const contract::Finding& finding, const diff::FileDiff& file);

}  // namespace revline::review
