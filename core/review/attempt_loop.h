// The attempt loop: ask the provider, serve its tool calls under a hard budget,
// parse its answer against the contract, and retry a contract failure with
// precise feedback. Provider failures are not retried here (they propagate).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/contract/contract.h"
#include "core/review/provider.h"
#include "core/support/cancel.h"

namespace revline::review {

// Tool calls served from one model reply; the excess is refused with a note
// to the model and counted against the review's budget.
inline constexpr std::size_t kMaxToolCallsPerReply = 8;

struct AttemptOptions {
  int maxAttempts = 2;   // answers the model may give (the first + contract retries)
  int maxToolCalls = 5;  // tool calls served per review; past it the model must answer
  std::int64_t maxInputTokens = 0;  // every call fitted to it (conversation_fit.h); 0: no cap
};

struct AttemptResult {
  contract::ReviewReport report;
  int attempts = 0;
  int toolCalls = 0;
  Usage usage;
  std::vector<std::string> warnings;
  // The request with every turn so far, ending with the model's accepted
  // answer: a follow-up (grounding feedback) continues from here.
  ModelRequest conversation;
};

// `request` holds the system prompt, the first user message and the schema;
// its `tools` are set to `tools->specs()` in every call (the prefix stays
// byte-identical for the provider's cache); calls past the budget are refused.
// Throws ProviderError (not retried), ContractFailure (attempts exhausted; lists
// every problem of the last answer) or Cancelled.
AttemptResult runAttempts(Provider& provider, ModelRequest request, const AttemptOptions& options,
                          ToolExecutor* tools, const CancelToken& cancel);

}  // namespace revline::review
