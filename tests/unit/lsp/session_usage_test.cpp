// The language server's running totals of what the session's reviews spent:
// revline/stats "usage" (requests, tokens, cached tokens, tool calls, and the
// cost when the model's prices are configured) and the review's progress text.
#include <gtest/gtest.h>

#include "lsp/protocol.h"
#include "tests/support/temp_repo.h"
#include "tests/unit/lsp/lsp_client.h"

namespace revline::lsp {
namespace {

using revline::testing::TempRepo;
using testing::LspClient;

// Answers every review at once with one finding and a fixed usage.
// With `broken`, every answer is prose, so the review fails the contract after
// its attempts, which were still paid for. `unanswered`: tries the transport
// sent and gave up on first (no reply in time), then fails when `timedOut`.
class MeteredProvider : public review::Provider {
 public:
  explicit MeteredProvider(bool broken = false, int unanswered = 0, bool timedOut = false)
      : broken_(broken), unanswered_(unanswered), timedOut_(timedOut) {}
  std::string name() const override { return "metered"; }
  std::string model() const override { return "m1"; }
  bool metered() const override { return true; }
  review::ModelResponse complete(const review::ModelRequest&, const CancelToken&) override {
    if (timedOut_) {
      review::ProviderError e(review::ProviderError::Kind::Timeout, "metered: no reply within 1 s (after 3 tries)");
      e.setUnanswered(unanswered_);
      throw e;
    }
    review::ModelResponse r;
    r.unanswered = unanswered_;
    r.text = broken_ ? "I looked at it and it seems fine to me." : json{{"summary", "s"},
                  {"verdict", "COMMENT"},
                  {"findings",
                   {{{"file", "a.txt"}, {"line", 1}, {"endLine", nullptr}, {"severity", "MINOR"}, {"category", "STYLE"},
                     {"title", "Scripted finding"}, {"explanation", "Because."}, {"suggestedFix", nullptr},
                     {"edit", nullptr}, {"confidence", 0.9}}}}}
                 .dump();
    r.usage.inputTokens = 1000;
    r.usage.cachedInputTokens = 600;
    r.usage.outputTokens = 100;
    return r;
  }

