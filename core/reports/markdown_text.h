// The model's words and a repository's file names placed in GitHub markdown
// (the pull-request review): they are shown, never let change what else the
// review shows or who it notifies. Outside code, "<" is written "&lt;" (no
// "<!--" hides the rest of the review, no "<details>" folds it away), and a
// mention "@name" or "@org/team" gets a zero-width space after the "@" (no one
// is notified: a Java annotation such as @Override is not a user's name), and
// "[" is escaped (no image GitHub would fetch, no link under other words), "&"
// too (no entity decodes to a mention), and so are a heading's "#" (after list
// and quote markers too) and a setext underline, and an issue reference ("#12",
// "GH-12", also backslash-escaped) gets a zero-width space, as does a mention
// after anything but a letter or digit. A table's delimiter row is text (GitHub
// splits rows at "|", inside code spans too), and a backtick in a bare URL is
// escaped (GitHub's autolink takes it). Line breaks are CommonMark's: a lone
// "\r" ends a line. A bare URL stays visible as itself. Code spans are kept as
// written (GitHub shows them literally); a fenced block is written again as
// revline's own, its fence at the start of a line (so no list or quote the
// text began decides where it ends) and its language kept only when it is a
// plain word and not one GitHub renders as something else (`suggestion`,
// `mermaid`, ...); a fence the text leaves open is closed, so what follows is
// not code.
#pragma once
#include <string>
#include <string_view>

namespace revline::reports {

// Untrusted prose (a summary, an explanation, a suggested fix) as markdown.
// `atLineStart` false: the text follows other text on its first line; a fence
// there is put on a line of its own ("**Suggested fix:** ```python" opened no
// block, and the fix's closing fence opened one that took the rest).
std::string markdownProse(std::string_view text, bool atLineStart = true);

// Untrusted one-line text (a title): markdownProse with its line breaks as spaces.
std::string markdownLine(std::string_view text);

// `text` as an inline code span (a file name): delimited by a backtick run longer
// than any in it, so no character of it ends the span; line breaks as spaces.
std::string markdownCode(std::string_view text);

// A code fence longer than any run of backticks in `text` (at least three), so
// no line of `text` closes the block it opens: a model's replacement with "```"
// in it ended the block and let what followed render as markdown (an image).
std::string codeFenceFor(std::string_view text);

}  // namespace revline::reports
