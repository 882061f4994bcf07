// The results of an eval run as JSON (the stable, machine-read form that
// --compare and the baseline test read) and as a text table for people, and
// the comparison of two JSON reports.
#pragma once
#include <string>
#include <vector>

#include "core/eval/corpus.h"
#include "core/eval/scoring.h"
#include "core/support/json.h"

namespace revline::eval {

inline constexpr int kReportFormat = 1;  // bumped only when a key changes meaning

struct EvalRun {
  std::string corpus;    // as given on the command line
  std::string provider;
  std::string model;
  int runs = 1;
  int tolerance = 2;
  bool timings = true;   // false: latencies are left out (null), so a committed baseline only changes with scores
  std::vector<EvalCase> cases;
  std::vector<std::vector<CaseRun>> results;  // [case][run]
};

// Every review of every case.
std::vector<ScoredReview> allReviews(const EvalRun& run);

json renderEvalJson(const EvalRun& run);
std::string renderEvalText(const EvalRun& run);

// A report read back for --compare; throws CorpusError naming the file when it
// is not an eval report.
struct ComparedReport {
  std::string origin;
  json doc;
};
ComparedReport readReport(const std::string& path);

// Differences between two reports: every metric that moved (A, B, change) and
// the cases that flipped (caught in one and not the other, verdict right in one
// and wrong in the other, or different TP/FP/FN).
std::string compareText(const ComparedReport& a, const ComparedReport& b);
json compareJson(const ComparedReport& a, const ComparedReport& b);

}  // namespace revline::eval
