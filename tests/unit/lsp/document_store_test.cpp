// The document store: UTF-16 positions, incremental edits, and how lines move.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "lsp/document_store.h"
#include "lsp/jsonrpc.h"

namespace revline::lsp {
namespace {

TextDocumentContentChangeEvent change(int l1, int c1, int l2, int c2, std::string text) {
  return TextDocumentContentChangeEvent{Range{{l1, c1}, {l2, c2}}, std::move(text)};
}

TEST(Utf16, CountsCodeUnits) {
  EXPECT_EQ(utf16Length("abc"), 3);
  EXPECT_EQ(utf16Length("é"), 1);      // 2 bytes, 1 unit
  EXPECT_EQ(utf16Length("€"), 1);      // 3 bytes, 1 unit
  EXPECT_EQ(utf16Length("😀"), 2);     // 4 bytes, surrogate pair
  EXPECT_EQ(utf16Length("a😀b"), 4);
  EXPECT_EQ(byteOffsetOfUtf16("a😀b", 1), 1u);
  EXPECT_EQ(byteOffsetOfUtf16("a😀b", 3), 5u);
  EXPECT_EQ(byteOffsetOfUtf16("a😀b", 2), 1u);  // inside the pair: rounds down
  EXPECT_EQ(byteOffsetOfUtf16("a😀b", 99), 6u); // clamped
}

TEST(Document, IncrementalEditsWithNonAsciiAndAstralText) {
  Document d("file:///x", 1, "héllo 😀 wörld\nsecond\n");
  // Replace "wörld" (UTF-16 columns 9..14 after "héllo 😀 ") with "there".
  d.apply(change(0, 9, 0, 14, "there"));
  EXPECT_EQ(d.text(), "héllo 😀 there\nsecond\n");
  // Insert after the emoji (column 8 = after the surrogate pair).
  d.apply(change(0, 8, 0, 8, "!"));
  EXPECT_EQ(d.line(0), "héllo 😀! there");
  // Delete across the line break.
  d.apply(change(0, 15, 1, 6, ""));
  EXPECT_EQ(d.text(), "héllo 😀! there\n");
  EXPECT_EQ(d.lineCount(), 2);
}

TEST(Document, FullReplacementAndCrLf) {
  Document d("file:///x", 1, "a\r\nb");
  EXPECT_EQ(d.line(0), "a");
  EXPECT_EQ(d.line(1), "b");
  d.apply(TextDocumentContentChangeEvent{std::nullopt, "new"});
  EXPECT_EQ(d.text(), "new");
}

TEST(Document, PositionsPastTheEndAreClamped) {
  Document d("file:///x", 1, "ab\ncd");
  d.apply(change(1, 99, 7, 0, "!"));
  EXPECT_EQ(d.text(), "ab\ncd!");
}

TEST(Store, UnknownDocumentIsAnError) {
  DocumentStore s;
  DidChangeTextDocumentParams p;
  p.textDocument.uri = "file:///nope";
  EXPECT_THROW(s.change(p), LspError);
}

// Lines of a finding at 0-based [first, last] after one edit on a document.
std::optional<std::pair<int, int>> moved(const std::string& text, int first, int last,
                                         const TextDocumentContentChangeEvent& c) {
  Document d("file:///x", 1, text);
  for (const LineEdit& e : d.apply(c))
    if (!moveLines(first, last, e)) return std::nullopt;
  return std::make_pair(first, last);
}

const std::string kText = "l0\nl1\nl2\nl3\nl4\nl5\n";
using P = std::pair<int, int>;

TEST(MoveLines, InsertingLinesAboveMovesDown) {
  EXPECT_EQ(moved(kText, 3, 4, change(1, 0, 1, 0, "new\nnew\n")), P(5, 6));
  EXPECT_EQ(moved(kText, 3, 3, change(3, 0, 3, 0, "x\n")), P(4, 4));  // at the start of the line itself
}

TEST(MoveLines, DeletingLinesAboveMovesUp) {
  EXPECT_EQ(moved(kText, 3, 4, change(0, 0, 2, 0, "")), P(1, 2));
}

TEST(MoveLines, EditsBelowOrAfterTheContentDoNothing) {
  EXPECT_EQ(moved(kText, 1, 2, change(4, 0, 5, 0, "")), P(1, 2));
  EXPECT_EQ(moved(kText, 1, 2, change(2, 2, 2, 2, "\nmore")), P(1, 2));  // newline typed at the end of l2
}

TEST(MoveLines, TypingInsideTheLineKeepsIt) {
  EXPECT_EQ(moved(kText, 2, 2, change(2, 1, 2, 1, "xyz")), P(2, 2));
}

TEST(MoveLines, DeletingTheLinesDropsIt) {
  EXPECT_EQ(moved(kText, 2, 3, change(2, 0, 4, 0, "")), std::nullopt);
  EXPECT_EQ(moved(kText, 2, 2, change(1, 2, 2, 2, "")), std::nullopt);  // joined into the line above
  EXPECT_EQ(moved(kText, 2, 3, change(3, 0, 4, 0, "")), P(2, 2));       // one of two lines left
}

// A change without a range (a client that sends the whole text; Emacs when a
// command reports a change it did not announce) is the edit of the lines that
// differ: the findings on the others move as in a ranged edit. Before, every
// finding of the file was dropped until the next save.
TEST(MoveLines, AWholeTextChangeMovesTheLinesItDidNotChange) {
  auto whole = [](std::string text) { return TextDocumentContentChangeEvent{std::nullopt, std::move(text)}; };
  EXPECT_EQ(moved(kText, 3, 4, whole("new\n" + kText)), P(4, 5));
  EXPECT_EQ(moved(kText, 4, 4, whole("l0\nl1\nCHANGED\nl3\nl4\nl5\n")), P(4, 4));
  EXPECT_EQ(moved(kText, 1, 1, whole("l0\nl1\nl2\nl3\nl4\nl5\nappended\n")), P(1, 1));
  EXPECT_EQ(moved(kText, 4, 4, whole("l0\nl3\nl4\nl5\n")), P(2, 2));  // two lines above deleted
  EXPECT_EQ(moved(kText, 2, 2, whole("l0\nl1\nl3\nl4\nl5\n")), std::nullopt);  // its own line deleted
  Document d("file:///x", 1, "a\nb\n");
  d.apply(whole("ab\n"));
  EXPECT_EQ(d.text(), "ab\n");  // the text is exact whatever lines are kept
  d.apply(whole(""));
  EXPECT_EQ(d.text(), "");
  d.apply(whole("x\r\ny"));
  EXPECT_EQ(d.line(0), "x");
  EXPECT_EQ(d.line(1), "y");
}

// Vim's `cc` then `dd`, or an undo of an added line: the line is emptied, then
// removed with its break. The finding goes with it; the line below does not
// take its place.
// A range wider than what it changes (cc-mode in Emacs announces a line typed
// above a finding as the change of everything from the line before to the
// end): only the lines that differ are edited, so the finding moves with its
// line. Before, it was inside the replaced range and was dropped.
TEST(MoveLines, ARangeThatRewritesLinesAsTheyWereMovesThem) {
  const std::string text = "class Order {\n  boolean a() {\n    if (x) {\n  }\n}\n";
  const auto typedAbove = change(0, 9, 5, 0, "er {\n    // typed above\n  boolean a() {\n    if (x) {\n  }\n}\n");
  EXPECT_EQ(moved(text, 2, 2, typedAbove), P(3, 3));
  Document d("file:///x", 1, text);
  const std::vector<LineEdit> edits = d.apply(typedAbove);
  EXPECT_EQ(d.text(), "class Order {\n    // typed above\n  boolean a() {\n    if (x) {\n  }\n}\n");
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].start, (Position{1, 0}));
  EXPECT_EQ(edits[0].end, (Position{1, 0}));
  // Lines that do change in such a range are still edited: a finding on one is moved onto
  // what replaced it, or dropped with it, as in an exact range.
  EXPECT_EQ(moved(text, 2, 2, change(0, 9, 5, 0, "er {\n  boolean a() {\n  }\n}\n")), std::nullopt);
  EXPECT_EQ(moved(text, 3, 3, change(1, 0, 4, 1, "  boolean a() {\n    if (y) {\n  }\n}")), P(3, 3));
}

