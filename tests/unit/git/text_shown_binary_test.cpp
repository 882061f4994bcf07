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
  const std::string withNul = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-p\n+q" +
                              std::string(1, '\0') + "\n";
  EXPECT_EQ(withTextSections(shown, withNul), shown);
  EXPECT_FALSE(showsABinaryFile("diff --git a/b.c b/b.c\n@@ -1 +1 @@\n-Binary files x\n+y\n"));
  EXPECT_TRUE(showsABinaryFile(shown));
}

}  // namespace
}  // namespace revline::git
