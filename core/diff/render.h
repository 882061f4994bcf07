// Renderings of a parsed Diff: the annotated text the model reads, the JSON of
// `revline diff --json`, and `git apply --numstat` output. Pure functions.
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "core/diff/diff.h"
#include "core/diff/function_context.h"
#include "core/support/json.h"

namespace revline::diff {

// The diff as the model sees it. Per file section:
//
//   File: src/new.cpp (renamed from src/old.cpp, similarity 90%)
//   @@ -10,4 +10,5 @@ void f()
//     10   context line
//        - removed line
//     11 + added line
//     12 + added line
//        \ No newline at end of file
//
// The header line is "File: PATH (DETAILS)": PATH is the repository path in
// the new version (the old one for a deleted file), C-quoted only when it
// holds control characters, '"' or '\'; DETAILS is the status ("added",
// "deleted", "modified", "renamed from P", "copied from P", "binary",
// "mode 100644 -> 100755") plus notes such as "no lines shown" and "2 lines
// changed only from LF to CRLF line endings" (the one change TEXT cannot show).
// Each hunk line is "NUMBER MARK TEXT": NUMBER is the new-file line number,
// right-aligned in a column as wide as the largest number in the whole diff
// (at least 4), blank for removed lines; MARK is '+' (added), ' ' (context),
// '-' (removed) or '\' (the previous line has no newline at end of file);
// TEXT is the line without its line ending. Sections are separated by a blank
// line. Only numbered lines are valid targets for review comments.
std::string annotate(const Diff& diff);

// A path as annotate()'s "File:" line spells it: readable UTF-8 as is; a name
// with a quote, a backslash, a control character or bytes that are not UTF-8
// C-quoted (quotePath), so no name can break the line structure and each reads
// as itself. Diff::findFile reads both spellings.
std::string displayPath(const std::string& path);
// The name a quoted display path stands for (a model gives back a name as the
// diff or a tool listed it: "x\nsrc/auth.py" in quotes); nullopt for one that is
// not a whole C-quoted string.
std::optional<std::string> pathFromDisplay(std::string_view shown);

// The same, with function context (function_context.h) around the hunks:
// `context[file][hunk]` lines are printed before the hunk header and after its
// last line as "NUMBER : TEXT" (MARK ':'): numbered for reference, but not part
// of the diff, so not valid targets for review comments.
std::string annotate(const Diff& diff, const std::vector<std::vector<HunkContext>>& context);

// The `revline diff --json` structure of cli.md:
// {"files":[{"path","old_path","status","lines":[{"new","kind"}]}]}. A path
// that is not valid UTF-8 (JSON cannot hold raw bytes) is given C-quoted, as
// quotePath() and git spell it.
json toJson(const Diff& diff);

// Byte-identical to `git apply --numstat` on the same (a/ b/-prefixed) patch:
// "ADDED\tDELETED\tPATH\n" per file section, "-\t-\tPATH" for binary, PATH the
// new path (the old one if deleted), C-quoted as git quotes it.
std::string numstat(const Diff& diff);

// Reads up to `size` bytes of a patch into `buffer` and returns how many; 0
// at the end of the input (like fread).
using ChunkReader = std::function<size_t(char* buffer, size_t size)>;

// numstat(parse(INPUT)) for the input that `read` yields, in memory bounded by
// the longest line instead of the input: the same parser (parser_engine.h)
// with per-file counters in place of the Diff. Throws ParseError likewise.
std::string streamNumstat(const ChunkReader& read);

}  // namespace revline::diff
