// A review split into several requests by the token budget reports each
// request done through $/progress ("N of M requests done, T tokens so far"),
// after the client accepted the progress token.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <condition_variable>
#include <thread>
#include <mutex>

#include "lsp/progress.h"
#include "lsp/protocol.h"
#include "tests/support/temp_repo.h"
#include "tests/unit/lsp/lsp_client.h"

namespace revline::lsp {
namespace {

using revline::testing::TempRepo;
using testing::LspClient;

// Opens when the test has seen the progress begin: no request is answered before.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  void release() {
    std::lock_guard<std::mutex> lock(mu);
    open = true;
    cv.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait_for(lock, std::chrono::seconds(10), [&] { return open; });
  }
};

class GatedProvider : public review::Provider {
 public:
  explicit GatedProvider(Gate& gate) : gate_(gate) {}
  std::string name() const override { return "gated"; }
  std::string model() const override { return "m1"; }
  review::ModelResponse complete(const review::ModelRequest&, const CancelToken&) override {
    gate_.wait();
    review::ModelResponse r;
    r.text = json{{"summary", "ok"}, {"verdict", "APPROVE"}, {"findings", json::array()}}.dump();
    r.usage.inputTokens = 1000;
    return r;
  }

 private:
  Gate& gate_;
};

// a.txt with 400 added lines: more than one request under a budget of 4,000 tokens.
std::pair<std::filesystem::path, std::string> fourHundredChangedLines(TempRepo& repo) {
  repo.write("a.txt", "start\n");
  repo.commitAll("init");
  std::string text = "start\n";
  for (int i = 0; i < 400; ++i) text += "a changed line of text number " + std::to_string(i) + "\n";
  repo.write("a.txt", text);
  const auto root = std::filesystem::canonical(repo.root());
  return {root, uriFromPath((root / "a.txt").string())};
}

// "Review this file now" for `uri`, its progress token accepted; the request's id.
int reviewFileNow(LspClient& c, const std::string& uri) {
  const int id = c.request("workspace/executeCommand",
                           {{"command", "revline.reviewFile"}, {"arguments", json::array({{{"uri", uri}}})}});
  c.acceptProgressCreate();
  return id;
}

TEST(ReviewProgress, ASplitReviewReportsEachRequestDone) {
  TempRepo repo;
  const auto made = fourHundredChangedLines(repo);  // not a structured binding: clang 14 cannot capture one
  const std::filesystem::path root = made.first;
  const std::string uri = made.second;

  Gate gate;
  ServerOptions options;
  options.providerFactory = [&gate](const config::Config&, const diff::Diff&, const std::filesystem::path&) {
    return std::make_unique<GatedProvider>(gate);
  };
  LspClient c(std::move(options));
  c.initialize(uriFromPath(root.string()),
               {{"max_input_tokens", 4000}, {"max_tool_calls", 0}, {"max_requests", 100}, {"debounce_ms", 0}},
               {{"window", {{"workDoneProgress", true}}}});
  const int id = reviewFileNow(c, uri);
  const auto progress = [&] { return c.notification("$/progress")["params"]["value"]; };
  EXPECT_EQ(progress()["kind"], "begin");
  gate.release();
  std::vector<json> reports;
  for (json v = progress(); v.value("kind", "") != "end" && !v.is_null(); v = progress()) reports.push_back(v);
  ASSERT_FALSE(reports.empty());
  const json& last = reports.back();
  const std::string message = last["message"].get<std::string>();
  EXPECT_NE(message.find(" requests done, "), std::string::npos) << message;
  EXPECT_EQ(last["percentage"], 100) << last.dump();
  // "N of N requests done, 1000*N tokens so far"
  const int total = std::stoi(message.substr(message.find(": ") + 2));
  EXPECT_GE(total, 2);
  EXPECT_NE(message.find(std::to_string(total) + " of " + std::to_string(total) + " requests done, " +
                         std::to_string(1000 * total) + " tokens so far"),
            std::string::npos)
      << message;
  EXPECT_EQ(c.reply(id)["result"]["verdict"], "APPROVE");
  c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(c.stop(), 0);
}

