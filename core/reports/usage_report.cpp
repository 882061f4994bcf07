#include "core/reports/usage_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/review/cost.h"

namespace revline::reports {

namespace {

std::string count(std::int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Model calls were made and none came with a token count: no figure is known.
bool noTokenCountKnown(const review::Usage& u) {
  return u.unreportedRequests > 0 && u.unreportedRequests == u.requests && u.inputTokens == 0 && u.outputTokens == 0;
}

}  // namespace

std::vector<std::string> formatCosts(const std::vector<double>& costs) {
  // The fewest decimals from 4 to 8 at which every figure is exact (token counts
  // times prices per million end within 8), so that the parts add up to the
  // total as shown; when none is, enough for two significant digits of the smallest.
  const auto exactAt = [&](int d) {
    const double scale = std::pow(10.0, d);
    return std::all_of(costs.begin(), costs.end(),
                       [&](double c) { return std::fabs(c * scale - std::round(c * scale)) < 1e-6; });
  };
  int decimals = 4;
  while (decimals <= 8 && !exactAt(decimals)) ++decimals;
  if (decimals > 8) {
    decimals = 4;
    for (double c : costs)
      if (c > 0) decimals = std::max(decimals, std::min(8, static_cast<int>(std::ceil(-std::log10(c))) + 1));
  }
  std::vector<std::string> out;
  for (double c : costs) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, c);
    out.push_back(buf);
  }
  return out;
}

json usageJson(const review::Usage& u, const review::Prices& prices) { return usageJson(u, review::costOf(u, prices)); }

json usageJson(const review::Usage& u, const std::optional<review::Cost>& cost) {
  json j = {{"requests", u.requests},
            {"inputTokens", u.inputTokens},
            {"outputTokens", u.outputTokens},
            {"cachedInputTokens", u.cachedInputTokens},
            {"cacheWriteTokens", u.cacheWriteTokens},
            {"toolCalls", u.toolCalls},
            {"toolCallBudget", u.toolCallBudget},
            {"unreportedRequests", u.unreportedRequests}};
  // To 1e-10 of the currency: sums of prices per million are not exact in binary (0.021150000000000002).
  auto money = [](double v) { return std::round(v * 1e10) / 1e10; };
  if (!cost) return j;
  // Requests answered without token counts were billed too: the figures are then
  // a lower bound, and with no count known at all there is no figure (null, not 0).
  if (noTokenCountKnown(u))
    j["cost"] = {{"input", nullptr}, {"output", nullptr}, {"total", nullptr}, {"lowerBound", false}};
  else
    j["cost"] = {{"input", cost->inputUnpriced ? json(nullptr) : json(money(cost->input))},
                 {"output", cost->outputUnpriced ? json(nullptr) : json(money(cost->output))},
                 {"total", money(cost->total())},
                 {"lowerBound", cost->lowerBound(u.unreportedRequests > 0)}};
  return j;
}

std::string usageSentence(const review::Usage& u, const review::Prices& prices) {
  return usageSentence(u, review::costOf(u, prices));
}

