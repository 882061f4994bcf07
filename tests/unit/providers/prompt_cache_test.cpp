// Cheap tool rounds, on the wire: through a whole review's conversation (three
// tool rounds, a contract retry, the grounding feedback round) every request
// body starts with the same bytes up to the end of the first user message
// (tools, schema, system prompt, the diff), Anthropic requests mark that prefix
// with cache_control, and the cached-token counts both providers report are
// read and summed with the rest of the usage.
#include <gtest/gtest.h>

#include "core/providers/anthropic_provider.h"
#include "core/providers/openai_provider.h"
#include "core/review/pipeline.h"
#include "core/tools/repository_tools.h"
#include "tests/support/temp_repo.h"
#include "tests/unit/providers/provider_test_util.h"

namespace revline::providers {
namespace {

using testing::FakeServer;
using testing::Reply;
using testing::settingsFor;
using testing::SleepRecorder;

struct Fixture {
  testing::TempRepo repo;
  diff::Diff diff;
  Fixture() {
    repo.write("src/Service.java", "class Service {\n  void a() {}\n}\n");
    repo.write("src/Util.java", "class Util {\n  static boolean same(String a, String b) { return a.equals(b); }\n}\n");
    repo.commitAll("base");
    repo.write("src/Service.java",
               "class Service {\n  void a() {}\n  boolean ok(String s) {\n    return s == \"OK\";\n  }\n}\n");
    diff = diff::parse(repo.git("diff HEAD"));
  }
};

std::string reportOnLine(int line) {
  return R"({"summary":"Adds ok().","findings":[{"file":"src/Service.java","line":)" + std::to_string(line) +
         R"(,"endLine":null,"severity":"MAJOR","category":"CORRECTNESS","title":"String compared with ==","explanation":"Compares references, not contents.","suggestedFix":"Use equals.","edit":null,"confidence":0.9}],"verdict":"REQUEST_CHANGES"})";
}

// The three tool rounds of the conversation: 2 + 1 + 2 calls, a budget of 5.
const std::vector<std::vector<std::pair<std::string, json>>> kRounds = {
    {{"read_file", {{"path", "src/Util.java"}}}, {"glob", {{"pattern", "src/*.java"}}}},
    {{"find_usages", {{"symbol", "ok"}}}},
    {{"search_text", {{"pattern", "equals"}}}, {"read_file", {{"path", "src/Service.java"}}}},
};

// Where the stable prefix of a request body ends: after its first user message,
// as the provider serialised it.
std::size_t stablePrefixEnd(const std::string& body, const std::string& firstUserPath) {
  const ojson j = ojson::parse(body);
  const ojson& first = j.at(ojson::json_pointer(firstUserPath));
  EXPECT_EQ(first["role"], "user");
  const std::string text = first.dump(-1, ' ', false, json::error_handler_t::replace);
  const std::size_t at = body.find(text);
  EXPECT_NE(at, std::string::npos) << "the first user message is not in the body as serialised";
  return at == std::string::npos ? 0 : at + text.size();
}

// Every body starts with the first body's bytes up to the end of its first user message.
void expectStablePrefix(const std::vector<testing::Received>& requests, const std::string& firstUserPath) {
  ASSERT_FALSE(requests.empty());
  const std::string& first = requests[0].body;
  const std::size_t end = stablePrefixEnd(first, firstUserPath);
  EXPECT_GT(end, first.find("<diff>")) << "the diff is inside the stable prefix";
  for (std::size_t i = 1; i < requests.size(); ++i) {
    const std::string& body = requests[i].body;
    std::size_t same = 0;
    while (same < end && same < body.size() && body[same] == first[same]) ++same;
    EXPECT_EQ(same, end) << "request " << i << " differs from the first at byte " << same << " of the " << end
                         << "-byte stable prefix: ..." << body.substr(same > 60 ? same - 60 : 0, 160);
  }
}

review::ReviewOptions conversationOptions() {
  review::ReviewOptions options;
  options.maxToolCalls = 5;
  options.maxAttempts = 3;  // a contract retry, then the grounding feedback round
  return options;
}

// --- OpenAI ----------------------------------------------------------------

std::string openAiUsage(int prompt, int cached) {
  return R"("usage":{"prompt_tokens":)" + std::to_string(prompt) + R"(,"completion_tokens":10,)" +
         R"("prompt_tokens_details":{"cached_tokens":)" + std::to_string(cached) + "}}";
}

std::string openAiToolCalls(const std::vector<std::pair<std::string, json>>& calls, int round, int cached) {
  const json list = testing::openAiToolCallList(calls, round);
  const json message = {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", list}};
  return R"({"choices":[{"index":0,"message":)" + message.dump() + R"(,"finish_reason":"tool_calls"}],)" +
         openAiUsage(1000, cached) + "}";
}

std::string openAiAnswer(const std::string& content, int cached) {
  const json message = {{"role", "assistant"}, {"content", content}};
  return R"({"choices":[{"index":0,"message":)" + message.dump() + R"(,"finish_reason":"stop"}],)" +
         openAiUsage(1000, cached) + "}";
}

TEST(PromptCache, OpenAiPrefixIsByteIdenticalThroughTheWholeConversation) {
  Fixture f;
  FakeServer server;
  for (std::size_t r = 0; r < kRounds.size(); ++r)
    server.enqueue(Reply::ok(openAiToolCalls(kRounds[r], static_cast<int>(r) + 1, r == 0 ? 0 : 800)));
  server.enqueue(Reply::ok(openAiAnswer(R"({"summary": 1})", 800)));  // breaks the contract: retried
  server.enqueue(Reply::ok(openAiAnswer(reportOnLine(99), 800)));     // off the diff: grounding feedback
  server.enqueue(Reply::ok(openAiAnswer(reportOnLine(4), 800)));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  tools::RepositoryTools repoTools(f.repo.root());

  const auto outcome = review::runReview(f.diff, provider, conversationOptions(), &repoTools, CancelToken());
  ASSERT_EQ(server.requestCount(), 6u);
  ASSERT_TRUE(outcome.groundingRetry.has_value()) << "the grounding feedback round ran";
  EXPECT_EQ(outcome.findings.size(), 1u);

  const auto requests = server.requests();
  expectStablePrefix(requests, "/messages/1");
  for (const auto& r : requests) {
    const json body = r.parsed();
    EXPECT_EQ(body["tools"].size(), 4u) << "the tools are offered in every call, also past the budget";
  }
  // The prompt states the budget and asks for the calls in one turn.
  const std::string system = requests[0].parsed()["messages"][0]["content"];
  EXPECT_NE(system.find("Your budget for this whole review is 5 tool calls"), std::string::npos) << system;
  EXPECT_NE(system.find("ask for all of it in one reply"), std::string::npos) << system;

  // Usage: every call summed, cached tokens read from prompt_tokens_details.
  EXPECT_EQ(outcome.usage.requests, 6);
  EXPECT_EQ(outcome.usage.inputTokens, 6000);
  EXPECT_EQ(outcome.usage.cachedInputTokens, 5 * 800);
  EXPECT_EQ(outcome.usage.cacheWriteTokens, 0);
  EXPECT_EQ(outcome.usage.outputTokens, 60);
  EXPECT_EQ(outcome.usage.toolCalls, 5);
  EXPECT_EQ(outcome.usage.toolCallBudget, 5);
}

// --- Anthropic -------------------------------------------------------------

std::string anthropicUsage(int input, int write, int read) {
  return R"("usage":{"input_tokens":)" + std::to_string(input) + R"(,"cache_creation_input_tokens":)" +
         std::to_string(write) + R"(,"cache_read_input_tokens":)" + std::to_string(read) + R"(,"output_tokens":20})";
}

std::string anthropicToolUse(const std::vector<std::pair<std::string, json>>& calls, int round, int write, int read) {
  json content = json::array();
  int i = 0;
  for (const auto& [name, args] : calls)
    content.push_back({{"type", "tool_use"}, {"id", "toolu_" + std::to_string(round) + std::to_string(++i)},
                       {"name", name}, {"input", args}});
  return R"({"type":"message","role":"assistant","content":)" + content.dump() + R"(,"stop_reason":"tool_use",)" +
         anthropicUsage(100, write, read) + "}";
}

std::string anthropicSubmit(const json& report, int write, int read) {
  const json content = json::array({{{"type", "tool_use"}, {"id", "toolu_submit"}, {"name", "submit_review"},
                                     {"input", report}}});
  return R"({"type":"message","role":"assistant","content":)" + content.dump() + R"(,"stop_reason":"tool_use",)" +
         anthropicUsage(100, write, read) + "}";
}

int cacheControls(const json& j) {
  int n = 0;
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) n += (it.key() == "cache_control") + cacheControls(it.value());
  } else if (j.is_array()) {
    for (const auto& v : j) n += cacheControls(v);
  }
  return n;
}

TEST(PromptCache, AnthropicMarksTheStablePrefixAndReadsCacheUsage) {
  Fixture f;
  FakeServer server;
  server.enqueue(Reply::ok(anthropicToolUse(kRounds[0], 1, 3000, 0)));
  server.enqueue(Reply::ok(anthropicToolUse(kRounds[1], 2, 200, 3000)));
  server.enqueue(Reply::ok(anthropicToolUse(kRounds[2], 3, 150, 3200)));
  server.enqueue(Reply::ok(anthropicSubmit(json{{"summary", 1}}, 300, 3350)));  // breaks the contract
  server.enqueue(Reply::ok(anthropicSubmit(json::parse(reportOnLine(99)), 100, 3650)));
  server.enqueue(Reply::ok(anthropicSubmit(json::parse(reportOnLine(4)), 100, 3750)));
  SleepRecorder sleeps;
  AnthropicProvider provider(settingsFor(server.url(), sleeps));
  tools::RepositoryTools repoTools(f.repo.root());

  const auto outcome = review::runReview(f.diff, provider, conversationOptions(), &repoTools, CancelToken());
  ASSERT_EQ(server.requestCount(), 6u);
  ASSERT_TRUE(outcome.groundingRetry.has_value());
  EXPECT_EQ(outcome.findings.size(), 1u);

  const auto requests = server.requests();
  expectStablePrefix(requests, "/messages/0");
  const json ephemeral = {{"type", "ephemeral"}};
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const json body = requests[i].parsed();
    EXPECT_EQ(body["tools"].size(), 5u) << "submit_review and the four repository tools, in every call";
    EXPECT_EQ(body["tool_choice"], (json{{"type", "any"}})) << "unchanged: a new tool_choice drops the message cache";
    EXPECT_EQ(body["system"].back()["cache_control"], ephemeral) << "tools and system prompt: cached across reviews";
    EXPECT_EQ(body["messages"][0]["content"].back()["cache_control"], ephemeral) << "the diff: cached for the rounds";
    EXPECT_EQ(body["messages"].back()["content"].back()["cache_control"], ephemeral) << "the conversation so far";
    EXPECT_LE(cacheControls(body), 4) << "the API allows four breakpoints";
  }

