#include "core/review/cost.h"

#include <algorithm>

namespace revline::review {

std::optional<Cost> costOf(const Usage& usage, const Prices& prices) {
  if (!prices.input && !prices.output) return std::nullopt;
  const double in = prices.input.value_or(0);
  const double read = prices.cachedInput.value_or(in);
  const double write = prices.cacheWrite.value_or(in);
  // Cached and written tokens are part of inputTokens; a provider reporting
  // more of them than input tokens is not trusted to make the rest negative.
  const auto cached = std::min(usage.cachedInputTokens, usage.inputTokens);
  const auto written = std::min(usage.cacheWriteTokens, usage.inputTokens - cached);
  const auto uncached = usage.inputTokens - cached - written;
  Cost c;
  c.input = (static_cast<double>(uncached) * in + static_cast<double>(cached) * read +
             static_cast<double>(written) * write) / 1e6;
  c.output = static_cast<double>(usage.outputTokens) * prices.output.value_or(0) / 1e6;
  c.inputUnpriced = !prices.input && usage.inputTokens > 0;
  c.outputUnpriced = !prices.output && usage.outputTokens > 0;
  c.cacheWritesAtInputPrice = !prices.cacheWrite && written > 0 && prices.input;
  return c;
}

void addCostOf(std::optional<Cost>& total, const Usage& usage, const Prices& prices) {
  const std::optional<Cost> c = costOf(usage, prices);
  if (!c) return;
  if (!total) total = Cost{};
  total->input += c->input;
  total->output += c->output;
  total->inputUnpriced = total->inputUnpriced || c->inputUnpriced;
  total->outputUnpriced = total->outputUnpriced || c->outputUnpriced;
  total->cacheWritesAtInputPrice = total->cacheWritesAtInputPrice || c->cacheWritesAtInputPrice;
}

}  // namespace revline::review
