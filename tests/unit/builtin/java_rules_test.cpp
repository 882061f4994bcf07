// The Java rules on real git diffs: String identity, BigDecimal.equals and
// check-then-act on maps.
#include <gtest/gtest.h>

#include "core/builtin/rule_catalog.h"
#include "tests/unit/builtin/review_fixture.h"

namespace revline::builtin::testing {
namespace {

using contract::Category;
using contract::Severity;

// A class whose method body is `body`; body line k is file line 4 + k.
std::string java(const std::string& body) {
  return "package demo;\n\nclass Demo {\n    void run(String status, String s, BigDecimal amount) {\n" + body +
         "    }\n}\n";
}

std::vector<contract::Finding> reviewJava(const std::string& body) {
  return review("src/Demo.java", java(""), java(body));
}

TEST(JavaStringIdentity, FlagsEqualsOperatorOnStringLiteralWithCertainEdit) {
  const auto f = reviewJava("        if (status == \"APPROVED\") {\n            return;\n        }\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].file, "src/Demo.java");
  EXPECT_EQ(f[0].line, 5);
  EXPECT_FALSE(f[0].endLine);
  EXPECT_EQ(f[0].category, Category::Correctness);
  EXPECT_EQ(f[0].severity, Severity::Minor);  // 3 in 5 on the corpus: below the blocking bar
  EXPECT_DOUBLE_EQ(f[0].confidence, ruleInfo(RuleId::StringIdentity).precision);
  EXPECT_LE(f[0].title.size(), 120u);
  ASSERT_TRUE(f[0].edit);
  EXPECT_EQ(f[0].edit->original, "        if (status == \"APPROVED\") {");
  EXPECT_EQ(f[0].edit->replacement, "        if (\"APPROVED\".equals(status)) {");
}

TEST(JavaStringIdentity, RewritesNotEqualsLiteralOnTheLeftAndCallOperands) {
  auto f = reviewJava("        boolean foreign = s != \"NGN\";\n");
  ASSERT_EQ(f.size(), 1u);
  ASSERT_TRUE(f[0].edit);
  EXPECT_EQ(f[0].edit->replacement, "        boolean foreign = !\"NGN\".equals(s);");

  f = reviewJava("        if (\"USD\" == s) return;\n");
  ASSERT_EQ(f.size(), 1u);
  ASSERT_TRUE(f[0].edit);
  EXPECT_EQ(f[0].edit->replacement, "        if (\"USD\".equals(s)) return;");

  f = reviewJava("        if (req.getCurrency() != \"NGN\" && status != \"X\") return;\n");
  ASSERT_EQ(f.size(), 1u);  // one finding per line, one edit fixing both comparisons
  ASSERT_TRUE(f[0].edit);
  EXPECT_EQ(f[0].edit->replacement, "        if (!\"NGN\".equals(req.getCurrency()) && !\"X\".equals(status)) return;");
}

TEST(JavaStringIdentity, KeepsTheFindingButNoEditWhenPrecedenceMakesTheRewriteUncertain) {
  const auto f = reviewJava("        if (status + s == \"AB\") return;\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_FALSE(f[0].edit);
}

TEST(JavaStringIdentity, IgnoresEqualsNullCharsStringsCommentsAndOtherLanguages) {
  EXPECT_TRUE(reviewJava("        if (\"APPROVED\".equals(status)) return;\n"
                         "        if (status == null || s != null) return;\n"
                         "        if (status.charAt(0) == 'A') return;\n"
                         "        String msg = \"status == \\\"A\\\"\";\n"
                         "        // if (status == \"APPROVED\") was wrong\n"
                         "        /* s != \"NGN\" */\n")
                  .empty());
  EXPECT_TRUE(review("app.py", "x = 1\n", "x = 1\nif status == \"APPROVED\":\n    pass\n").empty());
}

TEST(JavaStringIdentity, ReportsOnlyAddedLinesNotContext) {
  const std::string before = java("        if (status == \"OLD\") return;\n");
  const std::string after = java("        if (status == \"OLD\") return;\n        s = s.trim();\n");
  EXPECT_TRUE(review("src/Demo.java", before, after).empty());
}

TEST(BigDecimalEquals, FlagsEqualsAgainstBigDecimalConstantsWithCompareToEdit) {
  auto f = reviewJava("        if (amount.equals(BigDecimal.ZERO)) {\n            return;\n        }\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 5);
  EXPECT_EQ(f[0].category, Category::Correctness);
  EXPECT_EQ(f[0].severity, Severity::Major);
  ASSERT_TRUE(f[0].edit);
  EXPECT_EQ(f[0].edit->original, "        if (amount.equals(BigDecimal.ZERO)) {");
  EXPECT_EQ(f[0].edit->replacement, "        if (amount.compareTo(BigDecimal.ZERO) == 0) {");

  f = reviewJava("        if (!amount.equals(BigDecimal.ONE)) return;\n");
  ASSERT_EQ(f.size(), 1u);
  ASSERT_TRUE(f[0].edit);
  EXPECT_EQ(f[0].edit->replacement, "        if (amount.compareTo(BigDecimal.ONE) != 0) return;");

  f = reviewJava("        boolean none = BigDecimal.ZERO.equals(order.getTotal());\n");
  ASSERT_EQ(f.size(), 1u);
  ASSERT_TRUE(f[0].edit);
  EXPECT_EQ(f[0].edit->replacement, "        boolean none = BigDecimal.ZERO.compareTo(order.getTotal()) == 0;");
}

TEST(BigDecimalEquals, IgnoresCompareToSignumAndOtherEquals) {
  EXPECT_TRUE(reviewJava("        if (amount.compareTo(BigDecimal.ZERO) == 0) return;\n"
                         "        if (amount.signum() == 0) return;\n"
                         "        if (status.equals(\"BigDecimal\")) return;\n")
                  .empty());
}

std::string cache(const std::string& mapType, const std::string& method) {
  return "package demo;\n"
         "\n"
         "import java.util.*;\n"
         "\n"
         "public final class RateCache {\n"
         "    private static final RateCache INSTANCE = new RateCache();\n"
         "    private final Map<String, Long> rates = new " + mapType + "<>();\n"
         "\n"
         "    public static RateCache getInstance() {\n"
         "        return INSTANCE;\n"
         "    }\n"
         "\n"
         "    public Long rate(String key) {\n" + method +
         "    }\n"
         "}\n";
}

const std::string kCheckThenPut =
    "        if (!rates.containsKey(key)) {\n"   // 14
    "            Long fresh = load(key);\n"       // 15
    "            log(key);\n"                     // 16
    "            rates.put(key, fresh);\n"        // 17
    "        }\n"
    "        return rates.get(key);\n";
const std::string kOldBody = "        return load(key);\n";

TEST(CheckThenAct, FlagsContainsKeyThenPutOnAHashMapFieldAcrossLines) {
  // The field declaration (line 7) is outside the hunk: the rules see it through the source lookup.
  const auto f = reviewWithSource("src/RateCache.java", cache("HashMap", kOldBody), cache("HashMap", kCheckThenPut));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 14);
  EXPECT_EQ(f[0].endLine, 17);
  EXPECT_EQ(f[0].category, Category::Concurrency);
  EXPECT_EQ(f[0].severity, Severity::Minor);  // 0 in 22 on the corpus: a comment, never a block
  EXPECT_DOUBLE_EQ(f[0].confidence, ruleInfo(RuleId::CheckThenAct).precision);  // measured, not guessed per case
  EXPECT_NE(f[0].explanation.find("singleton"), std::string::npos);
  EXPECT_FALSE(f[0].edit);
}

TEST(CheckThenAct, FlagsWhenTheHashMapFieldIsPartOfTheDiff) {
  const std::string before = "class A {\n    void f(String k) {\n    }\n}\n";
  const std::string after =
      "class A {\n"
      "    private final Map<String, String> names = new HashMap<>();\n"
      "    void f(String k) {\n"
      "        if (!names.containsKey(k)) names.put(k, k.trim());\n"
      "    }\n"
      "}\n";
  const auto f = review("A.java", before, after);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 4);
  EXPECT_FALSE(f[0].endLine);
  EXPECT_EQ(f[0].severity, Severity::Minor);
  EXPECT_DOUBLE_EQ(f[0].confidence, ruleInfo(RuleId::CheckThenAct).precision);
}

TEST(CheckThenAct, FlagsGetNullThenPut) {
  const std::string body = "        if (rates.get(key) == null) rates.put(key, load(key));\n        return rates.get(key);\n";
  const auto f = reviewWithSource("src/RateCache.java", cache("HashMap", kOldBody), cache("HashMap", body));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 14);
}

TEST(CheckThenAct, IgnoresConcurrentMapsAtomicCallsLocalsAndDistantPuts) {
  EXPECT_TRUE(reviewWithSource("src/RateCache.java", cache("ConcurrentHashMap", kOldBody),
                               cache("ConcurrentHashMap", kCheckThenPut)).empty());
  EXPECT_TRUE(reviewWithSource("src/RateCache.java", cache("HashMap", kOldBody),
                               cache("HashMap", "        return rates.computeIfAbsent(key, k -> load(k));\n")).empty());
  EXPECT_TRUE(reviewWithSource("src/RateCache.java", cache("HashMap", kOldBody),
                               cache("HashMap", "        rates.putIfAbsent(key, load(key));\n        return rates.get(key);\n")).empty());
  EXPECT_TRUE(reviewJava("        Map<String, Long> seen = new HashMap<>();\n"
                         "        if (!seen.containsKey(s)) {\n            seen.put(s, 1L);\n        }\n").empty());
  EXPECT_TRUE(reviewWithSource("src/RateCache.java", cache("HashMap", kOldBody),
                               cache("HashMap", "        if (rates.containsKey(key)) {\n            return rates.get(key);\n        }\n"
                                                "        a();\n        b();\n        c();\n        d();\n"
                                                "        rates.put(key, load(key));\n        return rates.get(key);\n")).empty());
}

TEST(CheckThenAct, StaysSilentWhenTheMapTypeIsNotKnown) {
  // Without the whole file the declaration is not visible: it may be a ConcurrentHashMap.
  EXPECT_TRUE(review("src/RateCache.java", cache("HashMap", kOldBody), cache("HashMap", kCheckThenPut)).empty());
  EXPECT_TRUE(reviewJava("        if (!cache.containsKey(s)) {\n            cache.put(s, status);\n        }\n").empty());
}

}  // namespace
}  // namespace revline::builtin::testing