// A request that waits (a retry after no reply, a rate limit) says so in the
// review's progress: a slow or failing model is not one unchanging "reviewing".
class RetryingProvider : public review::Provider {
 public:
  std::string name() const override { return "retrying"; }
  std::string model() const override { return "m1"; }
  review::ModelResponse complete(const review::ModelRequest&, const CancelToken& cancel) override {
    cancel.notice("openai: no reply within 120 s; trying again in 1 s (try 2 of 3)");
    cancel.notice("");  // answered
    review::ModelResponse r;
    r.text = json{{"summary", "ok"}, {"verdict", "APPROVE"}, {"findings", json::array()}}.dump();
    r.usage.inputTokens = 1000;
    return r;
  }
};

TEST(ReviewProgress, WhatARequestWaitsForIsReported) {
  TempRepo repo;
  repo.write("a.txt", "start\n");
  repo.commitAll("init");
  repo.write("a.txt", "start\nchanged\n");
  const auto root = std::filesystem::canonical(repo.root());
  const std::string uri = uriFromPath((root / "a.txt").string());
  ServerOptions options;
  options.providerFactory = [](const config::Config&, const diff::Diff&, const std::filesystem::path&) {
    return std::make_unique<RetryingProvider>();
  };
  LspClient c(std::move(options));
  c.initialize(uriFromPath(root.string()), {{"debounce_ms", 0}}, {{"window", {{"workDoneProgress", true}}}});
  const int id = reviewFileNow(c, uri);
  std::vector<std::string> messages;
  for (json v; (v = c.notification("$/progress")["params"]["value"]).value("kind", "") != "end" && !v.is_null();)
    messages.push_back(v.value("message", ""));
  const auto waited = std::find(messages.begin(), messages.end(),
                                "reviewing a.txt: openai: no reply within 120 s; trying again in 1 s (try 2 of 3)");
  ASSERT_NE(waited, messages.end()) << json(messages).dump();
  // Once answered, the message is the review's again, not a wait that is over.
  ASSERT_NE(waited + 1, messages.end()) << json(messages).dump();
  EXPECT_EQ(*(waited + 1), "reviewing a.txt");
  EXPECT_EQ(c.reply(id)["result"]["verdict"], "APPROVE");
  c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(c.stop(), 0);
}

// A metered model whose calls (numbered from 1 over every provider a factory
// makes, through the shared `calls`) are answered by `answer`.
class NumberedCalls : public review::Provider {
 public:
  using Answer = std::function<review::ModelResponse(int call, const CancelToken&)>;
  NumberedCalls(std::shared_ptr<std::atomic<int>> calls, Answer answer) : calls_(std::move(calls)), answer_(std::move(answer)) {}
  std::string name() const override { return "numbered"; }
  std::string model() const override { return "m1"; }
  bool metered() const override { return true; }
  review::ModelResponse complete(const review::ModelRequest&, const CancelToken& cancel) override {
    return answer_(++*calls_, cancel);
  }

 private:
  std::shared_ptr<std::atomic<int>> calls_;
  Answer answer_;
};

ProviderFactory numberedCalls(NumberedCalls::Answer answer) {
  return [calls = std::make_shared<std::atomic<int>>(0), answer](const config::Config&, const diff::Diff&,
                                                                  const std::filesystem::path&) {
    return std::make_unique<NumberedCalls>(calls, answer);
  };
}

review::ModelResponse approving(std::int64_t inputTokens = 0, std::int64_t outputTokens = 0) {
  review::ModelResponse r;
  r.text = json{{"summary", "ok"}, {"verdict", "APPROVE"}, {"findings", json::array()}}.dump();
  r.usage.inputTokens = inputTokens;
  r.usage.outputTokens = outputTokens;
  return r;
}

