// The OpenAI-compatible provider against a fake /chat/completions server:
// what goes over the wire (headers, strict json_schema, tools, tool turns) and
// how replies and errors come back.
#include <gtest/gtest.h>

#include "core/providers/openai_provider.h"
#include "core/providers/openai_responses.h"
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

using testing::kindOf;

TEST(OpenAi, SendsStrictJsonSchemaAndBearerKey) {
  FakeServer server;
  server.enqueue(Reply::fromFixture("openai_review.json"));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps, {{"OPENAI_API_KEY", "sk-test-key"}}));
  EXPECT_EQ(provider.name(), "openai");
  EXPECT_EQ(provider.model(), "test-model");
  EXPECT_FALSE(provider.remote());

  auto response = provider.complete(testing::sampleRequest(), CancelToken());

  ASSERT_EQ(server.requestCount(), 1u);
  const auto req = server.requests()[0];
  EXPECT_EQ(req.path, "/v1/chat/completions");
  EXPECT_EQ(req.header("Authorization"), "Bearer sk-test-key");
  EXPECT_EQ(req.header("Content-Type"), "application/json");
  json body = req.parsed();
  EXPECT_EQ(body["model"], "test-model");
  EXPECT_EQ(body["stream"], false);
  EXPECT_EQ(body["response_format"]["type"], "json_schema");
  EXPECT_EQ(body["response_format"]["json_schema"]["strict"], true);
  EXPECT_EQ(body["response_format"]["json_schema"]["name"], "review_report");
  EXPECT_EQ(body["response_format"]["json_schema"]["schema"], testing::sampleSchema());
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0], (json{{"role", "system"}, {"content", "You are a code reviewer."}}));
  EXPECT_EQ(body["messages"][1], (json{{"role", "user"}, {"content", "Review this diff."}}));
  EXPECT_FALSE(body.contains("tools"));

  EXPECT_EQ(response.finish, FinishReason::Stop);
  EXPECT_TRUE(response.toolCalls.empty());
  EXPECT_FALSE(response.refusal);
  EXPECT_EQ(json::parse(response.text)["verdict"], "REQUEST_CHANGES");
  EXPECT_EQ(response.usage.inputTokens, 812);
  EXPECT_EQ(response.usage.outputTokens, 96);
}

TEST(OpenAi, PromptModePutsTheSchemaInTheSystemPrompt) {
  FakeServer server;
  server.enqueue(Reply::fromFixture("openai_fenced.json"));
  SleepRecorder sleeps;
  auto settings = settingsFor(server.url("/v1"), sleeps);
  settings.structuredOutput = config::StructuredOutput::Prompt;
  OpenAiProvider provider(settings);
  auto response = provider.complete(testing::sampleRequest(), CancelToken());
  json body = server.requests()[0].parsed();
  EXPECT_FALSE(body.contains("response_format"));
  std::string system = body["messages"][0]["content"];
  EXPECT_EQ(system.rfind("You are a code reviewer.", 0), 0u);
  EXPECT_NE(system.find("Reply with only one JSON object"), std::string::npos);
  // Compact: indented, the schema took twice the tokens the estimate counts.
  EXPECT_NE(system.find(testing::sampleSchema().dump()), std::string::npos);
  // No key for a loopback server: no Authorization header at all.
  EXPECT_FALSE(server.requests()[0].hasHeader("Authorization"));
  // The fenced reply is passed on verbatim; the reply parser finds the JSON.
  EXPECT_NE(response.text.find("```json"), std::string::npos);
  EXPECT_TRUE(response.schemaOnlyInPrompt) << "an answer in prose then is the model's";
}

TEST(OpenAi, ToolsAndToolTurnsOnTheWire) {
  FakeServer server;
  server.enqueue(Reply::fromFixture("openai_tool_calls.json"));
  server.enqueue(Reply::fromFixture("openai_review.json"));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));

  auto request = testing::sampleRequest();
  request.tools = {testing::readFileSpec()};
  auto first = provider.complete(request, CancelToken());
  json body = server.requests()[0].parsed();
  ASSERT_EQ(body["tools"].size(), 1u);
  EXPECT_EQ(body["tools"][0],
            (json{{"type", "function"},
                  {"function", {{"name", "read_file"}, {"description", "Read a file."}, {"parameters", testing::readFileSpec().inputSchema}}}}));

  EXPECT_EQ(first.finish, FinishReason::ToolCalls);
  ASSERT_EQ(first.toolCalls.size(), 2u);
  EXPECT_EQ(first.toolCalls[0].id, "call_Xy7Qm2");
  EXPECT_EQ(first.toolCalls[0].name, "read_file");
  EXPECT_EQ(first.toolCalls[0].arguments, (json{{"path", "src/Service.java"}, {"start_line", 1}, {"end_line", 6}}));
  EXPECT_EQ(first.toolCalls[1].arguments, (json{{"path", "../../etc/passwd"}}));
  EXPECT_EQ(first.usage.inputTokens, 700);

  // The attempt loop appends the assistant's calls and the results.
  request.messages.push_back({review::Role::Assistant, "", first.toolCalls, {}});
  request.messages.push_back({review::Role::Tool,
                              "",
                              {},
                              {{"call_Xy7Qm2", "read_file", true, "src/Service.java lines 1-6 of 6:\n1: class Service {"},
                               {"call_Pq9Rt4", "read_file", false, "read_file: path '../../etc/passwd' points outside"}}});
  request.messages.push_back({review::Role::User, "Tool budget spent: answer now.", {}, {}});
  request.tools.clear();
  auto second = provider.complete(request, CancelToken());
  EXPECT_EQ(second.finish, FinishReason::Stop);

  json body2 = server.requests()[1].parsed();
  const json& msgs = body2["messages"];
  // The note after the tool results travels in the last tool message: Mistral's API
  // refuses a user message right after a tool one.
  ASSERT_EQ(msgs.size(), 5u);
  EXPECT_EQ(msgs[2]["role"], "assistant");
  EXPECT_TRUE(msgs[2]["content"].is_null());
  ASSERT_EQ(msgs[2]["tool_calls"].size(), 2u);
  EXPECT_EQ(msgs[2]["tool_calls"][0]["id"], "call_Xy7Qm2");
  EXPECT_EQ(msgs[2]["tool_calls"][0]["type"], "function");
  EXPECT_EQ(msgs[2]["tool_calls"][0]["function"]["name"], "read_file");
  EXPECT_EQ(json::parse(msgs[2]["tool_calls"][0]["function"]["arguments"].get<std::string>()),
            first.toolCalls[0].arguments);
  EXPECT_EQ(msgs[3], (json{{"role", "tool"}, {"tool_call_id", "call_Xy7Qm2"},
                           {"content", "src/Service.java lines 1-6 of 6:\n1: class Service {"}}));
  EXPECT_EQ(msgs[4]["tool_call_id"], "call_Pq9Rt4");
  EXPECT_EQ(msgs[4]["content"], "ERROR: read_file: path '../../etc/passwd' points outside\n\nTool budget spent: answer now.");
  for (std::size_t i = 1; i < msgs.size(); ++i)
    EXPECT_FALSE(msgs[i - 1]["role"] == "tool" && msgs[i]["role"] == "user") << "a user message right after a tool one";
  EXPECT_FALSE(body2.contains("tools"));
}

