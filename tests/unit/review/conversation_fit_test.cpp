// Every call of a review's conversation within max_input_tokens: the later
// turns are shortened, oldest first, and the prefix (system prompt, diff
// message) never changes; a conversation that cannot fit is a clear error.
// Also: a failed conversation still reports what it spent.
#include "core/review/conversation_fit.h"

#include <gtest/gtest.h>

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
  }
}

// A model that first answers 60 KB of prose, then a valid report; records what it was sent.
class Rambler : public Provider {
 public:
  std::vector<ModelRequest> sent;
  bool alwaysBroken = false;
  std::string name() const override { return "rambler"; }
  std::string model() const override { return "r1"; }
  ModelResponse complete(const ModelRequest& request, const CancelToken&) override {
    sent.push_back(request);
    ModelResponse r;
    r.text = sent.size() == 1 || alwaysBroken ? "Let me think. " + std::string(60000, 'z') : kValid;
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

}  // namespace
}  // namespace revline::review