// A split review's count while a request waits, and once the wait is over: the
// count stays (before, the message fell back to a bare "reviewing a.txt" and
// the percentage went); answers without token counts are "tokens unknown", not
// "0 tokens so far".
TEST(ReviewProgress, ASplitReviewKeepsItsCountThroughAWaitAndSaysUnknownTokens) {
  TempRepo repo;
  const auto made = fourHundredChangedLines(repo);
  const std::filesystem::path root = made.first;
  const std::string uri = made.second;
  ServerOptions options;
  // No token counts in any answer; the second request waits for a retry.
  options.providerFactory = numberedCalls([](int call, const CancelToken& cancel) {
    if (call == 2) {
      cancel.notice("countless: the server answered 500; trying again in 1 s");
      cancel.notice("");
    }
    return approving();
  });
  LspClient c(std::move(options));
  c.initialize(uriFromPath(root.string()),
               {{"max_input_tokens", 4000}, {"max_tool_calls", 0}, {"max_requests", 100}, {"max_parallel_requests", 1},
                {"debounce_ms", 0}},
               {{"window", {{"workDoneProgress", true}}}});
  const int id = reviewFileNow(c, uri);
  std::vector<json> reports;
  for (json v; (v = c.notification("$/progress")["params"]["value"]).value("kind", "") != "end" && !v.is_null();)
    reports.push_back(v);
  const auto waited = std::find_if(reports.begin(), reports.end(), [](const json& v) {
    return v.value("message", "").find("trying again") != std::string::npos;
  });
  ASSERT_NE(waited, reports.end()) << json(reports).dump();
  const std::string count = (*waited)["message"].get<std::string>();
  EXPECT_EQ(count.find("reviewing a.txt: 1 of "), 0u) << count;
  EXPECT_NE(count.find(" requests done, tokens unknown so far; countless: the server answered 500; trying again in 1 s"),
            std::string::npos) << count;
  EXPECT_TRUE(waited->contains("percentage")) << waited->dump();
  ASSERT_NE(waited + 1, reports.end());
  EXPECT_EQ((waited + 1)->value("message", ""), count.substr(0, count.find("; countless")));
  EXPECT_EQ(c.reply(id)["result"]["verdict"], "APPROVE");
  c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(c.stop(), 0);
}

class ApprovingProvider : public review::Provider {
 public:
  std::string name() const override { return "approving"; }
  std::string model() const override { return "m1"; }
  review::ModelResponse complete(const review::ModelRequest&, const CancelToken&) override {
    review::ModelResponse r;
    r.text = json{{"summary", "ok"}, {"verdict", "APPROVE"}, {"findings", json::array()}}.dump();
    r.usage.inputTokens = 1000;
    return r;
  }
};

// Every review's end says the session's total, also one that failed before it
// sent anything (before, "failed: REASON" alone, though the session had spent).
TEST(ReviewProgress, AReviewThatFailedBeforeItsFirstRequestStillSaysTheSessionsTotal) {
  TempRepo repo;
  repo.write("a.txt", "start\n");
  repo.commitAll("init");
  repo.write("a.txt", "start\nchanged\n");
  const std::filesystem::path root = std::filesystem::canonical(repo.root());
  const std::string uri = uriFromPath((root / "a.txt").string());
  ServerOptions options;
  // One answer, then the model cannot be reached: the second review sends nothing.
  options.providerFactory = numberedCalls([](int call, const CancelToken&) {
    if (call > 1) throw review::ProviderError(review::ProviderError::Kind::Network, "once: could not connect to 127.0.0.1:9");
    return approving(1000, 10);
  });
  LspClient c(std::move(options));
  c.initialize(uriFromPath(root.string()), {{"debounce_ms", 0}, {"max_tool_calls", 0}},
               {{"window", {{"workDoneProgress", true}}}});
  std::vector<std::string> ends;
  for (const char* text : {"start\nchanged\n", "start\nchanged again\n"}) {
    repo.write("a.txt", text);
    const int id = reviewFileNow(c, uri);
    ends.push_back(c.progressEnd().value("message", ""));
    c.reply(id);
  }
  c.allOf("textDocument/publishDiagnostics");
  EXPECT_NE(ends[0].find("(session: 1 model request"), std::string::npos) << ends[0];
  EXPECT_EQ(ends[1].rfind("failed: ", 0), 0u) << ends[1];
  EXPECT_NE(ends[1].find("is reachable and running; session: 1 model request, 1000 input tokens, 10 output tokens"),
            std::string::npos)
      << ends[1];
  EXPECT_EQ(c.stop(), 0);
}

