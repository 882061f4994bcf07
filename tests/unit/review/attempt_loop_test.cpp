// What the attempt loop tells a provider's wire format about each call: whether
// the tool budget is spent (Ollama then enforces the schema) and the budget the
// request was fitted to (Ollama sizes its window from it), with the same tools
// listed in every call.
#include "core/review/attempt_loop.h"
#include "core/review/pipeline.h"

#include <gtest/gtest.h>

#include <functional>

namespace revline::review {
namespace {

// Replies as `reply` says for the nth call (from 1); records what each call was sent.
class Scripted : public Provider {
 public:
  explicit Scripted(std::function<ModelResponse(std::size_t)> reply) : reply_(std::move(reply)) {}
  std::vector<ModelRequest> sent;
  std::string name() const override { return "t"; }
  std::string model() const override { return "t1"; }
  ModelResponse complete(const ModelRequest& request, const CancelToken&) override {
    sent.push_back(request);
    return reply_(sent.size());
  }

 private:
  std::function<ModelResponse(std::size_t)> reply_;
};

ModelResponse answer(const std::string& text) {
  ModelResponse r;
  r.text = text;
  return r;
}

// Calls one tool, then answers.
Scripted oneToolThenAnswer() {
  return Scripted([](std::size_t n) {
    ModelResponse r = answer(R"({"summary":"Fine.","findings":[],"verdict":"APPROVE"})");
    if (n == 1) {
      r.text.clear();
      r.toolCalls.push_back({"c1", "read_file", json{{"path", "a.c"}}});
      r.finish = FinishReason::ToolCalls;
    }
    return r;
  });
}

class OneTool : public ToolExecutor {
 public:
  std::vector<ToolSpec> specs() const override { return {{"read_file", "Reads a file.", json{{"type", "object"}}}}; }
  ToolResult execute(const ToolCall& call, const CancelToken&) override { return {call.id, call.name, true, "int a;"}; }
};

TEST(AttemptLoop, TheCallAfterTheLastToolCallIsMarkedBudgetSpentAndKeepsTheTools) {
  Scripted model = oneToolThenAnswer();
  OneTool tools;
  ModelRequest first;
  first.messages.push_back({Role::User, "<diff>\n</diff>", {}, {}});
  const AttemptResult r = runAttempts(model, first, {2, 1, 50000}, &tools, CancelToken());
  EXPECT_EQ(r.toolCalls, 1);
  ASSERT_EQ(model.sent.size(), 2u);
  EXPECT_FALSE(model.sent[0].toolBudgetSpent);
  EXPECT_TRUE(model.sent[1].toolBudgetSpent) << "the one tool call of the budget was served";
  EXPECT_EQ(model.sent[1].tools.size(), 1u) << "the tools stay listed";
  for (const auto& request : model.sent) EXPECT_EQ(request.inputTokenBudget, 50000);
}

// Reads files by path, `size` bytes each, and counts what it ran.
class CountingReads : public ToolExecutor {
 public:
  explicit CountingReads(std::size_t size = 100) : size_(size) {}
  std::vector<std::string> ran;
  std::vector<ToolSpec> specs() const override { return {{"read_file", "Reads a file.", json{{"type", "object"}}}}; }
  ToolResult execute(const ToolCall& call, const CancelToken&) override {
    json args = call.arguments.is_string() ? json::parse(call.arguments.get<std::string>()) : call.arguments;
    ran.push_back(args.value("path", ""));
    return {call.id, call.name, true, std::string(size_, 'x')};
  }

