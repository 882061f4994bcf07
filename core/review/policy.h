// Policy: code, not the model, decides the verdict; publication filters.
#pragma once
#include <cstddef>
#include <set>
#include <vector>

#include "core/contract/contract.h"

namespace revline::review {

struct PublishedFinding;

struct PolicyConfig {
  std::set<contract::Category> blockingCategories{contract::Category::Correctness, contract::Category::Security,
                                                  contract::Category::Concurrency, contract::Category::DataLoss};
  contract::Severity blockingSeverity = contract::Severity::Major;  // this severity or worse blocks
  double confidenceThreshold = 0.6;
  std::size_t maxFindings = 50;             // publication cap
  std::size_t maxExplanationChars = 2000;   // longer explanations are cut with "…"
};

// REQUEST_CHANGES / COMMENT / APPROVE from grounded findings (contract.md "Policy").
contract::Verdict decideVerdict(const std::vector<PublishedFinding>& findings, const PolicyConfig& policy);

// Trim text, drop empties, cap explanation length, dedupe (file, line, title),
// order by severity then confidence (descending), cap the count.
std::vector<PublishedFinding> applyPublicationFilters(std::vector<PublishedFinding> findings, const PolicyConfig& policy);

}  // namespace revline::review
