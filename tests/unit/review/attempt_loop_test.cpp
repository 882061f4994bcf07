// What the attempt loop tells a provider's wire format about each call: whether
// the tool budget is spent (Ollama then enforces the schema) and the budget the
// request was fitted to (Ollama sizes its window from it), with the same tools
// listed in every call.
#include "core/review/attempt_loop.h"

#include <gtest/gtest.h>

namespace revline::review {
namespace {

// Calls one tool, then answers; records what each call was sent.
class OneToolThenAnswer : public Provider {
 public:
  std::vector<ModelRequest> sent;
  std::string name() const override { return "t"; }
  std::string model() const override { return "t1"; }
  ModelResponse complete(const ModelRequest& request, const CancelToken&) override {
    sent.push_back(request);
    ModelResponse r;
    if (sent.size() == 1) {
      r.toolCalls.push_back({"c1", "read_file", json{{"path", "a.c"}}});
      r.finish = FinishReason::ToolCalls;
    } else {
      r.text = R"({"summary":"Fine.","findings":[],"verdict":"APPROVE"})";
    }
    return r;
  }
};

class OneTool : public ToolExecutor {
 public:
  std::vector<ToolSpec> specs() const override { return {{"read_file", "Reads a file.", json{{"type", "object"}}}}; }
  ToolResult execute(const ToolCall& call, const CancelToken&) override { return {call.id, call.name, true, "int a;"}; }
};

TEST(AttemptLoop, TheCallAfterTheLastToolCallIsMarkedBudgetSpentAndKeepsTheTools) {
  OneToolThenAnswer model;
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

TEST(AttemptLoop, WithoutToolsNoCallIsMarkedBudgetSpent) {
  OneToolThenAnswer model;
  model.sent.push_back({});  // skip the tool call: answer at once
  ModelRequest first;
  first.messages.push_back({Role::User, "<diff>\n</diff>", {}, {}});
  runAttempts(model, first, {2, 5, 0}, nullptr, CancelToken());
  ASSERT_EQ(model.sent.size(), 2u);
  EXPECT_FALSE(model.sent[1].toolBudgetSpent);
  EXPECT_EQ(model.sent[1].inputTokenBudget, 0);
}

}  // namespace
}  // namespace revline::review
