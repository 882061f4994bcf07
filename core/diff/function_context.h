// Function context: the lines of the new file around a hunk that complete the
// definition (function, method, class member) the change sits in, so the model
// reads the whole function instead of three lines. git's own --function-context
// follows the funcname regex, which by default ignores indented definitions
// (every Java method) and once named the wrong function; this widening works on
// the new file's text by indentation instead. Pure functions; no I/O.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/diff/diff.h"

namespace revline::diff {

struct ContextLine {
  int newLine = 0;
  std::string text;
};

// Lines shown before and after one hunk that are not part of the diff.
struct HunkContext {
  std::vector<ContextLine> before, after;
};

// One entry per hunk of `file` (empty entries when there is nothing to add).
//
// The rule: from the first changed line of the hunk, walk up to the nearest
// less-indented line that looks like a definition (a `def`/`class`/`function`
// ... keyword, or `name(...)` that is not a control statement); the definition
// ends at the next non-blank line indented no deeper than it (included when it
// closes the block: `}`, `)`, `]`, `end`). When the whole definition fits in
// `maxLines` the lines the hunk does not show are added, without repeating
// lines of other hunks; otherwise only the definition's first line is added.
// `newText` must be the file's new version: if the hunks' lines do not match
// it, nothing is added.
std::vector<HunkContext> functionContext(const FileDiff& file, std::string_view newText, int maxLines);

// Each hunk's context as functionContext gives it for the file with that hunk
// alone (what a request holding only that hunk shows). The file is read once
// for all of them.
std::vector<HunkContext> functionContextOfEachAlone(const FileDiff& file, std::string_view newText, int maxLines);

}  // namespace revline::diff