  // input_tokens is what came after the last breakpoint; the cache parts are beside it.
  EXPECT_EQ(outcome.usage.requests, 6);
  EXPECT_EQ(outcome.usage.cachedInputTokens, 3000 + 3200 + 3350 + 3650 + 3750);
  EXPECT_EQ(outcome.usage.cacheWriteTokens, 3000 + 200 + 150 + 300 + 100 + 100);
  EXPECT_EQ(outcome.usage.inputTokens, 6 * 100 + outcome.usage.cachedInputTokens + outcome.usage.cacheWriteTokens);
  EXPECT_EQ(outcome.usage.outputTokens, 6 * 20);
  EXPECT_EQ(outcome.usage.toolCalls, 5);
}

// A model that takes no temperature (Opus 4.7 and later) rejects the first call;
// the provider drops the temperature and asks again. To the review that is one
// call: no contract attempt, no usage, and from then on every request of the
// conversation shares its prefix byte for byte.
TEST(PromptCache, AnthropicTemperatureNegotiationIsNotAnAttemptAndKeepsThePrefix) {
  Fixture f;
  FakeServer server;
  server.enqueue(Reply{400,
                       R"({"type":"error","error":{"type":"invalid_request_error",)"
                       R"("message":"`temperature` is deprecated for this model."}})",
                       {},
                       {}});
  server.enqueue(Reply::ok(anthropicToolUse(kRounds[0], 1, 3000, 0)));
  server.enqueue(Reply::ok(anthropicSubmit(json::parse(reportOnLine(4)), 100, 3000)));
  SleepRecorder sleeps;
  AnthropicProvider provider(settingsFor(server.url(), sleeps));
  tools::RepositoryTools repoTools(f.repo.root());

  const auto outcome = review::runReview(f.diff, provider, conversationOptions(), &repoTools, CancelToken());
  ASSERT_EQ(server.requestCount(), 3u);
  EXPECT_EQ(outcome.findings.size(), 1u);
  EXPECT_EQ(outcome.attempts, 1);
  EXPECT_EQ(outcome.usage.requests, 2) << "answered calls only";
  EXPECT_EQ(outcome.usage.inputTokens, 2 * 100 + 3000 + 100 + 3000);

  auto requests = server.requests();
  EXPECT_EQ(requests[0].parsed()["temperature"], 0);
  requests.erase(requests.begin());
  for (const auto& r : requests) EXPECT_FALSE(r.parsed().contains("temperature")) << "remembered";
  expectStablePrefix(requests, "/messages/0");
}

