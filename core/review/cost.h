// What a review cost, from its Usage and the model's configured prices
// (settings price_per_million_*). No price configured: no cost is stated.
#pragma once
#include <optional>

#include "core/review/provider.h"

namespace revline::review {

// Per million tokens, in the currency the user priced in (revline names none).
struct Prices {
  std::optional<double> input;        // uncached input tokens
  std::optional<double> output;
  std::optional<double> cachedInput;  // tokens read from the prompt cache; unset: billed as input
  std::optional<double> cacheWrite;   // tokens written to the prompt cache; unset: billed as input
  friend bool operator==(const Prices&, const Prices&) = default;
};

struct Cost {
  double input = 0;   // every input token at its price (uncached, cache reads, cache writes)
  double output = 0;
  // Tokens of a kind whose price is unset: that part is unknown (not free), and
  // the total is only what the priced part cost.
  bool inputUnpriced = false;
  bool outputUnpriced = false;
  // Tokens written to the prompt cache, priced as input for want of
  // price_per_million_cache_write: providers bill a write at the input price or
  // more (Anthropic 1.25x or 2x), so the cost is at least what it says.
  bool cacheWritesAtInputPrice = false;
  double total() const { return input + output; }
  // The figures are what it cost at least, not exactly (`unreported`: requests answered without token counts).
  bool lowerBound(bool unreported) const { return unreported || inputUnpriced || outputUnpriced || cacheWritesAtInputPrice; }
};

// The cost of `usage`, or nullopt when neither the input nor the output price
// is configured. With one price unset, its tokens are "not priced" (a user
// config that prices input only, with an untrusted repository's output price
// ignored, showed the output as costing 0).
std::optional<Cost> costOf(const Usage& usage, const Prices& prices);

// Adds the cost of `usage` at `prices` to `total` (set from nothing when it is priced).
void addCostOf(std::optional<Cost>& total, const Usage& usage, const Prices& prices);

}  // namespace revline::review
