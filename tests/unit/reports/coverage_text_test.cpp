// Coverage in every report: the sentence "reviewed X of Y files (Z of W
// changed lines)", what was skipped and why, and the reason the verdict is not
// APPROVE when a request limit left part of the change out.
#include "core/reports/coverage_text.h"

#include <gtest/gtest.h>

#include "core/reports/github_review.h"
#include "core/reports/json_report.h"
#include "core/reports/sarif_report.h"
#include "core/reports/text_report.h"
#include "tests/unit/reports/report_fixtures.h"

namespace revline::reports {
namespace {

using namespace testing;

review::ReviewOutcome partlyReviewed() {
  auto o = outcome(Verdict::Comment);
  o.coverage.filesReviewed = 3;
  o.coverage.filesTotal = 5;
  o.coverage.linesReviewed = 120;
  o.coverage.linesTotal = 400;
  o.coverage.filesSkipped.push_back({"package-lock.json", "lock file; list it in include to review it", 30});
  review::SkippedFile over{"src/big.c", "not reviewed: lines 1-250 past the max_requests cap of 2 requests per review", 250};
  over.overLimit = true;
  o.coverage.filesSkipped.push_back(over);
  return o;
}

TEST(CoverageText, TheSentence) {
  EXPECT_EQ(coverageSentence(partlyReviewed().coverage), "reviewed 3 of 5 files (120 of 400 changed lines)");
  EXPECT_NE(notReviewedReason(partlyReviewed().coverage).find("1 file over the request token budget"), std::string::npos);
  review::Coverage chosen;  // left out by the user's choice only: no reason against approving
  chosen.filesSkipped.push_back({"yarn.lock", "lock file", 3});
  EXPECT_EQ(notReviewedReason(chosen), "");
}

TEST(CoverageText, EveryReportSaysWhatWasReviewedAndWhatWasNot) {
  const auto o = partlyReviewed();
  const std::string text = renderText(o);
  EXPECT_NE(text.find("Coverage: reviewed 3 of 5 files (120 of 400 changed lines).\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Skipped src/big.c: not reviewed: lines 1-250 past the max_requests cap"), std::string::npos);
  EXPECT_NE(text.find("so the verdict cannot be APPROVE"), std::string::npos);

  const json j = renderJson(o);
  EXPECT_EQ(j["coverage"]["filesSkipped"][1]["overLimit"], true);
  EXPECT_FALSE(j["coverage"]["filesSkipped"][0].contains("overLimit"));

  const json sarif = renderSarif(o);
  EXPECT_EQ(sarif["runs"][0]["properties"]["coverageText"], "reviewed 3 of 5 files (120 of 400 changed lines)");
  EXPECT_EQ(sarif["runs"][0]["properties"]["coverage"]["filesSkipped"].size(), 2u);

  const std::string body = renderGithubReview(o, diff::Diff{}, {})["body"].get<std::string>();
  EXPECT_NE(body.find("Reviewed 3 of 5 files (120 of 400 changed lines)."), std::string::npos) << body;
  EXPECT_NE(body.find("`src/big.c` (not reviewed: lines 1-250"), std::string::npos) << body;
  EXPECT_NE(body.find("so the verdict cannot be APPROVE"), std::string::npos) << body;
}

}  // namespace
}  // namespace revline::reports
