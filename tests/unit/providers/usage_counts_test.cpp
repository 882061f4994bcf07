// The token counts a provider reports are untrusted numbers: a server (or a proxy
// in front of one) may send 1e300, a negative count or a fraction. Each provider
// reads them through providers::tokenCount, so that a review's summed usage can
// neither overflow, go negative, nor hit undefined behaviour converting a double.
#include <gtest/gtest.h>

#include "core/providers/anthropic_provider.h"
#include "core/providers/ollama_provider.h"
#include "core/providers/openai_provider.h"
#include "core/providers/remote_common.h"
#include "tests/unit/providers/provider_test_util.h"

namespace revline::providers {
namespace {

using testing::FakeServer;
using testing::Reply;
using testing::settingsFor;
using testing::SleepRecorder;

TEST(TokenCount, WholeNonNegativeNumbersOnly) {
  const json usage = json::parse(R"({"ok": 812, "float": 12.0, "fraction": 3.5, "negative": -5, "huge": 8.88889e56,
                                    "over": 1e13, "tiny": -1e300, "text": "12", "null": null, "unsigned": 18446744073709551615})");
  EXPECT_EQ(tokenCount(usage, "ok"), 812);
  EXPECT_EQ(tokenCount(usage, "float"), 12);
  for (const char* key : {"fraction", "negative", "huge", "over", "tiny", "text", "null", "unsigned", "absent"})
    EXPECT_EQ(tokenCount(usage, key), 0) << key;
  EXPECT_EQ(tokenCount(json::array({1, 2}), "ok"), 0);
}

// Each provider's reply with its usage numbers replaced by nonsense still parses,
// and reports zero instead of a wrapped or negative count.
TEST(TokenCount, EveryProviderReadsNonsenseUsageAsZero) {
  SleepRecorder sleeps;
  {
    json reply = json::parse(testing::fixture("openai_review.json"));
    reply["usage"] = {{"prompt_tokens", 1e300}, {"completion_tokens", -7}, {"prompt_tokens_details", {{"cached_tokens", 2.5}}}};
    FakeServer server;
    server.enqueue(Reply::ok(reply.dump()));
    OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
    const auto response = provider.complete(testing::sampleRequest(), CancelToken());
    EXPECT_EQ(response.usage.inputTokens, 0);
    EXPECT_EQ(response.usage.outputTokens, 0);
    EXPECT_EQ(response.usage.cachedInputTokens, 0);
    EXPECT_TRUE(response.countsUnreadable) << "figures low, not a confident zero";
  }
  {
    json reply = json::parse(testing::fixture("anthropic_review.json"));
    reply["usage"] = {{"input_tokens", 9.2e18}, {"cache_creation_input_tokens", 9.2e18},
                      {"cache_read_input_tokens", 40}, {"output_tokens", -1e300}};
    FakeServer server;
    server.enqueue(Reply::ok(reply.dump()));
    AnthropicProvider provider(settingsFor(server.url(), sleeps));
    const auto response = provider.complete(testing::sampleRequest(), CancelToken());
    EXPECT_EQ(response.usage.inputTokens, 40) << "the two huge counts are 0; their sum did overflow";
    EXPECT_EQ(response.usage.cachedInputTokens, 40);
    EXPECT_EQ(response.usage.outputTokens, 0);
    EXPECT_TRUE(response.countsUnreadable);
  }
  {
    json reply = json::parse(testing::fixture("ollama_review.json"));
    reply["prompt_eval_count"] = -640;
    reply["eval_count"] = 1e100;
    FakeServer server;
    server.enqueue(Reply::ok(reply.dump()));
    OllamaProvider provider(settingsFor(server.url(), sleeps));
    const auto response = provider.complete(testing::sampleRequest(), CancelToken());
    EXPECT_EQ(response.usage.inputTokens, 0);
    EXPECT_EQ(response.usage.outputTokens, 0);
    EXPECT_TRUE(response.countsUnreadable);
  }
}

// One count unreadable beside a readable one (a string, a number past 10^12),
// or more cached than sent: the request's figures are low, and it counts as a
// request without token counts (the report says "at least"). Before, it read
// as a confident "0 input tokens".
TEST(TokenCount, AnUnreadableCountBesideAReadableOneIsNoConfidentZero) {
  const json usage = json::parse(R"({"in": "1000", "out": 10, "none": null})");
  bool unreadable = false;
  EXPECT_EQ(tokenCount(usage, "out", &unreadable), 10);
  EXPECT_EQ(tokenCount(usage, "none", &unreadable), 0);
  EXPECT_EQ(tokenCount(usage, "absent", &unreadable), 0);
  EXPECT_FALSE(unreadable) << "absent or null is no count at all";
  EXPECT_EQ(tokenCount(usage, "in", &unreadable), 0);
  EXPECT_TRUE(unreadable);

  SleepRecorder sleeps;
  json reply = json::parse(testing::fixture("openai_review.json"));
  reply["usage"] = {{"prompt_tokens", 100}, {"completion_tokens", 10}, {"prompt_tokens_details", {{"cached_tokens", 5000}}}};
  FakeServer server;
  server.enqueue(Reply::ok(reply.dump()));
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  const auto response = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(response.usage.cachedInputTokens, 100) << "no more cached than sent";
  EXPECT_TRUE(response.countsUnreadable);
}

// A reply's string field of another type (`"name": null`, `"type": 7`) is no
// crash: before, the review ended in "internal error: [json.exception...]".
TEST(ReplyFields, AFieldOfAnotherTypeIsNoCrash) {
  EXPECT_EQ(stringField(json::parse(R"({"name": null})"), "name"), "");
  EXPECT_EQ(stringField(json::parse(R"({"name": 7})"), "name"), "");
  EXPECT_EQ(stringField(json::parse(R"({"name": "read_file"})"), "name"), "read_file");
  EXPECT_EQ(stringField(json::array(), "name"), "");
  SleepRecorder sleeps;
  {
    json reply = json::parse(testing::fixture("anthropic_review.json"));
    reply["type"] = nullptr;
    reply["content"].push_back({{"type", 7}});
    reply["content"].push_back({{"type", "tool_use"}, {"name", nullptr}, {"id", "toolu_9"}, {"input", json::object()}});
    FakeServer server;
    server.enqueue(Reply::ok(reply.dump()));
    AnthropicProvider provider(settingsFor(server.url(), sleeps));
    EXPECT_NO_THROW(provider.complete(testing::sampleRequest(), CancelToken()));
  }
  {
    json reply = json::parse(testing::fixture("ollama_review.json"));
    reply["message"]["tool_calls"] = {{{"function", {{"name", 7}, {"arguments", json::object()}}}}};
    FakeServer server;
    server.enqueue(Reply::ok(reply.dump()));
    OllamaProvider provider(settingsFor(server.url(), sleeps));
    EXPECT_NO_THROW(provider.complete(testing::sampleRequest(), CancelToken()));
  }
}

}  // namespace
}  // namespace revline::providers