 private:
  bool broken_;
  int unanswered_;
  bool timedOut_;
};

struct SessionUsage : ::testing::Test {
  TempRepo repo;
  std::string uri;
  void SetUp() override {
    repo.write("a.txt", "one\ntwo\n");
    repo.commitAll("init");
    uri = uriFromPath((std::filesystem::canonical(repo.root()) / "a.txt").string());
  }
  std::string rootUri() { return uriFromPath(std::filesystem::canonical(repo.root()).string()); }
  ServerOptions options(bool broken = false, int unanswered = 0, bool timedOut = false) {
    ServerOptions o;
    o.sync = true;
    o.providerFactory = [=](const config::Config&, const diff::Diff&, const std::filesystem::path&) {
      return std::make_unique<MeteredProvider>(broken, unanswered, timedOut);
    };
    return o;
  }
  // A new change each time (no review-cache hit), saved and reviewed.
  void editAndSave(LspClient& c, int n) {
    repo.write("a.txt", "one changed " + std::to_string(n) + "\ntwo\n");
    c.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
    EXPECT_EQ(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].size(), 1u);
  }
  json stats(LspClient& c) { return c.reply(c.request("revline/stats", json::object()))["result"]; }
};

TEST_F(SessionUsage, StatsSumEveryReviewAndPriceThem) {
  LspClient c(options());
  c.initialize(rootUri(), {{"price_per_million_input", 2.0},
                           {"price_per_million_cached_input", 0.2},
                           {"price_per_million_output", 10.0},
                           {"max_tool_calls", 4}});
  editAndSave(c, 1);
  editAndSave(c, 2);
  const json usage = stats(c)["usage"];
  EXPECT_EQ(usage["requests"], 2);
  EXPECT_EQ(usage["inputTokens"], 2000);
  EXPECT_EQ(usage["cachedInputTokens"], 1200);
  EXPECT_EQ(usage["outputTokens"], 200);
  EXPECT_EQ(usage["toolCalls"], 0);
  EXPECT_EQ(usage["toolCallBudget"], 8) << "two reviews of 4 tool calls each";
  // Per review: 400 uncached * 2 + 600 cached * 0.2 = 920 per million input; 100 * 10 output.
  EXPECT_NEAR(usage["cost"]["input"].get<double>(), 2 * 920 / 1e6, 1e-12);
  EXPECT_NEAR(usage["cost"]["output"].get<double>(), 2 * 1000 / 1e6, 1e-12);
  EXPECT_NEAR(usage["cost"]["total"].get<double>(), 2 * 1920 / 1e6, 1e-12);

  // Saving again without a change is answered from the cache: nothing more spent.
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
  c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(stats(c)["usage"]["requests"], 2);
  EXPECT_EQ(c.stop(), 0);
}

// The end of a review answered from the cache says what it spent (nothing) and
// the session's total, as every review's end does: before, only "1 finding,
// verdict COMMENT", and the running total left the progress text.
TEST_F(SessionUsage, AReviewFromTheCacheEndsWithTheSessionsTotal) {
  LspClient c(options());
  c.initialize(rootUri(), json::object(), {{"window", {{"workDoneProgress", true}}}});
  auto saveAndEnd = [&] {
    c.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
    c.acceptProgressCreate();
    const json end = c.progressEnd();
    c.notification("textDocument/publishDiagnostics");
    return end.value("message", "");
  };
  repo.write("a.txt", "one changed\ntwo\n");
  EXPECT_NE(saveAndEnd().find("1 model request, 1000 input tokens"), std::string::npos);
  const std::string again = saveAndEnd();
  EXPECT_NE(again.find("1 finding, verdict COMMENT; 0 model requests: nothing was sent"), std::string::npos) << again;
  EXPECT_NE(again.find("(session: 1 model request"), std::string::npos) << again;
  EXPECT_EQ(c.stop(), 0);
  // A new session whose first review comes from the cache has spent nothing: no empty "(session: )".
  LspClient next(options());
  next.initialize(rootUri(), json::object(), {{"window", {{"workDoneProgress", true}}}});
  next.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
  next.acceptProgressCreate();
  const std::string first = next.progressEnd().value("message", "");
  next.notification("textDocument/publishDiagnostics");
  EXPECT_NE(first.find("nothing was sent"), std::string::npos) << first;
  EXPECT_EQ(first.find("(session:"), std::string::npos) << first;
  EXPECT_EQ(next.stop(), 0);
}

TEST_F(SessionUsage, NoPriceNoCost) {
  LspClient c(options());
  c.initialize(rootUri());
  editAndSave(c, 1);
  const json usage = stats(c)["usage"];
  EXPECT_EQ(usage["requests"], 1);
  EXPECT_EQ(usage["inputTokens"], 1000);
  EXPECT_FALSE(usage.contains("cost"));
  EXPECT_EQ(c.stop(), 0);
}

// A review that ends in a contract failure published nothing, but its two
// answers were billed: the session's totals say so.
TEST_F(SessionUsage, AFailedReviewStillCountsWhatItSpent) {
  LspClient c(options(/*broken=*/true));
  c.initialize(rootUri(), {{"price_per_million_input", 2.0}, {"price_per_million_output", 10.0}});
  repo.write("a.txt", "one changed\ntwo\n");
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
  EXPECT_NE(c.notification("window/showMessage")["params"]["message"].get<std::string>().find("did not meet the review contract"),
            std::string::npos);
  const json usage = stats(c)["usage"];
  EXPECT_EQ(usage["requests"], 2) << usage.dump();
  EXPECT_EQ(usage["inputTokens"], 2000);
  EXPECT_EQ(usage["outputTokens"], 200);
  EXPECT_NEAR(usage["cost"]["total"].get<double>(), (2000 * 2.0 + 200 * 10.0) / 1e6, 1e-12);
  EXPECT_EQ(stats(c)["providerCalls"], 2);
  EXPECT_EQ(c.stop(), 0);
}

// Tries the transport sent and gave up on (no reply within read_timeout_ms) may
// have been billed: they count as requests whose tokens no answer said, whether
// the call then failed or a later try was answered. Before, a save that timed
// out three times showed no spend at all.
TEST_F(SessionUsage, TriesGivenUpWithoutAnAnswerCountAsSpent) {
  {
    LspClient c(options(/*broken=*/false, /*unanswered=*/3, /*timedOut=*/true));
    c.initialize(rootUri());
    repo.write("a.txt", "one changed\ntwo\n");
    c.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
    EXPECT_NE(c.notification("window/showMessage")["params"]["message"].get<std::string>().find("no reply"),
              std::string::npos);
    const json usage = stats(c)["usage"];
    EXPECT_EQ(usage["requests"], 3) << usage.dump();
    EXPECT_EQ(usage["unreportedRequests"], 3) << usage.dump();
    EXPECT_EQ(c.stop(), 0);
  }
  LspClient c(options(/*broken=*/false, /*unanswered=*/1));
  c.initialize(rootUri());
  editAndSave(c, 2);
  const json usage = stats(c)["usage"];
  EXPECT_EQ(usage["requests"], 2) << "the try given up on, and the answered one: " << usage.dump();
  EXPECT_EQ(usage["unreportedRequests"], 1) << usage.dump();
  EXPECT_EQ(usage["inputTokens"], 1000);
  EXPECT_EQ(c.stop(), 0);
}

}  // namespace
}  // namespace revline::lsp