// Prices set, changed or removed while the server runs: the session's cost
// says which requests and prices it covers (before: "cost 0.0409 at the
// configured prices" for one request of two, and old and new prices summed
// under the same words, even after the prices were removed).
TEST(ReviewProgress, TheSessionsCostSaysWhatItCovers) {
  TempRepo repo;
  repo.write("a.txt", "start\n");
  repo.commitAll("init");
  const std::filesystem::path root = std::filesystem::canonical(repo.root());
  const std::string uri = uriFromPath((root / "a.txt").string());
  ServerOptions options;
  options.sync = true;
  options.providerFactory = [](const config::Config&, const diff::Diff&, const std::filesystem::path&) {
    return std::make_unique<ApprovingProvider>();
  };
  LspClient c(std::move(options));
  c.initialize(uriFromPath(root.string()), {{"max_tool_calls", 0}});
  auto reviewWith = [&](const json& settings, int save) {
    c.notify("workspace/didChangeConfiguration", {{"settings", {{"revline", settings}}}});
    repo.write("a.txt", "start\nsave " + std::to_string(save) + "\n");
    c.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
    c.notification("textDocument/publishDiagnostics");
    return c.server().stats();
  };
  ServerStats s = reviewWith({{"max_tool_calls", 0}}, 1);
  EXPECT_EQ(s.sentence().find("cost"), std::string::npos) << s.sentence();  // no prices: no cost
  s = reviewWith({{"max_tool_calls", 0}, {"price_per_million_input", 2.0}}, 2);
  EXPECT_EQ(s.pricedRequests, 1);
  EXPECT_NE(s.sentence().find("2 model requests, 2000 input tokens, 0 output tokens; cost 0.0020 for the 1 of 2 "
                              "requests made while prices were configured"),
            std::string::npos)
      << s.sentence();
  const json stats = c.reply(c.request("revline/stats", json::object()))["result"];
  EXPECT_EQ(stats["usage"]["pricedRequests"], 1) << stats.dump();
  // The total covers the priced requests only: what the session spent is at least that.
  EXPECT_EQ(stats["usage"]["cost"]["lowerBound"], true) << stats.dump();
  s = reviewWith({{"max_tool_calls", 0}, {"price_per_million_input", 4.0}}, 3);
  EXPECT_NE(s.sentence().find("cost 0.0060 for the 2 of 3 requests made while prices were configured, each at the "
                              "prices of its time"),
            std::string::npos)
      << s.sentence();
  EXPECT_TRUE(s.pricesChanged);
  s = reviewWith({{"max_tool_calls", 0}}, 4);  // prices removed: the cost is still what the priced requests cost
  EXPECT_EQ(s.pricedRequests, 2);
  EXPECT_NE(s.sentence().find("4 model requests, 4000 input tokens"), std::string::npos) << s.sentence();
  EXPECT_NE(s.sentence().find("cost 0.0060 for the 2 of 4 requests made while prices were configured, each at the "
                              "prices of its time"),
            std::string::npos)
      << s.sentence();
  EXPECT_EQ(c.stop(), 0);
}

// A review the max_requests cap cut short says so in the editor (a warning naming
// what was left out, the coverage in the progress end and in the command's reply),
// once: the same save again does not repeat it; a complete review later is quiet.
TEST(ReviewProgress, APartlyReviewedFileSaysWhatWasNotReviewed) {
  TempRepo repo;
  const auto made = fourHundredChangedLines(repo);  // not a structured binding: clang 14 cannot capture one
  const std::filesystem::path root = made.first;
  const std::string uri = made.second;

  ServerOptions options;
  options.providerFactory = [](const config::Config&, const diff::Diff&, const std::filesystem::path&) {
    return std::make_unique<ApprovingProvider>();
  };
  LspClient c(std::move(options));
  c.initialize(uriFromPath(root.string()),
               {{"max_input_tokens", 4000}, {"max_tool_calls", 0}, {"max_requests", 1}, {"debounce_ms", 0}},
               {{"window", {{"workDoneProgress", true}}}});
  const auto reviewFile = [&] {
    const int id = reviewFileNow(c, uri);
    const std::string end = c.progressEnd().value("message", "");
    return std::pair(c.reply(id)["result"], end);
  };
  const auto [result, endMessage] = reviewFile();
  EXPECT_EQ(result["verdict"], "COMMENT") << result.dump();
  ASSERT_EQ(result["coverage"]["filesSkipped"].size(), 1u) << result.dump();
  EXPECT_EQ(result["coverage"]["filesSkipped"][0]["partial"], true);
  EXPECT_LT(result["coverage"]["linesReviewed"].get<int>(), result["coverage"]["linesTotal"].get<int>());
  EXPECT_NE(endMessage.find("reviewed 1 of 1 file, 1 of them partly ("), std::string::npos) << endMessage;
  const json warning = c.notification("window/showMessage");
  EXPECT_EQ(warning["params"]["type"], 2) << warning.dump();
  const std::string shown = warning["params"]["message"];
  EXPECT_NE(shown.find("part of the change was not reviewed"), std::string::npos) << shown;
  EXPECT_NE(shown.find("a.txt (partly reviewed): not reviewed: lines "), std::string::npos) << shown;
  EXPECT_NE(shown.find("past the max_requests cap of 1 request"), std::string::npos) << shown;
  c.notification("textDocument/publishDiagnostics");

  // The same again: no second warning.
  (void)reviewFile();
  c.notification("textDocument/publishDiagnostics");
  c.expectQuiet(std::chrono::milliseconds(200));
  EXPECT_EQ(c.stop(), 0);
}