// However a ranged change is narrowed to the lines it changes, the text comes
// out as the client's: random edits of random lines (with CRLF, blank and
// repeated lines), each checked against the plain replacement.
TEST(Document, ANarrowedChangeLeavesTheTextTheClientHas) {
  std::mt19937 random(20261205);
  const std::vector<std::string> pieces = {"a", "b", "", "a", "é😀", "b\r"};
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };
  auto someLines = [&](std::size_t most) {
    std::string t;
    for (std::size_t i = pick(most + 1); i > 0; --i) t += pieces[pick(pieces.size())] + "\n";
    if (pick(2)) t += pieces[pick(pieces.size())];
    return t;
  };
  for (int round = 0; round < 3000; ++round) {
    const std::string text = someLines(6);
    Document d("file:///x", 1, text);
    const int l1 = static_cast<int>(pick(static_cast<std::size_t>(d.lineCount())));
    const int l2 = l1 + static_cast<int>(pick(static_cast<std::size_t>(d.lineCount() - l1)));
    const int c1 = static_cast<int>(pick(static_cast<std::size_t>(utf16Length(d.line(l1))) + 1));
    const int c2 = l2 == l1 ? c1 + static_cast<int>(pick(static_cast<std::size_t>(utf16Length(d.line(l2)) - c1) + 1))
                            : static_cast<int>(pick(static_cast<std::size_t>(utf16Length(d.line(l2))) + 1));
    const std::size_t from = d.offsetOf({l1, c1}), to = d.offsetOf({l2, c2});
    // The replaced text with some of its lines kept: what wide ranges look like.
    std::string replacement = pick(2) ? text.substr(from, to - from) : someLines(3);
    if (pick(2)) replacement.insert(pick(replacement.size() + 1), pick(2) ? "x\n" : "b\r\n");
    std::string expected = text;
    expected.replace(from, to - from, replacement);
    d.apply(change(l1, c1, l2, c2, replacement));
    ASSERT_EQ(d.text(), expected) << "round " << round;
  }
}

