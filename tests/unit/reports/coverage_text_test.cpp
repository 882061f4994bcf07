// Coverage in every report: the sentence "reviewed X of Y files (Z of W
// changed lines)", over the files not excluded when some were, what was skipped
// and why, and the reason the verdict is not APPROVE when a request limit left
// part of the change out.
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
  o.coverage.filesSkipped.push_back({"package-lock.json", "lock file; name it in include to review it", 30});
  review::SkippedFile over{"src/big.c", "not reviewed: lines 1-250 past the max_requests cap of 2 requests per review", 250};
  over.overLimit = true;
  o.coverage.filesSkipped.push_back(over);
  return o;
}

TEST(CoverageText, TheSentence) {
  EXPECT_EQ(coverageSentence(partlyReviewed().coverage),
            "reviewed 3 of 4 files not excluded (120 of 370 changed lines); excluded: package-lock.json (30 changed lines)");
  EXPECT_NE(notReviewedReason(partlyReviewed().coverage).find("1 file over the request token budget"), std::string::npos);
  review::Coverage chosen;  // left out by the user's choice only: no reason against approving
  chosen.filesSkipped.push_back({"yarn.lock", "lock file", 3});
  EXPECT_EQ(notReviewedReason(chosen), "");
}

// An empty change reads the same in every report (SARIF said "reviewed 0 of 0
// files (0 of 0 changed lines)" where the text said "no file changed").
TEST(CoverageText, AnEmptyChangeIsNoFileChangedEverywhere) {
  review::ReviewOutcome o;
  EXPECT_EQ(coverageSentence(o.coverage), "no file changed");
  EXPECT_NE(renderText(o).find("Coverage: no file changed.\n"), std::string::npos) << renderText(o);
  EXPECT_EQ(renderSarif(o)["runs"][0]["properties"]["coverageText"], "no file changed");
}