// A model OpenAI serves only through its Responses API (o3-pro, the codex
// models) refuses /chat/completions; the review goes to /responses, in that
// API's wire format, and later providers of the process start there.
TEST(OpenAi, AModelServedOnlyThroughTheResponsesApiIsSentThere) {
  FakeServer server;
  server.enqueue(Reply::onlyOnResponses());
  server.enqueue(Reply::ok(R"({"id":"resp_1","object":"response","status":"completed","output":[
      {"type":"reasoning","id":"rs_1","summary":[]},
      {"type":"function_call","id":"fc_1","call_id":"call_A","name":"read_file","arguments":"{\"path\":\"src/A.java\"}","status":"completed"}],
    "usage":{"input_tokens":900,"input_tokens_details":{"cached_tokens":0},"output_tokens":40,"output_tokens_details":{"reasoning_tokens":25}}})"));
  server.enqueue(Reply::ok(R"({"id":"resp_2","object":"response","status":"completed","output":[
      {"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"{\"summary\":\"ok\"}","annotations":[]}]}],
    "usage":{"input_tokens":1000,"input_tokens_details":{"cached_tokens":896},"output_tokens":30,"output_tokens_details":{"reasoning_tokens":0}}})"));
  SleepRecorder sleeps;
  auto settings = settingsFor(server.url("/v1"), sleeps, {{"OPENAI_API_KEY", "sk-test-key"}});
  settings.model = "responses-only-model";
  OpenAiProvider provider(settings);
  auto request = testing::sampleRequest();
  request.tools = {testing::readFileSpec()};
  const auto first = provider.complete(request, CancelToken());
  ASSERT_EQ(server.requestCount(), 2u);
  EXPECT_EQ(server.requests()[0].path, "/v1/chat/completions");
  EXPECT_EQ(server.requests()[1].path, "/v1/responses");
  EXPECT_EQ(server.requests()[1].header("Authorization"), "Bearer sk-test-key");
  const json body = server.requests()[1].parsed();
  EXPECT_EQ(body["model"], "responses-only-model");
  EXPECT_EQ(body["store"], false) << "OpenAI keeps no copy of the code";
  EXPECT_EQ(body["instructions"], "You are a code reviewer.");
  EXPECT_EQ(body["text"]["format"], (json{{"type", "json_schema"}, {"name", "review_report"}, {"strict", true},
                                          {"schema", testing::sampleSchema()}}));
  EXPECT_EQ(body["tools"][0], (json{{"type", "function"}, {"name", "read_file"}, {"description", "Read a file."},
                                    {"parameters", testing::readFileSpec().inputSchema}, {"strict", false}}));
  EXPECT_EQ(body["input"], (json::array({{{"role", "user"}, {"content", "Review this diff."}}})));
  EXPECT_FALSE(body.contains("messages"));
  ASSERT_EQ(first.finish, FinishReason::ToolCalls);
  ASSERT_EQ(first.toolCalls.size(), 1u);
  EXPECT_EQ(first.toolCalls[0].id, "call_A");
  EXPECT_EQ(first.toolCalls[0].arguments, (json{{"path", "src/A.java"}}));
  EXPECT_TRUE(first.turnEcho.is_null()) << "a reasoning item without encrypted content is not sent back";
  EXPECT_EQ(first.usage.inputTokens, 900);
  EXPECT_EQ(first.usage.outputTokens, 40);
  ASSERT_EQ(first.notes.size(), 1u);
  EXPECT_NE(first.notes[0].find("served only through the Responses API"), std::string::npos) << first.notes[0];

  // The tool round: the call and its output as input items, the note after them a user message.
  request.messages.push_back({review::Role::Assistant, "", first.toolCalls, {}});
  request.messages.push_back({review::Role::Tool, "Tool budget spent: answer now.", {},
                              {{"call_A", "read_file", true, "src/A.java lines 1-1 of 1:\n1: class A {}"}}});
  const auto second = provider.complete(request, CancelToken());
  const json input = server.requests()[2].parsed()["input"];
  EXPECT_EQ(server.requests()[2].path, "/v1/responses");
  ASSERT_EQ(input.size(), 4u) << input.dump();
  EXPECT_EQ(input[1], (json{{"type", "function_call"}, {"call_id", "call_A"}, {"name", "read_file"},
                            {"arguments", "{\"path\":\"src/A.java\"}"}}));
  EXPECT_EQ(input[2], (json{{"type", "function_call_output"}, {"call_id", "call_A"},
                            {"output", "src/A.java lines 1-1 of 1:\n1: class A {}"}}));
  EXPECT_EQ(input[3], (json{{"role", "user"}, {"content", "Tool budget spent: answer now."}}));
  EXPECT_EQ(second.finish, FinishReason::Stop);
  EXPECT_EQ(json::parse(second.text)["summary"], "ok");
  EXPECT_EQ(second.usage.cachedInputTokens, 896);

  // A later provider of the process for this model starts on /responses.
  server.enqueue(Reply::ok(R"({"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[
      {"type":"reasoning","id":"rs_2","summary":[]}],"usage":{"input_tokens":10,"output_tokens":500,"output_tokens_details":{"reasoning_tokens":500}}})"));
  OpenAiProvider later(settings);
  const auto cut = later.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(server.requests()[3].path, "/v1/responses");
  EXPECT_EQ(cut.finish, FinishReason::Length);
  EXPECT_NE(cut.answerElsewhere.find("500 reasoning tokens"), std::string::npos) << cut.answerElsewhere;
}

// A reasoning model's tool rounds on the Responses API: with store off, OpenAI
// keeps no reasoning between calls, so the request asks for it encrypted and a
// turn that called tools goes back with its reasoning items where the reply had
// them (OpenAI's reasoning guide for function calling), without their ids (an id
// names a stored item: "Item with id 'rs_...' not found"), unmodified.
TEST(OpenAi, AToolRoundOnTheResponsesApiSendsItsReasoningBackInItsPlace) {
  FakeServer server;
  server.enqueue(Reply::onlyOnResponses());
  server.enqueue(Reply::ok(R"({"status":"completed","output":[
      {"type":"reasoning","id":"rs_1","status":"completed","summary":[{"type":"summary_text","text":"**Reading A**"}],"encrypted_content":"gAAAAone=="},
      {"type":"function_call","id":"fc_1","call_id":"call_A","name":"read_file","arguments":"{\"path\":\"src/A.java\"}"},
      {"type":"reasoning","id":"rs_2","summary":[],"encrypted_content":"gAAAAtwo=="},
      {"type":"function_call","id":"fc_2","call_id":"call_B","name":"read_file","arguments":"{\"path\":\"src/B.java\"}"},
      {"type":"reasoning","id":"rs_3","summary":[]}],
    "usage":{"input_tokens":900,"output_tokens":40,"output_tokens_details":{"reasoning_tokens":25}}})"));
  server.enqueue(Reply::ok(R"({"status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"{\"summary\":\"ok\"}"}]}],
    "usage":{"input_tokens":1000,"output_tokens":30}})"));
  SleepRecorder sleeps;
  auto settings = settingsFor(server.url("/v1"), sleeps, {{"OPENAI_API_KEY", "sk-test-key"}});
  settings.model = "codex-with-reasoning";
  OpenAiProvider provider(settings);
  auto request = testing::sampleRequest();
  request.tools = {testing::readFileSpec()};
  const auto first = provider.complete(request, CancelToken());
  ASSERT_EQ(server.requestCount(), 2u);
  const std::string raw = server.requests()[1].body;
  EXPECT_EQ(server.requests()[1].parsed()["include"], json::array({"reasoning.encrypted_content"}));
  EXPECT_LT(raw.find("\"include\""), raw.find("\"input\"")) << "a part every request of the review has, before the input";
  ASSERT_EQ(first.toolCalls.size(), 2u);
  const json r1 = {{"type", "reasoning"}, {"summary", {{{"type", "summary_text"}, {"text", "**Reading A**"}}}},
                   {"encrypted_content", "gAAAAone=="}};
  const json r2 = {{"type", "reasoning"}, {"summary", json::array()}, {"encrypted_content", "gAAAAtwo=="}};
  EXPECT_EQ(first.turnEcho, (json{{"responses_output", {r1, {{"type", "function_call"}, {"call_id", "call_A"}}, r2,
                                                        {{"type", "function_call"}, {"call_id", "call_B"}}}}}))
      << "rs_3 has no encrypted content: with store off its id names nothing";

  review::Message call{review::Role::Assistant, "", first.toolCalls, {}, first.turnEcho};
  request.messages.push_back(call);
  request.messages.push_back({review::Role::Tool, "", {},
                              {{"call_A", "read_file", true, "class A {}"}, {"call_B", "read_file", true, "class B {}"}}});
  provider.complete(request, CancelToken());
  const json input = server.requests()[2].parsed()["input"];
  const json fcA = {{"type", "function_call"}, {"call_id", "call_A"}, {"name", "read_file"}, {"arguments", "{\"path\":\"src/A.java\"}"}};
  const json fcB = {{"type", "function_call"}, {"call_id", "call_B"}, {"name", "read_file"}, {"arguments", "{\"path\":\"src/B.java\"}"}};
  ASSERT_EQ(input.size(), 7u) << input.dump();
  EXPECT_EQ(input[1], r1);
  EXPECT_EQ(input[2], fcA);
  EXPECT_EQ(input[3], r2);
  EXPECT_EQ(input[4], fcB);
  EXPECT_EQ(input[5]["call_id"], "call_A");
  EXPECT_EQ(input[6]["call_id"], "call_B");

  // A call not kept (past the calls kept of one reply) takes the reasoning that
  // led to it along: OpenAI refuses a reasoning item "without its required following item".
  request.messages[1].toolCalls.resize(1);
  request.messages[2].toolResults.resize(1);
  const json kept = provider.buildRequest(request)["input"];
  ASSERT_EQ(kept.size(), 4u) << kept.dump();
  EXPECT_EQ(kept[1], r1);
  EXPECT_EQ(kept[2], fcA);
  EXPECT_EQ(kept[3]["type"], "function_call_output");
}

