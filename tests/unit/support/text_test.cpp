#include "core/support/text.h"

#include <gtest/gtest.h>

using namespace revline;
using Lines = std::vector<std::string_view>;

TEST(Text, TrimmedRemovesEveryKindOfWhitespaceAtBothEnds) {
  EXPECT_EQ(trimmed("  \t a b \r\n\f\v"), "a b");
  EXPECT_EQ(trimmed(" \n\t "), "");
  EXPECT_EQ(trimmed(""), "");
  EXPECT_EQ(trimmed("x"), "x");
}

TEST(Text, Utf8BoundaryNeverCutsASequence) {
  const std::string s = "ab\xc3\xa9" "cd";  // "abécd": é is two bytes at 2..3
  EXPECT_EQ(utf8Boundary(s, 100), s.size());
  EXPECT_EQ(utf8Boundary(s, 4), 4u);
  EXPECT_EQ(utf8Boundary(s, 3), 2u);  // inside é: back to before it
  EXPECT_EQ(utf8Boundary(s, 2), 2u);
  EXPECT_EQ(utf8Boundary(s, 0), 0u);
  const std::string emoji = "\xf0\x9f\x98\x80";  // four bytes
  EXPECT_EQ(utf8Boundary(emoji, 3), 0u);
  EXPECT_EQ(utf8Boundary("\xff\xfe", 1), 1u);  // not UTF-8 at all: bytes are cut as bytes
}

TEST(Text, TruncateUtf8KeepsTheLimitIncludingTheEllipsis) {
  EXPECT_EQ(truncateUtf8("short", 10, "…"), "short");
  EXPECT_EQ(truncateUtf8("abcdefgh", 6, "…"), "abc…");  // 3 + 3 bytes
  EXPECT_EQ(truncateUtf8("ab\xc3\xa9" "cd", 3), "ab");
  EXPECT_EQ(truncateUtf8("abcdef", 2, "…"), "");  // not even the ellipsis fits
  for (std::size_t limit = 0; limit < 12; ++limit) EXPECT_LE(truncateUtf8("h\xc3\xa9llo w\xc3\xb6rld", limit, "…").size(), limit);
}

TEST(Text, CodePointCountCountsCharactersNotBytes) {
  EXPECT_EQ(codePointCount(""), 0u);
  EXPECT_EQ(codePointCount("abc"), 3u);
  EXPECT_EQ(codePointCount("\xc3\xa9\xf0\x9f\x98\x80"), 2u);
  EXPECT_EQ(codePointCount("\x80\x80"), 1u);  // stray continuation bytes count with the first
}

TEST(Text, SplitLinesCountsLinesAsAnEditorDoes) {
  EXPECT_EQ(splitLines(""), Lines{""});
  EXPECT_EQ(splitLines("a"), Lines{"a"});
  EXPECT_EQ(splitLines("a\n"), (Lines{"a", ""}));
  EXPECT_EQ(splitLines("a\r\nb\r\n\nc"), (Lines{"a", "b", "", "c"}));
  EXPECT_EQ(splitLines("a\rb"), Lines{"a\rb"});  // only a "\r" before "\n" ends a line
}

TEST(Text, FileLinesHasNoEmptyLineAfterTheFinalNewline) {
  EXPECT_EQ(fileLines(""), Lines{});
  EXPECT_EQ(fileLines("a\n"), Lines{"a"});
  EXPECT_EQ(fileLines("a\r\nb"), (Lines{"a", "b"}));
  EXPECT_EQ(fileLines("\n"), Lines{""});
}