// A whole new text that differs in several places (an editor's reload after
// `git checkout -m` brought upstream lines at 5 and at 400; VS Code sends the
// reload as a range over the whole document): the lines between the places are
// kept, and their findings move. Before, everything from the first difference
// to the last was one edit, and every finding between was dropped.
TEST(MoveLines, AChangeInSeveralPlacesKeepsTheLinesBetween) {
  const std::string text = "l0\nl1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n";
  const std::string changed = "l0\nX\nnew\nnew\nl2\nl3\nl4\nl5\nl6\nl7\nl9\nY\n";  // l1 rewritten, two added, l8 gone, one appended
  auto whole = [](std::string t) { return TextDocumentContentChangeEvent{std::nullopt, std::move(t)}; };
  for (const auto& c : {whole(changed), change(0, 0, 10, 0, changed)}) {
    EXPECT_EQ(moved(text, 4, 4, c), P(6, 6));
    EXPECT_EQ(moved(text, 3, 7, c), P(5, 9));
    EXPECT_EQ(moved(text, 1, 1, c), P(1, 1));  // rewritten: onto what replaced it, as in a ranged edit
    EXPECT_EQ(moved(text, 8, 8, c), std::nullopt);
    EXPECT_EQ(moved(text, 9, 9, c), P(10, 10));
    Document d("file:///x", 1, text);
    const std::vector<LineEdit> edits = d.apply(c);
    EXPECT_EQ(d.text(), changed);
    EXPECT_EQ(edits.size(), 3u);
  }
}