// A server of the Responses API that takes no reasoning back (a model without
// encrypted reasoning, a compatible server without `include`) is asked again
// without it; the warning says so, and later providers of the process start so.
TEST(OpenAi, AResponsesServerThatTakesNoReasoningBackIsAskedWithoutIt) {
  FakeServer server;
  server.enqueue(Reply::onlyOnResponses());
  server.enqueue(Reply{400, R"({"error":{"message":"Encrypted content is not supported with this model.","type":"invalid_request_error","param":"include","code":"unsupported_parameter"}})", {}, {}});
  server.enqueue(Reply::ok(R"({"status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"{\"summary\":\"ok\"}"}]}],
    "usage":{"input_tokens":10,"output_tokens":3}})"));
  SleepRecorder sleeps;
  auto settings = settingsFor(server.url("/v1"), sleeps);
  settings.model = "responses-without-encrypted-reasoning";
  OpenAiProvider provider(settings);
  const auto answer = provider.complete(testing::sampleRequest(), CancelToken());
  ASSERT_EQ(server.requestCount(), 3u);
  EXPECT_TRUE(server.requests()[1].parsed().contains("include"));
  EXPECT_FALSE(server.requests()[2].parsed().contains("include"));
  EXPECT_EQ(json::parse(answer.text)["summary"], "ok");
  ASSERT_EQ(answer.notes.size(), 2u);
  EXPECT_NE(answer.notes[1].find("refused the model's reasoning sent back between tool rounds"), std::string::npos) << answer.notes[1];
  EXPECT_NE(answer.notes[1].find("Encrypted content is not supported"), std::string::npos) << answer.notes[1];

  OpenAiProvider later(settings);
  auto request = testing::sampleRequest();
  request.messages.push_back({review::Role::Assistant, "", {{"call_A", "read_file", json{{"path", "A"}}, nullptr}}, {},
                              json{{"responses_output", json::array({{{"type", "reasoning"}, {"summary", json::array()},
                                                                      {"encrypted_content", "gAAAA=="}}})}}});
  const json body = later.buildRequest(request);
  EXPECT_FALSE(body.contains("include"));
  EXPECT_EQ(body["input"].dump().find("reasoning"), std::string::npos) << body["input"].dump();
}

TEST(OpenAi, TheServersWordsForRefusingReasoningBack) {
  for (const char* refused : {"Encrypted content is not supported with this model.", "Unknown parameter: 'include'.",
                              "Item 'rs_1' of type 'reasoning' was provided without its required following item.",
                              "Could not decrypt the provided encrypted_content."})
    EXPECT_TRUE(refusesReasoningEcho(refused)) << refused;
  for (const char* other : {"Invalid schema for response_format 'review_report'", "Unsupported parameter: 'temperature'",
                            "This model's maximum context length is 128000 tokens."})
    EXPECT_FALSE(refusesReasoningEcho(other)) << other;
}

TEST(OpenAi, ProviderSignalsLengthAndRefusal) {
  FakeServer server;
  server.enqueue(Reply::fromFixture("openai_length.json"));
  server.enqueue(Reply::fromFixture("openai_refusal.json"));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  auto truncated = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(truncated.finish, FinishReason::Length);
  EXPECT_EQ(truncated.usage.outputTokens, 64);
  auto refused = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(refused.finish, FinishReason::Refusal);
  ASSERT_TRUE(refused.refusal);
  EXPECT_EQ(*refused.refusal, "I'm sorry, I can't help with that request.");
}

