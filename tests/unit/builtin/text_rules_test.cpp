// Rules for every file type: hard-coded secrets and merge-conflict markers.
#include <gtest/gtest.h>

#include "core/builtin/rule_catalog.h"
#include "tests/unit/builtin/review_fixture.h"

namespace revline::builtin::testing {
namespace {

using contract::Category;
using contract::Severity;

TEST(SecretRule, FlagsCredentialsInAnyFileType) {
  auto f = review("config/app.yml", "app:\n  name: demo\n", "app:\n  name: demo\n  aws_key: AKIAQ3EGRMTX2WJ7KZ5N\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].file, "config/app.yml");
  EXPECT_EQ(f[0].line, 3);
  EXPECT_EQ(f[0].category, Category::Security);
  EXPECT_EQ(f[0].severity, Severity::Blocker);
  EXPECT_NE(f[0].title.find("AWS"), std::string::npos);

  f = review("Db.java", "class Db {\n}\n", "class Db {\n    private static final String PASSWORD = \"pr0d-s3cret\";\n}\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 2);
  // A rule below 9-in-10 measured precision reports as a comment (rule_catalog.h).
  EXPECT_EQ(f[0].severity, ruleInfo(RuleId::HardcodedPassword).blocks() ? Severity::Major : Severity::Minor);

  f = review("deploy/key.pem", "", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 1);
}

// A hand-made patch may list a file's hunks in any order: a line is still found
// by its number (the suppression comment on line 2, in the second hunk listed).
TEST(SecretRule, HunksOutOfOrderStillHonourTheirSuppressions) {
  const diff::Diff d = diff::parse(
      "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n"
      "@@ -10,1 +10,2 @@\n a\n+password = \"hunter2hunter1\"\n"
      "@@ -1,1 +1,2 @@\n b\n+password = \"hunter2hunter2\"  # noqa\n");
  const auto f = reviewDiff(d);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 11);
}

TEST(SecretRule, IgnoresLookupsPlaceholdersAndContextLines) {
  EXPECT_TRUE(review("settings.py", "DEBUG = False\n",
                     "DEBUG = False\nPASSWORD = os.environ[\"DB_PASSWORD\"]\nSECRET = \"changeme\"\n").empty());
  const std::string old = "token: ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5\n";
  EXPECT_TRUE(review("ci.yml", old, old + "other: 1\n").empty());
}

TEST(ConflictMarkers, OneFindingSpanningTheConflictBlock) {
  const std::string after =
      "def f():\n"
      "<<<<<<< HEAD\n"      // 2
      "    return 1\n"
      "=======\n"
      "    return 2\n"
      ">>>>>>> feature\n";  // 6
  const auto f = review("m.py", "def f():\n    return 1\n", after);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 2);
  EXPECT_EQ(f[0].endLine, 6);
  EXPECT_EQ(f[0].severity, Severity::Blocker);
  EXPECT_EQ(f[0].category, Category::Correctness);
}

// A lone ">>>>>>> x" is a conflict's; a lone "=======" is one only beside
// another marker in the file: alone it underlines a heading, in prose and in a
// docstring ("Testing\n=======" in a conftest.py was a BLOCKER).
TEST(ConflictMarkers, LoneMarkersAreReportedButHeadingUnderlinesAreNot) {
  EXPECT_TRUE(review("notes.conf", "a\n", "a\n=======\n").empty());
  EXPECT_TRUE(review("conftest.py", "x = 1\n", "x = 1\n\"\"\"\nTesting\n=======\n\"\"\"\n").empty());
  auto f = review("notes.conf", "a\n", "a\n=======\nb\n>>>>>>> feature\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 2);
  EXPECT_EQ(f[0].endLine, 4);
  EXPECT_TRUE(review("README.md", "x\n", "x\n\nTitle\n=======\n\n<<<<<<<< not a marker (8)\n").empty());
  EXPECT_TRUE(review("a.c", "x\n", "x\n// ======= section =======\n").empty());
}

}  // namespace
}  // namespace revline::builtin::testing