TEST(PromptCache, AnthropicWithoutToolsCachesOnlyTheSharedSystemPrefix) {
  // One call is expected: marking the diff would bill a cache write (1.25x) no later call reads.
  FakeServer server;
  server.enqueue(Reply::fromFixture("anthropic_review.json"));
  SleepRecorder sleeps;
  AnthropicProvider provider(settingsFor(server.url(), sleeps));
  provider.complete(testing::sampleRequest(), CancelToken());
  const json body = server.requests()[0].parsed();
  EXPECT_EQ(cacheControls(body), 1);
  EXPECT_EQ(body["system"][0]["cache_control"], (json{{"type", "ephemeral"}}));
}

// The path a user takes: prices in .revline.json, `revline review` against the
// provider; the JSON report's usage carries the cached tokens and the cost, and
// the text report says the same in a sentence.
TEST(PromptCache, CliReportsCachedTokensAndTheCostFromConfiguredPrices) {
  Fixture f;
  f.repo.write(".revline.json", R"({"price_per_million_input": 3, "price_per_million_output": 15,
                                    "price_per_million_cached_input": 0.3, "price_per_million_cache_write": 3.75})");
  FakeServer server;
  const std::string answer = anthropicSubmit(json::parse(reportOnLine(4)), 2000, 6000);  // 100 plain, 20 output
  server.enqueue(Reply::ok(answer));
  server.enqueue(Reply::ok(answer));
  // --no-cache: the second run is asked again (it would be answered by the per-hunk cache).
  const std::string args =
      "review --no-cache --provider anthropic --base-url " + server.url() + " --model test --max-tool-calls 0";
  const auto json_run = testing::runRevline(args + " --format json", f.repo.root());
  ASSERT_EQ(json_run.exitCode, 1) << json_run.out << json_run.err;
  const json usage = json::parse(json_run.out)["usage"];
  EXPECT_EQ(usage["requests"], 1);
  EXPECT_EQ(usage["inputTokens"], 8100);
  EXPECT_EQ(usage["cachedInputTokens"], 6000);
  EXPECT_EQ(usage["cacheWriteTokens"], 2000);
  EXPECT_EQ(usage["toolCallBudget"], 0);
  const double input = (100 * 3 + 6000 * 0.3 + 2000 * 3.75) / 1e6, output = 20 * 15 / 1e6;
  EXPECT_NEAR(usage["cost"]["input"].get<double>(), input, 1e-12);
  EXPECT_NEAR(usage["cost"]["total"].get<double>(), input + output, 1e-12);

  const auto text_run = testing::runRevline(args + " --format text", f.repo.root());
  EXPECT_NE(text_run.out.find("Usage: 1 model request, 8100 input tokens (6000 cached, 2000 written to the cache), "
                              "20 output tokens; cost 0.0099 at the configured prices"),
            std::string::npos)
      << text_run.out;
}

}  // namespace
}  // namespace revline::providers
