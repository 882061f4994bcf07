// runReview (attempt loop, tools, grounding, policy) driving the real
// OpenAiProvider against the fake server: a contract violation then a corrected
// answer, a truncated answer, tool calls through the sandbox, a model that never
// stops calling tools, a refusal, and secret redaction on the wire.
#include <gtest/gtest.h>

#include "core/contract/feedback.h"
#include "core/contract/reply_parser.h"
#include "core/contract/schema.h"
#include "core/providers/openai_provider.h"
#include "core/providers/redacting_provider.h"
#include "core/review/pipeline.h"
#include "core/review/prompt.h"
#include "core/tools/repository_tools.h"
#include "tests/support/temp_repo.h"
#include "tests/unit/providers/provider_test_util.h"

namespace revline::providers {
namespace {

using review::ProviderError;
using testing::FakeServer;
using testing::Reply;
using testing::settingsFor;
using testing::SleepRecorder;

// Planted secrets: an AWS access key id and a GitHub token.
const std::string kAwsKey = "AKIAZ7QXK2LM4PN8RT5W";
const std::string kGithubToken = "ghp_" + std::string("aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5");

struct Fixture {
  testing::TempRepo repo;
  diff::Diff diff;
  Fixture(const std::string& extraLine = "") {
    repo.write("src/Service.java", "class Service {\n  void a() {}\n}\n");
    repo.write("src/Config.java", "class Config {\n  String token = \"" + kGithubToken + "\";\n}\n");
    repo.commitAll("base");
    repo.write("src/Service.java", "class Service {\n  void a() {}\n  boolean ok(String s) {\n    return s == \"OK\";\n  }\n" +
                                       extraLine + "}\n");
    diff = diff::parse(repo.git("diff HEAD"));
  }
};

// An OpenAI chat completion whose message content is `content`.
std::string completion(const std::string& content, const std::string& finish = "stop") {
  return json{{"choices", {{{"index", 0},
                            {"message", {{"role", "assistant"}, {"content", content}}},
                            {"finish_reason", finish}}}},
              {"usage", {{"prompt_tokens", 100}, {"completion_tokens", 10}}}}
      .dump();
}

std::string toolCalls(const std::vector<std::pair<std::string, json>>& calls, int round) {
  const json list = testing::openAiToolCallList(calls, round);
  return json{{"choices", {{{"index", 0},
                            {"message", {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", list}}},
                            {"finish_reason", "tool_calls"}}}},
              {"usage", {{"prompt_tokens", 50}, {"completion_tokens", 5}}}}
      .dump();
}

std::string report(const std::string& severity = "MAJOR") {
  return R"({"summary":"Adds ok().","findings":[{"file":"src/Service.java","line":4,"endLine":null,"severity":")" +
         severity +
         R"(","category":"CORRECTNESS","title":"String compared with ==","explanation":"Compares references, not contents.","suggestedFix":"Use equals.","edit":null,"confidence":0.9}],"verdict":"REQUEST_CHANGES"})";
}

TEST(OpenAiPipeline, ContractViolationThenCorrectedAnswer) {
  Fixture f;
  FakeServer server;
  const std::string bad = report("CRITICAL");
  server.enqueue(Reply::ok(completion(bad)));
  server.enqueue(Reply::ok(completion(report())));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));

  auto outcome = review::runReview(f.diff, provider, {}, nullptr, CancelToken());
  EXPECT_EQ(outcome.attempts, 2);
  EXPECT_EQ(outcome.provider, "openai");
  EXPECT_EQ(outcome.model, "test-model");
  ASSERT_EQ(outcome.findings.size(), 1u);
  EXPECT_EQ(outcome.findings[0].finding.line, 4);
  EXPECT_EQ(outcome.verdict, contract::Verdict::RequestChanges);
  EXPECT_EQ(outcome.usage.inputTokens, 200);
  EXPECT_EQ(outcome.usage.outputTokens, 20);

  ASSERT_EQ(server.requestCount(), 2u);
  json first = server.requests()[0].parsed();
  EXPECT_EQ(first["response_format"]["json_schema"]["strict"], true);
  EXPECT_EQ(first["response_format"]["json_schema"]["schema"], contract::reportSchema());
  // The wire schema keeps the contract's property order (file first, confidence last).
  std::string raw = server.requests()[0].body;
  EXPECT_LT(raw.find("\"file\""), raw.find("\"confidence\""));
  json second = server.requests()[1].parsed();
  const json& msgs = second["messages"];
  ASSERT_EQ(msgs.size(), 4u);
  EXPECT_EQ(msgs[2], (json{{"role", "assistant"}, {"content", bad}}));
  EXPECT_EQ(msgs[3]["role"], "user");
  EXPECT_EQ(msgs[3]["content"], contract::feedbackMessage(contract::parseReply(bad)));
  EXPECT_NE(msgs[3]["content"].get<std::string>().find("/findings/0/severity: \"CRITICAL\" is not one of"),
            std::string::npos);
}

