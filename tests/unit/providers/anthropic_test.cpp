// The Anthropic provider against a fake /v1/messages server: headers, the forced
// submit_review tool carrying the contract, tool_use/tool_result turns, stop reasons,
// and the parameters negotiated with a model that rejects them (temperature, max_tokens).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/providers/anthropic_provider.h"
#include "tests/unit/providers/provider_test_util.h"

namespace revline::providers {
namespace {

using review::FinishReason;
using review::ProviderError;
using testing::FakeServer;
using testing::Reply;
using testing::settingsFor;
using testing::SleepRecorder;
using Kind = ProviderError::Kind;

TEST(Anthropic, ForcedSubmitReviewToolCarriesTheContract) {
  FakeServer server;
  server.enqueue(Reply::fromFixture("anthropic_review.json"));
  SleepRecorder sleeps;
  AnthropicProvider provider(settingsFor(server.url(), sleeps, {{"ANTHROPIC_API_KEY", "sk-ant-test"}}));
  EXPECT_EQ(provider.name(), "anthropic");
  auto response = provider.complete(testing::sampleRequest(), CancelToken());

  ASSERT_EQ(server.requestCount(), 1u);
  const auto req = server.requests()[0];
  EXPECT_EQ(req.path, "/v1/messages");
  EXPECT_EQ(req.header("x-api-key"), "sk-ant-test");
  EXPECT_EQ(req.header("anthropic-version"), "2023-06-01");
  EXPECT_FALSE(req.hasHeader("Authorization"));
  json body = req.parsed();
  EXPECT_EQ(body["model"], "test-model");
  EXPECT_EQ(body["max_tokens"], 8192);
  EXPECT_EQ(body["temperature"], 0) << "deterministic where the model takes a temperature";
  EXPECT_EQ(body["system"], json::parse(R"([{"type":"text","text":"You are a code reviewer.",
                                             "cache_control":{"type":"ephemeral"}}])"));
  EXPECT_EQ(body["messages"],
            json::parse(R"([{"role":"user","content":[{"type":"text","text":"Review this diff."}]}])"));
  ASSERT_EQ(body["tools"].size(), 1u);
  EXPECT_EQ(body["tools"][0]["name"], "submit_review");
  EXPECT_EQ(body["tools"][0]["input_schema"], testing::sampleSchema());
  EXPECT_EQ(body["tool_choice"], (json{{"type", "tool"}, {"name", "submit_review"}}));