// Answers the first call (of every instance: a split review makes one per request)
// at once and holds the others at the gate.
class FirstThenGated : public review::Provider {
 public:
  // `flag`: each answer has a finding on the first added line it was shown.
  FirstThenGated(Gate& gate, std::atomic<int>& calls, bool flag = false) : gate_(gate), calls_(calls), flag_(flag) {}
  std::string name() const override { return "gated"; }
  std::string model() const override { return "m1"; }
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken&) override {
    if (calls_++ > 0) gate_.wait();
    json findings = json::array();
    const std::string& text = request.messages.at(0).text;
    if (const auto added = text.find(" + a changed line"); flag_ && added != std::string::npos) {
      const auto lineStart = text.rfind('\n', added) + 1;
      findings.push_back({{"file", "a.txt"}, {"line", std::stoi(text.substr(lineStart, added - lineStart))},
                          {"endLine", nullptr}, {"severity", "MINOR"}, {"category", "STYLE"}, {"title", "Look"},
                          {"explanation", "Because."}, {"suggestedFix", nullptr}, {"edit", nullptr}, {"confidence", 0.9}});
    }
    review::ModelResponse r;
    r.text = json{{"summary", "ok"}, {"verdict", findings.empty() ? "APPROVE" : "COMMENT"}, {"findings", findings}}.dump();
    r.usage.inputTokens = 1000;
    r.usage.outputTokens = 10;
    return r;
  }

 private:
  Gate& gate_;
  std::atomic<int>& calls_;
  bool flag_;
};

// revline/stats is live during a review of several requests (it showed nothing
// until the last one answered), and the review's end counts nothing twice.
// fourHundredChangedLines reviewed one request at a time by FirstThenGated.
struct OneRequestAtATime : ::testing::Test {
  TempRepo repo;
  std::filesystem::path root;
  std::string uri;
  Gate gate;
  std::atomic<int> calls{0};
  bool flag = false;  // FirstThenGated's
  void SetUp() override {
    const auto made = fourHundredChangedLines(repo);
    root = made.first;
    uri = made.second;
  }
  ServerOptions options() {
    ServerOptions o;
    o.providerFactory = [this](const config::Config&, const diff::Diff&, const std::filesystem::path&) {
      return std::make_unique<FirstThenGated>(gate, calls, flag);
    };
    return o;
  }
  static json settings() {
    return {{"max_input_tokens", 4000}, {"max_tool_calls", 0}, {"max_requests", 100}, {"max_parallel_requests", 1},
            {"debounce_ms", 0}, {"price_per_million_input", 2.0}};
  }
};

