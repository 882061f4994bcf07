// The one glob engine, as the settings and the model's tools both use it.
#include "core/support/glob.h"

#include <gtest/gtest.h>

using namespace revline;

TEST(Glob, StarAndQuestionStayWithinASegment) {
  EXPECT_TRUE(globMatchPath("src/*.c", "src/a.c"));
  EXPECT_FALSE(globMatchPath("src/*.c", "src/x/a.c"));
  EXPECT_TRUE(globMatchPath("a?c", "abc"));
  EXPECT_FALSE(globMatchPath("a?c", "a/c"));
  EXPECT_TRUE(globMatchPath("*", "file"));
  EXPECT_FALSE(globMatchPath("*", "dir/file"));
}

TEST(Glob, DoubleStarIsAnyNumberOfSegments) {
  EXPECT_TRUE(globMatchPath("**/*.md", "README.md"));
  EXPECT_TRUE(globMatchPath("**/*.md", "docs/a/b.md"));
  EXPECT_TRUE(globMatchPath("src/**", "src/a/b/c.c"));
  EXPECT_TRUE(globMatchPath("src/**/test", "src/test"));
  EXPECT_TRUE(globMatchPath("src/**/test", "src/x/y/test"));
  EXPECT_FALSE(globMatchPath("src/**/test", "lib/test"));
  EXPECT_TRUE(globMatchPath("src/**.c", "src/a.c"));  // not a whole segment: acts as '*'
  EXPECT_FALSE(globMatchPath("src/**.c", "src/x/a.c"));
}

TEST(Glob, SetsAndAlternatives) {
  EXPECT_TRUE(globMatchPath("file[0-9].txt", "file7.txt"));
  EXPECT_FALSE(globMatchPath("file[!0-9].txt", "file7.txt"));
  EXPECT_TRUE(globMatchPath("file[^0-9].txt", "fileA.txt"));
  EXPECT_TRUE(globMatchPath("a[b", "a[b"));  // a malformed set is a literal '['
  EXPECT_TRUE(globMatchPath("*.{c,h}", "x.h"));
  EXPECT_TRUE(globMatchPath("{src,lib}/**/*.js", "lib/a/b.js"));
  EXPECT_FALSE(globMatchPath("*.{c,h}", "x.cpp"));
  EXPECT_EQ(expandGlobBraces("{a,b}{c,d}").size(), 4u);
}

// A brace group of many alternatives before a long tail (from the model's glob
// tool or a repository's .revline.json): each alternative was a copy of the
// tail, and the 64-expansion cap was checked only between groups, so 40,000
// alternatives of a 40,000-byte tail asked for 1.6 GB.
TEST(Glob, BraceAlternativesAreBoundedInCountAndSize) {
  std::string many = "{";
  for (int i = 0; i < 500; ++i) many += "a" + std::to_string(i) + ",";  // 2.4 KB
  many += "z}";
  const auto capped = expandGlobBraces(many + "/x.py");
  EXPECT_EQ(capped.size(), 64u);
  EXPECT_EQ(capped.front(), "a0/x.py");
  std::string bomb = "{";
  for (int i = 0; i < 40000; ++i) bomb += "a,";
  bomb += "a}" + std::string(40000, 'b');
  const auto asWritten = expandGlobBraces(bomb);
  ASSERT_EQ(asWritten.size(), 1u);
  EXPECT_EQ(asWritten[0], bomb);
  EXPECT_FALSE(globMatchPath(bomb, "ab"));
}

TEST(Glob, DirectoryMatchesAreReportedApart) {
  const GlobMatch m = globMatchPrefix("vendor", "vendor/a/b.js");
  EXPECT_TRUE(m.directory);
  EXPECT_FALSE(m.whole);
  const GlobMatch both = globMatchPrefix("**/build", "build/x/build");
  EXPECT_TRUE(both.directory);
  EXPECT_TRUE(both.whole);
  EXPECT_FALSE(globMatchPrefix("vendor", "src/vendor.js").directory);
}

TEST(Glob, PathologicalPatternsEndQuickly) {
  const std::string path(200, 'a');
  EXPECT_FALSE(globMatchPath("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", path));
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += "**/";
  EXPECT_FALSE(globMatchPath(deep + "z", "a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p"));
}

// Many stars still match what they should: trying every split at every star ran
// out of its step budget and said "no match" (and took a minute over a
// repository's names); going back only to the last star takes at most the
// product of the two lengths.
TEST(Glob, ManyStarsMatchWhatTheyShould) {
  std::string name(200, 'a');
  name += 'b';
  EXPECT_TRUE(globMatchPath("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", name));
  EXPECT_TRUE(globMatchPath("data/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*{c,d,b}", "data/" + name));
  EXPECT_FALSE(globMatchPath("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*c", name));
  // The last "a" must be the one before the "c": every earlier split fails first.
  EXPECT_TRUE(globMatchPath("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*ac", std::string(200, 'a') + "c"));
  // Backtracking to the last star finds the later match.
  EXPECT_TRUE(globMatchPath("*ab*ac", "xabyabzac"));
  EXPECT_TRUE(globMatchPath("a*[0-9]?z", "abc7xz"));
  EXPECT_FALSE(globMatchPath("a*[0-9]?z", "abc7z"));
  EXPECT_TRUE(globMatchPath("*", ""));
  EXPECT_FALSE(globMatchPath("?*", ""));
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += "**/";
  EXPECT_TRUE(globMatchPath(deep + "p", "a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p"));
}