// One place changed, with lines kept that the ends of the range do not show:
// a line deleted after one written back as it was, and a whole-file range whose
// first line respells its break (the range's own narrowing stops there).
TEST(MoveLines, LinesKeptInsideARangeAreKept) {
  const std::string text = "u0\nu1\nu2\nu3\nu4\n";
  EXPECT_EQ(moved(text, 2, 2, change(2, 0, 3, 2, "u2")), P(2, 2));
  EXPECT_EQ(moved(text, 3, 3, change(2, 0, 3, 2, "u2")), std::nullopt);
  const std::string mixed = "a\nu1\nu2\nu3\r\nu4\n";
  EXPECT_EQ(moved(mixed, 2, 2, change(0, 0, 5, 0, "x\r\nu1\nu2\nu3\r\nu4\n")), P(2, 2));
}

// Random edits at random places of a text whose lines all differ: every line
// no edit touched keeps its finding, on the line that still reads as it did,
// however the new text arrives (whole, or as a range over all of it), and the
// text is the client's exactly (with CRLF, blank and repeated lines too).
TEST(MoveLines, EveryLineNoEditTouchedKeepsItsFinding) {
  std::mt19937 random(20261207);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::string> lines;
    for (std::size_t i = 0, n = 1 + pick(30); i < n; ++i) lines.push_back("u" + std::to_string(i));
    std::vector<std::string> after = lines;
    for (std::size_t edits = pick(6); edits > 0; --edits) {
      const std::size_t at = pick(after.size() + 1);
      switch (pick(3)) {
        case 0: after.insert(after.begin() + static_cast<long>(at), pick(2) ? "new" : ""); break;
        case 1: if (at < after.size()) after.erase(after.begin() + static_cast<long>(at)); break;
        default: if (at < after.size()) after[at] = "x"; break;
      }
    }
    // Either text may end without a line break, the one or the other or both.
    const bool crlf = pick(4) == 0, lastBreak = pick(4) != 0, changedLastBreak = pick(3) != 0 ? lastBreak : !lastBreak;
    auto join = [&](const std::vector<std::string>& ls, bool endBreak) {
      std::string t;
      for (std::size_t i = 0; i < ls.size(); ++i) t += ls[i] + (i + 1 < ls.size() || endBreak ? (crlf ? "\r\n" : "\n") : "");
      return t;
    };
    const std::string text = join(lines, lastBreak), changed = join(after, changedLastBreak);
    Document probe("file:///x", 1, text);
    const int lastLine = probe.lineCount() - 1;
    const auto events = {TextDocumentContentChangeEvent{std::nullopt, changed},
                         change(0, 0, lastLine, utf16Length(probe.line(lastLine)), changed)};
    for (const auto& c : events) {
      Document d("file:///x", 1, text);
      const std::vector<LineEdit> edits = d.apply(c);
      ASSERT_EQ(d.text(), changed) << "round " << round;
      for (int i = 0; i < static_cast<int>(lines.size()); ++i) {
        if (std::find(after.begin(), after.end(), lines[i]) == after.end()) continue;  // deleted or rewritten
        int first = i, last = i;
        bool kept = true;
        for (const LineEdit& e : edits) kept = kept && moveLines(first, last, e);
        ASSERT_TRUE(kept) << "round " << round << ": the finding on " << lines[i] << " was dropped";
        EXPECT_EQ(d.line(first), lines[i]) << "round " << round;
      }
    }
  }
}

TEST(MoveLines, AnEmptiedLineDeletedDropsIt) {
  const std::string emptied = "l0\nl1\n\nl3\nl4\n";
  EXPECT_EQ(moved(emptied, 2, 2, change(2, 0, 3, 0, "")), std::nullopt);
  EXPECT_EQ(moved(emptied, 1, 2, change(2, 0, 3, 0, "")), P(1, 1));  // the span's empty last line went
  EXPECT_EQ(moved(emptied, 2, 2, change(2, 0, 2, 0, "x")), P(2, 2));  // typing on it keeps it
  EXPECT_EQ(moved(kText, 2, 2, change(2, 2, 3, 0, "")), P(2, 2));     // l3 joined onto a line with text
}

}  // namespace
}  // namespace revline::lsp