std::string usageSentence(const review::Usage& u, const std::optional<review::Cost>& cost, std::string_view pricedAs) {
  // Nothing metered (no model asked, or an offline reviewer such as builtin): nothing to say.
  if (!u.metered()) return "";
  std::string s = count(u.requests, "model request", "model requests");
  // Requests the provider gave no token counts for, or not all of them (an Ollama reply
  // without prompt_eval_count, a count unreadable): the totals below are low.
  // Not one count known: "0 input tokens ... cost at least 0.0000" would read as a figure.
  const bool noneKnown = noTokenCountKnown(u);
  if (u.unreportedRequests > 0)
    s += std::string(" (") + (noneKnown ? "no" : "missing") + " token counts for " +
         (u.unreportedRequests == u.requests ? std::string(u.requests == 1 ? "it" : "them")
                                             : std::to_string(u.unreportedRequests) + " of them") +
         ": answered without " + (noneKnown ? "them" : "some or all of them") +
         ", or cancelled or given up on in flight" + (noneKnown ? ")" : "; so the figures below are low)");
  if (noneKnown) {
    s += ", tokens unknown";
    if (u.toolCallBudget || u.toolCalls)
      s += ", " + std::to_string(u.toolCalls) + " of " + count(u.toolCallBudget, "tool call", "tool calls");
    return cost ? s + "; cost unknown" : s;
  }
  s += ", " + count(u.inputTokens, "input token", "input tokens");
  if (u.cachedInputTokens || u.cacheWriteTokens) {
    s += " (" + std::to_string(u.cachedInputTokens) + " cached";
    if (u.cacheWriteTokens) s += ", " + std::to_string(u.cacheWriteTokens) + " written to the cache";
    s += ")";
  }
  s += ", " + count(u.outputTokens, "output token", "output tokens");
  // No tools offered (max_tool_calls 0, no repository) or not counted (what a failed review spent): no clause.
  if (u.toolCallBudget || u.toolCalls)
    s += ", " + std::to_string(u.toolCalls) + " of " + count(u.toolCallBudget, "tool call", "tool calls");
  if (cost) {
    const std::vector<std::string> shown = formatCosts({cost->total(), cost->input, cost->output});
    const bool atLeast = cost->lowerBound(u.unreportedRequests > 0);
    s += std::string("; cost ") + (atLeast ? "at least " : "") + shown[0] + " " + std::string(pricedAs) + " (input " +
         (cost->inputUnpriced ? "not priced: set price_per_million_input" : shown[1]) +
         (cost->cacheWritesAtInputPrice ? ", its cache writes at the input price: set price_per_million_cache_write" : "") +
         ", output " + (cost->outputUnpriced ? "not priced: set price_per_million_output" : shown[2]) + ")";
  }
  return s;
}

std::string spentSentence(const review::ReviewOutcome& outcome) {
  if (outcome.usage.metered() || !outcome.metered) return usageSentence(outcome.usage, outcome.prices);
  // Why nothing was sent, from what the review covered: the cache held every
  // part, or some, the rest not sendable (a line larger than a request), or none.
  const review::Coverage& c = outcome.coverage;
  // Too large for a request, or not in the diff to show (a submodule moved, binary content): not the same why.
  const bool tooLarge = std::any_of(c.filesSkipped.begin(), c.filesSkipped.end(),
                                    [](const review::SkippedFile& f) { return f.overLimit && !f.notInDiff; });
  const bool unseen = std::any_of(c.filesSkipped.begin(), c.filesSkipped.end(),
                                  [](const review::SkippedFile& f) { return f.unseenPartOfTheChange(); });
  std::string s = "0 model requests: nothing was sent, ";
  if (c.linesReviewed == 0)
    s += tooLarge ? "no part of the change fits a request (see what was not reviewed)"
         : unseen ? "no part of the change has lines the model could be shown (see what was not reviewed)"
                  : "nothing in the change is to be reviewed";
  else if (tooLarge)
    s += "what was reviewed was reviewed before (its findings came from the cache), and the rest does not fit a request";
  else if (unseen)
    s += "what was reviewed was reviewed before (its findings came from the cache), and the rest has no lines the "
         "model could be shown";
  else s += "every part of the change was reviewed before (its findings came from the cache)";
  if (outcome.prices.input || outcome.prices.output) s += "; cost 0";
  return s;
}

std::string tokensSoFar(const review::Usage& usage) {
  const std::int64_t tokens = usage.inputTokens + usage.outputTokens;
  if (usage.unreportedRequests > 0 && tokens == 0) return "tokens unknown so far";
  return (usage.unreportedRequests > 0 ? "at least " : "") + std::to_string(tokens) + " tokens so far";
}

}  // namespace revline::reports