  EXPECT_EQ(response.finish, FinishReason::Stop);
  EXPECT_TRUE(response.toolCalls.empty());
  json report = json::parse(response.text);
  EXPECT_EQ(report["verdict"], "REQUEST_CHANGES");
  EXPECT_EQ(report["findings"][0]["line"], 4);
  EXPECT_EQ(response.usage.inputTokens, 1021);
  EXPECT_EQ(response.usage.outputTokens, 143);
}

TEST(Anthropic, RepositoryToolsUseToolChoiceAnyAndToolResultTurns) {
  FakeServer server;
  server.enqueue(Reply::fromFixture("anthropic_tool_use.json"));
  server.enqueue(Reply::fromFixture("anthropic_review.json"));
  SleepRecorder sleeps;
  AnthropicProvider provider(settingsFor(server.url("/v1"), sleeps));  // a trailing /v1 is tolerated
  auto request = testing::sampleRequest();
  request.tools = {testing::readFileSpec()};
  auto first = provider.complete(request, CancelToken());
  json body = server.requests()[0].parsed();
  EXPECT_EQ(server.requests()[0].path, "/v1/messages");
  ASSERT_EQ(body["tools"].size(), 2u);
  EXPECT_EQ(body["tools"][0]["name"], "submit_review");
  EXPECT_EQ(body["tools"][1],
            (json{{"name", "read_file"}, {"description", "Read a file."}, {"input_schema", testing::readFileSpec().inputSchema}}));
  EXPECT_EQ(body["tool_choice"], (json{{"type", "any"}}));

  EXPECT_EQ(first.finish, FinishReason::ToolCalls);
  EXPECT_EQ(first.text, "I'll look at the whole file first.");
  ASSERT_EQ(first.toolCalls.size(), 2u);
  EXPECT_EQ(first.toolCalls[0].id, "toolu_01T1x1fJ34qAmk2tNTrN7Up6");
  EXPECT_EQ(first.toolCalls[0].arguments, (json{{"path", "src/Service.java"}}));
  EXPECT_EQ(first.toolCalls[1].arguments, (json{{"path", "/etc/passwd"}}));

  request.messages.push_back({review::Role::Assistant, first.text, first.toolCalls, {}});
  request.messages.push_back({review::Role::Tool,
                              "",
                              {},
                              {{first.toolCalls[0].id, "read_file", true, "1: class Service {"},
                               {first.toolCalls[1].id, "read_file", false, "read_file: path '/etc/passwd' is absolute"}}});
  request.messages.push_back({review::Role::User, "Budget spent: answer now.", {}, {}});
  request.tools.clear();
  auto second = provider.complete(request, CancelToken());
  EXPECT_EQ(second.finish, FinishReason::Stop);

  json body2 = server.requests()[1].parsed();
  EXPECT_EQ(body2["tool_choice"], (json{{"type", "tool"}, {"name", "submit_review"}})) << "tools withdrawn: forced";
  const json& msgs = body2["messages"];
  ASSERT_EQ(msgs.size(), 3u) << msgs.dump(2);
  EXPECT_EQ(msgs[1]["role"], "assistant");
  EXPECT_EQ(msgs[1]["content"][0], (json{{"type", "text"}, {"text", "I'll look at the whole file first."}}));
  EXPECT_EQ(msgs[1]["content"][1],
            (json{{"type", "tool_use"}, {"id", "toolu_01T1x1fJ34qAmk2tNTrN7Up6"}, {"name", "read_file"},
                  {"input", {{"path", "src/Service.java"}}}}));
  // Tool results and the budget message merge into one user turn, results first.
  EXPECT_EQ(msgs[2]["role"], "user");
  ASSERT_EQ(msgs[2]["content"].size(), 3u);
  EXPECT_EQ(msgs[2]["content"][0],
            (json{{"type", "tool_result"}, {"tool_use_id", "toolu_01T1x1fJ34qAmk2tNTrN7Up6"}, {"content", "1: class Service {"}}));
  EXPECT_EQ(msgs[2]["content"][1]["is_error"], true);
  EXPECT_EQ(msgs[2]["content"][1]["tool_use_id"], "toolu_01U2y2gK45rBnl3uOUsO8Vq7");
  EXPECT_EQ(msgs[2]["content"][2], (json{{"type", "text"}, {"text", "Budget spent: answer now."}}));
}

TEST(Anthropic, ContractRetryResendsTheAnswerAsAnAssistantTurn) {
  FakeServer server;
  server.enqueue(Reply::fromFixture("anthropic_review.json"));
  SleepRecorder sleeps;
  AnthropicProvider provider(settingsFor(server.url(), sleeps));
  auto request = testing::sampleRequest();
  request.messages.push_back({review::Role::Assistant, R"({"summary": 1})", {}, {}});
  request.messages.push_back({review::Role::User, "/summary: expected a string", {}, {}});
  provider.complete(request, CancelToken());
  const json msgs = server.requests()[0].parsed()["messages"];
  ASSERT_EQ(msgs.size(), 3u);
  EXPECT_EQ(msgs[1], (json{{"role", "assistant"}, {"content", {{{"type", "text"}, {"text", R"({"summary": 1})"}}}}}));
  EXPECT_EQ(msgs[2]["content"][0]["text"], "/summary: expected a string");
}

TEST(Anthropic, StopReasonsAndErrors) {
  FakeServer server;
  server.enqueue(Reply::fromFixture("anthropic_max_tokens.json"));
  server.enqueue(Reply::fromFixture("anthropic_refusal.json"));
  server.enqueue(Reply::fromFixture("anthropic_overloaded.json", 529));
  server.enqueue(Reply::fromFixture("anthropic_review.json"));
  server.enqueue(Reply::fromFixture("anthropic_401.json", 401));
  SleepRecorder sleeps;
  AnthropicProvider provider(settingsFor(server.url(), sleeps, {{"ANTHROPIC_API_KEY", "sk-ant-bad"}}));

  auto cut = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(cut.finish, FinishReason::Length);
  auto refused = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(refused.finish, FinishReason::Refusal);
  ASSERT_TRUE(refused.refusal);
  auto afterOverload = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(afterOverload.finish, FinishReason::Stop);
  EXPECT_EQ(sleeps.sleeps->size(), 1u) << "529 is retried";
  try {
    provider.complete(testing::sampleRequest(), CancelToken());
    ADD_FAILURE() << "401 must throw";
  } catch (const ProviderError& e) {
    EXPECT_EQ(e.kind(), Kind::Auth);
    EXPECT_NE(std::string(e.what()).find("ANTHROPIC_API_KEY was rejected"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("invalid x-api-key"), std::string::npos) << e.what();
  }
}

TEST(Anthropic, ContextWindowExceededIsACutOffAnswer) {
  FakeServer server;
  server.enqueue(Reply::ok(R"({"type":"message","role":"assistant","content":[
      {"type":"text","text":"Let me read more."},
      {"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"src/A.java"}}],
      "stop_reason":"model_context_window_exceeded","usage":{"input_tokens":5,"output_tokens":6}})"));
  SleepRecorder sleeps;
  AnthropicProvider provider(settingsFor(server.url(), sleeps));
  auto request = testing::sampleRequest();
  request.tools = {testing::readFileSpec()};
  const auto response = provider.complete(request, CancelToken());
  EXPECT_EQ(response.finish, FinishReason::Length) << "treated as max_tokens: the answer was cut off";
  EXPECT_TRUE(response.toolCalls.empty()) << "a cut-off tool call is not run";
}

// "\n\n" before a tool_use, echoed as a text block, is rejected by the API
// ("text content blocks must contain non-whitespace text").
TEST(Anthropic, WhitespaceOnlyAssistantTextIsNotEchoed) {
  FakeServer server;
  server.enqueue(Reply::fromFixture("anthropic_review.json"));
  SleepRecorder sleeps;
  AnthropicProvider provider(settingsFor(server.url(), sleeps));
  auto request = testing::sampleRequest();
  request.tools = {testing::readFileSpec()};
  request.messages.push_back({review::Role::Assistant, "\n\n", {{"t1", "read_file", {{"path", "a"}}}}, {}});
  request.messages.push_back({review::Role::Tool, " \n", {}, {{"t1", "read_file", true, "1: a"}}});
  request.messages.push_back({review::Role::Assistant, " \t\n", {}, {}});  // a blank answer, retried
  request.messages.push_back({review::Role::User, "Answer with the report.", {}, {}});
  provider.complete(request, CancelToken());
  const json msgs = server.requests()[0].parsed()["messages"];
  ASSERT_EQ(msgs.size(), 5u) << msgs.dump(2);
  ASSERT_EQ(msgs[1]["content"].size(), 1u) << msgs[1].dump();
  EXPECT_EQ(msgs[1]["content"][0]["type"], "tool_use");
  ASSERT_EQ(msgs[2]["content"].size(), 1u) << "no blank text beside the tool result: " << msgs[2].dump();
  EXPECT_EQ(msgs[2]["content"][0]["type"], "tool_result");
  EXPECT_EQ(msgs[3]["content"][0]["text"], "(empty reply)");
  for (const json& m : msgs) {
    for (const json& block : m["content"]) {
      if (block["type"] == "text") {
        EXPECT_NE(block["text"].get<std::string>().find_first_not_of(" \t\r\n"), std::string::npos) << m.dump();
      }
    }
  }
}

// Anthropic's 400 for a parameter the model does not take.
std::string invalidRequest(const std::string& message) {
  return json{{"type", "error"}, {"error", {{"type", "invalid_request_error"}, {"message", message}}}}.dump();
}

// `body` without one key, serialised as sent (key order kept).
std::string withoutKey(const std::string& body, const std::string& key) {
  ojson j = ojson::parse(body);
  j.erase(key);
  return j.dump();
}

TEST(Anthropic, TemperatureRejectedIsDroppedOnceAndForTheProvidersLife) {
  FakeServer server;
  server.enqueue(Reply{400, invalidRequest("`temperature` is deprecated for this model."), {}, {}});
  server.enqueue(Reply::fromFixture("anthropic_review.json"));
  server.enqueue(Reply::fromFixture("anthropic_review.json"));
  SleepRecorder sleeps;
  AnthropicProvider provider(settingsFor(server.url(), sleeps));

  const auto first = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(first.finish, FinishReason::Stop);
  EXPECT_EQ(first.usage.inputTokens, 1021) << "the answered call's usage only";
  EXPECT_EQ(first.usage.outputTokens, 143);
  provider.complete(testing::sampleRequest(), CancelToken());

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u) << "one rejected call, then no second failing one";
  EXPECT_TRUE(sleeps.sleeps->empty()) << "not a transport retry";
  EXPECT_EQ(requests[0].parsed()["temperature"], 0);
  EXPECT_FALSE(requests[1].parsed().contains("temperature"));
  EXPECT_EQ(requests[1].body, withoutKey(requests[0].body, "temperature")) << "the same request, less temperature";
  EXPECT_EQ(requests[2].body, requests[1].body) << "remembered: the cached prefix stays byte-identical";
}

// The server makes a provider per review (per save): the next one starts from
// what the model was found to accept, so no save after the first pays a rejection.
TEST(Anthropic, WhatAModelRejectedIsRememberedForTheNextProviderOfThatModel) {
  FakeServer server;
  server.enqueue(Reply{400, invalidRequest("`temperature` is deprecated for this model."), {}, {}});
  for (int i = 0; i < 3; ++i) server.enqueue(Reply::fromFixture("anthropic_review.json"));
  SleepRecorder sleeps;
  AnthropicProvider(settingsFor(server.url(), sleeps)).complete(testing::sampleRequest(), CancelToken());
  AnthropicProvider(settingsFor(server.url(), sleeps)).complete(testing::sampleRequest(), CancelToken());
  auto otherModel = settingsFor(server.url(), sleeps);
  otherModel.model = "another-model";
  AnthropicProvider(otherModel).complete(testing::sampleRequest(), CancelToken());

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 4u) << "one rejected call in all, for the first provider";
  EXPECT_FALSE(requests[2].parsed().contains("temperature")) << "the second provider starts adjusted";
  EXPECT_EQ(requests[2].body, requests[1].body);
  EXPECT_EQ(requests[3].parsed()["temperature"], 0) << "another model is asked as it is, afresh";
}

TEST(Anthropic, MaxTokensOverTheModelsLimitIsLoweredOnceAndForTheProvidersLife) {
  FakeServer server;
  server.enqueue(Reply{400,
                       invalidRequest("max_tokens: 8192 > 4096, which is the maximum allowed number of output tokens "
                                      "for claude-3-haiku-20240307"),
                       {},
                       {}});
  server.enqueue(Reply::fromFixture("anthropic_review.json"));
  server.enqueue(Reply::fromFixture("anthropic_review.json"));
  SleepRecorder sleeps;
  AnthropicProvider provider(settingsFor(server.url(), sleeps));

  const auto first = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(first.usage.inputTokens, 1021);
  provider.complete(testing::sampleRequest(), CancelToken());

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].parsed()["max_tokens"], 8192);
  for (std::size_t i = 1; i < requests.size(); ++i) {
    EXPECT_EQ(requests[i].parsed()["max_tokens"], 4096) << "request " << i;
    EXPECT_EQ(requests[i].parsed()["temperature"], 0) << "the model takes a temperature: kept";
  }
  EXPECT_EQ(requests[2].body, requests[1].body);
}

