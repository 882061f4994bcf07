// What a review spent, as every report states it: model requests, input
// (cached and cache-written among them) and output tokens, tool calls of the
// budget, and the cost when the model's prices are configured (review/cost.h).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/review/pipeline.h"
#include "core/support/json.h"

namespace revline::reports {

// {"requests", "inputTokens", "outputTokens", "cachedInputTokens", "cacheWriteTokens",
//  "toolCalls", "toolCallBudget" (+ "cost": {"input", "output", "total"} when priced)}
json usageJson(const review::Usage& usage, const review::Prices& prices);
// The same with the cost already known (e.g. a session's sum over reviews priced differently).
json usageJson(const review::Usage& usage, const std::optional<review::Cost>& cost);

// One clause, e.g. "4 model requests, 41230 input tokens (30000 cached, 5000
// written to the cache), 1200 output tokens, 3 of 5 tool calls; cost 0.0312 at
// the configured prices (input 0.0201, output 0.0111)"; the tool clause only when
// tools were offered or counted. Empty when no token was metered (no model asked,
// or an offline reviewer): the JSON usage still has the counts.
std::string usageSentence(const review::Usage& usage, const review::Prices& prices);
// With the cost already known; `pricedAs` says which prices it is at (a
// session's sum may cover only the requests made while prices were set).
std::string usageSentence(const review::Usage& usage, const std::optional<review::Cost>& cost,
                          std::string_view pricedAs = "at the configured prices");

// A split review's progress count, e.g. "45200 tokens so far": "at least ..."
// when some answers came without counts, "tokens unknown so far" when none had
// them (never a confident zero).
std::string tokensSoFar(const review::Usage& usage);

// The clause a report's "Usage:" line holds for `outcome`: usageSentence, or
// for a model's review that sent nothing (every part reviewed before) "0 model
// requests: ...". Empty for an offline reviewer's (builtin, replay).
std::string spentSentence(const review::ReviewOutcome& outcome);

// Costs as text, with one number of decimals for all: the fewest from 4 to 8 at
// which each is exact (so parts shown beside their total add up to it), else
// enough for two significant digits of the smallest (so none reads 0.0000).
std::vector<std::string> formatCosts(const std::vector<double>& costs);

}  // namespace revline::reports