TEST(OpenAi, HttpErrorsSayWhatToDo) {
  FakeServer server;
  server.enqueue(Reply::fromFixture("openai_401.json", 401));
  server.enqueue(Reply::fromFixture("openai_404.json", 404));
  server.enqueue(Reply::fromFixture("openai_insufficient_quota.json", 429));
  server.enqueue(Reply{402, R"({"error":{"message":"Insufficient Balance","type":"unknown_error"}})", {}, {}});
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps, {{"MY_KEY", "sk-wrong"}}));
  auto settings = settingsFor(server.url("/v1"), sleeps, {{"MY_KEY", "sk-wrong"}});
  settings.apiKeyEnv = "MY_KEY";
  OpenAiProvider keyed(settings);
  std::string msg;

  EXPECT_EQ(kindOf([&] { keyed.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::Auth);
  EXPECT_NE(msg.find("the API key in MY_KEY was rejected"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Incorrect API key provided"), std::string::npos) << msg;

  // A 403 for what the request holds or where it comes from is not the key's:
  // the user rotated a key that works. Nor "no API key was sent" to a local server.
  for (const auto& [body, says] : std::vector<std::pair<std::string, std::string>>{
           {R"({"error":{"message":"openai/gpt-4.1-mini requires moderation on OpenAI. Your input was flagged for "violence". No credits were charged.","code":403,"metadata":{"reasons":["violence"],"flagged_input":"...","provider_name":"OpenAI"}}})",
            "moderation or guardrail flagged what the request holds"},
           {R"({"error":{"code":"unsupported_country_region_territory","message":"Country, region, or territory not supported","param":null,"type":"request_forbidden"}})",
            "does not serve the country or region"}}) {
    for (const bool withKey : {true, false}) {
      FakeServer refusing;
      refusing.enqueue(Reply{403, body, {}, {}});
      OpenAiProvider p(settingsFor(refusing.url("/v1"), sleeps, withKey ? std::map<std::string, std::string>{{"OPENAI_API_KEY", "sk-good"}}
                                                                       : std::map<std::string, std::string>{}));
      std::string said;
      EXPECT_EQ(kindOf([&] { p.complete(testing::sampleRequest(), CancelToken()); }, &said), Kind::BadRequest) << said;
      EXPECT_NE(said.find(says), std::string::npos) << said;
      EXPECT_EQ(said.find("API key was"), std::string::npos) << said;
      EXPECT_EQ(said.find("was rejected"), std::string::npos) << said;
      EXPECT_EQ(refusing.requestCount(), 1u) << "not retried";
    }
  }

  EXPECT_EQ(kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::NotFound);
  EXPECT_NE(msg.find("model \"test-model\""), std::string::npos) << msg;
  EXPECT_NE(msg.find(server.url("/v1/chat/completions")), std::string::npos) << msg;
  EXPECT_NE(msg.find("check model and base_url (--model, --base-url)"), std::string::npos) << msg;

  EXPECT_EQ(kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::Quota);
  EXPECT_NE(msg.find("insufficient_quota"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Not retried"), std::string::npos) << msg;

  // DeepSeek's and OpenRouter's "payment required".
  EXPECT_EQ(kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::Quota);
  EXPECT_NE(msg.find("payment required"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Insufficient Balance"), std::string::npos) << msg;
  EXPECT_NE(msg.find("has no credit"), std::string::npos) << msg;

  EXPECT_EQ(server.requestCount(), 4u) << "none of these is retried";
  EXPECT_TRUE(sleeps.sleeps->empty());
  EXPECT_EQ(msg.find("max_input_tokens"), std::string::npos) << "only a refusal for size names the budget";
}

// A gateway that quotes the key it was given (LiteLLM: "Received API Key =
// sk-..."): the error names the rejection, never the key. And a reply whose
// tool arguments nest 100,000 levels deep is no crash (a copy of such a value
// overflowed the stack): the arguments stay text, which the executor reports.
TEST(OpenAi, AQuotedKeyIsNeverRepeatedAndDeepArgumentsAreText) {
  FakeServer server;
  const std::string key = "sk-live-0123456789abcdefghij";
  server.enqueue(Reply{401, R"({"error":{"message":"Authentication Error, Invalid proxy server token passed. Received API Key = )" + key +
                                R"(, Key Hash = 4b2f"}})", {}, {}});
  // The same key across the point where the message is cut (500 characters): no part of it either.
  server.enqueue(Reply{401, R"({"error":{"message":")" + std::string(470, 'x') + " Received API Key = " + key + R"("}})", {}, {}});
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  server.enqueue(Reply::ok(json{{"choices", json::array({json{{"message", json{{"role", "assistant"}, {"content", nullptr},
      {"tool_calls", json::array({json{{"id", "c1"}, {"type", "function"},
                                       {"function", json{{"name", "read_file"}, {"arguments", "{\"path\":" + deep + "}"}}}}})}}},
      {"finish_reason", "tool_calls"}}})}}.dump()));
  SleepRecorder sleeps;
  auto settings = settingsFor(server.url("/v1"), sleeps, {{"MY_KEY", key}});
  settings.apiKeyEnv = "MY_KEY";
  OpenAiProvider provider(settings);
  std::string msg;
  EXPECT_EQ(kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::Auth);
  EXPECT_EQ(msg.find(key), std::string::npos) << msg;
  EXPECT_NE(msg.find("Received API Key = [REDACTED:api-key]"), std::string::npos) << msg;
  EXPECT_EQ(kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::Auth);
  EXPECT_EQ(msg.find(key.substr(0, 10)), std::string::npos) << msg;
  const auto answer = provider.complete(testing::sampleRequest(), CancelToken());
  ASSERT_EQ(answer.toolCalls.size(), 1u);
  EXPECT_TRUE(answer.toolCalls[0].arguments.is_string());
  EXPECT_EQ(jsonNesting(answer.toolCalls[0].arguments.get<std::string>()), 100001u);
}

// Errors that quote the start of a body that is not JSON (a 2xx of text, a 503
// page) cut it at a few hundred characters: a key across the cut showed all but
// its last characters ("sk-proj-A1b2…A1b2C3d..."). And an answer that echoes the
// key (a gateway that copies the request's headers) reaches no report.
TEST(OpenAi, NoPieceOfTheKeyInAnExcerptCutInsideItOrInTheAnswer) {
  FakeServer server;
  std::string key = "sk-proj-";
  for (int i = 0; i < 7; ++i) key += "A1b2C3d4";
  for (std::size_t pad = 130; pad <= 290; pad += 40) {
    server.enqueue(Reply::ok(std::string(pad, 'x') + " " + key + " " + std::string(400, 'y')));
    server.enqueue(Reply{400, std::string(pad, 'x') + " " + key + " " + std::string(400, 'y'), {{"Content-Type", "text/html"}}, {}});
  }
  server.enqueue(Reply::openAiAnswer(json{{"summary", "Saw Authorization: Bearer " + key + " in the request."},
                                          {"findings", json::array()}, {"verdict", "APPROVE"}}.dump()));
  SleepRecorder sleeps;
  auto settings = settingsFor(server.url("/v1"), sleeps, {{"MY_KEY", key}});
  settings.apiKeyEnv = "MY_KEY";
  OpenAiProvider provider(settings);
  for (int i = 0; i < 10; ++i) {
    std::string msg;
    kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg);
    EXPECT_EQ(msg.find("A1b2C3d4A1b2"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("sk-proj-A1b2"), std::string::npos) << msg;
  }
  const auto answer = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(answer.text.find("A1b2C3d4A1b2"), std::string::npos) << answer.text;
  EXPECT_NE(answer.text.find("Bearer [REDACTED:api-key] in the request"), std::string::npos) << answer.text;
}

// A reply under the 32 MiB cap of millions of small values (`{},` over and over)
// took 1 to 2 GB once parsed, and was read as an answer: refused by its shape
// before it is parsed; as an error body it is only not read into.
TEST(OpenAi, AReplyOfMillionsOfValuesIsRefusedBeforeItIsParsed) {
  FakeServer server;
  std::string many = "[";
  for (std::size_t i = 0; i < 1100000; ++i) many += "{},";
  many += "{}]";
  server.enqueue(Reply::ok(R"({"choices":[{"message":{"role":"assistant","content":"{}"},"finish_reason":"stop"}],"x":)" +
                           many + "}"));
  server.enqueue(Reply{400, R"({"error":{"message":"bad","details":)" + many + "}}", {}, {}});
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps, {{"OPENAI_API_KEY", "sk-test-key"}}));
  std::string msg;
  EXPECT_EQ(kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::Protocol);
  EXPECT_NE(msg.find("holds 1100015 JSON values and keys; revline reads at most 1000000"), std::string::npos) << msg;
  kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg);
  EXPECT_NE(msg.find("HTTP 400"), std::string::npos) << msg.substr(0, 300);
}

// Servers that answer otherwise than asked name the fix: one without tool
// calling (vLLM's words) points at max_tool_calls 0; one that streams though
// "stream": false was sent says so, not "is the base URL right?".
TEST(OpenAi, AServerWithoutToolsOrThatStreamsSaysWhatToChange) {
  FakeServer server;
  server.enqueue(Reply{400, R"({"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","code":400})", {}, {}});
  server.enqueue(Reply::ok("data: {\"choices\":[{\"delta\":{\"content\":\"{\"}}]}\n\ndata: [DONE]\n\n"));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  std::string msg;
  EXPECT_EQ(kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::BadRequest);
  EXPECT_NE(msg.find("set max_tool_calls to 0 (or --max-tool-calls 0)"), std::string::npos) << msg;
  EXPECT_EQ(kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::Protocol);
  EXPECT_NE(msg.find("was streamed"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("base URL right"), std::string::npos) << msg;
}

// A reply that ends before its JSON does (its Content-Length true to what was
// sent: the server or a proxy cut it) is said to be cut short, not blamed on the
// base URL that answered the requests before it.
TEST(OpenAi, AReplyCutShortSaysSo) {
  FakeServer server;
  const std::string cut = R"({"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"{\"summary\": )";
  server.enqueue(Reply::ok(cut));
  server.enqueue(Reply::ok(cut));
  server.enqueue(Reply::ok("<html>Not Found</html>"));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  std::string msg;
  EXPECT_EQ(kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::Protocol);
  EXPECT_EQ(server.requestCount(), 2u) << "tried once more";
  EXPECT_NE(msg.find("ends before its JSON does"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("base URL right"), std::string::npos) << msg;
  EXPECT_EQ(kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::Protocol);
  EXPECT_NE(msg.find("base URL right"), std::string::npos) << "not JSON at all: " << msg;
  EXPECT_EQ(server.requestCount(), 3u) << "not tried again";
}

// Cut short once, as a body shorter than its Content-Length is (which the
// transport tries again): the next try's answer is the answer, and the cut
// reply counts as a request whose tokens are unknown. Before, one cut reply
// failed the review.
TEST(OpenAi, AReplyCutShortOnceIsTriedAgain) {
  FakeServer server;
  server.enqueue(Reply::ok(R"({"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"{\"summ)"));
  server.enqueue(Reply::fromFixture("openai_review.json"));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  const review::ModelResponse response = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(server.requestCount(), 2u);
  EXPECT_FALSE(response.text.empty());
  EXPECT_EQ(response.unanswered, 1);
}

// A request over the model's context window (OpenAI's own body; a llama.cpp
// server's words) names the setting that makes revline split the change to fit.
TEST(OpenAi, ARequestOverTheContextWindowNamesTheTokenBudget) {
  FakeServer server;
  server.enqueue(Reply{400, R"({"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 16874 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}})", {}, {}});
  server.enqueue(Reply{400, R"({"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}})", {}, {}});
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  for (int i = 0; i < 2; ++i) {
    std::string msg;
    EXPECT_EQ(kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::BadRequest);
    EXPECT_NE(msg.find("set max_input_tokens (or --max-input-tokens N) below that window"), std::string::npos) << msg;
    EXPECT_EQ(msg.find(".;"), std::string::npos) << msg;  // the provider's full stop, then ours
  }
}

// Failures a server answers with a "try again" status (500, 429) whose words
// say waiting does not help: llama.cpp over its context, without --jinja for
// tools, an older build without json_schema; OpenRouter's model without tools
// (404). Each was retried twice and ended "try again later" or "check --model".
// Now: sent once, and the fix named.
TEST(OpenAi, AServerErrorThatWaitingDoesNotFixIsNotRetriedAndNamesTheFix) {
  const std::vector<std::pair<Reply, std::string>> cases = {
      {Reply{500, R"({"error":{"code":500,"message":"Context size has been exceeded.","type":"server_error"}})", {}, {}},
       "set max_input_tokens (or --max-input-tokens N) below that window"},
      {Reply{500, R"({"error":{"code":500,"message":"the request exceeds the available context size","type":"exceed_context_size_error"}})", {}, {}},
       "set max_input_tokens (or --max-input-tokens N) below that window"},
      {Reply{500, R"({"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}})", {}, {}},
       "set max_tool_calls to 0 (or --max-tool-calls 0)"},
      {Reply{500, R"({"error":{"code":500,"message":"Unsupported param: tools","type":"server_error"}})", {}, {}},
       "set max_tool_calls to 0 (or --max-tool-calls 0)"},
      {Reply{400, R"({"error":{"message":"deepseek-reasoner does not support Function Calling","type":"invalid_request_error","param":null,"code":"invalid_request_error"}})", {}, {}},
       "set max_tool_calls to 0 (or --max-tool-calls 0)"},
      {Reply{404, R"({"error":{"message":"No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/provider-routing","code":404}})", {}, {}},
       "set max_tool_calls to 0 (or --max-tool-calls 0)"},
  };
  for (const auto& [reply, fix] : cases) {
    FakeServer server;
    server.enqueue(reply);
    SleepRecorder sleeps;
    OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
    std::string msg;
    EXPECT_EQ(kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::BadRequest) << msg;
    EXPECT_NE(msg.find(fix), std::string::npos) << msg;
    EXPECT_EQ(msg.find("try again later"), std::string::npos) << msg;
    EXPECT_EQ(msg.find(".;"), std::string::npos) << msg;
    EXPECT_EQ(server.requestCount(), 1u) << msg;
  }
  // A passing 500 is still retried; so is one that only quotes those words: llama.cpp's
  // parse failure carries the model's own output, which may be C code about memory.
  for (const char* passing :
       {R"({"error":{"message":"upstream hiccup"}})",
        R"({"error":{"code":500,"message":"Failed to parse input at pos 40: fprintf(stderr, \"model requires more system memory\"); /* Context size has been exceeded. */","type":"server_error"}})"}) {
    FakeServer server;
    server.enqueue(Reply{500, passing, {}, {}});
    server.enqueue(Reply::fromFixture("openai_review.json"));
    SleepRecorder sleeps;
    OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
    EXPECT_EQ(provider.complete(testing::sampleRequest(), CancelToken()).finish, FinishReason::Stop);
    EXPECT_EQ(server.requestCount(), 2u) << passing;
  }
}