TEST_F(OneRequestAtATime, TheSessionTotalsAreLiveDuringAReview) {
  LspClient c(options());
  c.initialize(uriFromPath(root.string()), settings());
  const int id = c.request("workspace/executeCommand",
                           {{"command", "revline.reviewFile"}, {"arguments", json::array({{{"uri", uri}}})}});
  const auto usage = [&c] { return c.reply(c.request("revline/stats", json::object()))["result"]["usage"]; };
  json live;
  for (int i = 0; i < 500 && (live = usage()).value("requests", 0) < 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(live["requests"], 1) << live.dump();
  EXPECT_EQ(live["inputTokens"], 1000) << live.dump();
  EXPECT_DOUBLE_EQ(live["cost"]["input"].get<double>(), 0.002) << live.dump();
  gate.release();
  EXPECT_EQ(c.reply(id)["result"]["verdict"], "APPROVE");
  const json end = usage();
  const int requests = end["requests"];
  EXPECT_GE(requests, 2);
  EXPECT_EQ(end["inputTokens"], 1000 * requests) << end.dump();
  EXPECT_EQ(end["outputTokens"], 10 * requests) << end.dump();
  c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(c.stop(), 0);
}

// A review cancelled after its model answered says at its end what it spent,
// as a finished one does (before: "cancelled", and revline/stats jumped); and
// what its answered requests found was paid for, and is shown at once, as a
// failed review's is (before, nothing until the next save).
TEST_F(OneRequestAtATime, ACancelledReviewSaysWhatItSpentAndShowsWhatItsAnsweredRequestsFound) {
  flag = true;
  LspClient c(options());
  c.initialize(uriFromPath(root.string()), settings(), {{"window", {{"workDoneProgress", true}}}});
  const int id = reviewFileNow(c, uri);
  for (int i = 0; i < 500 && calls.load() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_GE(calls.load(), 2) << "the second request never reached the model";
  c.notify("$/cancelRequest", {{"id", id}});
  // The server reads in order: once this is answered, the cancel was handled (else, on
  // a loaded machine, the released review could finish before the cancel is read).
  c.reply(c.request("revline/stats", json::object()));
  gate.release();
  EXPECT_EQ(c.reply(id)["error"]["code"], -32800);
  const std::string message = c.progressEnd().value("message", "");
  EXPECT_EQ(message.rfind("cancelled; ", 0), 0u) << message;
  EXPECT_NE(message.find(" model requests"), std::string::npos) << message;
  EXPECT_NE(message.find("(session: "), std::string::npos) << message;
  const json shown = c.notification("textDocument/publishDiagnostics")["params"];
  EXPECT_EQ(shown["uri"], uri);
  ASSERT_EQ(shown["diagnostics"].size(), 1u) << shown.dump();
  EXPECT_EQ(shown["diagnostics"][0]["range"]["start"]["line"], 1);  // the first added line, a.txt's line 2
  EXPECT_EQ(c.stop(), 0);
}

// "Review this file now" stopped by a newer one is answered ServerCancelled, not
// RequestCancelled: clients drop a RequestCancelled reply without telling the
// caller (Neovim 0.7), which is right only when the client cancelled it.
TEST_F(OneRequestAtATime, AReviewSupersededByANewerOneIsAnsweredServerCancelled) {
  LspClient c(options());
  c.initialize(uriFromPath(root.string()), settings());
  const json reviewFile = {{"command", "revline.reviewFile"}, {"arguments", json::array({{{"uri", uri}}})}};
  const int first = c.request("workspace/executeCommand", reviewFile);
  for (int i = 0; i < 500 && calls.load() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_GE(calls.load(), 2) << "the second request never reached the model";
  const int second = c.request("workspace/executeCommand", reviewFile);
  c.reply(c.request("revline/stats", json::object()));  // the second command was handled (read in order)
  gate.release();
  const json stopped = c.reply(first);
  EXPECT_EQ(stopped["error"]["code"], -32802) << stopped.dump();
  EXPECT_EQ(stopped["error"]["message"], "review cancelled");
  EXPECT_EQ(c.reply(second)["result"]["verdict"], "APPROVE");
  c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(c.stop(), 0);
}

// The first request of a split review answers with a finding on the first added
// line it was shown; every later one fails on the provider's side.
class AnswersOnceThenFails : public review::Provider {
 public:
  explicit AnswersOnceThenFails(std::atomic<int>& calls) : calls_(calls) {}
  std::string name() const override { return "once"; }
  std::string model() const override { return "m1"; }
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken&) override {
    if (calls_++ > 0) throw review::ProviderError(review::ProviderError::Kind::Server, "once: HTTP 503 overloaded");
    const std::string& diff = request.messages.front().text;
    const std::size_t plus = diff.find(" + ");  // "  12 + text": the first added line's number precedes it
    std::size_t start = diff.rfind('\n', plus) + 1;
    const int line = std::stoi(diff.substr(start, plus - start));
    review::ModelResponse r;
    r.text = json{{"summary", "one problem"},
                  {"verdict", "COMMENT"},
                  {"findings",
                   json::array({{{"file", "a.txt"}, {"line", line}, {"endLine", nullptr}, {"severity", "MINOR"},
                                 {"category", "MAINTAINABILITY"}, {"title", "Answered before the failure"},
                                 {"explanation", "Found by the request that was answered."}, {"suggestedFix", nullptr},
                                 {"edit", nullptr}, {"confidence", 0.8}}})}}
                 .dump();
    r.usage.inputTokens = 1000;
    return r;
  }

 private:
  std::atomic<int>& calls_;
};

// A split review whose second request fails shows what the first one found at
// once (it was paid for), and says so; before, the editor kept the last review's
// diagnostics until the next save. The next save sends only what was not answered.
TEST(ReviewProgress, ASplitReviewThatFailsPartwayShowsWhatWasAnswered) {
  TempRepo repo;
  const auto made = fourHundredChangedLines(repo);  // not a structured binding: clang 14 cannot capture one
  const std::filesystem::path root = made.first;
  const std::string uri = made.second;
  std::atomic<int> calls{0};
  ServerOptions options;
  options.providerFactory = [&calls](const config::Config&, const diff::Diff&, const std::filesystem::path&) {
    return std::make_unique<AnswersOnceThenFails>(calls);
  };
  LspClient c(std::move(options));
  c.initialize(uriFromPath(root.string()), {{"max_input_tokens", 4000}, {"max_tool_calls", 0}, {"max_requests", 100},
                                            {"max_parallel_requests", 1}, {"debounce_ms", 0}, {"max_attempts", 1}});
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
  SCOPED_TRACE("the save's diagnostics");
  const json published = c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(published["params"]["uri"], uri);
  ASSERT_EQ(published["params"]["diagnostics"].size(), 1u) << published.dump();
  EXPECT_NE(published["params"]["diagnostics"][0]["message"].get<std::string>().find("Answered before the failure"),
            std::string::npos)
      << published.dump();
  const json error = c.waitFor(
      [](const json& m) { return m.value("method", "") == "window/showMessage" && m["params"]["type"] == 1; },
      "the failure shown");
  const std::string message = error["params"]["message"];
  EXPECT_NE(message.find("HTTP 503 overloaded"), std::string::npos) << message;
  EXPECT_NE(message.find("The diagnostics shown are from the requests answered before the failure, and from earlier "
                         "reviews for the rest where there was one."), std::string::npos)
      << message;
  EXPECT_EQ(calls.load(), 2) << "one request answered, one failed, none started after the failure";

  // Closed and opened again (the client drops a buffer's diagnostics): shown again, nothing asked.
  SCOPED_TRACE("the reopen's diagnostics");
  c.notify("textDocument/didClose", {{"textDocument", {{"uri", uri}}}});
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "text"}, {"version", 1},
                                                      {"text", repo.read("a.txt")}}}});
  const json again = c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(again["params"]["diagnostics"], published["params"]["diagnostics"]) << again.dump();
  EXPECT_EQ(calls.load(), 2);
  EXPECT_EQ(c.stop(), 0);
}


