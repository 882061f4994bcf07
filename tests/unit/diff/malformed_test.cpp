// Malformed input: real git output, damaged in one place, must fail with a
// ParseError that names the input line and what was expected.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/diff/diff.h"
#include "tests/support/temp_repo.h"

namespace revline::diff {
namespace {

using revline::testing::TempRepo;
using ::testing::HasSubstr;

class MalformedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo.write("a.txt", "one\ntwo\nthree\nfour\n");
    repo.write("b.txt", "x\n");
    repo.commitAll();
    repo.write("a.txt", "one\nTWO\nthree\nfour\nfive\n");
    repo.write("b.txt", "y\n");
    repo.commitAll();
    lines = split(repo.git("show --format= HEAD"));
    // The fixture relies on this exact shape of git's output.
    ASSERT_EQ(lines.at(0), "diff --git a/a.txt b/a.txt");
    ASSERT_EQ(lines.at(4), "@@ -1,4 +1,5 @@");
    ASSERT_EQ(lines.at(6), "-two");
    ASSERT_EQ(lines.at(10), "+five");
    ASSERT_EQ(lines.at(11), "diff --git a/b.txt b/b.txt");
  }

  static std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos < s.size()) {
      const size_t nl = s.find('\n', pos);
      out.push_back(s.substr(pos, nl - pos));
      pos = nl + 1;
    }
    return out;
  }
  static std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& l : v) s += l + "\n";
    return s;
  }
  // Parses `text`, expecting a ParseError at `line` whose message holds `what`.
  static void expectError(const std::string& text, int line, const std::string& what) {
    try {
      parse(text);
      ADD_FAILURE() << "no error for:\n" << text;
    } catch (const ParseError& e) {
      EXPECT_EQ(e.inputLine(), line) << e.what();
      EXPECT_THAT(e.what(), HasSubstr("line " + std::to_string(line) + ": "));
      EXPECT_THAT(e.what(), HasSubstr(what));
    }
  }

  TempRepo repo;
  std::vector<std::string> lines;
};

TEST_F(MalformedTest, TheUndamagedDiffParses) { EXPECT_EQ(parse(join(lines)).files.size(), 2u); }

TEST_F(MalformedTest, HunkTruncatedAtEndOfInput) {
  auto v = lines;
  v.resize(10);  // drops "+five" and the second file
  expectError(join(v), 11, "unexpected end of input: the hunk at line 5 still expects 0 old and 1 new lines");
}

TEST_F(MalformedTest, HunkEndingEarlyBeforeTheNextFile) {
  auto v = lines;
  v.erase(v.begin() + 10);  // "+five": the next "diff --git" arrives inside the hunk
  expectError(join(v), 11, "expected a hunk line starting with ' ', '+', '-' or '\\', got 'diff --git a/b.txt b/b.txt'");
}

TEST_F(MalformedTest, GarbageInsideHunk) {
  auto v = lines;
  v[8] = "*three";
  expectError(join(v), 9, "got '*three'; the hunk at line 5 still expects 2 old and 3 new lines");
}

TEST_F(MalformedTest, MoreLinesOfOneSideThanTheHeaderSays) {
  auto v = lines;
  v[4] = "@@ -1,3 +1,5 @@";  // the old side now ends before "four"
  expectError(join(v), 10, "context line ' four' but the hunk at line 5 still expects 0 old and 2 new lines");
}

TEST_F(MalformedTest, BadHunkHeaders) {
  for (const std::string bad : {"@@ -1,x +1,5 @@", "@@ -1,4 +1,5", "@@ 1,4 +1,5 @@", "@@ -1,4 +1,99999999999 @@",
                                "@@ -0,4 +1,5 @@"}) {
    auto v = lines;
    v[4] = bad;
    expectError(join(v), 5, bad == "@@ -1,4 +1,99999999999 @@" ? "number too large" : "malformed hunk header '" + bad);
  }
}

TEST_F(MalformedTest, MinusLineWithoutPlusLine) {
  auto v = lines;
  v.erase(v.begin() + 3);  // "+++ b/a.txt"
  expectError(join(v), 4, "expected a '+++' line after the '---' line 3");
}

TEST_F(MalformedTest, FileLinesWithoutHunk) {
  auto v = lines;
  v.erase(v.begin() + 4, v.begin() + 11);  // the whole hunk of a.txt
  expectError(join(v), 5, "expected a hunk header ('@@ -A,B +C,D @@') after the '+++' line, got 'diff --git");
}

TEST_F(MalformedTest, HunkHeaderOutsideAFile) {
  expectError("some text\n@@ -1 +1 @@\n-a\n+b\n", 2, "hunk header outside of a file section");
}

TEST_F(MalformedTest, BadHeaderValues) {
  auto v = lines;
  v.insert(v.begin() + 1, "old mode 10064x");
  expectError(join(v), 2, "malformed file mode '10064x'");
  v = lines;
  v.insert(v.begin() + 1, "similarity index 120%");
  expectError(join(v), 2, "malformed similarity '120%'");
  v = lines;
  v[2] = "--- \"a/a.txt";  // unterminated quote
  expectError(join(v), 3, "malformed quoted path in '---' line");
  v = lines;
  v.insert(v.begin() + 1, "rename from a.txt");
  expectError(join(v), 1, "only one of the 'rename from/to'");
}

TEST_F(MalformedTest, CombinedDiffIsRejectedClearly) {
  expectError("diff --cc f\nindex 1,2..3\n", 1, "combined diffs of merges ('diff --cc') are not supported");
}

TEST_F(MalformedTest, InputWithoutAnyDiff) {
  expectError("this is not a diff\n", 1, "no diff found in the input");
  try {
    parse("this is not a diff\n");
  } catch (const ParseError& e) {
    EXPECT_THAT(e.what(), Not(HasSubstr("colour")));
  }
}

// `git diff --color=always` (or color.ui=always) piped in: the diff is there,
// behind colour codes, and the message says how to get it without them.
TEST_F(MalformedTest, AColouredDiffSaysToTurnColourOff) {
  repo.write("a.txt", "one\n");
  repo.commitAll();
  repo.write("a.txt", "two\n");
  const std::string coloured = repo.git("diff --color=always");
  ASSERT_EQ(coloured.rfind("\x1b[", 0), 0u) << coloured;
  expectError(coloured, 1, "no diff found in the input: expected a 'diff --git' line or a '---'/'+++' pair; the "
                           "input holds terminal colour codes (ESC [ ... m): make it with `git diff --no-color`");
}

TEST_F(MalformedTest, DamagedBinaryPatch) {
  repo.write("b.bin", std::string("\0\1\2\3\4\5\6", 7));
  repo.commitAll();
  auto v = split(repo.git("show --format= --binary HEAD"));
  ASSERT_EQ(v.at(4), "literal 7");
  const std::string good = v.at(5);
  v[5] = good.substr(0, good.size() - 1);
  expectError(join(v), 6, "length does not match its length character");
  v[5] = "!" + good.substr(1);
  expectError(join(v), 6, "bad length character");
  v[4] = "literal x";
  expectError(join(v), 5, "malformed binary patch block header");
  v[4] = "nonsense";
  expectError(join(v), 5, "expected 'literal N' or 'delta N' after 'GIT binary patch'");
}

TEST_F(MalformedTest, PathsThatCannotBeSplit) {
  // Two different names with spaces and nothing else naming them.
  expectError("diff --git a/x y b/z w\nold mode 100644\nnew mode 100755\n", 1, "cannot tell the two paths apart");
}

}  // namespace
}  // namespace revline::diff