// A reply that counts only one side (a server without prompt_tokens, as an
// Ollama reply without prompt_eval_count) is a request whose tokens are not all
// known: said, not summed as if exact. Before, only both missing was.
TEST(OpenAiPipeline, AReplyCountingOnlyOneSideIsUnreported) {
  Fixture f;
  FakeServer server;
  json reply = json::parse(completion(report()));
  reply["usage"] = {{"completion_tokens", 40}};
  server.enqueue(Reply::ok(reply.dump()));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  const auto outcome = review::runReview(f.diff, provider, {}, nullptr, CancelToken());
  EXPECT_EQ(outcome.usage.outputTokens, 40);
  EXPECT_EQ(outcome.usage.requests, 1);
  EXPECT_EQ(outcome.usage.unreportedRequests, 1);
}

TEST(OpenAiPipeline, TruncatedAnswerAsksForFewerFindings) {
  Fixture f;
  FakeServer server;
  server.enqueue(Reply::fromFixture("openai_length.json"));
  server.enqueue(Reply::fromFixture("openai_fenced.json"));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  auto outcome = review::runReview(f.diff, provider, {}, nullptr, CancelToken());
  EXPECT_EQ(outcome.attempts, 2);
  EXPECT_EQ(outcome.findings.size(), 1u) << "the fenced JSON is found by the reply parser";
  std::string feedback = server.requests()[1].parsed()["messages"][3]["content"];
  EXPECT_NE(feedback.find("fewer, shorter findings"), std::string::npos) << feedback;

  // Cut off twice: the failure says what makes the answer shorter (it gave no fix).
  FakeServer twice;
  twice.enqueue(Reply::fromFixture("openai_length.json"));
  twice.enqueue(Reply::fromFixture("openai_length.json"));
  OpenAiProvider again(settingsFor(twice.url("/v1"), sleeps));
  try {
    review::runReview(f.diff, again, {}, nullptr, CancelToken());
    ADD_FAILURE() << "a review whose answers were both cut off failed no contract";
  } catch (const review::ContractFailure& e) {
    EXPECT_NE(std::string(e.what()).find("lower max_input_tokens (or --max-input-tokens N)"), std::string::npos) << e.what();
  }
}

