// Scoring on synthetic cases whose answers are known: overlap and tolerance,
// one finding per issue, clean cases, must-not-comment files, the figures,
// the --runs spread and --compare.
#include <gtest/gtest.h>

#include "core/eval/report.h"
#include "core/eval/scoring.h"

namespace revline::eval {
namespace {

using contract::Category;
using contract::Severity;

ExpectedIssue issue(const std::string& file, std::int64_t line, std::optional<std::int64_t> end = std::nullopt) {
  ExpectedIssue i;
  i.file = file;
  i.line = line;
  i.endLine = end;
  i.note = "bug";
  return i;
}

EvalCase bugCase(std::vector<ExpectedIssue> expected, std::string id = "bug") {
  EvalCase c;
  c.id = std::move(id);
  c.language = "java";
  c.expected = std::move(expected);
  c.expectBlock = true;
  return c;
}

EvalCase cleanCase(std::string id = "clean") {
  EvalCase c;
  c.id = std::move(id);
  c.language = "go";
  c.clean = true;
  return c;
}

review::PublishedFinding finding(const std::string& file, std::int64_t line, std::optional<std::int64_t> end = std::nullopt,
                                 Severity severity = Severity::Major, Category category = Category::Correctness,
                                 double confidence = 0.9) {
  review::PublishedFinding p;
  p.finding.file = file;
  p.finding.line = line;
  p.finding.endLine = end;
  p.finding.severity = severity;
  p.finding.category = category;
  p.finding.title = "t" + std::to_string(line);
  p.finding.explanation = "e";
  p.finding.confidence = confidence;
  p.id = "id";
  return p;
}

review::ReviewOutcome outcome(std::vector<review::PublishedFinding> findings) {
  review::ReviewOutcome o;
  o.findings = std::move(findings);
  o.verdict = review::decideVerdict(o.findings, review::PolicyConfig{});
  o.attempts = 1;
  return o;
}

TEST(EvalOverlap, ToleranceWidensTheExpectedRangeOnBothSides) {
  contract::Finding f;
  f.file = "A.java";
  const ExpectedIssue e = issue("A.java", 10, 12);
  for (auto [line, matches] : std::vector<std::pair<int, bool>>{{7, false}, {8, true}, {10, true}, {14, true}, {15, false}}) {
    f.line = line;
    EXPECT_EQ(overlaps(f, e, 2), matches) << "line " << line;
  }
  f.line = 9;
  EXPECT_FALSE(overlaps(f, e, 0));
  EXPECT_TRUE(overlaps(f, e, 1));
  // A multi-line finding overlaps when any of its lines does.
  f.line = 1;
  f.endLine = 8;
  EXPECT_TRUE(overlaps(f, e, 2));
  EXPECT_FALSE(overlaps(f, e, 1));
  // Another file never matches; a "./" prefix is the same file.
  f = {};
  f.file = "B.java";
  f.line = 10;
  EXPECT_FALSE(overlaps(f, e, 2));
  f.file = "./A.java";
  EXPECT_TRUE(overlaps(f, e, 2));
}

TEST(EvalScore, OneFindingPerIssueAndDuplicatesAreFalsePositives) {
  const EvalCase c = bugCase({issue("A.java", 10)});
  const CaseRun r = scoreReview(c, outcome({finding("A.java", 10), finding("A.java", 11), finding("A.java", 40)}), {});
  EXPECT_EQ(r.tp(), 1);
  EXPECT_EQ(r.fp(), 2);
  EXPECT_EQ(r.fn(), 0);
  EXPECT_TRUE(r.verdictOk);
}

TEST(EvalScore, OneFindingCannotCountForTwoIssues) {
  const EvalCase c = bugCase({issue("A.java", 10), issue("A.java", 11)});
  const CaseRun r = scoreReview(c, outcome({finding("A.java", 10, 11)}), {});
  EXPECT_EQ(r.tp(), 1);
  EXPECT_EQ(r.fn(), 1);
  EXPECT_EQ(r.fp(), 0);
}

TEST(EvalScore, MatchingIsMaximumNotGreedy) {
  // The first finding overlaps both issues, the second only the first issue: a
  // greedy match would give the first issue to the first finding and waste the second.
  const EvalCase c = bugCase({issue("A.java", 10), issue("A.java", 20)});
  const CaseRun r = scoreReview(c, outcome({finding("A.java", 12, 18), finding("A.java", 9)}), {});
  EXPECT_EQ(r.tp(), 2);
  EXPECT_EQ(r.fp(), 0);
  EXPECT_EQ(r.fn(), 0);
}

TEST(EvalScore, ToleranceIsConfigurable) {
  const EvalCase c = bugCase({issue("A.java", 10)});
  ScoringOptions strict;
  strict.tolerance = 0;
  EXPECT_EQ(scoreReview(c, outcome({finding("A.java", 12)}), {}).tp(), 1);
  EXPECT_EQ(scoreReview(c, outcome({finding("A.java", 12)}), strict).tp(), 0);
}

TEST(EvalScore, VerdictAgainstTheExpectation) {
  const EvalCase c = bugCase({issue("A.java", 10)});
  // Found, but as a NIT: nothing blocks, so the verdict misses the expected block.
  CaseRun r = scoreReview(c, outcome({finding("A.java", 10, std::nullopt, Severity::Nit)}), {});
  EXPECT_EQ(r.tp(), 1);
  EXPECT_FALSE(r.verdictOk);
  EXPECT_FALSE(r.findings[0].blocking);
  // Below the confidence threshold: found, not blocking.
  r = scoreReview(c, outcome({finding("A.java", 10, std::nullopt, Severity::Major, Category::Correctness, 0.3)}), {});
  EXPECT_FALSE(r.findings[0].blocking);
  EXPECT_FALSE(r.verdictOk);
}

TEST(EvalScore, CleanCasesCountFalseBlocksAndNoise) {
  const EvalCase c = cleanCase();
  const CaseRun quiet = scoreReview(c, outcome({}), {});
  EXPECT_TRUE(quiet.verdictOk);
  const CaseRun nit = scoreReview(c, outcome({finding("x.go", 3, std::nullopt, Severity::Nit, Category::Style)}), {});
  EXPECT_EQ(nit.fp(), 1);
  EXPECT_TRUE(nit.verdictOk);  // a comment is not a block
  const CaseRun blocked = scoreReview(c, outcome({finding("x.go", 3)}), {});
  EXPECT_FALSE(blocked.verdictOk);

  const EvalCase c2 = cleanCase("clean2");
  const Metrics m = computeMetrics({{&c, &quiet}, {&c2, &blocked}});
  EXPECT_EQ(m.cleanCases, 2);
  EXPECT_EQ(m.cleanFalseBlocks, 1);
  EXPECT_DOUBLE_EQ(*m.cleanFalseBlockRate, 0.5);
  EXPECT_EQ(m.blockingFindings, 1);
  EXPECT_DOUBLE_EQ(*m.blockingPrecision, 0.0);
  EXPECT_FALSE(m.recall.has_value());  // nothing to find: recall is undefined, not 1
}

TEST(EvalScore, MustNotCommentFilesAreViolationsAndFalsePositives) {
  EvalCase c = bugCase({issue("src/a.c", 5)});
  c.mustNotComment = {"src/generated.h"};
  const CaseRun r = scoreReview(c, outcome({finding("src/a.c", 5), finding("src/generated.h", 1, std::nullopt, Severity::Minor)}), {});
  EXPECT_EQ(r.tp(), 1);
  EXPECT_EQ(r.fp(), 1);
  ASSERT_EQ(r.forbidden.size(), 1u);
  EXPECT_EQ(r.findings[r.forbidden[0]].finding.file, "src/generated.h");
  EXPECT_EQ(computeMetrics({{&c, &r}}).mustNotCommentViolations, 1);
}

TEST(EvalMetrics, PrecisionRecallF1AndF05) {
  // 3 TP, 1 FP, 2 FN over two cases.
  const EvalCase a = bugCase({issue("A.java", 10), issue("A.java", 30)}, "a");
  const EvalCase b = bugCase({issue("B.java", 5), issue("B.java", 50), issue("B.java", 90)}, "b");
  const CaseRun ra = scoreReview(a, outcome({finding("A.java", 10), finding("A.java", 31)}), {});
  const CaseRun rb = scoreReview(b, outcome({finding("B.java", 6), finding("B.java", 70)}), {});
  const Metrics m = computeMetrics({{&a, &ra}, {&b, &rb}});
  EXPECT_EQ(m.tp, 3);
  EXPECT_EQ(m.fp, 1);
  EXPECT_EQ(m.fn, 2);
  EXPECT_DOUBLE_EQ(*m.precision, 0.75);
  EXPECT_DOUBLE_EQ(*m.recall, 0.6);
  EXPECT_NEAR(*m.f1, 2 * 0.75 * 0.6 / 1.35, 1e-12);
  EXPECT_NEAR(*m.f05, 1.25 * 0.75 * 0.6 / (0.25 * 0.75 + 0.6), 1e-12);
  EXPECT_EQ(m.blockingFindings, 4);
  EXPECT_EQ(m.blockingTruePositives, 3);
}

TEST(EvalMetrics, FailuresHealthAndCost) {
  const EvalCase c = bugCase({issue("A.java", 10)});
  CaseRun ok = scoreReview(c, outcome({finding("A.java", 10)}), {});
  ok.attempts = 2;
  ok.requests = 3;
  ok.latencyMs = 10;
  ok.usage = {100, 20};
  const CaseRun contract = scoreFailure(c, "contract", "bad answer");
  const CaseRun provider = scoreFailure(c, "provider", "network down");
  const Metrics m = computeMetrics({{&c, &ok}, {&c, &contract}, {&c, &provider}});
  EXPECT_EQ(m.reviews, 2);           // the provider failure is not scored
  EXPECT_EQ(m.providerFailures, 1);
  EXPECT_EQ(m.contractFailures, 1);  // scored as finding nothing
  EXPECT_EQ(m.fn, 1);
  EXPECT_EQ(m.retriedReviews, 1);
  EXPECT_DOUBLE_EQ(*m.retryRate, 0.5);
  EXPECT_EQ(m.requests, 3);
  EXPECT_EQ(m.inputTokens, 100);
  EXPECT_EQ(m.outputTokens, 20);
}

// Contract health counts what grounding rejected and the edits it dropped,
// per case and summed (the replay cassettes have neither: 0 would pass unseen).
TEST(EvalMetrics, GroundingRejectionsAndDroppedEditsAreCounted) {
  const EvalCase c = bugCase({issue("A.java", 10)});
  review::ReviewOutcome answered = outcome({finding("A.java", 10), finding("A.java", 30)});
  answered.findings[1].editDroppedReason = "the edit's original text is not on those lines";
  answered.rejected.resize(2);
  const CaseRun run = scoreReview(c, answered, {});
  EXPECT_EQ(run.groundingRejections, 2);
  EXPECT_EQ(run.editsDropped, 1);
  const Metrics m = computeMetrics({{&c, &run}, {&c, &run}});
  EXPECT_EQ(m.groundingRejections, 4);
  EXPECT_EQ(m.editsDropped, 2);
}

TEST(EvalMetrics, NearestRankPercentiles) {
  EXPECT_FALSE(percentile({}, 50));
  EXPECT_EQ(*percentile({5, 1, 3, 2, 4}, 50), 3);
  std::vector<double> hundred;
  for (int i = 1; i <= 100; ++i) hundred.push_back(i);
  EXPECT_EQ(*percentile(hundred, 95), 95);
  EXPECT_EQ(*percentile({7}, 95), 7);
}

EvalRun twoRuns() {
  EvalRun run;
  run.corpus = "c";
  run.provider = "replay";
  run.runs = 2;
  run.cases = {bugCase({issue("A.java", 10)}, "steady"), bugCase({issue("B.java", 10)}, "flaky")};
  run.results.resize(2);
  for (int i = 0; i < 2; ++i) run.results[0].push_back(scoreReview(run.cases[0], outcome({finding("A.java", 10)}), {}));
  run.results[1].push_back(scoreReview(run.cases[1], outcome({finding("B.java", 10)}), {}));
  run.results[1].push_back(scoreReview(run.cases[1], outcome({}), {}));
  return run;
}

TEST(EvalReport, RunsReportTheSpreadAndTheUnstableCases) {
  const json j = renderEvalJson(twoRuns());
  EXPECT_EQ(j["runs"], 2);
  EXPECT_EQ(j["metrics"]["reviews"], 4);
  EXPECT_EQ(j["metrics"]["truePositives"], 3);
  ASSERT_TRUE(j.contains("spread"));
  EXPECT_DOUBLE_EQ(j["spread"]["recall"]["min"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j["spread"]["recall"]["max"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["spread"]["recall"]["mean"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(j["spread"]["recall"]["stddev"].get<double>(), 0.25);
  EXPECT_EQ(j["spread"]["unstableCases"], json::array({"flaky"}));
  ASSERT_EQ(j["perRun"].size(), 2u);
  EXPECT_EQ(j["cases"][1]["runs"][1]["missed"][0]["file"], "B.java");
  const std::string text = renderEvalText(twoRuns());
  EXPECT_NE(text.find("spread over 2 runs"), std::string::npos) << text;
  EXPECT_NE(text.find("unstable cases: flaky"), std::string::npos) << text;
  EXPECT_NE(text.find("1/2 ok"), std::string::npos) << text;
}

TEST(EvalReport, SingleRunHasNoSpread) {
  EvalRun run = twoRuns();
  run.runs = 1;
  for (auto& r : run.results) r.resize(1);
  const json j = renderEvalJson(run);
  EXPECT_FALSE(j.contains("spread"));
  EXPECT_EQ(j["format"], "revline-eval");
  EXPECT_DOUBLE_EQ(j["metrics"]["precision"].get<double>(), 1.0);
}

TEST(EvalCompare, ListsMovedMetricsAndFlippedCases) {
  EvalRun before = twoRuns();
  before.runs = 1;
  for (auto& r : before.results) r.resize(1);
  EvalRun after = before;
  after.results[1][0] = scoreReview(after.cases[1], outcome({}), {});  // "flaky" no longer caught
  const ComparedReport a{"a.json", renderEvalJson(before)}, b{"b.json", renderEvalJson(after)};
  const json d = compareJson(a, b);
  ASSERT_EQ(d["cases"].size(), 1u);
  EXPECT_EQ(d["cases"][0]["id"], "flaky");
  EXPECT_EQ(d["cases"][0]["change"], "no longer caught");
  bool recallMoved = false;
  for (const auto& m : d["metrics"])
    if (m["metric"] == "recall") {
      recallMoved = true;
      EXPECT_DOUBLE_EQ(m["change"].get<double>(), -0.5);
    }
  EXPECT_TRUE(recallMoved) << d.dump(2);
  const std::string text = compareText(a, b);
  EXPECT_NE(text.find("recall"), std::string::npos) << text;
  EXPECT_NE(text.find("-0.5000"), std::string::npos) << text;
  EXPECT_NE(text.find("flaky"), std::string::npos) << text;
  EXPECT_NE(text.find("no longer caught"), std::string::npos) << text;
  EXPECT_NE(compareText(a, a).find("no differences"), std::string::npos);
}

}  // namespace
}  // namespace revline::eval
