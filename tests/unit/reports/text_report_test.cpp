#include "core/reports/text_report.h"

#include <gtest/gtest.h>

#include "tests/unit/reports/report_fixtures.h"

namespace revline::reports {
namespace {
using namespace testing;

TEST(TextReport, RendersFindingsRejectedAndCounts) {
  auto o = outcome(Verdict::RequestChanges);
  o.modelVerdict = Verdict::Comment;
  o.usage = {1200, 300};
  auto f = finding("src/Pay.java", 11, Severity::Major, Category::Correctness, "String compared by identity", 13);
  f.confidence = 0.82;
  f.explanation = "Compares references.\nAlways true for new strings.";
  f.suggestedFix = "Use equals.";
  f.edit = contract::Edit{"  if (x != \"NGN\") {", "  if (!\"NGN\".equals(x)) {"};
  o.findings.push_back(published(f, "aaaa"));
  auto nit = finding("src/Pay.java", 41, Severity::Nit, Category::Style, "Name", std::nullopt);
  nit.confidence = 0.5;
  auto dropped = published(nit, "bbbb");
  dropped.editDroppedReason = "original does not match line 41";
  o.findings.push_back(dropped);
  o.rejected.push_back({finding("src/Pay.java", 412, Severity::Blocker, Category::Security, "SQL injection"),
                        "line 412 of 'src/Pay.java' is not among the lines this diff touches"});

  const std::string expected =
      "revline: REQUEST_CHANGES (the model said COMMENT)\n"
      "Adds a payment check.\n"
      "\n"
      "src/Pay.java:11-13: MAJOR CORRECTNESS String compared by identity (confidence 0.82)\n"
      "    Compares references.\n"
      "    Always true for new strings.\n"
      "    Fix: Use equals.\n"
      "    Edit:\n"
      "      -   if (x != \"NGN\") {\n"
      "      +   if (!\"NGN\".equals(x)) {\n"
      "\n"
      "src/Pay.java:41: NIT STYLE Name (confidence 0.50)\n"
      "    Because Name, the service misbehaves at run time.\n"
      "    (fix withheld: original does not match line 41)\n"
      "\n"
      "Rejected (not published):\n"
      "  src/Pay.java:412: BLOCKER SECURITY SQL injection\n"
      "    line 412 of 'src/Pay.java' is not among the lines this diff touches\n"
      "\n"
      "2 findings (1 MAJOR, 1 NIT), 1 rejected; 1 attempt, 0 tool calls; builtin builtin-rules; "
      "1200 input + 300 output tokens\n";
  EXPECT_EQ(renderText(o), expected);
}

TEST(TextReport, ApprovalWithoutFindings) {
  auto o = outcome(Verdict::Approve);
  o.attempts = 2;
  o.toolCalls = 1;
  EXPECT_EQ(renderText(o),
            "revline: APPROVE\nAdds a payment check.\n\nNo findings.\n\n"
            "0 findings, 0 rejected; 2 attempts, 1 tool call; builtin builtin-rules\n");
}

TEST(TextReport, ColourOnlyWhenAsked) {
  auto o = outcome(Verdict::RequestChanges);
  o.findings.push_back(published(finding("a.c", 1, Severity::Blocker, Category::Security, "gets"), "x"));
  EXPECT_EQ(renderText(o).find('\x1b'), std::string::npos);
  const std::string coloured = renderText(o, true);
  EXPECT_NE(coloured.find("\x1b[1;31mREQUEST_CHANGES\x1b[0m"), std::string::npos);
  EXPECT_NE(coloured.find("\x1b[1;31mBLOCKER\x1b[0m"), std::string::npos);
}

TEST(TextReport, DeletionEditShowsAnEmptyPlusLine) {
  auto o = outcome();
  auto f = finding("a.py", 3, Severity::Minor, Category::Maintainability, "Dead code", 4);
  f.edit = contract::Edit{"x = 1\ny = 2", ""};
  o.findings.push_back(published(f, "x"));
  EXPECT_NE(renderText(o).find("    Edit:\n      - x = 1\n      - y = 2\n      +\n"), std::string::npos);
}

}  // namespace
}  // namespace revline::reports
