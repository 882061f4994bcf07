// Policy: code, not the model, decides the verdict; publication filters.
#pragma once
#include <cstddef>
#include <set>
#include <vector>

#include "core/contract/contract.h"
#include "core/contract/default_policy.h"
#include "core/review/published_finding.h"

namespace revline::review {

struct PolicyConfig {
  // Out of line: with the set built inline, GCC 12 reports every temporary
  // Config's set as maybe-uninitialized (false positive, GCC bug 105562).
  PolicyConfig();
  std::set<contract::Category> blockingCategories;  // default: contract::kDefaultBlockingCategories
  contract::Severity blockingSeverity = contract::kDefaultBlockingSeverity;  // this severity or worse blocks
  double confidenceThreshold = contract::kDefaultConfidenceThreshold;
  std::size_t maxFindings = 50;             // publication cap
  std::size_t maxExplanationChars = 2000;   // longer explanations are cut with "…"
  friend bool operator==(const PolicyConfig&, const PolicyConfig&) = default;
};

// True when this finding alone makes the verdict REQUEST_CHANGES.
bool blocks(const contract::Finding& finding, const PolicyConfig& policy);

// REQUEST_CHANGES / COMMENT / APPROVE from grounded findings (contract.md "Policy").
contract::Verdict decideVerdict(const std::vector<PublishedFinding>& findings, const PolicyConfig& policy);

// What besides the published findings keeps a review from approving: the
// change was not shown to be fine.
struct ApprovalEvidence {
  int unplacedBlocking = 0;  // blocking findings the model meant that could not be placed
  // The model asked for changes that its published findings do not show: some
  // were rejected, or it named none (a concern only in its summary).
  bool changesRequestedNotShown = false;
  int partsNotReviewed = 0;  // files or hunks left out by a request limit (token budget, max_requests)
};

// decideVerdict, then no false approval: with any of `evidence`, APPROVE
// becomes COMMENT. The one verdict rule of the CLI, the server and its cache.
contract::Verdict decideVerdict(const std::vector<PublishedFinding>& findings, const PolicyConfig& policy,
                                const ApprovalEvidence& evidence);

// Trim text, drop empties, cap explanation length, dedupe (file, line, title),
// order by severity then confidence (descending), cap the count; `overCap`,
// when given, is set to how many the count cap left out.
std::vector<PublishedFinding> applyPublicationFilters(std::vector<PublishedFinding> findings, const PolicyConfig& policy,
                                                      std::size_t* overCap = nullptr);

// Ends `summary` with the sentence that says the cap left `overCap` findings
// out (nothing when none): the user is told, never silently cut. On a line of
// its own when the summary has several (a split review's).
void notePublicationCap(std::string& summary, std::size_t overCap, const PolicyConfig& policy);

}  // namespace revline::review
