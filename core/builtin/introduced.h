// Only what the change introduced: a finding whose statement already existed in
// the lines the same diff removed (a reformat, a re-indent, a block moved
// within or between files), or that the same rule already raised on the
// statement the edit replaced (a rename, an argument added), is an old problem,
// not a new one.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/diff/diff.h"

namespace revline::builtin {

// Text compared with whitespace removed and ' read as ", so re-indenting,
// re-wrapping a statement over other lines or switching quote style keeps it
// the same statement.
std::string normalizedStatement(std::string_view text);

class RemovedText {
 public:
  explicit RemovedText(const diff::Diff& diff);
  // True when `statement` (normalized) occurs in the old side of some hunk of
  // the diff in a place that covers at least one removed line: context lines
  // alone do not make a statement old, since new code may copy them.
  bool contains(const std::string& statement) const;

 private:
  struct OldSide {
    std::string text;            // normalized old-side text of one hunk
    std::vector<bool> removed;   // per character: from a removed line
  };
  std::vector<OldSide> hunks_;
};

// The file before the change, read backwards from the diff: its hunks with the
// removed lines as the added ones (line numbers of the old side), and the old
// text rebuilt from the new one (each hunk's new side replaced by its old side);
// nullopt for the text when the new text is unknown or does not fit the hunks.
diff::FileDiff oldSideOf(const diff::FileDiff& file);
std::optional<std::string> oldTextOf(const diff::FileDiff& file, const std::optional<std::string>& newText);

// How much of two statements is the same, 0 to 1: their common start and end
// over the longer one. A rename inside a call, an argument added at the end or
// a call renamed at the start keep most of a statement.
double statementSimilarity(std::string_view a, std::string_view b);

// A normalized statement without its pointer casts ("(char*)", "(constchar*)"):
// `strcpy(d, s)` rewritten as `strcpy((char*)d, (const char*)s)` is the same
// call, which a cast-only edit of a short statement made too unlike to match.
std::string withoutPointerCasts(std::string_view normalized);

}  // namespace revline::builtin
