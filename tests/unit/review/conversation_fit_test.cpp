// Every call of a review's conversation within max_input_tokens: the later
// turns are shortened, oldest first, and the prefix (system prompt, diff
// message) never changes; a conversation that cannot fit is a clear error.
// Also: a failed conversation still reports what it spent.
#include "core/review/conversation_fit.h"

#include <gtest/gtest.h>

#include <set>

#include <functional>

#include "core/diff/diff.h"
#include "core/review/attempt_loop.h"
#include "core/review/pipeline.h"
#include "core/review/token_estimate.h"

namespace revline::review {
namespace {

const std::string kValid = R"({"summary":"Fine.","findings":[],"verdict":"APPROVE"})";

ModelRequest conversation() {
  ModelRequest r;
  r.system = std::string(3000, 's');
  r.messages.push_back({Role::User, "<diff>\n" + std::string(3000, 'd') + "\n</diff>", {}, {}});
  return r;
}

TEST(ConversationFit, NothingChangesUnderTheBudgetOrWithoutOne) {
  ModelRequest r = conversation();
  r.messages.push_back({Role::Assistant, std::string(30000, 'x'), {}, {}});
  const ModelRequest before = r;
  EXPECT_EQ(fitConversation(r, 0), 0);
  EXPECT_EQ(fitConversation(r, 100000), 0);
  EXPECT_EQ(r.messages[1].text, before.messages[1].text);
}

TEST(ConversationFit, ToolResultsGoFirstOldestFirstAndThePrefixIsKept) {
  ModelRequest r = conversation();
  for (int i = 0; i < 3; ++i) {
    r.messages.push_back({Role::Assistant, "", {{"c" + std::to_string(i), "read_file", json{{"path", "a"}}}}, {}});
    r.messages.push_back(
        {Role::Tool, "", {}, {{"c" + std::to_string(i), "read_file", true,
                               "<tool_result name=\"read_file\">\n" + std::string(6000, char('a' + i)) + "\n</tool_result>"}}});
  }
  const ModelRequest before = r;
  const std::int64_t budget = estimateTokens(before) - 1500;  // one result's worth too much
  EXPECT_EQ(fitConversation(r, budget), 1);
  EXPECT_LE(estimateTokens(r), budget);
  EXPECT_EQ(r.system, before.system);
  EXPECT_EQ(r.messages[0].text, before.messages[0].text);
  const std::string& first = r.messages[2].toolResults[0].content;
  EXPECT_NE(first.find("[cut by revline to keep the request within max_input_tokens"), std::string::npos);
  EXPECT_EQ(first.substr(first.size() - 15), "\n</tool_result>") << "the untrusted block stays closed";
  EXPECT_EQ(r.messages[4].toolResults[0].content, before.messages[4].toolResults[0].content) << "newer results kept";
  EXPECT_EQ(r.messages[6].toolResults[0].content, before.messages[6].toolResults[0].content);
}

TEST(ConversationFit, AnEchoedBrokenAnswerIsCutWhenTheResultsAreNotEnough) {
  ModelRequest r = conversation();
  r.messages.push_back({Role::Assistant, std::string(60000, 'x') + "\xc3\xa9", {}, {}});
  r.messages.push_back({Role::User, "Your answer was not JSON: fix it.", {}, {}});
  EXPECT_EQ(fitConversation(r, 4000), 1);
  EXPECT_LE(estimateTokens(r), 4000);
  EXPECT_LT(r.messages[1].text.size(), 1000u);
  EXPECT_EQ(r.messages[2].text, "Your answer was not JSON: fix it.") << "the feedback is what the retry needs";
}

// Many results each already short (max_tool_calls 15 under a small budget: each
// result capped near 512 bytes, too short to cut further) are dropped to a note,
// then whole rounds but the latest: the review goes on, where it failed after
// paying for three rounds.
TEST(ConversationFit, ManyShortToolResultsAreDroppedThenWholeRoundsButTheLatest) {
  ModelRequest r = conversation();
  for (int round = 0; round < 3; ++round) {
    Message call{Role::Assistant, "", {}, {}};
    Message results{Role::Tool, "", {}, {}};
    for (int k = 0; k < 5; ++k) {
      const std::string id = "c" + std::to_string(round) + std::to_string(k);
      call.toolCalls.push_back({id, "read_file", json{{"path", "f" + id}}});
      results.toolResults.push_back({id, "read_file", true,
                                     "<tool_result name=\"read_file\">\n" + std::string(480, 'r') + "\n</tool_result>"});
    }
    r.messages.push_back(std::move(call));
    r.messages.push_back(std::move(results));
  }
  const ModelRequest before = r;
  const std::int64_t prefix = estimateTokens(conversation());
  // Room for the prefix and a little: the short results must go.
  ModelRequest dropped = before;
  EXPECT_GT(fitConversation(dropped, prefix + 900), 0);
  EXPECT_LE(estimateTokens(dropped), prefix + 900);
  EXPECT_EQ(dropped.messages.size(), before.messages.size()) << "the results were enough";
  EXPECT_NE(dropped.messages[2].toolResults[0].content.find("[cut by revline"), std::string::npos);
  // Less room still: the older rounds go whole, the latest stays.
  ModelRequest rounds = before;
  EXPECT_GT(fitConversation(rounds, prefix + 400), 0);
  EXPECT_LE(estimateTokens(rounds), prefix + 400);
  ASSERT_EQ(rounds.messages.size(), 3u);
  EXPECT_EQ(rounds.messages[1].toolCalls[0].id, "c20") << "the latest round is kept";
  EXPECT_EQ(rounds.messages[2].toolResults.size(), 5u);
  EXPECT_EQ(rounds.messages[0].text, before.messages[0].text);
}

TEST(ConversationFit, AConversationThatCannotFitIsAClearError) {
  ModelRequest r = conversation();  // ~2,000 tokens of prefix alone
  try {
    fitConversation(r, 1000);
    ADD_FAILURE() << "must throw";
  } catch (const ProviderError& e) {
    EXPECT_EQ(e.kind(), ProviderError::Kind::Config);
    const std::string m = e.what();
    EXPECT_NE(m.find("max_input_tokens 1000"), std::string::npos) << m;
    EXPECT_NE(m.find("raise max_input_tokens"), std::string::npos) << m;
    // No tool turns to shorten: fewer tool calls would not help, so it is not advised.
    EXPECT_EQ(m.find("max_tool_calls"), std::string::npos) << m;
  }
  r.messages.push_back({Role::Assistant, "", {{"c1", "read_file", {{"path", "a"}}}}, {}});
  r.messages.push_back({Role::Tool, "", {}, {{"c1", "read_file", true, std::string(3000, 't')}}});
  r.messages.push_back({Role::User, "now answer", {}, {}});
  try {
    fitConversation(r, 1000);
    ADD_FAILURE() << "must throw";
  } catch (const ProviderError& e) {
    EXPECT_NE(std::string(e.what()).find("or lower max_tool_calls so fewer turns follow the diff"), std::string::npos)
        << e.what();
  }
}

// A model that first answers 60 KB of prose, then a valid report; records what it was sent.
class Rambler : public Provider {
 public:
  std::vector<ModelRequest> sent;
  bool alwaysBroken = false;
  std::size_t brokenAnswers = 1;  // the first ones
  std::string name() const override { return "rambler"; }
  std::string model() const override { return "r1"; }
  ModelResponse complete(const ModelRequest& request, const CancelToken&) override {
    sent.push_back(request);
    ModelResponse r;
    r.text = sent.size() <= brokenAnswers || alwaysBroken ? "Let me think. " + std::string(60000, 'z') : kValid;
    r.usage.inputTokens = 1000;
    r.usage.outputTokens = 50;
    return r;
  }
};

TEST(ConversationFit, TheContractRetryOfAHugeBrokenAnswerStaysWithinTheBudget) {
  Rambler model;
  ModelRequest first = conversation();
  first.schema = json{{"type", "object"}};
  const AttemptResult result = runAttempts(model, first, {2, 0, 6000}, nullptr, CancelToken());
  ASSERT_EQ(model.sent.size(), 2u);
  for (const auto& r : model.sent) {
    EXPECT_LE(estimateTokens(r), 6000);
    EXPECT_EQ(r.inputTokenBudget, 6000);
  }
  EXPECT_EQ(result.attempts, 2);
  ASSERT_FALSE(result.warnings.empty());
  EXPECT_NE(result.warnings.back().find("shortened to keep the request within max_input_tokens 6000"), std::string::npos);
  // A third call shortens the second answer as the second shortened the first: said once.
  Rambler twice;
  twice.brokenAnswers = 2;
  const AttemptResult third = runAttempts(twice, first, {3, 0, 6000}, nullptr, CancelToken());
  ASSERT_EQ(twice.sent.size(), 3u);
  const std::set<std::string> distinct(third.warnings.begin(), third.warnings.end());
  EXPECT_EQ(distinct.size(), third.warnings.size()) << ::testing::PrintToString(third.warnings);
  // Without a budget the retry echoes the whole answer, as before.
  Rambler unbounded;
  runAttempts(unbounded, first, {2, 0, 0}, nullptr, CancelToken());
  EXPECT_GT(estimateTokens(unbounded.sent[1]), 20000);
}

TEST(ConversationFit, AContractFailureCarriesWhatItsAttemptsSpent) {
  Rambler model;
  model.alwaysBroken = true;
  try {
    runAttempts(model, conversation(), {2, 0, 0}, nullptr, CancelToken());
    ADD_FAILURE() << "must fail the contract";
  } catch (const ContractFailure& e) {
    EXPECT_EQ(e.spent().requests, 2);
    EXPECT_EQ(e.spent().inputTokens, 2000);
    EXPECT_EQ(e.spent().outputTokens, 100);
    EXPECT_EQ(e.spent().toolCallBudget, 0) << "no tools offered";
  }
}

// The grounding feedback round lists the findings that could not be placed; with
// many of them it may not fit the budget. The first answer, valid and grounded,
// is then the review's: the round is not sent, and the review does not fail.
TEST(ConversationFit, AGroundingRoundThatCannotFitKeepsTheFirstAnswer) {
  const diff::Diff change = diff::parse(
      "diff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1,2 +1,2 @@\n int a;\n-int b;\n+int b = 1;\n");
  json findings = json::array();
  auto finding = [](int line, const std::string& title) {
    return json{{"file", "a.c"}, {"line", line}, {"endLine", nullptr}, {"severity", "MINOR"},
                {"category", "CORRECTNESS"}, {"title", title}, {"explanation", "Because."},
                {"suggestedFix", nullptr}, {"edit", nullptr}, {"confidence", 0.8}};
  };
  findings.push_back(finding(2, "Placed"));
  for (int i = 0; i < 60; ++i) findings.push_back(finding(500 + i, "Not in the diff, number " + std::to_string(i)));
  class OneAnswer : public Provider {
   public:
    explicit OneAnswer(std::string text) : text_(std::move(text)) {}
    int calls = 0;
    std::string name() const override { return "one"; }
    std::string model() const override { return "o1"; }
    ModelResponse complete(const ModelRequest&, const CancelToken&) override {
      ++calls;
      ModelResponse r;
      r.text = text_;
      r.usage.inputTokens = 10;
      return r;
    }

   private:
    std::string text_;
  } model(json{{"summary", "One real, sixty misplaced."}, {"findings", findings}, {"verdict", "COMMENT"}}.dump());
  ReviewOptions options;
  const std::int64_t first = estimateTokens(firstRequest(change, model, options, nullptr));
  options.inputTokenBudget = first + 1500;  // room for the answer (cut if need be), not for sixty reasons
  const ReviewOutcome outcome = runReview(change, model, options, nullptr, CancelToken());
  EXPECT_EQ(model.calls, 1) << "the round that cannot fit is not sent";
  ASSERT_EQ(outcome.findings.size(), 1u);
  EXPECT_EQ(outcome.findings[0].finding.title, "Placed");
  EXPECT_EQ(outcome.rejected.size(), 60u);
  bool warned = false;
  for (const auto& w : outcome.warnings) warned |= w.find("the grounding feedback round was not sent") != std::string::npos;
  EXPECT_TRUE(warned);
  // With room for the round, it is sent.
  OneAnswer roomy(json{{"summary", "s"}, {"findings", findings}, {"verdict", "COMMENT"}}.dump());
  options.inputTokenBudget = 0;
  runReview(change, roomy, options, nullptr, CancelToken());
  EXPECT_EQ(roomy.calls, 2);
}

// One changed line of a.c (line 2), and a finding of the contract on `line`.
diff::Diff oneChangedLine() {
  return diff::parse("diff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1,2 +1,2 @@\n int a;\n-int b;\n+int b = 1;\n");
}
json findingOn(int line, const char* severity = "MINOR") {
  return json{{"file", "a.c"}, {"line", line}, {"endLine", nullptr}, {"severity", severity},
              {"category", "CORRECTNESS"}, {"title", "T"}, {"explanation", "Because."},
              {"suggestedFix", nullptr}, {"edit", nullptr}, {"confidence", 0.9}};
}

// A model whose first answer is `first` (10 input tokens), and whose later
// calls (numbered from 2) answer as `then` says.
class FirstAnswerThen : public Provider {
 public:
  FirstAnswerThen(std::string first, std::function<ModelResponse(int call)> then)
      : first_(std::move(first)), then_(std::move(then)) {}
  int calls = 0;
  std::string name() const override { return "script"; }
  std::string model() const override { return "s1"; }
  ModelResponse complete(const ModelRequest&, const CancelToken&) override {
    if (++calls > 1) return then_(calls);
    ModelResponse r;
    r.usage.inputTokens = 10;
    r.text = first_;
    return r;
  }

