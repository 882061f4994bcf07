#include "core/eval/scoring.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "core/review/policy.h"

namespace revline::eval {
namespace {

std::string normalisedPath(std::string p) {
  while (p.rfind("./", 0) == 0) p.erase(0, 2);
  return p;
}

// Whether the policy alone would block on this finding: asked of the policy
// itself, so eval never disagrees with the review about what blocks.
bool wouldBlock(const contract::Finding& f, const review::PolicyConfig& policy) {
  return review::decideVerdict({review::PublishedFinding{f, "", std::nullopt}}, policy) ==
         contract::Verdict::RequestChanges;
}

std::optional<double> ratio(double num, double den) {
  if (den <= 0) return std::nullopt;
  return num / den;
}

std::optional<double> fBeta(std::optional<double> p, std::optional<double> r, double beta) {
  if (!p || !r) return std::nullopt;
  const double b2 = beta * beta;
  const double den = b2 * *p + *r;
  if (den <= 0) return 0.0;
  return (1 + b2) * *p * *r / den;
}

}  // namespace

bool overlaps(const contract::Finding& finding, const ExpectedIssue& issue, int tolerance) {
  if (normalisedPath(finding.file) != issue.file) return false;
  const std::int64_t lo = issue.line - tolerance, hi = issue.lastLine() + tolerance;
  return finding.line <= hi && finding.lastLine() >= lo;
}

CaseRun scoreReview(const EvalCase& evalCase, const review::ReviewOutcome& outcome, const ScoringOptions& options) {
  CaseRun run;
  for (const auto& p : outcome.findings)
    run.findings.push_back({p.finding, wouldBlock(p.finding, options.policy), p.editDroppedReason.has_value()});
  run.verdict = outcome.verdict;
  run.verdictOk = run.blocked() == evalCase.expectBlock;
  run.attempts = outcome.attempts;
  run.toolCalls = outcome.toolCalls;
  run.groundingRejections = static_cast<int>(outcome.rejected.size());
  run.editsDropped = static_cast<int>(std::count_if(run.findings.begin(), run.findings.end(),
                                                    [](const ScoredFinding& f) { return f.editDropped; }));
  run.usage = outcome.usage;

  // Maximum bipartite matching (Kuhn): findings in published order try issues in case order.
  const std::size_t nf = run.findings.size(), ni = evalCase.expected.size();
  std::vector<std::vector<std::size_t>> candidates(nf);
  for (std::size_t f = 0; f < nf; ++f)
    for (std::size_t i = 0; i < ni; ++i)
      if (overlaps(run.findings[f].finding, evalCase.expected[i], options.tolerance)) candidates[f].push_back(i);
  std::vector<std::optional<std::size_t>> issueTakenBy(ni);
  std::function<bool(std::size_t, std::vector<bool>&)> augment = [&](std::size_t f, std::vector<bool>& seen) {
    for (std::size_t i : candidates[f]) {
      if (seen[i]) continue;
      seen[i] = true;
      if (!issueTakenBy[i] || augment(*issueTakenBy[i], seen)) {
        issueTakenBy[i] = f;
        return true;
      }
    }
    return false;
  };
  for (std::size_t f = 0; f < nf; ++f) {
    std::vector<bool> seen(ni, false);
    augment(f, seen);
  }
  std::vector<bool> findingMatched(nf, false);
  for (std::size_t i = 0; i < ni; ++i) {
    if (issueTakenBy[i]) {
      run.matches.push_back({i, *issueTakenBy[i]});
      findingMatched[*issueTakenBy[i]] = true;
    } else {
      run.missed.push_back(i);
    }
  }
  for (std::size_t f = 0; f < nf; ++f) {
    if (!findingMatched[f]) run.falsePositives.push_back(f);
    const std::string file = normalisedPath(run.findings[f].finding.file);
    if (std::find(evalCase.mustNotComment.begin(), evalCase.mustNotComment.end(), file) != evalCase.mustNotComment.end())
      run.forbidden.push_back(f);
  }
  return run;
}

CaseRun scoreFailure(const EvalCase& evalCase, const std::string& kind, const std::string& message) {
  CaseRun run;
  run.failureKind = kind;
  run.failure = message;
  for (std::size_t i = 0; i < evalCase.expected.size(); ++i) run.missed.push_back(i);
  return run;
}

std::optional<double> percentile(std::vector<double> values, double p) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

Metrics computeMetrics(const std::vector<ScoredReview>& reviews) {
  Metrics m;
  std::set<const EvalCase*> cases;
  std::vector<double> latencies;
  int cleanReviews = 0;
  for (const auto& [c, r] : reviews) {
    if (cases.insert(c).second) (c->clean ? m.cleanCases : m.bugCases)++;
    if (!r->scored()) {
      ++m.providerFailures;
      continue;
    }
    ++m.reviews;
    m.tp += r->tp();
    m.fp += r->fp();
    m.fn += r->fn();
    for (const auto& f : r->findings) m.blockingFindings += f.blocking ? 1 : 0;
    for (const auto& match : r->matches) m.blockingTruePositives += r->findings[match.finding].blocking ? 1 : 0;
    if (c->clean) {
      ++cleanReviews;
      m.cleanFalseBlocks += r->blocked() ? 1 : 0;
    }
    m.verdictMatches += r->verdictOk ? 1 : 0;
    m.mustNotCommentViolations += static_cast<int>(r->forbidden.size());
    m.retriedReviews += r->attempts > 1 ? 1 : 0;
    m.contractFailures += r->failureKind ? 1 : 0;
    m.groundingRejections += r->groundingRejections;
    m.editsDropped += r->editsDropped;
    m.requests += r->requests;
    m.inputTokens += r->usage.inputTokens;
    m.outputTokens += r->usage.outputTokens;
    m.toolCalls += r->toolCalls;
    latencies.push_back(r->latencyMs);
  }
  m.cases = static_cast<int>(cases.size());
  m.precision = ratio(m.tp, m.tp + m.fp);
  m.recall = ratio(m.tp, m.tp + m.fn);
  m.f1 = fBeta(m.precision, m.recall, 1.0);
  m.f05 = fBeta(m.precision, m.recall, 0.5);
  m.blockingPrecision = ratio(m.blockingTruePositives, m.blockingFindings);
  m.cleanFalseBlockRate = ratio(m.cleanFalseBlocks, cleanReviews);
  m.verdictAccuracy = ratio(m.verdictMatches, m.reviews);
  m.retryRate = ratio(m.retriedReviews, m.reviews);
  m.latencyP50Ms = percentile(latencies, 50);
  m.latencyP95Ms = percentile(latencies, 95);
  return m;
}

}  // namespace revline::eval
