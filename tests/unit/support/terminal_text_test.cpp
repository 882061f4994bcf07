#include "core/support/terminal_text.h"

#include <gtest/gtest.h>

using namespace revline;

TEST(TerminalText, PlainTextAndUtf8AreUnchanged) {
  EXPECT_EQ(terminalSafe("int x = 1; // café ✓ 😀\n\tnext"), "int x = 1; // café ✓ 😀\n\tnext");
  EXPECT_EQ(terminalSafe(""), "");
}

TEST(TerminalText, EscapeSequencesAreShownNotObeyed) {
  // Clear screen and colour (CSI), window title (OSC 0), clipboard write (OSC 52), a hidden link (OSC 8).
  EXPECT_EQ(terminalSafe("a\x1b[2J\x1b[1;32mb"), "a\\x1b[2J\\x1b[1;32mb");
  EXPECT_EQ(terminalSafe("\x1b]0;PWNED\x07"), "\\x1b]0;PWNED\\x07");
  EXPECT_EQ(terminalSafe("\x1b]52;c;ZWNobw==\x1b\\"), "\\x1b]52;c;ZWNobw==\\x1b\\");
  EXPECT_EQ(terminalSafe("\x1b]8;;http://evil/\x07x"), "\\x1b]8;;http://evil/\\x07x");
  EXPECT_EQ(terminalSafe(std::string("nul\0bs\x08" "del\x7f", 11)), "nul\\x00bs\\x08del\\x7f");
}

TEST(TerminalText, CarriageReturnCannotRewriteTheLine) {
  EXPECT_EQ(terminalSafe("finding\rrevline: APPROVE"), "finding\\rrevline: APPROVE");
  EXPECT_EQ(terminalSafe("one\r\ntwo"), "one\ntwo");  // a Windows line end is a line end
  EXPECT_EQ(terminalSafe("one\r\ntwo", Newlines::Escape), "one\\r\\ntwo");
  EXPECT_EQ(terminalSafe("trailing\r"), "trailing\\r");
}

TEST(TerminalText, NewlinesAreEscapedInOneLineFields) {
  EXPECT_EQ(terminalSafe("title\nrevline: APPROVE", Newlines::Escape), "title\\nrevline: APPROVE");
  EXPECT_EQ(terminalSafe("a\tb", Newlines::Escape), "a\tb");
}

TEST(TerminalText, C1ControlsBidiOverridesAndInvalidBytesAreEscaped) {
  EXPECT_EQ(terminalSafe("\xc2\x9b" "31m"), "\\u009b31m");                      // C1 CSI, as UTF-8
  EXPECT_EQ(terminalSafe("\x9b" "31m"), "\\x9b31m");                            // a lone 0x9b byte
  EXPECT_EQ(terminalSafe("abc\xe2\x80\xae" "fed"), "abc\\u202efed");           // RIGHT-TO-LEFT OVERRIDE
  EXPECT_EQ(terminalSafe("\xe2\x81\xa6x\xe2\x81\xa9"), "\\u2066x\\u2069");     // isolates
  EXPECT_EQ(terminalSafe("a\xe2\x80\xa8" "b"), "a\\u2028b");                   // LINE SEPARATOR
  EXPECT_EQ(terminalSafe("caf\xe9.c"), "caf\\xe9.c");                           // Latin-1 file name
}

// A GitHub Actions log obeys "::error ...", "::add-mask::...", "::stop-commands::"
// and the older "##[error]" as a line's first non-blank characters: such a line
// of the output has its first character escaped. Code within a line is kept
// (an edit's "      - ::close(fd);" is no command), and terminalSafe leaves "::" alone.
TEST(TerminalText, WorkflowCommandsAtALineStartAreEscaped) {
  EXPECT_EQ(ciLogSafe("::error title=revline approved::x.py:1: MAJOR"), "\\x3a:error title=revline approved::x.py:1: MAJOR");
  EXPECT_EQ(ciLogSafe("fine\n  ::add-mask::secret\n##[error]no\n"), "fine\n  \\x3a:add-mask::secret\n\\x23#[error]no\n");
  EXPECT_EQ(ciLogSafe("a ::b\n      - ::close(fd);\nC::D"), "a ::b\n      - ::close(fd);\nC::D");
  EXPECT_EQ(ciLogSafe(""), "");
  EXPECT_EQ(terminalSafe("::close(fd);\n::x"), "::close(fd);\n::x");
  // A line of stderr: revline's lead, then the untrusted text, the whole made safe.
  EXPECT_EQ(logLine("revline review: warning: ", "::x\n::add-mask::s\x1b"),
            "revline review: warning: ::x\n\\x3a:add-mask::s\\x1b\n");
}