 private:
  std::size_t size_;
};

ModelResponse reads(std::vector<ToolCall> calls) {
  ModelResponse r;
  r.toolCalls = std::move(calls);
  r.finish = FinishReason::ToolCalls;
  return r;
}

// The same call again (same tool, same arguments, also as a JSON string or in
// the same reply) is pointed at its result above, not run and sent again: a
// model that read one file four times had it sent four times, and every later
// round re-sent each copy. It still counts against the budget.
TEST(AttemptLoop, TheSameToolCallAgainIsPointedAtItsResultAbove) {
  Scripted model([](std::size_t n) {
    if (n == 1) return reads({{"c1", "read_file", json{{"path", "a.c"}}}, {"c2", "read_file", json{{"path", "a.c"}}}});
    if (n == 2)
      return reads({{"c3", "read_file", json(R"({"path": "a.c"})")}, {"c4", "read_file", json{{"path", "b.c"}}}});
    return answer(R"({"summary":"Fine.","findings":[],"verdict":"APPROVE"})");
  });
  CountingReads tools;
  ModelRequest first;
  first.messages.push_back({Role::User, "<diff>\n</diff>", {}, {}});
  const AttemptResult r = runAttempts(model, first, {2, 10, 0}, &tools, CancelToken());
  EXPECT_EQ(tools.ran, (std::vector<std::string>{"a.c", "b.c"}));
  EXPECT_EQ(r.toolCalls, 4);
  ASSERT_EQ(model.sent.size(), 3u);
  const auto& results = model.sent[2].messages;
  std::vector<std::string> said;
  for (const auto& m : results)
    for (const auto& t : m.toolResults) said.push_back(t.callId + ": " + t.content);
  ASSERT_EQ(said.size(), 4u);
  // Named by the call, not its id: Ollama sends none, and servers' ids start again in every reply.
  const std::string same =
      R"(This is the same call as one above (read_file {"path":"a.c"}): its result is there, unchanged, and is not sent again.)";
  EXPECT_EQ(said[1], "c2: " + same);
  EXPECT_EQ(said[2], "c3: " + same);
  EXPECT_NE(said[3].find("xxxx"), std::string::npos) << said[3];
}

// A result shortened since to keep the conversation within the budget is not
// above any more: the same call is run again.
TEST(AttemptLoop, TheSameToolCallIsRunAgainWhenItsResultWasShortened) {
  Scripted model([](std::size_t n) {
    if (n == 1) return reads({{"c1", "read_file", json{{"path", "a.c"}}}});
    if (n == 2) return reads({{"c2", "read_file", json{{"path", "b.c"}}}});
    if (n == 3) return reads({{"c3", "read_file", json{{"path", "a.c"}}}});
    return answer(R"({"summary":"Fine.","findings":[],"verdict":"APPROVE"})");
  });
  CountingReads tools(20000);
  ModelRequest first;
  first.messages.push_back({Role::User, "<diff>\n</diff>", {}, {}});
  runAttempts(model, first, {2, 10, 9000}, &tools, CancelToken());
  EXPECT_EQ(tools.ran, (std::vector<std::string>{"a.c", "b.c", "a.c"}));
}

// A result pointed at, then shortened by the fit of a later call: the pointer
// says so rather than "unchanged" (the model would look for what is gone).
TEST(AttemptLoop, APointerAtAResultShortenedSinceSaysSo) {
  Scripted model([](std::size_t n) {
    if (n == 1) return reads({{"c1", "read_file", json{{"path", "a.c"}}}});
    if (n == 2) return reads({{"c2", "read_file", json{{"path", "a.c"}}}, {"c3", "read_file", json{{"path", "b.c"}}}});
    return answer(R"({"summary":"Fine.","findings":[],"verdict":"APPROVE"})");
  });
  CountingReads tools(20000);
  ModelRequest first;
  first.messages.push_back({Role::User, "<diff>\n</diff>", {}, {}});
  runAttempts(model, first, {2, 10, 9000}, &tools, CancelToken());
  ASSERT_EQ(model.sent.size(), 3u);
  std::string pointer;
  for (const auto& m : model.sent[2].messages)
    for (const auto& t : m.toolResults)
      if (t.callId == "c2") pointer = t.content;
  EXPECT_EQ(pointer, R"(This is the same call as one above (read_file {"path":"a.c"}), whose result was shortened since to keep )"
                     "the request within max_input_tokens: call it again, asking for less, if you need it.");
}

TEST(AttemptLoop, WithoutToolsNoCallIsMarkedBudgetSpent) {
  Scripted model = oneToolThenAnswer();
  model.sent.push_back({});  // skip the tool call: answer at once
  ModelRequest first;
  first.messages.push_back({Role::User, "<diff>\n</diff>", {}, {}});
  runAttempts(model, first, {2, 5, 0}, nullptr, CancelToken());
  ASSERT_EQ(model.sent.size(), 2u);
  EXPECT_FALSE(model.sent[1].toolBudgetSpent);
  EXPECT_EQ(model.sent[1].inputTokenBudget, 0);
}

// The retry of an answer that failed the contract is marked (Ollama sends
// `format` then): a small model that answered in prose with tools offered, and
// so without `format`, was retried without it and failed again.
TEST(AttemptLoop, TheRetryOfAnAnswerThatFailedTheContractIsMarked) {
  Scripted model([](std::size_t n) {
    return answer(n == 1 ? "The change looks fine to me." : R"({"summary":"Fine.","findings":[],"verdict":"APPROVE"})");
  });
  OneTool tools;
  ModelRequest first;
  first.messages.push_back({Role::User, "<diff>\n</diff>", {}, {}});
  runAttempts(model, first, {2, 5, 0}, &tools, CancelToken());
  ASSERT_EQ(model.sent.size(), 2u);
  EXPECT_FALSE(model.sent[0].contractRetry);
  EXPECT_TRUE(model.sent[1].contractRetry);
  EXPECT_FALSE(model.sent[1].toolBudgetSpent);
  EXPECT_EQ(model.sent[1].tools.size(), 1u) << "the tools stay listed";
}

// The ContractFailure a conversation over an empty diff ends with (a failed
// test, and an empty failure, when it answers instead).
ContractFailure contractFailure(Provider& model, ToolExecutor* tools, const AttemptOptions& options) {
  ModelRequest first;
  first.messages.push_back({Role::User, "<diff>\n</diff>", {}, {}});
  try {
    runAttempts(model, first, options, tools, CancelToken());
  } catch (const ContractFailure& e) {
    return e;
  }
  ADD_FAILURE() << "no answer, yet no failure";
  return ContractFailure("");
}

// An answer in prose names the setting to change: structured_output "prompt"
// where a server took the schema and held the answer to nothing; but where the
// schema was only in the prompt already, that advice was what the user had done
// (a helper followed it, and nothing changed): the model is what to change.
// An answer past the 1 MiB revline reads of one was cut there: "did not fit the
// model's output limit" blamed the model for revline's own cut.
TEST(AttemptLoop, AnAnswerLongerThanRevlineReadsSaysSo) {
  Scripted model([](std::size_t) {
    return answer(R"({"summary":")" + std::string(1100000, 's') + R"(","findings":[],"verdict":"APPROVE"})");
  });
  const ContractFailure e = contractFailure(model, nullptr, {2, 0, 0});
  EXPECT_NE(std::string(e.what()).find("The answer is longer than the 1 MiB revline reads of one"), std::string::npos)
      << e.what();
  EXPECT_EQ(std::string(e.what()).find("did not fit the model's output limit"), std::string::npos) << e.what();
}

TEST(AttemptLoop, AnAnswerInProseNamesWhatToChangeAsItWasAsked) {
  for (const bool inPrompt : {false, true}) {
    Scripted model([inPrompt](std::size_t) {
      ModelResponse r = answer("The change looks fine to me.");
      r.schemaOnlyInPrompt = inPrompt;
      return r;
    });
    const std::string said = contractFailure(model, nullptr, {2, 0, 0}).what();
    const std::string promptAdvice = "needs \"structured_output\": \"prompt\"";
    if (inPrompt) {
      EXPECT_EQ(said.find(promptAdvice), std::string::npos) << said;
      EXPECT_NE(said.find("the prompt gave it the schema (structured_output \"prompt\": no server held the answer "
                          "to it): this model does not keep to the answer format"),
                std::string::npos)
          << said;
    } else {
      EXPECT_NE(said.find(promptAdvice), std::string::npos) << said;
    }
  }
}

// Asks for eight tools in every reply and never answers.
class ToolsForever : public Provider {
 public:
  int calls = 0;
  std::string name() const override { return "t"; }
  std::string model() const override { return "t1"; }
  ModelResponse complete(const ModelRequest&, const CancelToken&) override {
    ++calls;
    ModelResponse r;
    for (int i = 0; i < 8; ++i) r.toolCalls.push_back({"c" + std::to_string(i), "read_file", json{{"path", "a.c"}}});
    r.finish = FinishReason::ToolCalls;
    return r;
  }
};

// Once its budget is spent and it has been told, a model that only asks for
// more tools gets two more replies, not one per tool call of the budget
// (before: 44 calls for a budget of 40, every one re-sending the conversation).
TEST(AttemptLoop, AModelThatOnlyAsksForToolsPastItsBudgetIsStoppedSoon) {
  ToolsForever model;
  OneTool tools;
  const ContractFailure e = contractFailure(model, &tools, {2, 40, 0});
  EXPECT_NE(std::string(e.what()).find("kept calling tools after its budget of 40"), std::string::npos) << e.what();
  EXPECT_EQ(e.spent().toolCalls, 40);
  EXPECT_EQ(model.calls, 5 + 3) << "five replies to spend the 40 calls, two more refused, the third ends it";
}

// Writes its tool call into the text, as Qwen does on a vLLM started without
// --tool-call-parser: the server hands it back as content, not as a tool call.
class ToolCallAsText : public Provider {
 public:
  explicit ToolCallAsText(std::string text = "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.c\"}}\n</tool_call>")
      : text_(std::move(text)) {}
  std::vector<ModelRequest> sent;
  std::string name() const override { return "t"; }
  std::string model() const override { return "t1"; }
  ModelResponse complete(const ModelRequest& request, const CancelToken&) override {
    sent.push_back(request);
    ModelResponse r;
    r.text = text_;
    return r;
  }

