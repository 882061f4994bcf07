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
  o.usage = {.inputTokens = 100, .outputTokens = 20, .cachedInputTokens = 60, .cacheWriteTokens = 30, .requests = 3,
             .toolCalls = 3, .toolCallBudget = 5};
  auto f = finding("src/Pay.java", 11, Severity::Major, Category::DataLoss, "Lost write", 12);
  f.suggestedFix = "Check the result.";
  f.edit = contract::Edit{"a", "b"};
  f.confidence = 0.75;
  o.findings.push_back(published(f, "0123456789abcdef"));
  o.rejected.push_back({finding("src/Pay.java", 412, Severity::Minor, Category::Style, "Far away"), "not in the diff"});
  o.findings[0].editDroppedReason = std::nullopt;
  auto withheld = finding("src/Pay.java", 13, Severity::Minor, Category::Style, "Name");
  o.findings.push_back(published(withheld, "fedcba9876543210"));
  o.findings[1].editDroppedReason = "edit.original does not match line 13";
  o.findings[1].rangeClamped = "clamped to line 13";
  o.coverage = {1, 2, 5, 9, {{"package-lock.json", "lock file", 4}}};
  o.warnings = {"trailing_text: ignored text after the report"};

  const json j = renderJson(o);
  const json expected = json::parse(R"({
    "verdict": "REQUEST_CHANGES", "modelVerdict": "APPROVE", "summary": "Adds a payment check.",
    "findings": [{"file": "src/Pay.java", "line": 11, "endLine": 12, "severity": "MAJOR", "category": "DATA_LOSS",
                  "title": "Lost write", "explanation": "Because Lost write, the service misbehaves at run time.",
                  "suggestedFix": "Check the result.", "edit": {"original": "a", "replacement": "b"},
                  "confidence": 0.75, "id": "0123456789abcdef"},
                 {"file": "src/Pay.java", "line": 13, "endLine": null, "severity": "MINOR", "category": "STYLE",
                  "title": "Name", "explanation": "Because Name, the service misbehaves at run time.",
                  "suggestedFix": null, "edit": null, "confidence": 0.8, "id": "fedcba9876543210",
                  "editDroppedReason": "edit.original does not match line 13", "rangeClamped": "clamped to line 13"}],
    "rejected": [{"finding": {"file": "src/Pay.java", "line": 412, "endLine": null, "severity": "MINOR",
                              "category": "STYLE", "title": "Far away",
                              "explanation": "Because Far away, the service misbehaves at run time.",
                              "suggestedFix": null, "edit": null, "confidence": 0.8},
                  "reason": "not in the diff"}],
    "unplacedBlocking": 0,
    "coverage": {"filesReviewed": 1, "filesTotal": 2, "linesReviewed": 5, "linesTotal": 9,
                 "filesExcluded": 1, "linesExcluded": 4,
                 "filesSkipped": [{"path": "package-lock.json", "reason": "lock file"}]},
    "attempts": 2, "toolCalls": 3, "requests": 3, "provider": "builtin", "model": "builtin-rules",
    "usage": {"requests": 3, "inputTokens": 100, "outputTokens": 20, "cachedInputTokens": 60, "cacheWriteTokens": 30,
              "toolCalls": 3, "toolCallBudget": 5, "unreportedRequests": 0},
    "warnings": ["trailing_text: ignored text after the report"]})");
  EXPECT_EQ(j, expected) << j.dump(2);
}

TEST(JsonReport, CostFromTheConfiguredPrices) {
  auto o = outcome(Verdict::Approve);
  o.usage = {.inputTokens = 2'000'000, .outputTokens = 1'000'000, .cachedInputTokens = 1'000'000, .requests = 2};
  EXPECT_FALSE(renderJson(o)["usage"].contains("cost")) << "no price configured: no cost";
  o.prices.input = 2.0;
  o.prices.output = 8.0;
  // No cached-input price: cached tokens are billed at the input price.
  EXPECT_EQ(renderJson(o)["usage"]["cost"], (json{{"input", 4.0}, {"output", 8.0}, {"total", 12.0}, {"lowerBound", false}}));
  o.prices.cachedInput = 0.5;
  EXPECT_EQ(renderJson(o)["usage"]["cost"], (json{{"input", 2.5}, {"output", 8.0}, {"total", 10.5}, {"lowerBound", false}}));
  // Sums of prices per million are not exact in binary: the report shows the amount, not the noise.
  o.usage = {.inputTokens = 4'550, .outputTokens = 500, .requests = 1};
  o.prices = {.input = 3.0, .output = 15.0};
  EXPECT_EQ(renderJson(o)["usage"]["cost"].dump(), R"({"input":0.01365,"lowerBound":false,"output":0.0075,"total":0.02115})");
}

TEST(JsonReport, CostOfRequestsWithoutTokenCountsIsNoConfidentFigure) {
  auto o = outcome(Verdict::Comment);
  o.prices = {.input = 3.0, .output = 15.0};
  // One request answered without usage (or cancelled in flight), nothing counted: no figure, not 0.
  o.usage = {.requests = 1, .unreportedRequests = 1};
  EXPECT_EQ(renderJson(o)["usage"]["cost"],
            (json{{"input", nullptr}, {"output", nullptr}, {"total", nullptr}, {"lowerBound", false}}));
  // One of two without counts: the figure of the other, said to be a lower bound.
  o.usage = {.inputTokens = 1'000'000, .requests = 2, .unreportedRequests = 1};
  EXPECT_EQ(renderJson(o)["usage"]["cost"],
            (json{{"input", 3.0}, {"output", 0.0}, {"total", 3.0}, {"lowerBound", true}}));
}

TEST(JsonReport, EmptyListsStayArrays) {
  const json j = renderJson(outcome(Verdict::Approve));
  EXPECT_TRUE(j["findings"].is_array());
  EXPECT_TRUE(j["rejected"].is_array());
  EXPECT_TRUE(j["warnings"].is_array());
  auto unanswered = outcome(Verdict::Comment);
  unanswered.modelVerdict.reset();  // every hunk from the cache: no model answered
  EXPECT_TRUE(renderJson(unanswered)["modelVerdict"].is_null());
  EXPECT_EQ(j["verdict"], "APPROVE");
}

}  // namespace
}  // namespace revline::reports
