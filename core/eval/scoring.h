// Scoring one review of one case against what the case expects, and the
// corpus-wide figures (docs/EVAL.md "What the figures mean"). Pure functions:
// the command runs the reviews, this decides what they were worth.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/eval/corpus.h"
#include "core/review/pipeline.h"

namespace revline::eval {

struct ScoringOptions {
  int tolerance = 2;           // an expected range is widened by this many lines on each side
  review::PolicyConfig policy; // decides which findings would block (the review's own policy)
};

// A published finding as the report shows it.
struct ScoredFinding {
  contract::Finding finding;
  bool blocking = false;  // alone, it would make the verdict REQUEST_CHANGES
  bool editDropped = false;
};

struct Match {
  std::size_t issue = 0;    // index into EvalCase::expected
  std::size_t finding = 0;  // index into CaseRun::findings
};

// One review of one case, scored.
struct CaseRun {
  std::vector<ScoredFinding> findings;
  std::vector<Match> matches;                  // true positives, one finding per issue
  std::vector<std::size_t> falsePositives;     // findings that match no issue (or a second time)
  std::vector<std::size_t> missed;             // issues no finding matched
  std::vector<std::size_t> forbidden;          // findings on a mustNotComment path (also false positives)
  std::optional<contract::Verdict> verdict;    // none when the review failed
  bool verdictOk = false;                      // REQUEST_CHANGES exactly when the case expects a block

  // Contract health.
  int attempts = 0;
  int toolCalls = 0;
  int groundingRejections = 0;
  int editsDropped = 0;
  // A review that did not finish: "contract" (the model never met the contract:
  // scored as finding nothing) or "provider" (network, quota...: not scored).
  std::optional<std::string> failureKind;
  std::string failure;

  // Cost, filled in by whoever ran the review.
  int requests = 0;
  review::Usage usage;
  double latencyMs = 0;

  int tp() const { return static_cast<int>(matches.size()); }
  int fp() const { return static_cast<int>(falsePositives.size()); }
  int fn() const { return static_cast<int>(missed.size()); }
  bool scored() const { return failureKind != std::optional<std::string>("provider"); }
  bool blocked() const { return verdict == contract::Verdict::RequestChanges; }
};

// True when `finding` (file, line..endLine) overlaps `issue` widened by `tolerance`.
bool overlaps(const contract::Finding& finding, const ExpectedIssue& issue, int tolerance);

// Scores a finished review: findings are matched to issues by maximum matching
// (each finding and each issue used at most once), so a duplicate finding is a
// false positive and the order of findings cannot cost a true positive.
CaseRun scoreReview(const EvalCase& evalCase, const review::ReviewOutcome& outcome, const ScoringOptions& options);

// A review that threw: kind "contract" (ContractFailure) or "provider" (ProviderError).
CaseRun scoreFailure(const EvalCase& evalCase, const std::string& kind, const std::string& message);

// Precision and friends are undefined (nullopt) when their denominator is 0.
struct Metrics {
  int cases = 0, bugCases = 0, cleanCases = 0;
  int reviews = 0;          // scored reviews (provider failures excluded)
  int providerFailures = 0; // reviews that could not run
  int tp = 0, fp = 0, fn = 0;
  std::optional<double> precision, recall, f1, f05;
  int blockingFindings = 0, blockingTruePositives = 0;
  std::optional<double> blockingPrecision;
  int cleanFalseBlocks = 0;
  std::optional<double> cleanFalseBlockRate;
  int verdictMatches = 0;
  std::optional<double> verdictAccuracy;
  int mustNotCommentViolations = 0;
  // Contract health.
  int retriedReviews = 0;
  std::optional<double> retryRate;
  int contractFailures = 0;
  int groundingRejections = 0;
  int editsDropped = 0;
  // Cost.
  std::int64_t requests = 0, inputTokens = 0, outputTokens = 0;
  int toolCalls = 0;
  std::optional<double> latencyP50Ms, latencyP95Ms;
};

// Micro-averaged over every (case, run) pair given.
struct ScoredReview {
  const EvalCase* evalCase;
  const CaseRun* run;
};
Metrics computeMetrics(const std::vector<ScoredReview>& reviews);

// Nearest-rank percentile (p in (0, 100]) of `values`; nullopt when empty.
std::optional<double> percentile(std::vector<double> values, double p);

}  // namespace revline::eval