// One finding on the first added line of every hunk it is shown, titled with the
// test's round; from the `failFrom`th call on (counted from 0), a provider failure.
class FindsEveryHunk : public review::Provider {
 public:
  FindsEveryHunk(std::atomic<int>& calls, std::atomic<int>& failFrom, std::atomic<int>& round)
      : calls_(calls), failFrom_(failFrom), round_(round) {}
  std::string name() const override { return "every-hunk"; }
  std::string model() const override { return "m1"; }
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken&) override {
    if (calls_++ >= failFrom_) throw review::ProviderError(review::ProviderError::Kind::Server, "every-hunk: HTTP 503");
    const std::string& diff = request.messages.front().text;
    json findings = json::array();
    for (std::size_t at = diff.find("\n@@ "); at != std::string::npos; at = diff.find("\n@@ ", at + 1)) {
      const std::size_t plus = diff.find(" + ", at);
      const std::size_t start = diff.rfind('\n', plus) + 1;
      findings.push_back({{"file", "a.txt"}, {"line", std::stoi(diff.substr(start, plus - start))}, {"endLine", nullptr},
                          {"severity", "MINOR"}, {"category", "MAINTAINABILITY"},
                          {"title", "review " + std::to_string(round_.load())}, {"explanation", "A second look."},
                          {"suggestedFix", nullptr}, {"edit", nullptr}, {"confidence", 0.8}});
    }
    review::ModelResponse r;
    r.text = json{{"summary", "ok"}, {"verdict", "COMMENT"}, {"findings", findings}}.dump();
    r.usage.inputTokens = 1000;
    return r;
  }

 private:
  std::atomic<int>&calls_, &failFrom_, &round_;
};

