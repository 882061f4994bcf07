// Untrusted text (file names, the model's words, a repository's config) made
// safe to print on a terminal. A terminal obeys the control characters in
// what it is given: ESC starts sequences that clear the screen, retitle the
// window, write the clipboard (OSC 52) or hide a link (OSC 8); "\r" rewrites
// the line; C1 controls (U+0080-U+009F, or a lone 0x9B byte on an 8-bit
// terminal) do what ESC does; bidi overrides (U+202E...) reorder what is read.
// Each is shown instead as a visible escape ("\x1b", "\u202e"), so the reader
// sees that it was there and nothing is done with it. JSON and SARIF escape
// these themselves and do not need this.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace revline {

enum class Newlines { Keep, Escape };

// `text` with every C0 control but tab (and newline, with Newlines::Keep), DEL,
// C1 control, bidi or line-separator control and byte that is not valid UTF-8
// replaced by its visible escape. With Newlines::Keep, a "\r\n" line end reads
// as "\n". Anything else, UTF-8 included, is unchanged.
std::string terminalSafe(std::string_view text, Newlines newlines = Newlines::Keep);

// The code points of `text` that are not seen as what they do: every C0
// control but tab, newline and a carriage return before a newline, DEL, C1
// controls, bidi and line-separator controls, zero-width and invisible
// characters (U+200B-U+200D, U+2060-U+2064, U+206A-U+206F, U+FEFF, U+FFF9-
// U+FFFB, soft hyphen, U+034F, U+180B-U+180F; the Hangul fillers U+115F,
// U+1160, U+3164, U+FFA0 and Khmer's U+17B4, U+17B5, which JavaScript takes as
// identifiers), the supplementary variation selectors (U+E0100-U+E01EF: an
// emoji's U+FE0F is text) and tag characters (U+E0000-U+E007F), in order, each
// once. Bytes that are not UTF-8 are none of them.
std::vector<unsigned> invisibleCharacters(std::string_view text);

// Output as a CI log reads it: a log obeys a line whose first non-blank
// characters are "::" or "##[" (GitHub Actions' workflow commands: ::error,
// ::add-mask, ::stop-commands), indented or not. Such a line of `text` has that
// first character escaped ("\x3a:error"); the rest is unchanged. For whole
// lines as printed (a line "      - ::close(fd);" of an edit is no command).
std::string ciLogSafe(std::string_view text);

// A line of the CLI's stderr: `lead` (revline's own words, "revline review:
// warning: ") and then `untrusted` made terminal-safe, the whole line CI-log-safe,
// ending in a newline.
std::string logLine(std::string_view lead, std::string_view untrusted);

}  // namespace revline
