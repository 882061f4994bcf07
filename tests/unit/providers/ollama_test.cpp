// The Ollama provider against a fake /api/chat server.
#include <gtest/gtest.h>

#include "core/config/input_budget.h"
#include "core/providers/anthropic_provider.h"
#include "core/providers/ollama_provider.h"
#include "core/providers/openai_provider.h"
#include "tests/unit/providers/provider_test_util.h"

namespace revline::providers {
namespace {

using review::FinishReason;
using review::ProviderError;
using testing::FakeServer;
using testing::Reply;
using testing::settingsFor;
using testing::SleepRecorder;
using testing::kindOf;
using Kind = ProviderError::Kind;

TEST(Ollama, FormatIsTheSchemaAndStreamIsOff) {
  FakeServer server;
  server.enqueue(Reply::fromFixture("ollama_review.json"));
  SleepRecorder sleeps;
  OllamaProvider provider(settingsFor(server.url(), sleeps));
  EXPECT_EQ(provider.name(), "ollama");
  EXPECT_FALSE(provider.remote());
  auto response = provider.complete(testing::sampleRequest(), CancelToken());
  const auto req = server.requests()[0];
  EXPECT_EQ(req.path, "/api/chat");
  EXPECT_FALSE(req.hasHeader("Authorization"));
  json body = req.parsed();
  EXPECT_EQ(body["model"], "test-model");
  EXPECT_EQ(body["stream"], false);
  EXPECT_EQ(body["format"], testing::sampleSchema());
  EXPECT_EQ(body["think"], false) << "a thinking model would put the whole answer in message.thinking";
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(body["messages"][1], (json{{"role", "user"}, {"content", "Review this diff."}}));
  EXPECT_EQ(response.finish, FinishReason::Stop);
  EXPECT_EQ(json::parse(response.text)["verdict"], "REQUEST_CHANGES");
  EXPECT_EQ(response.usage.inputTokens, 640);
  EXPECT_EQ(response.usage.outputTokens, 122);
}

TEST(Ollama, ToolsWithoutFormatThenToolTurns) {
  FakeServer server;
  server.enqueue(Reply::fromFixture("ollama_tool_calls.json"));
  server.enqueue(Reply::fromFixture("ollama_review.json"));
  SleepRecorder sleeps;
  OllamaProvider provider(settingsFor(server.url("/v1"), sleeps));  // an OpenAI-style /v1 is tolerated
  auto request = testing::sampleRequest();
  request.tools = {testing::readFileSpec()};
  auto first = provider.complete(request, CancelToken());
  json body = server.requests()[0].parsed();
  EXPECT_EQ(server.requests()[0].path, "/api/chat");
  EXPECT_FALSE(body.contains("format")) << "a format constraint would rule out tool calls";
  EXPECT_EQ(body["tools"][0]["type"], "function");
  EXPECT_EQ(body["tools"][0]["function"]["name"], "read_file");
  EXPECT_EQ(first.finish, FinishReason::ToolCalls);
  ASSERT_EQ(first.toolCalls.size(), 1u);
  EXPECT_EQ(first.toolCalls[0].name, "find_usages");
  EXPECT_EQ(first.toolCalls[0].arguments, (json{{"symbol", "ok"}}));
  EXPECT_FALSE(first.toolCalls[0].id.empty());

  request.messages.push_back({review::Role::Assistant, "", first.toolCalls, {}});
  request.messages.push_back({review::Role::Tool, "", {}, {{first.toolCalls[0].id, "find_usages", true, "src/A.java:3: ok()"}}});
  request.tools.clear();
  provider.complete(request, CancelToken());
  json body2 = server.requests()[1].parsed();
  EXPECT_EQ(body2["format"], testing::sampleSchema()) << "final answer: format enforced";
  const json& msgs = body2["messages"];
  ASSERT_EQ(msgs.size(), 4u);
  EXPECT_EQ(msgs[2]["tool_calls"][0]["function"], (json{{"name", "find_usages"}, {"arguments", {{"symbol", "ok"}}}}));
  EXPECT_EQ(msgs[3], (json{{"role", "tool"}, {"tool_name", "find_usages"}, {"content", "src/A.java:3: ok()"}}));
}

// The path a review takes now: the tools stay listed in every call (so the prompt
// Ollama keeps in its KV cache is unchanged), and `format` comes in once the tool
// budget is spent. The context window is sized from the request's budget.
TEST(Ollama, TheToolsStayAndFormatComesOnceTheBudgetIsSpentInAWindowSizedForTheBudget) {
  FakeServer server;
  server.enqueue(Reply::fromFixture("ollama_review.json"));
  server.enqueue(Reply::fromFixture("ollama_review.json"));
  server.enqueue(Reply::fromFixture("ollama_review.json"));
  SleepRecorder sleeps;
  auto settings = settingsFor(server.url(), sleeps);
  settings.maxOutputTokens = 4096;
  OllamaProvider provider(settings);
  auto request = testing::sampleRequest();
  request.tools = {testing::readFileSpec()};
  request.inputTokenBudget = 8000;
  provider.complete(request, CancelToken());
  request.toolBudgetSpent = true;
  provider.complete(request, CancelToken());
  const json open = server.requests()[0].parsed(), spent = server.requests()[1].parsed();
  EXPECT_FALSE(open.contains("format"));
  EXPECT_EQ(spent["format"], testing::sampleSchema());
  EXPECT_EQ(spent["tools"], open["tools"]) << "the tools stay listed";
  EXPECT_EQ(spent["messages"], open["messages"]);
  // 8,000 + 4,096 rounded up to a multiple of 1,024; Ollama's default (2,048 or
  // 4,096) would silently cut the prompt from the front.
  EXPECT_EQ(open["options"]["num_ctx"], 12288);
  EXPECT_EQ(open["options"]["num_predict"], 4096);
  EXPECT_EQ(open["options"]["temperature"], 0);
  // No budget (a test's request): the server's defaults, as before.
  provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_FALSE(server.requests()[2].parsed()["options"].contains("num_ctx"));

  // The retry of an answer that failed the contract (prose, with tools offered and
  // so no `format`) is held to the schema too.
  server.enqueue(Reply::fromFixture("ollama_review.json"));
  request.toolBudgetSpent = false;
  request.contractRetry = true;
  provider.complete(request, CancelToken());
  EXPECT_EQ(server.requests()[3].parsed()["format"], testing::sampleSchema());
  EXPECT_EQ(server.requests()[3].parsed()["tools"], open["tools"]);
}

TEST(Ollama, DoneReasonLengthAndMissingModel) {
  FakeServer server;
  server.enqueue(Reply::fromFixture("ollama_length.json"));
  server.enqueue(Reply::fromFixture("ollama_404.json", 404));
  SleepRecorder sleeps;
  auto settings = settingsFor(server.url(), sleeps);
  settings.model = "qwen9:1b";
  OllamaProvider provider(settings);
  EXPECT_EQ(provider.complete(testing::sampleRequest(), CancelToken()).finish, FinishReason::Length);
  try {
    provider.complete(testing::sampleRequest(), CancelToken());
    ADD_FAILURE() << "404 must throw";
  } catch (const ProviderError& e) {
    std::string m = e.what();
    EXPECT_EQ(e.kind(), Kind::NotFound);
    EXPECT_NE(m.find("model \"qwen9:1b\""), std::string::npos) << m;
    EXPECT_NE(m.find("try pulling it first"), std::string::npos) << m;
    EXPECT_NE(m.find("ollama pull qwen9:1b"), std::string::npos) << m;
  }
}

// A base URL copied from Ollama's API docs (http://localhost:11434/api) is the
// same server (it went to /api/api/chat); a route the server does not have
// (Go's "404 page not found") points at base_url, not at `ollama pull`.
TEST(Ollama, ABaseUrlEndingInApiIsTheServerAndAMissingRouteNamesBaseUrl) {
  FakeServer server;
  server.enqueue(Reply::fromFixture("ollama_review.json"));
  SleepRecorder sleeps;
  OllamaProvider provider(settingsFor(server.url("/api"), sleeps));
  provider.complete(testing::sampleRequest(), CancelToken());
  ASSERT_EQ(server.requestCount(), 1u);
  EXPECT_EQ(server.requests()[0].path, "/api/chat");

  FakeServer routes;
  routes.enqueue(Reply{404, "404 page not found", {}, {}});
  OllamaProvider elsewhere(settingsFor(routes.url("/ollama"), sleeps));
  std::string m;
  EXPECT_EQ(kindOf([&] { elsewhere.complete(testing::sampleRequest(), CancelToken()); }, &m), Kind::NotFound);
  EXPECT_NE(m.find("the server has no /api/chat under " + routes.url("/ollama")), std::string::npos) << m;
  EXPECT_NE(m.find("base_url is Ollama's address alone"), std::string::npos) << m;
  EXPECT_EQ(m.find("ollama pull"), std::string::npos) << m;
}

// A reply that says it is not finished ("done": false, one chunk of a stream a
// proxy passed on) was read as the whole answer.
TEST(Ollama, AnUnfinishedReplyIsNoAnswer) {
  FakeServer server;
  server.enqueue(Reply::ok(R"({"model":"m","message":{"role":"assistant","content":"{\"summary\": \"Lo"},"done":false})"));
  SleepRecorder sleeps;
  OllamaProvider provider(settingsFor(server.url(), sleeps));
  try {
    provider.complete(testing::sampleRequest(), CancelToken());
    ADD_FAILURE() << "an unfinished reply must throw";
  } catch (const ProviderError& e) {
    EXPECT_EQ(e.kind(), Kind::Protocol);
    EXPECT_NE(std::string(e.what()).find("says it is not finished (\"done\": false)"), std::string::npos) << e.what();
  }
}

// A thinking model (deepseek-r1, qwen3) is told not to think when `format`
// constrains its answer; a model without thinking refuses even `think: false`
// on a recent Ollama, and gets the same request without it, from then on.
// An answer still left in message.thinking is said to be there.
// Ollama before 0.5 reads `format` as a string and refuses the schema with a
// Go error that named nothing to do (ollama/ollama#7991). The same request goes
// again without it (the schema is in the prompt), a note says to upgrade, and
// the server is asked without it from then on.
TEST(Ollama, AnOllamaBefore05GetsTheSchemaInThePromptAndIsToldToUpgrade) {
  FakeServer server;
  server.enqueue(Reply{400, R"({"error":"json: cannot unmarshal object into Go struct field ChatRequest.format of type string"})", {}, {}});
  server.enqueue(Reply::fromFixture("ollama_review.json"));
  server.enqueue(Reply::fromFixture("ollama_review.json"));
  SleepRecorder sleeps;
  OllamaProvider provider(settingsFor(server.url(), sleeps));
  const auto answer = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(answer.finish, FinishReason::Stop);
  ASSERT_EQ(server.requestCount(), 2u);
  EXPECT_TRUE(server.requests()[0].parsed().contains("format"));
  const json resent = server.requests()[1].parsed();
  EXPECT_FALSE(resent.contains("format"));
  EXPECT_NE(resent["messages"][0]["content"].get<std::string>().find(testing::sampleSchema().dump()), std::string::npos)
      << "the schema is in the prompt";
  ASSERT_EQ(answer.notes.size(), 1u);
  EXPECT_NE(answer.notes[0].find("took no JSON schema in `format`"), std::string::npos) << answer.notes[0];
  EXPECT_NE(answer.notes[0].find("upgrade Ollama to 0.5 or later"), std::string::npos) << answer.notes[0];
  EXPECT_TRUE(answer.schemaOnlyInPrompt);
  OllamaProvider later(settingsFor(server.url(), sleeps));
  later.complete(testing::sampleRequest(), CancelToken());
  EXPECT_FALSE(server.requests()[2].parsed().contains("format")) << "negotiated once per server";
}

TEST(Ollama, ThinkingIsTurnedOffForTheAnswerWhereTheModelThinks) {
  FakeServer server;
  server.enqueue(Reply{400, R"({"error":"\"qwen2.5-coder:7b\" does not support thinking"})", {}, {}});
  server.enqueue(Reply::fromFixture("ollama_review.json"));
  server.enqueue(Reply::fromFixture("ollama_review.json"));
  server.enqueue(Reply::ok(R"({"model":"deepseek-r1:8b","message":{"role":"assistant","content":"","thinking":"{\"summary\":\"x\"}"},"done":true,"done_reason":"stop","prompt_eval_count":10,"eval_count":20})"));
  SleepRecorder sleeps;
  auto settings = settingsFor(server.url(), sleeps);
  settings.model = "qwen2.5-coder:7b";
  OllamaProvider provider(settings);
  const auto answer = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(answer.finish, FinishReason::Stop);
  ASSERT_EQ(server.requestCount(), 2u);
  EXPECT_EQ(server.requests()[0].parsed()["think"], false);
  EXPECT_FALSE(server.requests()[1].parsed().contains("think"));
  OllamaProvider later(settings);
  later.complete(testing::sampleRequest(), CancelToken());
  EXPECT_FALSE(server.requests()[2].parsed().contains("think")) << "negotiated once per endpoint and model";

  settings.model = "deepseek-r1:8b";
  OllamaProvider thinking(settings);
  const auto empty = thinking.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(server.requests()[3].parsed()["think"], false);
  EXPECT_TRUE(empty.text.empty());
  EXPECT_NE(empty.answerElsewhere.find("in its thinking (message.thinking)"), std::string::npos) << empty.answerElsewhere;

  // gpt-oss takes only a level, and answers nothing with false.
  server.enqueue(Reply::fromFixture("ollama_review.json"));
  settings.model = "gpt-oss:20b";
  OllamaProvider oss(settings);
  oss.complete(testing::sampleRequest(), CancelToken());
  EXPECT_TRUE(server.requests()[4].parsed().contains("format"));
  EXPECT_FALSE(server.requests()[4].parsed().contains("think"));
}

TEST(Ollama, DefaultsNeedNoKey) {
  SleepRecorder sleeps;
  OllamaProvider provider(settingsFor("", sleeps));
  EXPECT_EQ(provider.model(), "test-model");
  EXPECT_FALSE(provider.remote());
  auto remote = settingsFor("https://ollama.example.com", sleeps);
  OllamaProvider remoteProvider(remote);
  EXPECT_TRUE(remoteProvider.remote());
}

// config::defaultInputTokens reads an empty model as the provider's default
// model without knowing the providers: this keeps the two in step.
TEST(DefaultBudget, AnEmptyModelIsTheProvidersDefaultModel) {
  EXPECT_EQ(config::defaultInputTokens("openai", ""), config::defaultInputTokens("openai", OpenAiProvider::kDefaultModel));
  EXPECT_EQ(config::defaultInputTokens("anthropic", ""),
            config::defaultInputTokens("anthropic", AnthropicProvider::kDefaultModel));
  EXPECT_EQ(config::defaultInputTokens("ollama", ""), config::defaultInputTokens("ollama", OllamaProvider::kDefaultModel));
}

// Models whose context is smaller than the default for an unknown model get a
// budget inside it (before: gpt-4's 8k context was given 24,000 tokens, and a
// large change failed at the server); a router's vendor/model name is its model.
TEST(DefaultBudget, SmallContextModelsAndRouterNames) {
  EXPECT_EQ(config::defaultInputTokens("openai", "gpt-4"), 6000);
  EXPECT_EQ(config::defaultInputTokens("openai", "gpt-4-0613"), 6000);
  EXPECT_EQ(config::defaultInputTokens("openai", "gpt-3.5-turbo"), 12000);
  EXPECT_EQ(config::defaultInputTokens("openai", "gpt-4-32k"), 24000);
  EXPECT_EQ(config::defaultInputTokens("openai", "gpt-4-turbo"), 100000);
  EXPECT_EQ(config::defaultInputTokens("openai", "openai/gpt-4o"), 100000);
  EXPECT_EQ(config::defaultInputTokens("openai", "anthropic/claude-sonnet-4"), 150000);
  EXPECT_EQ(config::defaultInputTokens("openai", "meta-llama/llama-3.1-70b-instruct"), 24000);
}

// A model larger than the machine's memory (Ollama's 500, or its runner killed
// for it), and Anthropic's spend limit (a 429 with no Retry-After): each was
// retried twice and called temporary ("try again later"). Sent once, with the fix.
TEST(LastingFailures, OutOfMemoryAndASpendLimitAreNotRetried) {
  auto failure = [](review::Provider& provider, std::string& message) {
    try {
      provider.complete(testing::sampleRequest(), CancelToken());
    } catch (const ProviderError& e) {
      message = e.what();
      return e.kind();
    }
    return Kind::Protocol;
  };
  for (const char* body : {R"j({"error":"model requires more system memory (11.2 GiB) than is available (7.6 GiB)"})j",
                           R"({"error":"llama runner process has terminated: signal: killed"})"}) {
    FakeServer server;
    server.enqueue(Reply{500, body, {}, {}});
    SleepRecorder sleeps;
    OllamaProvider provider(settingsFor(server.url(), sleeps));
    std::string msg;
    EXPECT_EQ(failure(provider, msg), Kind::BadRequest) << msg;
    EXPECT_NE(msg.find("lower max_input_tokens (or --max-input-tokens N"), std::string::npos) << msg;
    EXPECT_NE(msg.find("or choose a smaller model"), std::string::npos) << msg;
    EXPECT_EQ(server.requestCount(), 1u);
  }
  FakeServer server;
  server.enqueue(Reply{429, R"({"type":"error","error":{"type":"rate_limit_error","message":"You have reached your specified workspace API usage limits.","details":{"error_code":"enforced_spend_limit_reached"}}})", {}, {}});
  SleepRecorder sleeps;
  AnthropicProvider provider(settingsFor(server.url(), sleeps, {{"ANTHROPIC_API_KEY", "sk-ant-test"}}));
  std::string msg;
  EXPECT_EQ(failure(provider, msg), Kind::Quota) << msg;
  EXPECT_NE(msg.find("spend limit"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("try again later"), std::string::npos) << msg;
  EXPECT_EQ(server.requestCount(), 1u);
}

}  // namespace
}  // namespace revline::providers
