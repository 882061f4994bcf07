// Finding ids: stable while lines move, different when the problem differs,
// and pinned to golden values so an accidental hash change is noticed.
#include "core/review/finding_id.h"

#include <gtest/gtest.h>

#include <string>

namespace revline::review {
namespace {

// A diff of src/A.java whose hunk starts at new line `start`: context, one
// added line (`added`, at start + 1), two more context lines.
diff::Diff diffAt(int start, const std::string& added = "    return cache.get(key);",
                  const std::string& path = "src/A.java") {
  const std::string s = std::to_string(start);
  return diff::parse("diff --git a/" + path + " b/" + path + "\n" +
                     "index 1111111..2222222 100644\n"
                     "--- a/" + path + "\n"
                     "+++ b/" + path + "\n"
                     "@@ -" + s + ",3 +" + s + ",4 @@ class A {\n"
                     "   int x = 1;\n"
                     "+" + added + "\n"
                     "   int y = 2;\n"
                     "   int z = 3;\n");
}

contract::Finding finding(std::int64_t line, std::optional<std::int64_t> endLine = std::nullopt) {
  contract::Finding f;
  f.file = "src/A.java";
  f.line = line;
  f.endLine = endLine;
  f.severity = contract::Severity::Major;
  f.category = contract::Category::Correctness;
  f.title = "Cache lookup can return null";
  f.explanation = "get() returns null for a missing key.";
  f.confidence = 0.9;
  return f;
}

std::string idOf(const contract::Finding& f, const diff::Diff& d) {
  const diff::FileDiff* file = d.findFile(f.file);
  EXPECT_NE(file, nullptr);
  return file ? findingId(f, *file) : std::string();
}

TEST(FindingId, GoldenValues) {
  // Computed independently: FNV-1a 64 over "<byte length>:<bytes>" of
  // "revline-finding-id-v1", the path, "CORRECTNESS", the title and each trimmed line.
  EXPECT_EQ(idOf(finding(11), diffAt(10)), "b79a137828cb64cf");
  EXPECT_EQ(idOf(finding(11, 12), diffAt(10)), "451a3b82a537ab78");
}

TEST(FindingId, IsSixteenLowercaseHexDigits) {
  const std::string id = idOf(finding(11), diffAt(10));
  ASSERT_EQ(id.size(), 16u);
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(FindingId, SameProblemKeepsItsIdWhenLinesMove) {
  const std::string before = idOf(finding(11), diffAt(10));
  EXPECT_EQ(idOf(finding(215), diffAt(214)), before);
  EXPECT_EQ(idOf(finding(11, 12), diffAt(10)), idOf(finding(41, 42), diffAt(40)));
}

TEST(FindingId, ReindentingTheLineOrPaddingTheTitleKeepsTheId) {
  const std::string before = idOf(finding(11), diffAt(10));
  EXPECT_EQ(idOf(finding(11), diffAt(10, "\treturn cache.get(key);  ")), before);
  contract::Finding padded = finding(11);
  padded.title = "  Cache lookup can return null \n";
  EXPECT_EQ(idOf(padded, diffAt(10)), before);
}

TEST(FindingId, IgnoresSeverityConfidenceAndExplanation) {
  contract::Finding f = finding(11);
  f.severity = contract::Severity::Nit;
  f.confidence = 0.1;
  f.explanation = "Reworded.";
  f.suggestedFix = "Use getOrDefault.";
  EXPECT_EQ(idOf(f, diffAt(10)), idOf(finding(11), diffAt(10)));
}

TEST(FindingId, DiffersWhenTheProblemDiffers) {
  const diff::Diff d = diffAt(10);
  const std::string base = idOf(finding(11), d);

  contract::Finding title = finding(11);
  title.title = "Cache lookup can throw";
  EXPECT_NE(idOf(title, d), base);

  contract::Finding category = finding(11);
  category.category = contract::Category::Performance;
  EXPECT_NE(idOf(category, d), base);

  EXPECT_NE(idOf(finding(11), diffAt(10, "    return cache.get(otherKey);")), base);
  EXPECT_NE(idOf(finding(12), d), base);      // another line's text
  EXPECT_NE(idOf(finding(11, 12), d), base);  // a longer range

  contract::Finding other = finding(11);
  other.file = "src/B.java";
  EXPECT_NE(idOf(other, diffAt(10, "    return cache.get(key);", "src/B.java")), base);
}

TEST(FindingId, FieldBoundariesAreUnambiguous) {
  // Moving characters between title and line text must not collide.
  contract::Finding a = finding(11);
  a.title = "Cache lookup";
  contract::Finding b = finding(11);
  b.title = "Cache lookupreturn";
  EXPECT_NE(idOf(a, diffAt(10, "return cache.get(key);")), idOf(b, diffAt(10, "cache.get(key);")));
}

}  // namespace
}  // namespace revline::review