// A vendored tree is thousands of skipped files: the text names 20, those not
// reviewed first, and counts the rest (it printed 9,961 lines of "Skipped").
TEST(CoverageText, TheTextNamesTwentySkippedFilesNotReviewedFirst) {
  review::ReviewOutcome o;
  o.coverage.filesReviewed = 1;
  for (int i = 0; i < 25; ++i) o.coverage.filesSkipped.push_back({"node_modules/p" + std::to_string(i) + ".js", "excluded", 1});
  for (int i = 0; i < 5; ++i) {
    review::SkippedFile over{"src/big" + std::to_string(i) + ".c", "not reviewed: past the max_requests cap", 9};
    over.overLimit = true;
    o.coverage.filesSkipped.push_back(over);
  }
  o.coverage.filesTotal = 31;
  const std::string text = renderText(o);
  std::size_t named = 0;
  for (std::size_t at = text.find("\nSkipped "); at != std::string::npos; at = text.find("\nSkipped ", at + 1)) ++named;
  EXPECT_EQ(named, 21u) << text;  // 20 named, and the count
  EXPECT_LT(text.find("Skipped src/big4.c"), text.find("Skipped node_modules/p0.js")) << text;
  EXPECT_NE(text.find("Skipped 10 more files (0 not reviewed, 10 excluded); --format json lists every one.\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(renderJson(o)["coverage"]["filesSkipped"].size(), 30u);
}

TEST(CoverageText, EveryReportSaysWhatWasReviewedAndWhatWasNot) {
  const auto o = partlyReviewed();
  const std::string text = renderText(o);
  EXPECT_NE(text.find("Coverage: reviewed 3 of 4 files not excluded (120 of 370 changed lines); excluded: "
                      "package-lock.json (30 changed lines).\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Skipped src/big.c: not reviewed: lines 1-250 past the max_requests cap"), std::string::npos);
  EXPECT_NE(text.find("so the verdict cannot be APPROVE"), std::string::npos);

  const json j = renderJson(o);
  EXPECT_EQ(j["coverage"]["filesSkipped"][1]["overLimit"], true);
  EXPECT_FALSE(j["coverage"]["filesSkipped"][0].contains("overLimit"));

  const json sarif = renderSarif(o);
  EXPECT_EQ(sarif["runs"][0]["properties"]["coverageText"], coverageSentence(o.coverage));
  EXPECT_EQ(sarif["runs"][0]["properties"]["coverage"]["filesSkipped"].size(), 2u);

  const std::string body = renderGithubReview(o, diff::Diff{}, {})["body"].get<std::string>();
  EXPECT_NE(body.find("Reviewed 3 of 4 files not excluded (120 of 370 changed lines); excluded:"), std::string::npos)
      << body;
  EXPECT_NE(body.find("\n- `src/big.c`: not reviewed: lines 1-250"), std::string::npos) << body;
  EXPECT_NE(body.find("so the verdict cannot be APPROVE"), std::string::npos) << body;
}

// Lock files and the like are left out by design: a review of everything else
// is complete, and the sentence says so rather than "62 of 63".
TEST(CoverageText, FilesExcludedByChoiceAreNotCountedAsUnreviewed) {
  review::Coverage c;
  c.filesReviewed = 62;
  c.filesTotal = 63;
  c.linesReviewed = 4382;
  c.linesTotal = 4398;
  c.filesSkipped.push_back({"go.sum", "lock file; name it in include to review it", 16});
  EXPECT_EQ(coverageSentence(c),
            "reviewed 62 of 62 files not excluded (4382 of 4382 changed lines); excluded: go.sum (16 changed lines)");
  // The JSON fields keep their meaning (the whole change); what was excluded is added.
  const json j = coverageJson(c);
  EXPECT_EQ(j["filesTotal"], 63);
  EXPECT_EQ(j["linesTotal"], 4398);
  EXPECT_EQ(j["filesExcluded"], 1);
  EXPECT_EQ(j["linesExcluded"], 16);

  for (const char* path : {"a.lock", "b.min.js", "c.min.js", "d.min.js"}) c.filesSkipped.push_back({path, "minified", 1});
  c.filesTotal += 4;
  c.linesTotal += 4;
  EXPECT_EQ(coverageSentence(c), "reviewed 62 of 62 files not excluded (4382 of 4382 changed lines); excluded: 5 files "
                                 "(20 changed lines): go.sum, a.lock, b.min.js and 2 more");

  review::Coverage nothingExcluded{3, 3, 12, 12, {}};
  EXPECT_EQ(coverageSentence(nothingExcluded), "reviewed 3 of 3 files (12 of 12 changed lines)");
  EXPECT_EQ(coverageJson(nothingExcluded)["filesExcluded"], 0);
}

// A file some of whose hunks were reviewed counts as reviewed; every report
// says it was only partly, not just that lines of it were skipped.
TEST(CoverageText, PartlyReviewedFilesAreSaidToBe) {
  auto o = outcome(Verdict::Comment);
  o.coverage = {2, 2, 100, 609, {}};
  review::SkippedFile part{"command_test.go", "not reviewed: lines 1-509 past the max_requests cap of 2 requests per review",
                           509};
  part.overLimit = true;
  part.partial = true;
  o.coverage.filesSkipped.push_back(part);
  EXPECT_EQ(coverageSentence(o.coverage), "reviewed 2 of 2 files, 1 of them partly (100 of 609 changed lines)");

  const std::string text = renderText(o);
  EXPECT_NE(text.find("Skipped command_test.go (partly reviewed): not reviewed: lines 1-509 past"), std::string::npos)
      << text;
  EXPECT_NE(text.find("Coverage: reviewed 2 of 2 files, 1 of them partly (100 of 609 changed lines).\n"),
            std::string::npos)
      << text;
  const std::string body = renderGithubReview(o, diff::Diff{}, {})["body"].get<std::string>();
  EXPECT_NE(body.find("\n- `command_test.go` (partly reviewed): not reviewed: lines 1-509"), std::string::npos) << body;
  EXPECT_NE(body.find("Reviewed 2 of 2 files, 1 of them partly"), std::string::npos) << body;
  EXPECT_EQ(renderSarif(o)["runs"][0]["properties"]["coverageText"], coverageSentence(o.coverage));
}

// A notebook's outputs left out by choice: the notebook is reviewed (its
// cells' source), so it is no excluded file, but its output lines are excluded lines.
TEST(CoverageText, PartOfAFileLeftOutByChoiceIsExcludedLinesNotAnExcludedFile) {
  review::Coverage c{2, 2, 12, 52, {}};
  review::SkippedFile outputs{"analysis.ipynb", "its outputs, execution counts and metadata (40 changed lines): not code", 40};
  outputs.partial = true;
  c.filesSkipped.push_back(outputs);
  EXPECT_EQ(coverageSentence(c),
            "reviewed 2 of 2 files (12 of 12 changed lines); excluded: part of analysis.ipynb (40 changed lines)");
  const json j = coverageJson(c);
  EXPECT_EQ(j["filesExcluded"], 0);
  EXPECT_EQ(j["linesExcluded"], 40);
  EXPECT_EQ(notReviewedReason(c), "") << "left out by choice: APPROVE stays possible";
  EXPECT_EQ(skippedFileText(outputs), "part of analysis.ipynb: its outputs, execution counts and metadata (40 changed "
                                      "lines): not code")
      << "not \"(partly reviewed)\", which a request limit's part says";

  c.filesSkipped.push_back({"poetry.lock", "lock file", 8});
  c.filesTotal += 1;
  c.linesTotal += 8;
  EXPECT_EQ(coverageSentence(c), "reviewed 2 of 2 files not excluded (12 of 12 changed lines); excluded: 1 file and "
                                 "part of 1 file (48 changed lines): part of analysis.ipynb, poetry.lock");
}

}  // namespace
}  // namespace revline::reports
