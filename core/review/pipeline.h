// One review, end to end: prompt -> attempt loop (provider, reply parser,
// retries with feedback, tools) -> grounding -> publication filters -> policy.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/contract/contract.h"
#include "core/diff/diff.h"
#include "core/review/policy.h"
#include "core/review/provider.h"
#include "core/support/cancel.h"

namespace revline::review {

struct ReviewOptions {
  int maxAttempts = 2;       // model answers tried per review (contract retries + 1)
  int maxToolCalls = 5;      // hard budget of repository tool calls per review
  PolicyConfig policy;
  std::string extraInstructions;  // appended to the system prompt (from config)
};

// A finding that survived grounding and the publication filters.
struct PublishedFinding {
  contract::Finding finding;                    // edit already removed when it did not match
  std::string id;                               // stable fingerprint (see finding_id.h)
  std::optional<std::string> editDroppedReason; // why the model's edit was not kept
};

struct RejectedFinding {
  contract::Finding finding;
  std::string reason;  // e.g. "line 412 of 'src/A.java' is not among the lines this diff touches"
};

struct ReviewOutcome {
  contract::Verdict verdict = contract::Verdict::Approve;  // decided by policy
  contract::Verdict modelVerdict = contract::Verdict::Approve;
  std::string summary;
  std::vector<PublishedFinding> findings;
  std::vector<RejectedFinding> rejected;
  std::vector<std::string> warnings;  // reply repairs etc., for logs
  int attempts = 0;
  int toolCalls = 0;
  std::string provider;
  std::string model;
  Usage usage;
};

// The contract could not be met within maxAttempts; what() lists every problem.
class ContractFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws ProviderError (provider failed; not retried), ContractFailure, or Cancelled.
// `tools` may be null (no repository tools offered).
ReviewOutcome runReview(const diff::Diff& diff, Provider& provider, const ReviewOptions& options,
                        ToolExecutor* tools, const CancelToken& cancel);

}  // namespace revline::review