 private:
  std::string text_;
};

// It ended "/summary is missing" twice, with no word of the tool call: the
// retry tells the model, and the failure names the server's setting.
TEST(AttemptLoop, AToolCallWrittenAsTextIsSaidToTheModelAndInTheFailure) {
  ToolCallAsText model;
  OneTool tools;
  std::string said = contractFailure(model, &tools, {2, 5, 0}).what();
  EXPECT_NE(said.find("a tool call written as text"), std::string::npos) << said;
  EXPECT_NE(said.find("--tool-call-parser"), std::string::npos) << said;
  EXPECT_NE(said.find("--max-tool-calls 0"), std::string::npos) << said;
  ASSERT_EQ(model.sent.size(), 2u);
  EXPECT_NE(model.sent[1].messages.back().text.find("Your reply wrote a tool call as text, which is not run"),
            std::string::npos)
      << model.sent[1].messages.back().text;

  // No tools offered (max_tool_calls 0): neither the model nor the user is told to use or turn off tools.
  ToolCallAsText toolless;
  said = contractFailure(toolless, nullptr, {2, 0, 0}).what();
  EXPECT_NE(said.find("though no tools were offered"), std::string::npos) << said;
  EXPECT_EQ(said.find("--max-tool-calls 0"), std::string::npos) << said;
  ASSERT_EQ(toolless.sent.size(), 2u);
  EXPECT_NE(toolless.sent[1].messages.back().text.find("no tools are offered in this review"), std::string::npos);
  // Prose that only names the tag is no tool call; Llama's <function=...> form is.
  for (const auto& [text, isCall] : std::vector<std::pair<std::string, bool>>{
           {"I did not use `<tool_call>` tags; the change is fine.", false},
           {"<function=read_file>{\"path\": \"a.c\"}</function>", true}}) {
    ToolCallAsText writer(text);
    said = contractFailure(writer, &tools, {2, 5, 0}).what();
    EXPECT_EQ(said.find("tool call written as text") != std::string::npos, isCall) << said;
    // Prose: nothing held the model to the schema, and the failure says which setting does.
    EXPECT_EQ(said.find("\"structured_output\": \"prompt\"") != std::string::npos, !isCall) << said;
  }
}

}  // namespace
}  // namespace revline::review
