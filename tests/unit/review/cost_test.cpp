// The cost of a review from its usage and the configured prices.
#include "core/review/cost.h"

#include <gtest/gtest.h>

namespace revline::review {
namespace {

TEST(Cost, AbsentWithoutPrices) {
  EXPECT_FALSE(costOf({.inputTokens = 1000, .outputTokens = 10}, {}).has_value());
  EXPECT_FALSE(costOf({}, {.cachedInput = 0.1}).has_value()) << "a cache price alone prices nothing";
}

TEST(Cost, EachKindOfInputTokenAtItsPrice) {
  const Usage u{.inputTokens = 10'000'000, .outputTokens = 1'000'000, .cachedInputTokens = 6'000'000,
                .cacheWriteTokens = 2'000'000};
  // Anthropic's documented multipliers: reads 0.1x, 5-minute writes 1.25x.
  const auto c = costOf(u, {.input = 3, .output = 15, .cachedInput = 0.3, .cacheWrite = 3.75});
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->input, 2 * 3 + 6 * 0.3 + 2 * 3.75);
  EXPECT_DOUBLE_EQ(c->output, 15);
  EXPECT_DOUBLE_EQ(c->total(), 2 * 3 + 6 * 0.3 + 2 * 3.75 + 15);
  EXPECT_FALSE(c->lowerBound(false));
  // Unset cache prices: billed at the input price. For reads an upper bound;
  // providers bill a write at the input price or more (Anthropic 1.25x), so
  // with writes unpriced the cost is at least what it says, and says so.
  const auto unpriced = costOf(u, {.input = 3, .output = 15});
  EXPECT_DOUBLE_EQ(unpriced->input, 10 * 3);
  EXPECT_TRUE(unpriced->cacheWritesAtInputPrice);
  EXPECT_TRUE(unpriced->lowerBound(false));
  const auto readsOnly = costOf({.inputTokens = 100, .outputTokens = 1, .cachedInputTokens = 50}, {.input = 3, .output = 15});
  EXPECT_FALSE(readsOnly->cacheWritesAtInputPrice);
  EXPECT_FALSE(readsOnly->lowerBound(false));
}

TEST(Cost, AProviderOvercountingCachedTokensCannotMakeTheRestNegative) {
  const auto c = costOf({.inputTokens = 100, .cachedInputTokens = 500, .cacheWriteTokens = 50}, {.input = 1e6, .cachedInput = 0});
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->input, 0) << "all 100 input tokens count as cached, none as uncached or written";
}

TEST(Cost, UsageSumsEveryField) {
  Usage a{1, 2, 3, 4, 5, 6, 7};
  a += Usage{10, 20, 30, 40, 50, 60, 70};
  EXPECT_EQ(a.inputTokens, 11);
  EXPECT_EQ(a.outputTokens, 22);
  EXPECT_EQ(a.cachedInputTokens, 33);
  EXPECT_EQ(a.cacheWriteTokens, 44);
  EXPECT_EQ(a.requests, 55);
  EXPECT_EQ(a.toolCalls, 66);
  EXPECT_EQ(a.toolCallBudget, 77);
}

}  // namespace
}  // namespace revline::review
