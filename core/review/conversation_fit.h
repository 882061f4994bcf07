// Keeping every call of a review's conversation within the request budget
// (max_input_tokens). The planner (session/chunk_plan.h) sizes the first turn
// and keeps a reserve for what follows, but a conversation can outgrow it: a
// model's long broken answer echoed back in a contract retry, tool arguments,
// many rounds of tool results. Before each call, the later turns are shortened,
// oldest first, until the request fits; the system prompt and the diff message
// (the prefix providers cache) are never touched.
#pragma once
#include <cstdint>
#include <string>

#include "core/review/provider.h"

namespace revline::review {

// A conversation that cannot be fitted: a configuration problem (the budget is
// too small for what the review asks), so a ProviderError of Kind::Config; its
// own type so a follow-up round can fall back on the answer it already has.
class BudgetExceeded : public ProviderError {
 public:
  // `spent`: what the conversation's earlier calls consumed (set by the attempt loop).
  explicit BudgetExceeded(const std::string& message, Usage spent = {})
      : ProviderError(Kind::Config, message), spent_(spent) {}
  const Usage& spent() const { return spent_; }

 private:
  Usage spent_;
};

// Shortens `request`'s turns after the first (tool results, then the model's
// own answers and tool-call arguments, oldest first; then tool results dropped
// to a note, then whole tool rounds but the latest) until
// estimateTokens(request) <= budget. Returns how many turns were shortened.
// Does nothing when budget <= 0. Throws BudgetExceeded naming the estimate, the
// budget and the fix when even the shortened request is over it.
int fitConversation(ModelRequest& request, std::int64_t budget);

}  // namespace revline::review