TEST(Anthropic, OtherRejectionsAreNotSentAgain) {
  const std::vector<std::string> messages = {
      "messages: text content blocks must contain non-whitespace text",
      "input length and `max_tokens` exceed context limit: 197202 + 8192 > 200000, decrease input length or "
      "`max_tokens` and try again",
      "max_tokens: 4096 > 8192, which is the maximum allowed number of output tokens for x",  // not a lower cap
  };
  for (const std::string& message : messages) {
    FakeServer server;
    server.enqueue(Reply{400, invalidRequest(message), {}, {}});
    SleepRecorder sleeps;
    AnthropicProvider provider(settingsFor(server.url(), sleeps));
    try {
      provider.complete(testing::sampleRequest(), CancelToken());
      ADD_FAILURE() << "must throw: " << message;
    } catch (const ProviderError& e) {
      EXPECT_EQ(e.kind(), Kind::BadRequest);
      EXPECT_NE(std::string(e.what()).find(message.substr(0, 20)), std::string::npos) << e.what();
    }
    EXPECT_EQ(server.requestCount(), 1u) << message;
  }
}

TEST(Anthropic, EachNegotiationHappensOnce) {
  // Both limits in turn, then a server that still rejects the temperature: the
  // third rejection is the user's error, not another resend.
  FakeServer server;
  server.enqueue(Reply{400, invalidRequest("`temperature` is deprecated for this model."), {}, {}});
  server.enqueue(Reply{400,
                       invalidRequest("max_tokens: 8192 > 4096, which is the maximum allowed number of output tokens "
                                      "for m"),
                       {},
                       {}});
  server.enqueue(Reply::fromFixture("anthropic_review.json"));
  server.enqueue(Reply{400, invalidRequest("`temperature` is deprecated for this model."), {}, {}});
  SleepRecorder sleeps;
  AnthropicProvider provider(settingsFor(server.url(), sleeps));
  provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(server.requestCount(), 3u);
  const json sent = server.requests()[2].parsed();
  EXPECT_FALSE(sent.contains("temperature"));
  EXPECT_EQ(sent["max_tokens"], 4096);
  EXPECT_THROW(provider.complete(testing::sampleRequest(), CancelToken()), ProviderError);
  EXPECT_EQ(server.requestCount(), 4u);
}