// What the provider negotiated (a server without json_schema output, Gemini 2.x
// with tools) is a warning of the review; an answer the server refused for its
// schema (Groq's json_validate_failed) is a broken answer, retried with feedback.
TEST(OpenAiPipeline, NegotiatedAndRefusedAnswersAreSaidAndRetried) {
  Fixture f;
  FakeServer server;
  server.enqueue(Reply{400, R"([{"error":{"code":400,"message":"Function calling with a response mime type: 'application/json' is unsupported","status":"INVALID_ARGUMENT"}}])", {}, {}});
  server.enqueue(Reply{400, json{{"error", {{"message", "Failed to generate JSON."}, {"code", "json_validate_failed"},
                                            {"failed_generation", report("HIGH")}}}}.dump(), {}, {}});
  server.enqueue(Reply::ok(completion(report())));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1beta/openai"), sleeps));
  tools::RepositoryTools repoTools(f.repo.root());
  auto outcome = review::runReview(f.diff, provider, {}, &repoTools, CancelToken());
  EXPECT_EQ(outcome.findings.size(), 1u);
  EXPECT_EQ(outcome.attempts, 2);
  ASSERT_EQ(server.requestCount(), 3u);
  std::string warnings;
  for (const auto& w : outcome.warnings) warnings += w + "\n";
  EXPECT_NE(warnings.find("refused json_schema output"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("json_validate_failed"), std::string::npos) << warnings;
  const std::string feedback = server.requests()[2].parsed()["messages"].back()["content"];
  EXPECT_NE(feedback.find("\"HIGH\" is not one of"), std::string::npos) << feedback;
}

// An answer a reasoning server put in reasoning_content: the failure says where it went.
TEST(OpenAiPipeline, AnAnswerLeftInTheReasoningIsSaidToBeThere) {
  Fixture f;
  FakeServer server;
  for (int i = 0; i < 2; ++i)
    server.enqueue(Reply::ok(json{{"choices", {{{"index", 0},
                                                {"message", {{"role", "assistant"}, {"content", nullptr},
                                                             {"reasoning_content", "The user wants a review. " + report()}}},
                                                {"finish_reason", "stop"}}}}}.dump()));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  try {
    review::runReview(f.diff, provider, {}, nullptr, CancelToken());
    ADD_FAILURE() << "no answer must fail the contract";
  } catch (const review::ContractFailure& e) {
    EXPECT_NE(std::string(e.what()).find("the reply is empty; expected the review as one JSON object: the model's whole "
                                         "output is in its reasoning (`reasoning_content`)"),
              std::string::npos)
        << e.what();
  }
}

TEST(OpenAiPipeline, RefusalIsAClearError) {
  Fixture f;
  FakeServer server;
  server.enqueue(Reply::fromFixture("openai_refusal.json"));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  try {
    review::runReview(f.diff, provider, {}, nullptr, CancelToken());
    ADD_FAILURE() << "a refusal must throw";
  } catch (const ProviderError& e) {
    EXPECT_EQ(e.kind(), ProviderError::Kind::Refusal);
    EXPECT_NE(std::string(e.what()).find("I'm sorry, I can't help with that request."), std::string::npos);
  }
}

TEST(OpenAiPipeline, ToolCallsRunInTheSandbox) {
  Fixture f;
  std::filesystem::create_symlink("/etc/passwd", f.repo.root() / "passwd-link");
  FakeServer server;
  server.enqueue(Reply::ok(toolCalls({{"read_file", {{"path", "src/Service.java"}}},
                                      {"read_file", {{"path", "../../etc/passwd"}}},
                                      {"read_file", {{"path", "/etc/passwd"}}},
                                      {"read_file", {{"path", "passwd-link"}}}},
                                     1)));
  server.enqueue(Reply::ok(completion(report())));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  tools::RepositoryTools repoTools(f.repo.root());
  review::ReviewOptions options;
  options.maxToolCalls = 5;

  auto outcome = review::runReview(f.diff, provider, options, &repoTools, CancelToken());
  EXPECT_EQ(outcome.toolCalls, 4);
  EXPECT_EQ(outcome.attempts, 1);
  EXPECT_EQ(outcome.findings.size(), 1u);

  json first = server.requests()[0].parsed();
  ASSERT_EQ(first["tools"].size(), 4u);
  EXPECT_EQ(first["tools"][0]["function"]["name"], "read_file");
  EXPECT_EQ(first["tools"][0]["function"]["parameters"]["required"], json::array({"path"}));

  json msgs = server.requests()[1].parsed()["messages"];
  ASSERT_GE(msgs.size(), 7u);
  EXPECT_EQ(msgs[3]["role"], "tool");
  EXPECT_EQ(msgs[3]["tool_call_id"], "call_1_1");
  EXPECT_NE(msgs[3]["content"].get<std::string>().find("4:     return s == \"OK\";"), std::string::npos);
  EXPECT_EQ(msgs[4]["content"].get<std::string>().rfind("ERROR: <tool_result name=\"read_file\">", 0), 0u) << msgs[4];
  EXPECT_NE(msgs[4]["content"].get<std::string>().find("read_file: path '../../etc/passwd' points outside"),
            std::string::npos)
      << msgs[4];
  EXPECT_NE(msgs[5]["content"].get<std::string>().find("is absolute"), std::string::npos) << msgs[5];
  EXPECT_NE(msgs[6]["content"].get<std::string>().find("outside the repository"), std::string::npos) << msgs[6];
  EXPECT_EQ(server.allBodies().find("root:x:0:0"), std::string::npos) << "/etc/passwd never left the sandbox";
}

// A model served only through the Responses API, through the whole review: the
// switch is said in the warnings, a tool round (its reasoning sent back with
// it) and a contract retry go to /responses, and the findings are grounded as
// any other answer's.
TEST(OpenAiPipeline, AReviewByAModelServedOnlyThroughTheResponsesApi) {
  Fixture f;
  FakeServer server;
  auto responses = [](const json& output, int input, int cached) {
    return json{{"status", "completed"}, {"output", output},
                {"usage", {{"input_tokens", input}, {"input_tokens_details", {{"cached_tokens", cached}}}, {"output_tokens", 10}}}}
        .dump();
  };
  auto message = [](const std::string& text) {
    return json::array({{{"type", "message"}, {"role", "assistant"}, {"content", {{{"type", "output_text"}, {"text", text}}}}}});
  };
  server.enqueue(Reply::onlyOnResponses());
  server.enqueue(Reply::ok(responses(json::array({{{"type", "reasoning"}, {"id", "rs_1"}, {"summary", json::array()},
                                                   {"encrypted_content", "gAAAAreasoning=="}},
                                                  {{"type", "function_call"}, {"call_id", "call_R1"}, {"name", "read_file"},
                                                   {"arguments", R"({"path":"src/Service.java"})"}}}),
                                     100, 0)));
  server.enqueue(Reply::ok(responses(message(report("CRITICAL")), 200, 100)));
  server.enqueue(Reply::ok(responses(message(report()), 300, 200)));
  SleepRecorder sleeps;
  auto settings = settingsFor(server.url("/v1"), sleeps);
  settings.model = "codex-only";
  OpenAiProvider provider(settings);
  tools::RepositoryTools repoTools(f.repo.root());
  review::ReviewOptions options;
  options.maxToolCalls = 5;
  const auto outcome = review::runReview(f.diff, provider, options, &repoTools, CancelToken());
  ASSERT_EQ(server.requestCount(), 4u);
  for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(server.requests()[i].path, "/v1/responses") << i;
  EXPECT_EQ(outcome.toolCalls, 1);
  EXPECT_EQ(outcome.attempts, 2);  // the CRITICAL answer was sent back with the contract's words
  ASSERT_EQ(outcome.findings.size(), 1u);
  EXPECT_EQ(outcome.findings[0].finding.line, 4);
  EXPECT_EQ(outcome.verdict, contract::Verdict::RequestChanges);
  EXPECT_EQ(outcome.usage.requests, 3) << "the refused request was not answered";
  EXPECT_EQ(outcome.usage.inputTokens, 600);
  EXPECT_EQ(outcome.usage.cachedInputTokens, 300);
  bool said = false;
  for (const auto& w : outcome.warnings) said = said || w.find("served only through the Responses API") != std::string::npos;
  EXPECT_TRUE(said) << json(outcome.warnings).dump();
  // The tool round went back with the reasoning that led to its call, in its place.
  for (std::size_t i = 2; i < 4; ++i)
    EXPECT_EQ(server.requests()[i].parsed()["include"], json::array({"reasoning.encrypted_content"})) << i;
  const json last = server.requests()[3].parsed()["input"];
  EXPECT_EQ(last[1], (json{{"type", "reasoning"}, {"summary", json::array()}, {"encrypted_content", "gAAAAreasoning=="}}));
  EXPECT_EQ(last[2]["type"], "function_call");
  EXPECT_EQ(last[3]["type"], "function_call_output");
  EXPECT_NE(last[3]["output"].get<std::string>().find("return s == \"OK\";"), std::string::npos) << last[3].dump();
  EXPECT_EQ(last.back()["role"], "user");
  EXPECT_EQ(last.back()["content"], contract::feedbackMessage(contract::parseReply(report("CRITICAL"))));
}

TEST(OpenAiPipeline, TheBudgetEndsAModelThatKeepsCallingTools) {
  Fixture f;
  FakeServer server;
  // Two calls per round; with a budget of 3 the second round is cut at the third call.
  for (int round = 1; round <= 2; ++round) {
    server.enqueue(Reply::ok(toolCalls({{"glob", {{"pattern", "**/*.java"}}}, {"find_usages", {{"symbol", "ok"}}}}, round)));
  }
  server.enqueue(Reply::ok(completion(report())));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  tools::RepositoryTools repoTools(f.repo.root());
  review::ReviewOptions options;
  options.maxToolCalls = 3;
  auto outcome = review::runReview(f.diff, provider, options, &repoTools, CancelToken());
  EXPECT_EQ(outcome.toolCalls, 3);
  EXPECT_EQ(outcome.findings.size(), 1u);
  ASSERT_EQ(server.requestCount(), 3u);
  EXPECT_TRUE(server.requests()[1].parsed().contains("tools"));
  json last = server.requests()[2].parsed();
  EXPECT_EQ(last["tools"], server.requests()[0].parsed()["tools"])
      << "past the budget the same tools stay offered (the cached prefix is unchanged); calls are refused";
  const json& msgs = last["messages"];
  // The fourth call was answered with the budget message, not executed; that
  // refusal says it, so no note follows (a user message right after a tool one
  // is refused by Mistral's API).
  EXPECT_EQ(msgs.back()["role"], "tool");
  EXPECT_EQ(msgs.back()["content"], "ERROR: " + review::toolBudgetSpentMessage(3));
  bool refused = false;
  for (const auto& m : msgs) {
    if (m["role"] == "tool" && m["tool_call_id"] == "call_2_2") {
      refused = m["content"] == "ERROR: " + review::toolBudgetSpentMessage(3);
    }
  }
  EXPECT_TRUE(refused) << msgs.dump(1);
}

TEST(OpenAiPipeline, AModelThatNeverStopsIsCutOff) {
  Fixture f;
  FakeServer server;
  server.expectAllRepliesUsed(false);
  for (int round = 1; round <= 20; ++round) {
    server.enqueue(Reply::ok(toolCalls({{"glob", {{"pattern", "*"}}}}, round)));
  }
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  tools::RepositoryTools repoTools(f.repo.root());
  review::ReviewOptions options;
  options.maxToolCalls = 2;
  EXPECT_THROW(review::runReview(f.diff, provider, options, &repoTools, CancelToken()), review::ContractFailure);
  EXPECT_LT(server.requestCount(), 10u);
}

// DeepSeek in thinking mode refuses the next request when a turn that called
// tools comes back without its reasoning_content (400 "Missing
// `reasoning_content` field in the assistant message"): it goes back with that
// turn, verbatim; an answer's reasoning (no tool call) does not.
TEST(OpenAiPipeline, ATurnThatCalledToolsGoesBackWithItsReasoning) {
  Fixture f;
  FakeServer server;
  const json calls = testing::openAiToolCallList({{"read_file", {{"path", "src/Service.java"}}}}, 1);
  server.enqueue(Reply::ok(json{{"choices", {{{"index", 0},
                                              {"message", {{"role", "assistant"}, {"content", ""},
                                                           {"reasoning_content", "I should read Service.java first."},
                                                           {"tool_calls", calls}}},
                                              {"finish_reason", "tool_calls"}}}},
                                {"usage", {{"prompt_tokens", 50}, {"completion_tokens", 5}}}}
                               .dump()));
  server.enqueue(Reply::ok(json{{"choices", {{{"index", 0},
                                              {"message", {{"role", "assistant"}, {"content", report("CRITICAL")},
                                                           {"reasoning_content", "Now the answer."}}},
                                              {"finish_reason", "stop"}}}},
                                {"usage", {{"prompt_tokens", 90}, {"completion_tokens", 9}}}}
                               .dump()));
  server.enqueue(Reply::ok(completion(report())));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  tools::RepositoryTools repoTools(f.repo.root());
  const auto outcome = review::runReview(f.diff, provider, {}, &repoTools, CancelToken());
  EXPECT_EQ(outcome.attempts, 2);  // a contract retry after the second reply
  ASSERT_EQ(server.requestCount(), 3u);
  const json second = server.requests()[1].parsed()["messages"];
  ASSERT_EQ(second[2]["role"], "assistant");
  EXPECT_EQ(second[2]["reasoning_content"], "I should read Service.java first.");
  const json third = server.requests()[2].parsed()["messages"];
  EXPECT_EQ(third[2]["reasoning_content"], "I should read Service.java first.") << "every later request";
  for (const json& m : third) {
    if (m.value("role", "") == "assistant" && !m.contains("tool_calls")) {
      EXPECT_FALSE(m.contains("reasoning_content")) << m;
    }
  }
}

TEST(OpenAiPipeline, SecretsNeverReachARemoteProvider) {
  Fixture f("  String aws = \"" + kAwsKey + "\";\n");
  ASSERT_NE(review::userPrompt(f.diff).find(kAwsKey), std::string::npos);
  FakeServer proxy;  // the "remote" API is reached through an HTTP proxy: the fake server
  proxy.enqueue(Reply::ok(toolCalls({{"read_file", {{"path", "src/Config.java"}}}}, 1)));
  proxy.enqueue(Reply::ok(completion(report())));
  SleepRecorder sleeps;
  auto settings = settingsFor("http://api.example.test/v1", sleeps,
                              {{"OPENAI_API_KEY", "sk-test"}, {"HTTP_PROXY", proxy.url()}});
  auto inner = std::make_unique<OpenAiProvider>(settings);
  ASSERT_TRUE(inner->remote());
  auto provider = redactIfRemote(std::move(inner));
  tools::RepositoryTools repoTools(f.repo.root());
  auto outcome = review::runReview(f.diff, *provider, {}, &repoTools, CancelToken());
  EXPECT_EQ(outcome.toolCalls, 1);

  ASSERT_EQ(proxy.requestCount(), 2u);
  const std::string wire = proxy.allBodies();
  EXPECT_EQ(wire.find(kAwsKey), std::string::npos) << "the diff's secret went over the wire";
  EXPECT_EQ(wire.find(kGithubToken), std::string::npos) << "a tool result's secret went over the wire";
  EXPECT_NE(wire.find("[REDACTED:aws-access-key]"), std::string::npos);
  EXPECT_NE(wire.find("[REDACTED:github-token]"), std::string::npos);
}

// The line git quotes after a hunk's "@@ ... @@" (the nearest line above it that
// starts with a letter: in a .env, the secret) is redacted with the real
// detector on the real path to a remote API. Before, it went out as it was, and
// the last pass over the request did not see it as a secret.
TEST(OpenAiPipeline, TheLineAHunkHeaderQuotesNeverReachesARemoteProviderRaw) {
  testing::TempRepo repo;
  const std::string secret = "9f8e7d6c5b4a39281706f5e4d3c2b1a0";
  repo.write(".env", "SECRET_KEY=" + secret + "\nDEBUG=1\nPORT=80\nHOST=x\nMODE=dev\n");
  repo.commitAll("base");
  repo.write(".env", "SECRET_KEY=" + secret + "\nDEBUG=1\nPORT=80\nHOST=x\nMODE=prod\n");
  const diff::Diff d = diff::parse(repo.git("diff HEAD"));
  ASSERT_EQ(d.files.at(0).hunks.at(0).section, "SECRET_KEY=" + secret);
  FakeServer proxy;
  proxy.enqueue(Reply::ok(completion(R"({"summary":"Fine.","findings":[],"verdict":"APPROVE"})")));
  SleepRecorder sleeps;
  auto provider = redactIfRemote(std::make_unique<OpenAiProvider>(
      settingsFor("http://api.example.test/v1", sleeps, {{"OPENAI_API_KEY", "sk-test"}, {"HTTP_PROXY", proxy.url()}})));
  review::runReview(d, *provider, {}, nullptr, CancelToken());
  ASSERT_EQ(proxy.requestCount(), 1u);
  EXPECT_EQ(proxy.allBodies().find(secret), std::string::npos) << proxy.allBodies();
}

TEST(OpenAiPipeline, LoopbackProvidersSeeTheTextUnchanged) {
  Fixture f("  String aws = \"" + kAwsKey + "\";\n");
  FakeServer server;
  server.enqueue(Reply::ok(completion(report())));
  SleepRecorder sleeps;
  auto provider = redactIfRemote(std::make_unique<OpenAiProvider>(settingsFor(server.url("/v1"), sleeps)));
  EXPECT_EQ(dynamic_cast<RedactingProvider*>(provider.get()), nullptr);
  review::runReview(f.diff, *provider, {}, nullptr, CancelToken());
  EXPECT_NE(server.allBodies().find(kAwsKey), std::string::npos);
}

}  // namespace
}  // namespace revline::providers
