// The builtin provider: its answer is JSON text that the standard reply
// parser accepts, carrying the rules' findings, a summary and a verdict.
#include "core/builtin/builtin_provider.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/contract/reply_parser.h"
#include "tests/unit/builtin/review_fixture.h"

namespace revline::builtin::testing {
namespace {

using contract::Category;
using contract::Severity;
using contract::Verdict;

const std::string kBefore = "class A {\n    void f(String s) {\n    }\n}\n";

TEST(BuiltinProvider, AnswersWithJsonTheReplyParserAccepts) {
  const std::string after = "class A {\n    void f(String s) {\n        if (s == \"x\") return;\n    }\n}\n";
  BuiltinProvider provider(diffOf("A.java", kBefore, after));
  EXPECT_EQ(provider.name(), "builtin");
  EXPECT_EQ(provider.model(), "rules-v1");
  EXPECT_FALSE(provider.remote());

  const review::ModelResponse response = provider.complete(review::ModelRequest{}, CancelToken{});
  EXPECT_EQ(response.finish, review::FinishReason::Stop);
  EXPECT_TRUE(response.toolCalls.empty());
  EXPECT_EQ(response.usage.inputTokens, 0);
  EXPECT_EQ(response.usage.outputTokens, 0);

  const auto parsed = contract::parseReply(response.text);
  ASSERT_TRUE(parsed.ok()) << response.text;
  const contract::ReviewReport& report = *parsed.report;
  ASSERT_EQ(report.findings.size(), 1u);
  const auto& f = report.findings[0];
  EXPECT_EQ(f.file, "A.java");
  EXPECT_EQ(f.line, 3);
  // string-identity measures 3 in 5 (PERFORMANCE.md): a comment, not a block.
  EXPECT_EQ(f.severity, Severity::Minor);
  EXPECT_EQ(f.category, Category::Correctness);
  EXPECT_DOUBLE_EQ(f.confidence, 0.6);
  ASSERT_TRUE(f.edit);
  EXPECT_EQ(f.edit->original, "        if (s == \"x\") return;");
  EXPECT_EQ(f.edit->replacement, "        if (\"x\".equals(s)) return;");
  EXPECT_EQ(report.verdict, Verdict::Comment);
  EXPECT_EQ(report.summary, "The builtin rules found 1 problem (1 minor) in 1 changed file.");
}

// More findings than one reply holds (contract::kMaxReplyBytes, which the reply
// parser reads at most): the answer lists the most severe within it and says
// how many it left out, and still parses. Before, the cut reply failed the
// contract twice, and a pre-commit hook got exit 2 instead of "request changes".
TEST(BuiltinProvider, AnAnswerLongerThanOneReplyListsTheMostSevereFirst) {
  std::string after;
  for (int i = 0; i < 3000; ++i) after += "password = \"hunter2hunter" + std::to_string(i) + "\"\n";
  after += "<<<<<<< HEAD\na = 1\n=======\na = 2\n>>>>>>> branch\n";  // last, and the one blocker
  BuiltinProvider provider(diffOf("conf.py", "", after));
  const std::string text = provider.complete({}, CancelToken{}).text;
  EXPECT_LE(text.size(), contract::kMaxReplyBytes);
  const auto parsed = contract::parseReply(text);
  ASSERT_TRUE(parsed.ok()) << text.substr(0, 300);
  const contract::ReviewReport& report = *parsed.report;
  ASSERT_GT(report.findings.size(), 1000u);
  ASSERT_LT(report.findings.size(), 3001u);
  const std::string listed = std::to_string(report.findings.size());
  EXPECT_NE(report.summary.find("found 3001 problems (1 blocker, 3000 minor)"), std::string::npos) << report.summary;
  EXPECT_NE(report.summary.find("This answer lists " + listed + " of them, the most severe first; the other " +
                                std::to_string(3001 - report.findings.size()) + " did not fit"),
            std::string::npos)
      << report.summary;
  EXPECT_EQ(std::count_if(report.findings.begin(), report.findings.end(),
                          [](const contract::Finding& f) { return f.severity == Severity::Blocker; }),
            1);
  EXPECT_TRUE(std::is_sorted(report.findings.begin(), report.findings.end(),
                             [](const contract::Finding& a, const contract::Finding& b) { return a.line < b.line; }));
  EXPECT_EQ(report.verdict, Verdict::RequestChanges);
}

TEST(BuiltinProvider, ApprovesACleanChange) {
  const std::string after = "class A {\n    void f(String s) {\n        if (\"x\".equals(s)) return;\n    }\n}\n";
  BuiltinProvider provider(diffOf("A.java", kBefore, after));
  const auto parsed = contract::parseReply(provider.complete({}, CancelToken{}).text);
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed.report->findings.empty());
  EXPECT_EQ(parsed.report->verdict, Verdict::Approve);
  EXPECT_EQ(parsed.report->summary, "No problems found by the builtin rules in 1 changed file.");
}

TEST(BuiltinProvider, ThrowsCancelledWhenTheTokenIsCancelled) {
  BuiltinProvider provider(diffOf("A.java", kBefore, kBefore + "\n"));
  CancelToken cancel;
  cancel.cancel();
  EXPECT_THROW(provider.complete({}, cancel), Cancelled);
}

// A review under way stops at the next file when cancelled (Ctrl-C, a CI job's
// SIGTERM, the editor's exit): it ran to the end of a large change before.
TEST(BuiltinProvider, ACancelledReviewStopsAtTheNextFile) {
  diff::Diff change = diffOf("A.java", kBefore, kBefore + "\n");
  diff::Diff other = diffOf("B.java", kBefore, kBefore + "\n");
  change.files.push_back(other.files.front());
  CancelToken cancel;
  int read = 0;
  const SourceLookup cancelOnFirstRead = [&](const std::string&) -> std::optional<std::string> {
    ++read;
    cancel.cancel();  // as a signal arriving while the first file is scanned
    return std::nullopt;
  };
  EXPECT_THROW(reviewDiff(change, cancelOnFirstRead, &cancel), Cancelled);
  EXPECT_EQ(read, 1) << "the second file was not scanned";
}

TEST(BuiltinProvider, SummaryCountsBySeverityAndVerdictFollowsBlockingCategories) {
  contract::Finding blocker;
  blocker.severity = Severity::Blocker;
  blocker.category = Category::Security;
  contract::Finding minor;
  minor.severity = Severity::Minor;
  minor.category = Category::Correctness;
  contract::Finding style;
  style.severity = Severity::Major;
  style.category = Category::Style;
  EXPECT_EQ(summarize({blocker, minor, minor}, 3), "The builtin rules found 3 problems (1 blocker, 2 minor) in 3 changed files.");
  EXPECT_EQ(summarize({}, 0), "No problems found by the builtin rules in 0 changed files.");
  EXPECT_EQ(verdictFor({}), Verdict::Approve);
  EXPECT_EQ(verdictFor({minor, style}), Verdict::Comment);  // MAJOR but not a blocking category
  EXPECT_EQ(verdictFor({minor, blocker}), Verdict::RequestChanges);
}

}  // namespace
}  // namespace revline::builtin::testing
