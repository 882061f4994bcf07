// Only what the change introduced: a finding whose statement already existed in
// the lines the same diff removed (a reformat, a re-indent, a block moved
// within or between files) is an old problem, not a new one.
#pragma once
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

}  // namespace revline::builtin