// "Review this file now" that fails partway: the requests answered show their new
// findings, the parts the failure kept it from reaching keep their last review's.
TEST(ReviewProgress, ReviewThisFileNowThatFailsPartwayKeepsTheRestsLastFindings) {
  TempRepo repo;
  const auto made = fourHundredChangedLines(repo);  // not a structured binding: clang 14 cannot capture one
  const std::filesystem::path root = made.first;
  const std::string uri = made.second;
  std::atomic<int> calls{0}, failFrom{1000}, round{1};
  ServerOptions options;
  options.providerFactory = [&](const config::Config&, const diff::Diff&, const std::filesystem::path&) {
    return std::make_unique<FindsEveryHunk>(calls, failFrom, round);
  };
  LspClient c(std::move(options));
  c.initialize(uriFromPath(root.string()), {{"max_input_tokens", 4000}, {"max_tool_calls", 0}, {"max_requests", 100},
                                            {"max_parallel_requests", 1}, {"debounce_ms", 0}, {"max_attempts", 1}});
  const auto titles = [](const json& published) {
    std::map<std::string, int> byTitle;
    for (const auto& d : published["params"]["diagnostics"]) {
      const std::string m = d["message"];
      ++byTitle[m.substr(0, m.find('\n'))];
    }
    return byTitle;
  };
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
  const std::map<std::string, int> first = titles(c.notification("textDocument/publishDiagnostics"));
  ASSERT_EQ(first.size(), 1u);
  const int hunks = first.begin()->second;
  const int requests = calls.load();
  ASSERT_GE(requests, 3) << "the change should take several requests";
  EXPECT_NE(first.begin()->first.find("review 1"), std::string::npos) << first.begin()->first;

  round = 2;
  failFrom = calls.load() + 1;  // the forced review's first request is answered, its second fails
  const int id = c.request("workspace/executeCommand",
                           {{"command", "revline.reviewFile"}, {"arguments", json::array({{{"uri", uri}}})}});
  const json failed = c.reply(id)["error"];
  EXPECT_EQ(failed["code"], -32803) << "the command reports the failure";
  const std::map<std::string, int> after = titles(c.notification("textDocument/publishDiagnostics"));
  int fresh = 0, earlier = 0;
  for (const auto& [title, n] : after) (title.find("review 2") != std::string::npos ? fresh : earlier) += n;
  EXPECT_GT(fresh, 0) << "the answered request's findings are shown";
  EXPECT_GT(earlier, 0) << "the parts not reached keep their last review's findings";
  EXPECT_EQ(fresh + earlier, hunks) << "every hunk shows one finding, new or kept";
  // Told in the command's error, which its client shows: not again in a message.
  const std::string message = failed["message"];
  EXPECT_NE(message.find("The diagnostics shown are from the requests answered before the failure, and from earlier "
                         "reviews for the rest where there was one."), std::string::npos)
      << message;

  // A save with no change asks no model and shows the same: the first review,
  // kept whole, no longer answers in place of what the forced one found.
  const int before = calls.load();
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
  EXPECT_EQ(titles(c.notification("textDocument/publishDiagnostics")), after);
  EXPECT_EQ(calls.load(), before);
  EXPECT_EQ(c.stop(), 0);
}

// A client that never answers window/workDoneProgress/create: what is kept of
// each request is bounded, the request ids as well as the tokens (the ids
// leaked one entry a review).
TEST(ProgressReporter, RequestsNeverAnsweredAreForgottenWithTheirTokens) {
  MemoryTransport transport;
  ProgressReporter progress(transport);
  for (int i = 0; i < 200; ++i)
    progress.create("token-" + std::to_string(i), "create-" + std::to_string(i), json{{"kind", "begin"}});
  EXPECT_FALSE(progress.onReply(json("create-0"), true)) << "the oldest is forgotten";
  EXPECT_TRUE(progress.onReply(json("create-199"), true));
}

}  // namespace
}  // namespace revline::lsp
