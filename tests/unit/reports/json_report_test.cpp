#include "core/reports/json_report.h"

#include <gtest/gtest.h>

#include "tests/unit/reports/report_fixtures.h"

namespace revline::reports {
namespace {
using namespace testing;

TEST(JsonReport, HasExactlyTheDocumentedShape) {
  auto o = outcome(Verdict::RequestChanges);
  o.modelVerdict = Verdict::Approve;
  o.attempts = 2;
  o.toolCalls = 3;
  o.usage = {100, 20};
  auto f = finding("src/Pay.java", 11, Severity::Major, Category::DataLoss, "Lost write", 12);
  f.suggestedFix = "Check the result.";
  f.edit = contract::Edit{"a", "b"};
  f.confidence = 0.75;
  o.findings.push_back(published(f, "0123456789abcdef"));
  o.rejected.push_back({finding("src/Pay.java", 412, Severity::Minor, Category::Style, "Far away"), "not in the diff"});

  const json j = renderJson(o);
  const json expected = json::parse(R"({
    "verdict": "REQUEST_CHANGES", "modelVerdict": "APPROVE", "summary": "Adds a payment check.",
    "findings": [{"file": "src/Pay.java", "line": 11, "endLine": 12, "severity": "MAJOR", "category": "DATA_LOSS",
                  "title": "Lost write", "explanation": "Because Lost write, the service misbehaves at run time.",
                  "suggestedFix": "Check the result.", "edit": {"original": "a", "replacement": "b"},
                  "confidence": 0.75, "id": "0123456789abcdef"}],
    "rejected": [{"finding": {"file": "src/Pay.java", "line": 412, "endLine": null, "severity": "MINOR",
                              "category": "STYLE", "title": "Far away",
                              "explanation": "Because Far away, the service misbehaves at run time.",
                              "suggestedFix": null, "edit": null, "confidence": 0.8},
                  "reason": "not in the diff"}],
    "attempts": 2, "toolCalls": 3, "provider": "builtin", "model": "builtin-rules",
    "usage": {"inputTokens": 100, "outputTokens": 20}})");
  EXPECT_EQ(j, expected) << j.dump(2);
}

TEST(JsonReport, EmptyListsStayArrays) {
  const json j = renderJson(outcome(Verdict::Approve));
  EXPECT_TRUE(j["findings"].is_array());
  EXPECT_TRUE(j["rejected"].is_array());
  EXPECT_EQ(j["verdict"], "APPROVE");
}

}  // namespace
}  // namespace revline::reports
