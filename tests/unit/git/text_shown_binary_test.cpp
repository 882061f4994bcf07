// The pure parts of showing text files that a .gitattributes shows as binary
// (diffText's part: git_test.cpp, ShownBinary).
#include "core/git/text_shown_binary.h"

#include <gtest/gtest.h>

namespace revline::git {
namespace {

TEST(WithTextSections, ReplacesOnlyBinarySectionsWithAUniqueHeaderAndHunks) {
  const std::string shown =
      "diff --git a/a.py b/a.py\nindex 1..2 100644\nBinary files a/a.py and b/a.py differ\n"
      "diff --git a/b.c b/b.c\nindex 3..4 100644\n--- a/b.c\n+++ b/b.c\n@@ -1 +1 @@\n-x\n+y\n"
      "diff --git a/t b/t\ndeleted file mode 100644\nBinary files a/t and /dev/null differ\n"
      "diff --git a/t b/t\nnew file mode 120000\nBinary files /dev/null and b/t differ\n";
  const std::string asText =
      "diff --git a/a.py b/a.py\nindex 1..2 100644\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-p\n+q\n"
      "diff --git a/t b/t\ndeleted file mode 100644\n--- a/t\n+++ /dev/null\n@@ -1 +0,0 @@\n-z\n";
  const std::string out = withTextSections(shown, asText);
  EXPECT_EQ(out,
            "diff --git a/a.py b/a.py\nindex 1..2 100644\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-p\n+q\n"
            "diff --git a/b.c b/b.c\nindex 3..4 100644\n--- a/b.c\n+++ b/b.c\n@@ -1 +1 @@\n-x\n+y\n"
            "diff --git a/t b/t\ndeleted file mode 100644\nBinary files a/t and /dev/null differ\n"
            "diff --git a/t b/t\nnew file mode 120000\nBinary files /dev/null and b/t differ\n");
  // A NUL in the text diff stays (git's own text diff of a file with a NUL past
  // 8000 bytes holds one too): the review skips it as binary content, and says so.
  const std::string withNul = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-p\n+q" +
                              std::string(1, '\0') + "\n";
  EXPECT_NE(withTextSections(shown, withNul).find(withNul), std::string::npos);
  EXPECT_FALSE(showsABinaryFile("diff --git a/b.c b/b.c\n@@ -1 +1 @@\n-Binary files x\n+y\n"));
  EXPECT_TRUE(showsABinaryFile(shown));
}

// The binary sections are told apart by their order, as --numstat lists them.
TEST(WithoutBinarySections, DropsTheNthBinarySectionsOnlyWhenTheCountsAgree) {
  const std::string a = "diff --git a/a b/a\nBinary files a/a and b/a differ\n";
  const std::string b = "diff --git a/b b/b\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-x\n+y\n";
  const std::string c = "diff --git a/c d/c\nindex 1..2\nBinary files a/c and b/c differ\n";
  std::string diff = a + b + c;
  EXPECT_FALSE(withoutBinarySections(diff, {1}, 3)) << "three binary entries, two binary sections";
  EXPECT_EQ(diff, a + b + c);
  EXPECT_TRUE(withoutBinarySections(diff, {1}, 2));
  EXPECT_EQ(diff, a + b);
}

}  // namespace
}  // namespace revline::git