 private:
  std::string first_;
  std::function<ModelResponse(int)> then_;
};

// A provider failing in the grounding round (HTTP 503 after the first answer
// was good) keeps the first answer instead of failing a review already paid for.
TEST(ConversationFit, AProviderFailureInTheGroundingRoundKeepsTheFirstAnswer) {
  FirstAnswerThen model(
      json{{"summary", "s"}, {"findings", {findingOn(2), findingOn(900, "MAJOR")}}, {"verdict", "REQUEST_CHANGES"}}.dump(),
      [](int) -> ModelResponse { throw ProviderError(ProviderError::Kind::Server, "openai: server error HTTP 503"); });
  const ReviewOutcome outcome = runReview(oneChangedLine(), model, ReviewOptions{}, nullptr, CancelToken());
  EXPECT_EQ(model.calls, 2);
  ASSERT_EQ(outcome.findings.size(), 1u);
  EXPECT_EQ(outcome.findings[0].finding.line, 2);
  EXPECT_EQ(outcome.unplacedBlocking, 1);
  EXPECT_NE(outcome.verdict, contract::Verdict::Approve);
  ASSERT_EQ(outcome.warnings.size(), 1u);
  EXPECT_NE(outcome.warnings[0].find("the grounding feedback round failed; the first answer is kept: openai: server error HTTP 503"),
            std::string::npos);
  EXPECT_FALSE(outcome.groundingRetry) << "no \"0 placed on the second answer\": there was none";
}

// A grounding round that calls a tool and then fails the contract: the first
// answer is kept, and the round's tool call is counted with its tokens.
TEST(ConversationFit, AFailedGroundingRoundStillCountsItsToolCalls) {
  // One placed finding, one misplaced: the grounding round follows.
  FirstAnswerThen model(json{{"summary", "s"}, {"findings", {findingOn(2), findingOn(900)}}, {"verdict", "COMMENT"}}.dump(),
                        [](int call) {
                          ModelResponse r;
                          r.usage.inputTokens = 10;
                          if (call == 2) {
                            r.toolCalls.push_back({"c1", "read_file", json{{"path", "a.c"}}});  // the round asks for a file
                            r.finish = FinishReason::ToolCalls;
                          } else {
                            r.text = "No JSON here.";  // and then breaks the contract
                          }
                          return r;
                        });
  class OneTool : public ToolExecutor {
   public:
    std::vector<ToolSpec> specs() const override { return {{"read_file", "Reads a file.", json{{"type", "object"}}}}; }
    ToolResult execute(const ToolCall& call, const CancelToken&) override { return {call.id, call.name, true, "int a;"}; }
  } tools;
  ReviewOptions options;
  const ReviewOutcome outcome = runReview(oneChangedLine(), model, options, &tools, CancelToken());
  EXPECT_EQ(model.calls, 3);
  EXPECT_EQ(outcome.findings.size(), 1u) << "the first answer is kept";
  EXPECT_EQ(outcome.toolCalls, 1) << "the failed round's tool call was served";
  EXPECT_EQ(outcome.usage.toolCalls, 1);
  EXPECT_EQ(outcome.usage.requests, 3);
  EXPECT_EQ(outcome.usage.inputTokens, 30);
}

}  // namespace
}  // namespace revline::review
