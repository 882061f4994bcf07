// Keeping every call of a review's conversation within the request budget
// (max_input_tokens). The planner (session/chunk_plan.h) sizes the first turn
// and keeps a reserve for what follows, but a conversation can outgrow it: a
// model's long broken answer echoed back in a contract retry, tool arguments,
// many rounds of tool results. Before each call, the later turns are shortened,
// oldest first, until the request fits; the system prompt and the diff message
// (the prefix providers cache) are never touched.
#pragma once
#include <cstdint>

#include "core/review/provider.h"

namespace revline::review {

// Shortens `request`'s turns after the first (tool results, then the model's
// own answers and tool-call arguments, oldest first) until
// estimateTokens(request) <= budget. Returns how many turns were shortened.
// Does nothing when budget <= 0. Throws ProviderError(Kind::Config) naming the
// estimate, the budget and the fix when even the shortened request is over it.
int fitConversation(ModelRequest& request, std::int64_t budget);

}  // namespace revline::review