TEST(Anthropic, PromptModeHasNoForcedToolAndFlattensToolHistory) {
  FakeServer server;
  server.enqueue(Reply::ok(R"({"content":[{"type":"text","text":"{\"summary\":\"ok\"}"}],"stop_reason":"end_turn",
                               "usage":{"input_tokens":5,"output_tokens":6}})"));
  SleepRecorder sleeps;
  auto settings = settingsFor(server.url(), sleeps);
  settings.structuredOutput = config::StructuredOutput::Prompt;
  AnthropicProvider provider(settings);
  auto request = testing::sampleRequest();
  request.messages.push_back({review::Role::Assistant, "", {{"t1", "glob", {{"pattern", "*.java"}}}}, {}});
  request.messages.push_back({review::Role::Tool, "", {}, {{"t1", "glob", true, "src/A.java"}}});
  auto response = provider.complete(request, CancelToken());
  EXPECT_EQ(response.text, R"({"summary":"ok"})");
  json body = server.requests()[0].parsed();
  EXPECT_FALSE(body.contains("tool_choice"));
  EXPECT_FALSE(body.contains("tools"));
  EXPECT_NE(body["system"][0]["text"].get<std::string>().find("Reply with only one JSON object"), std::string::npos);
  EXPECT_EQ(body.dump().find("tool_use"), std::string::npos) << "no tool blocks without tool definitions";
  EXPECT_NE(body.dump().find("[result of tool glob]"), std::string::npos);
}

TEST(Anthropic, KeyIsRequiredForTheRealApi) {
  SleepRecorder sleeps;
  try {
    AnthropicProvider p(settingsFor("", sleeps));
    ADD_FAILURE() << "must throw";
  } catch (const ProviderError& e) {
    EXPECT_EQ(e.kind(), Kind::Config);
    EXPECT_NE(std::string(e.what()).find("ANTHROPIC_API_KEY"), std::string::npos);
  }
}

}  // namespace
}  // namespace revline::providers