// LM Studio asked at a path it does not serve (base URL without /v1) answers
// 200 with an error string; Gemini answers a bad key with 400 API_KEY_INVALID.
// They read "returned an error" and "rejected the request": the fix is named now.
TEST(OpenAi, AWrongPathOrABadKeyOfTheseServersNamesTheSetting) {
  FakeServer server;
  server.enqueue(Reply::ok(R"j({"error":"Unexpected endpoint or method. (POST /chat/completions)"})j"));
  server.enqueue(Reply{400, R"([{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]}}])", {}, {}});
  SleepRecorder sleeps;
  auto settings = settingsFor(server.url(""), sleeps, {{"GEMINI_API_KEY", "AIza-not-valid"}});
  settings.apiKeyEnv = "GEMINI_API_KEY";
  OpenAiProvider provider(settings);
  std::string msg;
  EXPECT_EQ(kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::NotFound) << msg;
  EXPECT_NE(msg.find("check base_url (--base-url): OpenAI-compatible servers serve it under /v1"), std::string::npos) << msg;
  EXPECT_EQ(kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::Auth) << msg;
  EXPECT_NE(msg.find("the API key in GEMINI_API_KEY was rejected"), std::string::npos) << msg;
}

// llama-server answers 503 "Loading model" (no Retry-After) while it loads,
// for tens of seconds: revline gave up after two backoffs (~1.5 s). It polls
// every 5 s for up to read_timeout_ms, then says the load did not finish.
TEST(OpenAi, AServerLoadingTheModelIsWaitedFor) {
  const Reply loading{503, R"({"error":{"code":503,"message":"Loading model","type":"unavailable_error"}})", {}, {}};
  FakeServer server;
  for (int i = 0; i < 6; ++i) server.enqueue(loading);
  server.enqueue(Reply::fromFixture("openai_review.json"));
  SleepRecorder sleeps;
  auto settings = settingsFor(server.url("/v1"), sleeps);
  settings.transport.readTimeout = std::chrono::seconds(120);
  OpenAiProvider provider(settings);
  EXPECT_EQ(provider.complete(testing::sampleRequest(), CancelToken()).finish, FinishReason::Stop);
  EXPECT_EQ(server.requestCount(), 7u);
  EXPECT_EQ(*sleeps.sleeps, std::vector<std::chrono::milliseconds>(6, std::chrono::seconds(5)));

  FakeServer never;  // still loading after read_timeout_ms (10 s: two polls), then the usual two retries
  for (int i = 0; i < 5; ++i) never.enqueue(loading);
  SleepRecorder waits;
  auto shortWait = settingsFor(never.url("/v1"), waits);
  shortWait.transport.readTimeout = std::chrono::seconds(10);
  OpenAiProvider impatient(shortWait);
  std::string msg;
  EXPECT_EQ(kindOf([&] { impatient.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::Server);
  EXPECT_NE(msg.find("still loading the model after revline waited read_timeout_ms"), std::string::npos) << msg;
  EXPECT_EQ(never.requestCount(), 5u);

  // A Retry-After is the server's own word: waited as asked, or said, never polled.
  FakeServer asks;
  for (int i = 0; i < 3; ++i) asks.enqueue(Reply{503, loading.body, {{"Retry-After", "120"}}, {}});
  SleepRecorder none;
  OpenAiProvider told(settingsFor(asks.url("/v1"), none));
  EXPECT_EQ(kindOf([&] { told.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::Server);
  EXPECT_NE(msg.find("the server asks to wait 120 s"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("revline waited"), std::string::npos) << msg;
  EXPECT_TRUE(none.sleeps->empty());
  asks.expectAllRepliesUsed(false);
}

// llama.cpp before json_schema support (500 "response_format type must be one
// of ...") and Groq with tools (400 "json mode cannot be combined with
// tool/function calling"): the schema goes into the prompt, as for a 400 refusal.
// DeepSeek's reasoner says "does not support Json Output." (it was an error that
// named no setting, where PROVIDERS.md says DeepSeek is negotiated to prompt).
TEST(OpenAi, LlamaCppAndGroqRefusalsOfTheSchemaPutItInThePrompt) {
  for (const Reply& refusal :
       {Reply{400, R"({"error":{"message":"deepseek-reasoner does not support Json Output.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}})", {}, {}},
        Reply{500, R"({"error":{"code":500,"message":"response_format type must be one of \"text\" or \"json_object\", but got: json_schema","type":"server_error"}})", {}, {}},
        Reply{400, R"({"error":{"message":"json mode cannot be combined with tool/function calling","type":"invalid_request_error"}})", {}, {}},
        // vLLM's xgrammar and llama.cpp's grammar conversion, which said nothing of structured_output.
        Reply{400, R"({"error":{"message":"The provided JSON schema contains features not supported by xgrammar.","type":"BadRequestError","param":null,"code":400}})", {}, {}},
        Reply{400, R"({"error":{"code":400,"message":"JSON schema conversion failed:\nUnrecognized schema: {\"description\":\"x\"}","type":"invalid_request_error"}})", {}, {}},
        // OpenRouter: no provider of the model takes every parameter (the model exists; it was "check model and base_url").
        Reply{404, R"({"error":{"message":"No endpoints found that can handle the requested parameters. To learn more about provider routing, visit: https://openrouter.ai/docs/provider-routing","code":404}})", {}, {}}}) {
    FakeServer server;
    server.enqueue(refusal);
    server.enqueue(Reply::fromFixture("openai_review.json"));
    SleepRecorder sleeps;
    auto settings = settingsFor(server.url("/v1"), sleeps);
    settings.model = "model-" + std::to_string(refusal.status) + "-" + std::to_string(refusal.body.size());  // the prompt mode is kept per endpoint and model
    OpenAiProvider provider(settings);
    const auto answer = provider.complete(testing::sampleRequest(), CancelToken());
    EXPECT_EQ(answer.finish, FinishReason::Stop);
    ASSERT_EQ(server.requestCount(), 2u);
    EXPECT_FALSE(json::parse(server.requests()[1].body).contains("response_format"));
    ASSERT_EQ(answer.notes.size(), 1u);
    EXPECT_NE(answer.notes[0].find("refused json_schema output"), std::string::npos) << answer.notes[0];
  }
}

// OpenRouter's 404 "No endpoints found that can handle the requested parameters"
// once the schema is in the prompt too: the tools are left, and the model exists
// (it was "model ... not found; check model and base_url").
TEST(OpenAi, NoEndpointForTheParametersNamesWhatToDrop) {
  FakeServer server;
  const Reply none{404, R"({"error":{"message":"No endpoints found that can handle the requested parameters.","code":404}})", {}, {}};
  server.enqueue(none);
  server.enqueue(none);
  SleepRecorder sleeps;
  auto settings = settingsFor(server.url("/api/v1"), sleeps);
  settings.model = "qwen/qwen3-coder";
  OpenAiProvider provider(settings);
  auto request = testing::sampleRequest();
  request.tools = {testing::readFileSpec()};
  std::string msg;
  EXPECT_EQ(kindOf([&] { provider.complete(request, CancelToken()); }, &msg), Kind::BadRequest);
  EXPECT_EQ(server.requestCount(), 2u);
  EXPECT_FALSE(server.requests()[1].parsed().contains("response_format")) << "sent again without the schema";
  EXPECT_NE(msg.find("no provider of model \"qwen/qwen3-coder\" takes every parameter revline sends: set "
                     "max_tool_calls to 0"),
            std::string::npos)
      << msg;
  EXPECT_EQ(msg.find("check model and base_url"), std::string::npos) << msg;
}

// A server that refuses json_schema output (OpenAI's own refusal of a schema;
// Gemini 2.x, which takes no schema together with tools and wraps its error in
// an array) is sent the same request again with the schema in the prompt, once:
// the review goes on, a note says what changed, and the next provider for the
// same endpoint and model starts there. A refusal in prompt mode is the error.
TEST(OpenAi, AServerThatRefusesJsonSchemaGetsTheSchemaInThePrompt) {
  FakeServer server;
  server.enqueue(Reply{400, R"([{"error":{"code":400,"message":"Function calling with a response mime type: 'application/json' is unsupported","status":"INVALID_ARGUMENT"}}])", {}, {}});
  server.enqueue(Reply::fromFixture("openai_review.json"));
  server.enqueue(Reply::fromFixture("openai_review.json"));
  SleepRecorder sleeps;
  auto settings = settingsFor(server.url("/v1beta/openai"), sleeps);
  settings.model = "gemini-2.5-flash";
  OpenAiProvider provider(settings);
  auto request = testing::sampleRequest();
  request.tools = {testing::readFileSpec()};
  const auto answer = provider.complete(request, CancelToken());
  EXPECT_EQ(answer.finish, FinishReason::Stop);
  ASSERT_EQ(answer.notes.size(), 1u);
  EXPECT_NE(answer.notes[0].find("refused json_schema output for model \"gemini-2.5-flash\""), std::string::npos) << answer.notes[0];
  EXPECT_NE(answer.notes[0].find("Function calling with a response mime type"), std::string::npos) << answer.notes[0];
  EXPECT_NE(answer.notes[0].find("\"structured_output\": \"prompt\""), std::string::npos) << answer.notes[0];
  ASSERT_EQ(server.requestCount(), 2u);
  EXPECT_TRUE(server.requests()[0].parsed().contains("response_format"));
  const json resent = server.requests()[1].parsed();
  EXPECT_FALSE(resent.contains("response_format"));
  EXPECT_TRUE(resent.contains("tools")) << "the tools stay";
  EXPECT_NE(resent["messages"][0]["content"].get<std::string>().find(testing::sampleSchema().dump()), std::string::npos)
      << "the schema is in the system prompt";

  OpenAiProvider later(settings);
  const auto again = later.complete(request, CancelToken());
  EXPECT_TRUE(again.notes.empty());
  ASSERT_EQ(server.requestCount(), 3u);
  EXPECT_FALSE(server.requests()[2].parsed().contains("response_format")) << "negotiated once per endpoint and model";

  // OpenAI's refusal for size counts the schema's tokens in its words: no negotiation.
  FakeServer big;
  big.enqueue(Reply{400, R"({"error":{"message":"This model's maximum context length is 128000 tokens. However, you requested 130317 tokens (130000 in the messages, 317 in the response_format schemas.). Please reduce the length of the messages or schemas.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}})", {}, {}});
  OpenAiProvider sized(settingsFor(big.url("/v1"), sleeps));
  std::string tooLong;
  EXPECT_EQ(kindOf([&] { sized.complete(testing::sampleRequest(), CancelToken()); }, &tooLong), Kind::BadRequest);
  EXPECT_NE(tooLong.find("set max_input_tokens"), std::string::npos) << tooLong;
  EXPECT_EQ(big.requestCount(), 1u);

  // A refusal that names response_format in prompt mode too: said, not resent again.
  FakeServer other;
  other.enqueue(Reply::fromFixture("openai_400.json", 400));
  other.enqueue(Reply::fromFixture("openai_400.json", 400));
  OpenAiProvider refusing(settingsFor(other.url("/v1"), sleeps));
  std::string msg;
  EXPECT_EQ(kindOf([&] { refusing.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::BadRequest);
  EXPECT_NE(msg.find("Invalid schema for response_format 'review_report'"), std::string::npos) << msg;
  EXPECT_EQ(other.requestCount(), 2u);
}

// Gemini 3 returns each tool call with a thought signature in extra_content
// and refuses the next request unless it comes back with that call.
TEST(OpenAi, AToolCallsExtraContentGoesBackWithIt) {
  FakeServer server;
  const json signature = {{"google", {{"thought_signature", "CtIBAVSoXO5x"}}}};
  server.enqueue(Reply::ok(json{{"choices", {{{"index", 0},
                                              {"message", {{"role", "assistant"}, {"content", nullptr},
                                                           {"tool_calls", {{{"id", "function-call-1"}, {"type", "function"},
                                                                            {"extra_content", signature},
                                                                            {"function", {{"name", "read_file"}, {"arguments", "{\"path\":\"a.py\"}"}}}}}}}},
                                              {"finish_reason", "tool_calls"}}}}}.dump()));
  server.enqueue(Reply::fromFixture("openai_review.json"));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  auto request = testing::sampleRequest();
  request.tools = {testing::readFileSpec()};
  const auto first = provider.complete(request, CancelToken());
  ASSERT_EQ(first.toolCalls.size(), 1u);
  request.messages.push_back({review::Role::Assistant, "", first.toolCalls, {}});
  request.messages.push_back({review::Role::Tool, "", {}, {{"function-call-1", "read_file", true, "1: x = 1"}}});
  provider.complete(request, CancelToken());
  const json call = server.requests()[1].parsed()["messages"][2]["tool_calls"][0];
  EXPECT_EQ(call["id"], "function-call-1");
  EXPECT_EQ(call["extra_content"], signature);
}

// Groq checks the model's answer itself and refuses one that fails its schema
// with 400 json_validate_failed, quoting it: that is the model's broken answer,
// checked and retried by the contract, not a failed request.
TEST(OpenAi, AnAnswerTheServerRefusedIsTheModelsAnswer) {
  FakeServer server;
  server.enqueue(Reply{400, R"({"error":{"message":"Failed to generate JSON. Please adjust your prompt. See 'failed_generation' for more details.","type":"invalid_request_error","code":"json_validate_failed","failed_generation":"{\"summary\": \"ok\", \"findings\": [], \"verdict\": \"LGTM\"}"}})", {}, {}});
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/openai/v1"), sleeps));
  const auto answer = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(answer.text, R"({"summary": "ok", "findings": [], "verdict": "LGTM"})");
  EXPECT_EQ(answer.finish, FinishReason::Stop);
  ASSERT_EQ(answer.notes.size(), 1u);
  EXPECT_NE(answer.notes[0].find("json_validate_failed"), std::string::npos) << answer.notes[0];
  EXPECT_EQ(server.requestCount(), 1u);
  // Refused without quoting it: an empty answer, which the contract retries.
  server.enqueue(Reply{400, R"({"error":{"message":"Failed to generate JSON.","type":"invalid_request_error","code":"json_validate_failed"}})", {}, {}});
  const auto unquoted = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_TRUE(unquoted.text.empty());
  EXPECT_NE(unquoted.answerElsewhere.find("without quoting it"), std::string::npos) << unquoted.answerElsewhere;
}

// Where the output of a reasoning model went when the answer is empty, and what
// reasoning costs: xAI bills reasoning tokens apart from completion_tokens,
// DeepSeek says its cache hits in a field of its own.
TEST(OpenAi, ReasoningOutputAndTheCountsOfOtherServers) {
  FakeServer server;
  const auto reply = [](json message, const std::string& finish, json usage) {
    message["role"] = "assistant";
    return Reply::ok(json{{"choices", {{{"index", 0}, {"message", message}, {"finish_reason", finish}}}}, {"usage", usage}}.dump());
  };
  server.enqueue(reply({{"content", nullptr}, {"reasoning_content", "Let me look. {\"summary\": \"draft\""}}, "stop",
                       {{"prompt_tokens", 100}, {"completion_tokens", 900}}));
  server.enqueue(reply({{"content", ""}}, "length",
                       {{"prompt_tokens", 100}, {"completion_tokens", 4000},
                        {"completion_tokens_details", {{"reasoning_tokens", 4000}}}}));
  server.enqueue(reply({{"content", "{}"}}, "stop",
                       {{"prompt_tokens", 663}, {"completion_tokens", 50}, {"total_tokens", 837},
                        {"completion_tokens_details", {{"reasoning_tokens", 124}}}}));
  server.enqueue(reply({{"content", "{}"}}, "stop",
                       {{"prompt_tokens", 1000}, {"completion_tokens", 10}, {"total_tokens", 1010},
                        {"completion_tokens_details", {{"reasoning_tokens", 6}}},
                        {"prompt_cache_hit_tokens", 896}, {"prompt_cache_miss_tokens", 104}}));
  // OpenRouter's usage accounting (its docs' example): writes to the cache under
  // prompt_tokens_details, within prompt_tokens.
  server.enqueue(reply({{"content", "{}"}}, "stop",
                       {{"prompt_tokens", 194}, {"completion_tokens", 2}, {"total_tokens", 196}, {"cost", 0.95},
                        {"prompt_tokens_details", {{"cached_tokens", 0}, {"cache_write_tokens", 100}, {"audio_tokens", 0}}}}));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  const auto inReasoning = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_TRUE(inReasoning.text.empty());
  EXPECT_NE(inReasoning.answerElsewhere.find("in its reasoning (`reasoning_content`)"), std::string::npos)
      << inReasoning.answerElsewhere;
  const auto spent = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(spent.finish, FinishReason::Length);
  EXPECT_NE(spent.answerElsewhere.find("went to reasoning (4000 reasoning tokens)"), std::string::npos) << spent.answerElsewhere;
  EXPECT_EQ(spent.usage.outputTokens, 4000) << "OpenAI counts reasoning in completion_tokens";
  const auto xai = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(xai.usage.outputTokens, 174);
  EXPECT_TRUE(xai.answerElsewhere.empty());
  const auto deepseek = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(deepseek.usage.outputTokens, 10) << "reasoning inside completion_tokens is not counted twice";
  EXPECT_EQ(deepseek.usage.cachedInputTokens, 896);
  const auto openrouter = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(openrouter.usage.inputTokens, 194);
  EXPECT_EQ(openrouter.usage.cacheWriteTokens, 100);
  EXPECT_EQ(openrouter.usage.cachedInputTokens, 0);
  EXPECT_FALSE(openrouter.countsUnreadable);
}

// Services whose refusals name the fix too: Groq's per-minute limit, the
// context-window words of xAI, Gemini and Hugging Face TGI, an Azure URL.
TEST(OpenAi, MoreServicesRefusalsNameTheSetting) {
  FakeServer server;
  server.enqueue(Reply{413, R"({"error":{"message":"Request too large for model `llama-3.3-70b-versatile` in organization `org_1` service tier `on_demand` on tokens per minute (TPM): Limit 6000, Requested 14810, please reduce your message size and try again.","type":"tokens","code":"rate_limit_exceeded"}})", {}, {}});
  // OpenAI says the same as a 429, which waiting does not help either.
  server.enqueue(Reply{429, R"({"error":{"message":"Request too large for gpt-4o in organization org-1 on tokens per min (TPM): Limit 30000, Requested 45120. The input or output tokens must be reduced in order to run successfully.","type":"tokens","param":null,"code":"rate_limit_exceeded"}})", {}, {}});
  server.enqueue(Reply{400, R"({"code":"Client specified an invalid argument","error":"This model's maximum prompt length is 131072 but the request contains 136973 tokens."})", {}, {}});
  server.enqueue(Reply{400, R"([{"error":{"code":400,"message":"The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}])", {}, {}});
  server.enqueue(Reply{422, R"({"error":"Input validation error: `inputs` tokens + `max_new_tokens` must be <= 32768. Given: 30000 `inputs` tokens and 4096 `max_new_tokens`","error_type":"validation"})", {}, {}});
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  std::string msg;
  EXPECT_EQ(kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::BadRequest);
  EXPECT_NE(msg.find("tokens-per-minute limit: set max_input_tokens"), std::string::npos) << msg;
  EXPECT_EQ(kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::BadRequest);
  EXPECT_NE(msg.find("tokens-per-minute limit: set max_input_tokens"), std::string::npos) << msg;
  EXPECT_TRUE(sleeps.sleeps->empty()) << "not retried";
  for (const char* said : {"maximum prompt length is 131072", "The input token count (1200293)", "must be <= 32768"}) {
    EXPECT_EQ(kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::BadRequest);
    EXPECT_NE(msg.find(said), std::string::npos) << msg;
    EXPECT_NE(msg.find("set max_input_tokens (or --max-input-tokens N) below that window"), std::string::npos) << msg;
  }
  EXPECT_EQ(server.requestCount(), 5u);

  // Azure's classic deployment URL: its query is refused, and the error says what works.
  auto azure = settingsFor("https://contoso.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21",
                           sleeps, {{"OPENAI_API_KEY", "k"}});
  EXPECT_EQ(kindOf([&] { OpenAiProvider p(azure); }, &msg), Kind::Config);
  EXPECT_NE(msg.find("base_url https://RESOURCE.openai.azure.com/openai/v1"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("e.g. https://api.openai.com/v1"), std::string::npos) << msg;

  // Already the v1 API: a 404 DeploymentNotFound names the deployment, not the URL
  // (it was told to "use its v1 API", which it did). Reached through a proxy.
  FakeServer proxy;
  proxy.enqueue(Reply{404, R"({"error":{"code":"DeploymentNotFound","message":"The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again."}})", {}, {}});
  auto v1 = settingsFor("http://contoso.openai.azure.com/openai/v1", sleeps,
                        {{"OPENAI_API_KEY", "k"}, {"HTTP_PROXY", proxy.url()}});
  v1.model = "gpt-4o-prod";
  OpenAiProvider deployed(v1);
  EXPECT_EQ(kindOf([&] { deployed.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::NotFound);
  EXPECT_NE(msg.find("Azure OpenAI has no deployment named \"gpt-4o-prod\" on this resource"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("use its v1 API"), std::string::npos) << msg;
}

// A load balancer's HTML page for a 502: its title is the message, not 300
// bytes of markup ("<html> <head><title>502 Bad Gateway</title>...").
TEST(OpenAi, AnHtmlErrorPageIsToldByItsTitle) {
  FakeServer server;
  const std::string page = "<html>\r\n<head><title>502 Bad\r\n Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad "
                           "Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n";
  for (int i = 0; i < 3; ++i) server.enqueue(Reply{502, page, {{"Content-Type", "text/html"}}, {}});
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  std::string msg;
  EXPECT_EQ(kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &msg), Kind::Server);
  EXPECT_NE(msg.find("an HTML page titled \"502 Bad Gateway\""), std::string::npos) << msg;
  EXPECT_EQ(msg.find("<head>"), std::string::npos) << msg;
  EXPECT_EQ(server.requestCount(), 3u) << "a 502 is retried";
}

TEST(OpenAi, KeyRequiredForRemoteBaseUrlOnly) {
  SleepRecorder sleeps;
  std::string msg;
  EXPECT_EQ(kindOf([&] { OpenAiProvider p(settingsFor("", sleeps)); }, &msg), Kind::Config);
  EXPECT_NE(msg.find("set the environment variable OPENAI_API_KEY"), std::string::npos) << msg;
  EXPECT_NE(msg.find("https://api.openai.com/v1"), std::string::npos) << msg;

  auto custom = settingsFor("https://openrouter.ai/api/v1", sleeps);
  custom.apiKeyEnv = "OPENROUTER_API_KEY";
  EXPECT_EQ(kindOf([&] { OpenAiProvider p(custom); }, &msg), Kind::Config);
  EXPECT_NE(msg.find("OPENROUTER_API_KEY"), std::string::npos) << msg;

  OpenAiProvider withKey(settingsFor("", sleeps, {{"OPENAI_API_KEY", "sk-x"}}));
  EXPECT_TRUE(withKey.remote());
  EXPECT_EQ(withKey.model(), "test-model");
  OpenAiProvider local(settingsFor("http://localhost:8080/v1", sleeps));
  EXPECT_FALSE(local.remote());

  EXPECT_EQ(kindOf([&] { OpenAiProvider p(settingsFor("ftp://example.com", sleeps)); }, &msg), Kind::Config);
  EXPECT_NE(msg.find("invalid base URL"), std::string::npos) << msg;

  // A key with a line break inside was not sent (no header holds one), and the
  // server's 401 read as a key it rejected. Around it, line breaks are trimmed.
  EXPECT_EQ(kindOf([&] { OpenAiProvider p(settingsFor("", sleeps, {{"OPENAI_API_KEY", "sk-first\nsk-second\n"}})); }, &msg),
            Kind::Config);
  EXPECT_NE(msg.find("the value of OPENAI_API_KEY holds a line break after its first 8 characters"), std::string::npos)
      << msg;
  EXPECT_EQ(msg.find("sk-first"), std::string::npos) << msg;
  OpenAiProvider trimmed(settingsFor("", sleeps, {{"OPENAI_API_KEY", "sk-key\r\n"}}));
  EXPECT_TRUE(trimmed.remote());
}

}  // namespace
}  // namespace revline::providers
