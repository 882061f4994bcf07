// A review under a token budget, through ReviewService with an injected
// provider factory (a provider per request, each recording what it was sent):
// no request over the budget, every file sent or listed as skipped, findings of
// parallel requests merged and deduplicated, usage summed, a skipped part keeps
// the verdict from APPROVE, the max_requests cap skips visibly, cancellation.
#include "core/session/chunked_review.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>

#include "core/git/git.h"
#include "core/session/hunk_cache.h"
#include "core/review/token_estimate.h"
#include "tests/support/temp_repo.h"

namespace revline::session {
namespace {
namespace fs = std::filesystem;

const json kApprove = {{"summary", "Fine."}, {"verdict", "APPROVE"}, {"findings", json::array()}};

// What every provider of one review shares: the requests and how to answer.
struct Model {
  std::mutex mu;
  std::condition_variable changed;
  std::vector<review::ModelRequest> requests;
  std::function<json(const std::string& userText)> answer = [](const std::string&) { return kApprove; };
  int inFlight = 0, maxInFlight = 0;
  int awaitConcurrent = 0;  // > 0: calls wait (at most 5 s) until this many have been in flight at once
  std::function<void()> onCall;
  // When set, the raw text of every answer (e.g. prose first, then a report), instead of `answer`.
  std::function<std::string(const review::ModelRequest&)> reply;
  // When set and true for a call (given how many are in flight with it), the call is refused as a
  // provider's rate limit does once its transport has given up waiting (HTTP 429).
  std::function<bool(int inFlight, const review::ModelRequest&)> refuse;
  int refused = 0;
  // When set and true for a call, the call is rejected as a provider's content filter does (HTTP 400).
  std::function<bool(const review::ModelRequest&)> reject;
};

class RecordingProvider : public review::Provider {
 public:
  explicit RecordingProvider(Model& m) : m_(m) {}
  std::string name() const override { return "fake"; }
  std::string model() const override { return "fake-model"; }
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken&) override {
    std::unique_lock<std::mutex> lock(m_.mu);
    m_.requests.push_back(request);
    m_.maxInFlight = std::max(m_.maxInFlight, ++m_.inFlight);
    m_.changed.notify_all();
    if (m_.awaitConcurrent > 0)
      m_.changed.wait_for(lock, std::chrono::seconds(5), [&] { return m_.maxInFlight >= m_.awaitConcurrent; });
    if (m_.onCall) m_.onCall();
    if (m_.reject && m_.reject(request)) {
      --m_.inFlight;
      throw review::ProviderError(review::ProviderError::Kind::BadRequest,
                                  "fake rejected the request (HTTP 400): content filtered.");
    }
    if (m_.refuse && m_.refuse(m_.inFlight, request)) {
      --m_.inFlight;
      ++m_.refused;
      throw review::ProviderError(review::ProviderError::Kind::RateLimited,
                                  "fake: rate limited (HTTP 429: too many requests); try again later or lower the request rate.");
    }
    review::ModelResponse r;
    r.text = m_.reply ? m_.reply(request) : m_.answer(request.messages.at(0).text).dump();
    r.usage.inputTokens = 100;
    r.usage.outputTokens = 10;
    --m_.inFlight;
    return r;
  }

 private:
  Model& m_;
};

ProviderFactory factoryFor(Model& m) {
  return [&m](const config::Config&, const diff::Diff&, const fs::path&) { return std::make_unique<RecordingProvider>(m); };
}

std::string lines(const std::string& prefix, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += "int " + prefix + "_" + std::to_string(i) + "(int x) { return x * " + std::to_string(i) + "; }\n";
  return out;
}

// A repository whose working tree changes `files` files of ~40 lines each, in a few directories.
struct ManyFiles {
  testing::TempRepo repo;
  std::vector<std::string> paths;
  explicit ManyFiles(int files) {
    for (int i = 0; i < files; ++i) {
      paths.push_back("src/d" + std::to_string(i % 4) + "/file" + std::to_string(i) + ".c");
      repo.write(paths.back(), "// file " + std::to_string(i) + "\n");
    }
    repo.commitAll("init");
    for (int i = 0; i < files; ++i) repo.write(paths[i], "// file " + std::to_string(i) + "\n" + lines("f" + std::to_string(i), 40));
  }
  ReviewRequest request(config::Config config) const {
    return {diff::parse(git::diffText(repo.root(), {})), repo.root(), std::move(config), {}};
  }
};

// The paths of the "File: PATH (...)" headers of an annotated diff.
std::set<std::string> filesIn(const std::string& userText) {
  std::set<std::string> out;
  std::istringstream in(userText);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("File: ", 0) == 0) out.insert(line.substr(6, line.find(" (") - 6));
  return out;
}

config::Config budget(std::int64_t tokens) {
  config::Config c;
  c.maxInputTokens = tokens;
  return c;
}

// The error a review of ManyFiles(30) under an 8,000-token budget fails with,
// `parallel` requests at once; a Config error "the review did not fail" when it does not.
review::ProviderError failureOf(Model& m, int parallel) {
  ManyFiles f(30);
  config::Config c = budget(8000);
  c.maxParallelRequests = parallel;
  try {
    ReviewService(factoryFor(m)).review(f.request(c));
  } catch (const review::ProviderError& e) {
    return e;
  }
  return review::ProviderError(review::ProviderError::Kind::Config, "the review did not fail");
}

TEST(ChunkedReview, NoRequestIsOverTheBudgetAndTheRequestsCoverEveryFile) {
  ManyFiles f(30);
  Model m;
  const ReviewResult r = ReviewService(factoryFor(m)).review(f.request(budget(8000)));
  ASSERT_GT(m.requests.size(), 2u);
  std::set<std::string> sent;
  for (const auto& request : m.requests) {
    EXPECT_LE(review::estimateTokens(request), 8000);
    for (const auto& p : filesIn(request.messages[0].text)) EXPECT_TRUE(sent.insert(p).second) << p << " sent twice";
  }
  EXPECT_EQ(sent, std::set<std::string>(f.paths.begin(), f.paths.end()));
  EXPECT_TRUE(r.outcome.coverage.filesSkipped.empty());
  EXPECT_EQ(r.outcome.coverage.filesReviewed, 30);
  EXPECT_EQ(r.outcome.coverage.linesReviewed, r.outcome.coverage.linesTotal);
  EXPECT_EQ(r.outcome.verdict, contract::Verdict::Approve);
  ASSERT_TRUE(r.outcome.chunking);
  EXPECT_EQ(r.outcome.chunking->requests, static_cast<int>(m.requests.size()));
  EXPECT_LE(static_cast<double>(m.requests.size()), 1.3 * static_cast<double>(r.outcome.chunking->minimumRequests) + 1);
  // Usage is summed over the requests.
  EXPECT_EQ(r.outcome.usage.inputTokens, 100 * static_cast<std::int64_t>(m.requests.size()));
}

TEST(ChunkedReview, AChangeThatFitsIsOneRequestAsBefore) {
  ManyFiles f(3);
  Model m;
  const ReviewResult r = ReviewService(factoryFor(m)).review(f.request(budget(50000)));
  EXPECT_EQ(m.requests.size(), 1u);
  EXPECT_EQ(filesIn(m.requests[0].messages[0].text).size(), 3u);
  ASSERT_TRUE(r.outcome.chunking);
  EXPECT_EQ(r.outcome.chunking->requests, 1);
}

TEST(ChunkedReview, RequestsRunInParallelAndTheirFindingsAreMergedAndDeduplicated) {
  // One added file, too large for a request: its one hunk goes in pieces. The
  // same statement sits at line 50 and line 650, in different pieces; each
  // request finds it there, with the same id.
  testing::TempRepo repo;
  repo.write("README", "x\n");
  repo.commitAll("init");
  std::string text;
  for (int i = 1; i <= 700; ++i) text += i == 50 || i == 650 ? "  total += price * 2;\n" : "  step(" + std::to_string(i) + ");\n";
  repo.write("src/cart.c", text);
  Model m;
  m.awaitConcurrent = 2;
  m.answer = [](const std::string& user) {
    std::istringstream in(user);
    json findings = json::array();
    for (std::string line; std::getline(in, line);)
      if (line.find("+   total += price * 2;") != std::string::npos)
        findings.push_back({{"file", "src/cart.c"}, {"line", std::stoi(line)}, {"endLine", nullptr},
                            {"severity", "MAJOR"}, {"category", "CORRECTNESS"}, {"title", "Doubles the price"},
                            {"explanation", "The price is added twice."}, {"suggestedFix", nullptr},
                            {"edit", nullptr}, {"confidence", 0.9}});
    return json{{"summary", "Looked."}, {"verdict", findings.empty() ? "APPROVE" : "REQUEST_CHANGES"}, {"findings", findings}};
  };
  config::Config c = budget(6000);
  c.review.maxToolCalls = 0;
  const ReviewResult r = ReviewService(factoryFor(m)).review({diff::parse(git::diffText(repo.root(), {})), repo.root(), c, {}});
  ASSERT_GE(m.requests.size(), 2u);
  EXPECT_GE(m.maxInFlight, 2);  // two requests were in flight at once
  int withIt = 0;
  for (const auto& request : m.requests) {
    EXPECT_LE(review::estimateTokens(request), 6000);
    withIt += request.messages[0].text.find("+   total += price * 2;") != std::string::npos;
  }
  EXPECT_EQ(withIt, 2);
  // One id (it leaves the line out) on two lines is two findings: both are
  // published, as one request would, and a blocking one is never merged away.
  ASSERT_EQ(r.outcome.findings.size(), 2u);
  EXPECT_EQ(r.outcome.findings[0].id, r.outcome.findings[1].id);
  std::set<std::int64_t> at;
  for (const auto& f : r.outcome.findings) at.insert(f.finding.line);
  EXPECT_EQ(at, (std::set<std::int64_t>{50, 650}));
  EXPECT_EQ(r.outcome.verdict, contract::Verdict::RequestChanges);
  EXPECT_EQ(r.outcome.coverage.linesReviewed, 700);
  EXPECT_TRUE(r.outcome.coverage.filesSkipped.empty());
}

// A model reads another changed file with a tool and reports a problem there:
// the file is in another request of the same review. The finding is placed (on
// the whole change), once however many requests report it. Before, each request
// without that file rejected it as "not a file this diff changes" and counted it
// as a blocking finding that could not be placed.
TEST(ChunkedReview, AFindingOnAFileAnotherRequestHoldsIsPlacedOnce) {
  ManyFiles change(8);
  const std::string target = change.paths[0];
  Model m;
  m.answer = [&](const std::string&) {
    const json finding = {{"file", target}, {"line", 2}, {"endLine", nullptr}, {"severity", "MAJOR"},
                          {"category", "CORRECTNESS"}, {"title", "Multiplies by zero"},
                          {"explanation", "f0_0 returns 0 for every x."}, {"suggestedFix", nullptr},
                          {"edit", nullptr}, {"confidence", 0.9}};
    return json{{"summary", "Looked."}, {"verdict", "REQUEST_CHANGES"}, {"findings", json::array({finding})}};
  };
  config::Config c = budget(4000);
  c.review.maxToolCalls = 0;
  const ReviewResult r = ReviewService(factoryFor(m)).review(change.request(c));
  ASSERT_GE(m.requests.size(), 3u);
  int without = 0;
  for (const auto& request : m.requests) without += filesIn(request.messages[0].text).count(target) == 0;
  ASSERT_GE(without, 2) << "requests that do not hold the file";
  ASSERT_EQ(r.outcome.findings.size(), 1u);
  EXPECT_EQ(r.outcome.findings[0].finding.file, target);
  EXPECT_EQ(r.outcome.findings[0].finding.line, 2);
  EXPECT_TRUE(r.outcome.rejected.empty()) << r.outcome.rejected.front().reason;
  EXPECT_EQ(r.outcome.unplacedBlocking, 0);
  EXPECT_EQ(r.outcome.verdict, contract::Verdict::RequestChanges);
}

// The same finding from two requests (one holds the file, one read it with a
// tool) at two severities: the graver is kept, whichever request came first.
TEST(ChunkedReview, AFindingTwoRequestsReportIsKeptAtItsGravest) {
  ManyFiles change(8);
  const std::string target = change.paths[0];
  for (const bool holderSaysBlocker : {false, true}) {
    Model m;
    m.answer = [&](const std::string& user) {
      const bool holds = filesIn(user).count(target) > 0;
      const json finding = {{"file", target}, {"line", 2}, {"endLine", nullptr},
                            {"severity", holds == holderSaysBlocker ? "BLOCKER" : "MINOR"},
                            {"category", "CORRECTNESS"}, {"title", "Multiplies by zero"},
                            {"explanation", "f0_0 returns 0 for every x."}, {"suggestedFix", nullptr},
                            {"edit", nullptr}, {"confidence", 0.9}};
      return json{{"summary", "Looked."}, {"verdict", "COMMENT"}, {"findings", json::array({finding})}};
    };
    config::Config c = budget(4000);
    c.review.maxToolCalls = 0;
    const ReviewResult r = ReviewService(factoryFor(m)).review(change.request(c));
    ASSERT_GE(m.requests.size(), 3u);
    ASSERT_EQ(r.outcome.findings.size(), 1u);
    EXPECT_EQ(r.outcome.findings[0].finding.severity, contract::Severity::Blocker) << holderSaysBlocker;
    EXPECT_EQ(r.outcome.verdict, contract::Verdict::RequestChanges) << holderSaysBlocker;
  }
}

// One request asks for changes it shows no finding for: the review is not an
// approval, and it names that request's files (what the per-hunk cache must not
// keep), not the other requests'.
TEST(ChunkedReview, ARequestThatAsksForChangesItDoesNotShowNamesItsFiles) {
  ManyFiles change(8);
  const std::string target = change.paths[0];
  Model m;
  std::set<std::string> unsettled;
  m.answer = [&](const std::string& user) {
    const std::set<std::string> held = filesIn(user);
    if (held.count(target) == 0) return kApprove;
    unsettled = held;
    return json{{"summary", "Something is off."}, {"verdict", "REQUEST_CHANGES"}, {"findings", json::array()}};
  };
  config::Config c = budget(4000);
  c.review.maxToolCalls = 0;
  const ReviewResult r = ReviewService(factoryFor(m)).review(change.request(c));
  ASSERT_GE(m.requests.size(), 3u);
  ASSERT_TRUE(r.outcome.unsettledFiles.has_value());
  EXPECT_EQ(std::set<std::string>(r.outcome.unsettledFiles->begin(), r.outcome.unsettledFiles->end()), unsettled);
  EXPECT_LT(unsettled.size(), change.paths.size());
  EXPECT_NE(r.outcome.verdict, contract::Verdict::Approve);
}

// A finding no request can place (a file not in the change), given by every
// request: listed and counted once. Before, "5 blocking findings could not be
// placed" for one, and five identical rejections.
TEST(ChunkedReview, AFindingEveryRequestRejectsIsCountedOnce) {
  ManyFiles change(8);
  Model m;
  m.answer = [](const std::string&) {
    const json finding = {{"file", "src/elsewhere.c"}, {"line", 7}, {"endLine", nullptr}, {"severity", "MAJOR"},
                          {"category", "CORRECTNESS"}, {"title", "Frees twice"}, {"explanation", "Double free."},
                          {"suggestedFix", nullptr}, {"edit", nullptr}, {"confidence", 0.9}};
    return json{{"summary", "Looked."}, {"verdict", "REQUEST_CHANGES"}, {"findings", json::array({finding})}};
  };
  config::Config c = budget(4000);
  c.review.maxToolCalls = 0;
  const ReviewResult r = ReviewService(factoryFor(m)).review(change.request(c));
  ASSERT_GE(m.requests.size(), 3u);
  EXPECT_EQ(r.outcome.rejected.size(), 1u);
  EXPECT_EQ(r.outcome.unplacedBlocking, 1);
  EXPECT_EQ(r.outcome.verdict, contract::Verdict::Comment);
}

// Four hunks in one long function. Together they show the function once; when
// the budget puts them in different requests, each request shows the whole
// function again, and the plan must price them so: every request fits. A
// function too long for that is shown by its first line, and the review says so.
TEST(ChunkedReview, HunksOfOneLongFunctionSplitApartStillFitTheirRequests) {
  auto function = [](int lines, int addedPerHunk) {
    std::string out = "int process(struct item *p) {\n";
    for (int i = 0; i < lines; ++i) {
      if (addedPerHunk && i % (lines / 4) == 10)
        for (int k = 0; k < addedPerHunk; ++k)
          out += "  check_and_record_the_state_of_the_item_before_it_is_priced(p, " + std::to_string(i) + ", " +
                 std::to_string(k) + ", RECORD_ALL | RECORD_TIMESTAMPS | RECORD_CALLER);\n";
      out += "  p->field_" + std::to_string(i) + " = compute_value(p, " + std::to_string(i) + ");\n";
    }
    return out + "  return 0;\n}\n";
  };
  struct Case {
    int lines, addedPerHunk;  // the function stays within function_context_max_lines (200)
    std::int64_t tokens;
    std::size_t minRequests;
  };
  for (const Case& k : {Case{100, 24, 6500, 2}, Case{150, 1, 4000, 1}, Case{150, 1, 5000, 1}}) {
    testing::TempRepo repo;
    repo.write("src/process.c", function(k.lines, 0));
    repo.commitAll("init");
    repo.write("src/process.c", function(k.lines, k.addedPerHunk));
    const diff::Diff change = diff::parse(git::diffText(repo.root(), {}));
    ASSERT_EQ(change.files.at(0).hunks.size(), 4u);
    Model m;
    config::Config c = budget(k.tokens);
    c.review.maxToolCalls = 0;
    const ReviewResult r = ReviewService(factoryFor(m)).review({change, repo.root(), c, {}});
    ASSERT_GE(m.requests.size(), k.minRequests) << k.tokens;
    bool anyCut = false;
    for (const auto& request : m.requests) {
      EXPECT_LE(review::estimateTokens(request), k.tokens);
      const std::string& text = request.messages[0].text;
      EXPECT_NE(text.find("int process(struct item *p) {"), std::string::npos);  // its function, at least its first line
      anyCut |= text.find("p->field_" + std::to_string(k.lines - 1) + " ") == std::string::npos;
    }
    const bool said = std::any_of(r.outcome.warnings.begin(), r.outcome.warnings.end(), [](const std::string& w) {
      return w.find("shown by their first line only, to fit max_input_tokens") != std::string::npos;
    });
    EXPECT_EQ(said, anyCut) << k.tokens;  // a function shown cut is said
    EXPECT_EQ(r.outcome.coverage.linesReviewed, r.outcome.coverage.linesTotal) << k.tokens;
    EXPECT_TRUE(r.outcome.coverage.filesSkipped.empty()) << k.tokens;
  }
}

// A class of 45 short methods (pricing.py), before and after two lines are
// added to method 30: the class is longer than a request under 3,000 or 4,000
// tokens holds, the hunk is not.
std::pair<std::string, std::string> pricingClass() {
  std::string before = "class Pricing:\n    \"\"\"Prices of the catalogue.\"\"\"\n\n", after = before;
  for (int i = 0; i < 45; ++i) {
    const std::string def = "    def rule_" + std::to_string(i) + "(self, order):\n";
    const std::string body = "        return order.total * " + std::to_string(i) + " // 100 + self.base_fee_for(order, " +
                             std::to_string(i) + ")\n\n";
    before += def + body;
    after += def + (i == 30 ? "        if order.total < 0:\n            raise ValueError('negative total')\n" : "") + body;
  }
  return {before, after};
}

// Two lines added to a short method of a class longer than a request holds:
// the hunk is sent whole, once, with the class's first line (said in the
// warnings). Before, the 2-line hunk was cut into 1-line pieces that lost the
// class line, and under a smaller budget skipped as "line 99 needs ~586
// tokens": the class's size, not the hunk's.
TEST(ChunkedReview, AHunkWhoseFunctionIsLargerThanARequestIsSentWithItsFirstLine) {
  const auto pricing = pricingClass();
  for (const std::int64_t tokens : {4000, 3000}) {
    testing::TempRepo repo;
    repo.write("pricing.py", pricing.first);
    repo.commitAll("init");
    repo.write("pricing.py", pricing.second);
    Model m;
    config::Config c = budget(tokens);
    c.review.maxToolCalls = 0;
    const ReviewResult r =
        ReviewService(factoryFor(m)).review({diff::parse(git::diffText(repo.root(), {})), repo.root(), c, {}});
    ASSERT_EQ(m.requests.size(), 1u) << tokens;
    const std::string& text = m.requests[0].messages[0].text;
    EXPECT_LE(review::estimateTokens(m.requests[0]), tokens);
    EXPECT_NE(text.find(" : class Pricing:"), std::string::npos) << text;
    EXPECT_EQ(text.find("\n@@ "), text.rfind("\n@@ ")) << "the 2-line hunk was cut:\n" << text;
    EXPECT_NE(text.find("raise ValueError('negative total')"), std::string::npos) << text;
    EXPECT_TRUE(r.outcome.coverage.filesSkipped.empty()) << r.outcome.coverage.filesSkipped.at(0).reason;
    EXPECT_EQ(r.outcome.coverage.linesReviewed, 2);
    const bool said = std::any_of(r.outcome.warnings.begin(), r.outcome.warnings.end(), [](const std::string& w) {
      return w.find("first line only") != std::string::npos;
    });
    EXPECT_TRUE(said) << tokens;
  }
}

// Past max_requests, a hunk whose class does not fit a request whole is said
// past the cap, as it is, not "needs ~N tokens, more than one request holds":
// that told the user to raise max_input_tokens when the cap was the limit.
TEST(ChunkedReview, APartLeftOutByTheCapIsNeverBlamedOnItsSize) {
  testing::TempRepo repo;
  const auto pricing = pricingClass();
  repo.write("pricing.py", pricing.first);
  repo.write("notes.py", "NOTES = []\n");
  repo.commitAll("init");
  repo.write("pricing.py", pricing.second);
  repo.write("notes.py", "NOTES = []\nLIMIT = 10\n");
  Model m;
  config::Config c = budget(3000);
  c.review.maxToolCalls = 0;
  c.maxRequests = 1;
  const ReviewResult r =
      ReviewService(factoryFor(m)).review({diff::parse(git::diffText(repo.root(), {})), repo.root(), c, {}});
  ASSERT_EQ(m.requests.size(), 1u);
  for (const auto& skipped : r.outcome.coverage.filesSkipped) {
    EXPECT_EQ(skipped.reason.find("needs ~"), std::string::npos) << skipped.reason;
    EXPECT_NE(skipped.reason.find("past the max_requests cap of 1 request"), std::string::npos) << skipped.reason;
  }
}

// Thousands of one-line hunks (git diff -U0): what pricing part by part
// misses (each header's wording, the line numbers' width) adds up; every
// request is measured as built and split until it fits.
TEST(ChunkedReview, ManySmallHunksStillFitTheirRequestsAsBuilt) {
  testing::TempRepo repo;
  auto table = [](bool changed) {
    std::string out;
    for (int i = 0; i < 6000; ++i)
      out += "ROW_" + std::to_string(i) + " = " + std::to_string(changed && i % 3 == 1 ? i * 7 : i) + "\n";
    return out;
  };
  repo.write("t.py", table(false));
  repo.commitAll("init");
  repo.write("t.py", table(true));
  const diff::Diff change = diff::parse(repo.git("diff -U0 HEAD"));
  ASSERT_EQ(change.files.at(0).hunks.size(), 2000u);
  Model m;
  config::Config c = budget(8000);
  c.review.maxToolCalls = 0;
  c.maxRequests = 1000;
  const ReviewResult r = ReviewService(factoryFor(m)).review({change, repo.root(), c, {}});
  ASSERT_GE(m.requests.size(), 2u);
  for (const auto& request : m.requests) EXPECT_LE(review::estimateTokens(request), 8000);
  EXPECT_EQ(r.outcome.coverage.linesReviewed, r.outcome.coverage.linesTotal);
  EXPECT_TRUE(r.outcome.coverage.filesSkipped.empty());
}

// The max_findings cap applies once, to the merged findings of a split review,
// and the summary says how many it left out, once.
TEST(ChunkedReview, TheFindingsCapIsCountedOnceOverTheWholeReview) {
  ManyFiles f(3);
  Model m;
  m.answer = [](const std::string& user) {
    std::istringstream in(user);
    json findings = json::array();
    std::string file;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("File: ", 0) == 0) file = line.substr(6, line.find(" (") - 6);
      else if (line.find(" + int ") != std::string::npos && findings.size() < 100)
        findings.push_back({{"file", file}, {"line", std::stoi(line)}, {"endLine", nullptr}, {"severity", "MINOR"},
                            {"category", "CORRECTNESS"}, {"title", "Check it"}, {"explanation", "It needs a look."},
                            {"suggestedFix", nullptr}, {"edit", nullptr}, {"confidence", 0.8}});
    }
    return json{{"summary", "Looked."}, {"verdict", "COMMENT"}, {"findings", findings}};
  };
  config::Config c = budget(3500);
  c.review.maxToolCalls = 0;
  c.review.policy.maxFindings = 2;
  const ReviewResult r = ReviewService(factoryFor(m)).review(f.request(c));
  ASSERT_GE(m.requests.size(), 2u);
  ASSERT_EQ(r.outcome.findings.size(), 2u);
  const std::string& summary = r.outcome.summary;
  const std::string note = "Not shown: " + std::to_string(3 * 40 - 2) + " more findings, past the max_findings cap of 2";
  EXPECT_NE(summary.find(note), std::string::npos) << summary;
  EXPECT_EQ(summary.find("Not shown:"), summary.rfind("Not shown:")) << summary;  // said once
}

TEST(ChunkedReview, TheRequestCapSkipsVisiblyAndKeepsTheVerdictFromApprove) {
  ManyFiles f(30);
  Model m;
  config::Config c = budget(8000);
  c.maxRequests = 1;
  ReviewCache cache;
  const ReviewService service(factoryFor(m), &cache);
  const ReviewResult r = service.review(f.request(c));
  ASSERT_EQ(m.requests.size(), 1u);
  const auto& cov = r.outcome.coverage;
  ASSERT_FALSE(cov.filesSkipped.empty());
  for (const auto& s : cov.filesSkipped) {
    EXPECT_TRUE(s.overLimit) << s.path;
    EXPECT_NE(s.reason.find("max_requests cap of 1"), std::string::npos) << s.reason;
  }
  EXPECT_EQ(cov.filesTotal, 30);
  EXPECT_EQ(cov.filesReviewed + static_cast<int>(cov.filesSkipped.size()), 30);
  EXPECT_EQ(static_cast<std::size_t>(cov.filesReviewed), filesIn(m.requests[0].messages[0].text).size());
  EXPECT_LT(cov.linesReviewed, cov.linesTotal);
  // The model approved what it saw; the change as a whole was not shown to be fine.
  EXPECT_EQ(r.outcome.verdict, contract::Verdict::Comment);
  EXPECT_GT(r.evidence.partsNotReviewed, 0);
  EXPECT_EQ(review::decideVerdict({}, c.review.policy, r.evidence), contract::Verdict::Comment);
  EXPECT_NE(r.outcome.summary.find("cannot be APPROVE"), std::string::npos) << r.outcome.summary;
  // Not cached: the next review sends again (a larger budget would review the rest).
  service.review(f.request(c));
  EXPECT_EQ(m.requests.size(), 2u);
}

// src/process.c, one function of `statements` lines, with `added` lines inserted
// before statement i wherever i % every == at, made by `addedLine(i, k)`;
// and six small files lib/util*.c, of `utilLines(i)` added lines each. The change is
// the work tree's diff.
diff::Diff longFunctionChange(testing::TempRepo& repo, int statements, int every, int at, int added,
                              const std::function<std::string(int, int)>& addedLine,
                              const std::function<std::string(int)>& statement,
                              const std::function<int(int)>& utilLines) {
  std::string before = "int process(struct item *p) {\n", after = before;
  for (int i = 0; i < statements; ++i) {
    if (i % every == at)
      for (int k = 0; k < added; ++k) after += addedLine(i, k);
    before += statement(i);
    after += statement(i);
  }
  before += "  return 0;\n}\n";
  after += "  return 0;\n}\n";
  repo.write("src/process.c", before);
  for (int i = 0; i < 6; ++i) repo.write("lib/util" + std::to_string(i) + ".c", "// util\n");
  repo.commitAll("init");
  repo.write("src/process.c", after);
  for (int i = 0; i < 6; ++i)
    repo.write("lib/util" + std::to_string(i) + ".c", "// util\n" + lines("u" + std::to_string(i), utilLines(i)));
  return diff::parse(git::diffText(repo.root(), {}));
}

// How a change is cut into requests, and how its functions are shown, does not
// depend on the max_requests cap: the plan's figures are the same under every
// cap, and a higher cap never reviews fewer lines. Before, a cap that left out
// a request whose long function did not fit kept every function whole, and one
// cap higher cut them all to their first line: raising the cap reviewed less.
TEST(ChunkedReview, AHigherRequestCapNeverReviewsLess) {
  testing::TempRepo repo;
  const diff::Diff change = longFunctionChange(
      repo, 100, 25, 10, 24,
      [](int i, int k) {
        return "  check_and_record_the_state_of_the_item_before_it_is_priced(p, " + std::to_string(i) + ", " +
               std::to_string(k) + ", RECORD_ALL | RECORD_TIMESTAMPS | RECORD_CALLER);\n";
      },
      [](int i) { return "  p->field_" + std::to_string(i) + " = compute_value(p, " + std::to_string(i) + ");\n"; },
      [](int) { return 30; });
  std::optional<review::Chunking> first;
  std::int64_t reviewedBefore = 0, total = 0;
  for (int cap = 1; cap <= 8; ++cap) {
    Model m;
    config::Config c = budget(6500);
    c.review.maxToolCalls = 0;
    c.maxRequests = cap;
    const ReviewResult r = ReviewService(factoryFor(m)).review({change, repo.root(), c, {}});
    for (const auto& request : m.requests) EXPECT_LE(review::estimateTokens(request), 6500) << "cap " << cap;
    ASSERT_TRUE(r.outcome.chunking) << cap;
    if (!first) first = r.outcome.chunking;
    EXPECT_EQ(r.outcome.chunking->diffTokens, first->diffTokens) << "cap " << cap;
    EXPECT_EQ(r.outcome.chunking->minimumRequests, first->minimumRequests) << "cap " << cap;
    EXPECT_GE(r.outcome.coverage.linesReviewed, reviewedBefore) << "cap " << cap;
    reviewedBefore = r.outcome.coverage.linesReviewed;
    total = r.outcome.coverage.linesTotal;
  }
  EXPECT_EQ(reviewedBefore, total) << "the highest cap reviews the whole change";
}

// As on rust-analyzer under --max-requests 22, where requests priced with their
// functions shared did not fit as built: the plan cut after packing kept the
// requests with the most whole-file tokens, so small files that had filled the
// room beside a piece of a large file were left out while other pieces, without
// the file's top, were sent. Now that path, too, packs for the cap: under every
// cap each file small enough for one request is reviewed before any piece of
// the large one, whose pieces go from its top, and a higher cap never reviews less.
TEST(ChunkedReview, UnderARequestCapSmallFilesGoBeforePiecesOfALargeFile) {
  testing::TempRepo repo;
  const diff::Diff change = longFunctionChange(
      repo, 60, 6, 3, 6,
      [](int i, int k) {
        return "  record_state(p, " + std::to_string(i) + ", " + std::to_string(k) + ", RECORD_ALL | RECORD_CALLER);\n";
      },
      [](int i) { return "  p->f" + std::to_string(i) + " = v(p, " + std::to_string(i) + ");\n"; },
      [](int i) { return 2 + 5 * i; });
  std::int64_t reviewedBefore = 0, total = 0;
  for (int cap = 1; cap <= 4; ++cap) {
    Model m;
    config::Config c = budget(4000);  // process.c's hunks share a function, and do not fit one request
    c.review.maxToolCalls = 0;
    c.maxRequests = cap;
    const ReviewResult r = ReviewService(factoryFor(m)).review({change, repo.root(), c, {}});
    for (const auto& request : m.requests) EXPECT_LE(review::estimateTokens(request), 4000) << "cap " << cap;
    bool processSent = true, topLeftOut = false;
    std::string smallLeftOut;
    for (const auto& s : r.outcome.coverage.filesSkipped) {
      if (s.path == "src/process.c") {
        processSent = s.partial;
        for (const auto& span : s.leftOut) topLeftOut = topLeftOut || (!span.oldFile && span.first <= 10);
      } else {
        smallLeftOut += s.path + " ";
      }
    }
    if (processSent) {
      EXPECT_EQ(smallLeftOut, "") << "cap " << cap << ": a piece of src/process.c was sent, and these were not";
      EXPECT_FALSE(topLeftOut) << "cap " << cap << ": a later piece of src/process.c was sent without its top";
    }
    EXPECT_GE(r.outcome.coverage.linesReviewed, reviewedBefore) << "cap " << cap;
    reviewedBefore = r.outcome.coverage.linesReviewed;
    total = r.outcome.coverage.linesTotal;
  }
  EXPECT_EQ(reviewedBefore, total) << "cap 4 reviews the whole change";
}

TEST(ChunkedReview, ALineLargerThanARequestIsSkippedWithItsReason) {
  testing::TempRepo repo;
  repo.write("a.c", "int a;\n");
  repo.write("data/blob.c", "int b;\n");
  repo.commitAll("init");
  repo.write("a.c", "int a;\nint a2;\n");
  repo.write("data/blob.c", "int b;\nconst char* s = \"" + std::string(60000, 'q') + "\";\n");
  Model m;
  config::Config c = budget(8000);
  const ReviewResult r = ReviewService(factoryFor(m)).review({diff::parse(git::diffText(repo.root(), {})), repo.root(), c, {}});
  ASSERT_EQ(m.requests.size(), 1u);
  EXPECT_EQ(m.requests[0].messages[0].text.find("qqqq"), std::string::npos);  // the line never went out
  ASSERT_EQ(r.outcome.coverage.filesSkipped.size(), 1u);
  EXPECT_EQ(r.outcome.coverage.filesSkipped[0].path, "data/blob.c");
  // Wholly: its unchanged line, cut off in a piece of its own, had nothing to review and was not sent.
  EXPECT_FALSE(r.outcome.coverage.filesSkipped[0].partial);
  EXPECT_EQ(m.requests[0].messages[0].text.find("blob.c"), std::string::npos);
  EXPECT_EQ(r.outcome.coverage.filesSkipped[0].lines, 1);
  EXPECT_EQ(r.outcome.coverage.linesReviewed, 1);  // a.c's added line
  EXPECT_EQ(r.outcome.coverage.linesTotal, 2);
  EXPECT_NE(r.outcome.coverage.filesSkipped[0].reason.find("more than one request under max_input_tokens 8000"),
            std::string::npos)
      << r.outcome.coverage.filesSkipped[0].reason;
  EXPECT_EQ(r.outcome.verdict, contract::Verdict::Comment);
  EXPECT_NE(r.outcome.summary.find("Reviewed in 1 request, holding what fits of the change (all of it does not fit "
                                   "one request"),
            std::string::npos)
      << r.outcome.summary;
}

// A changed line larger than a request, between unchanged lines: nothing is
// sent. Before, its unchanged neighbours, cut into pieces of their own, went
// out as a request paid for with nothing to review.
TEST(ChunkedReview, TheUnchangedLinesAroundALineTooLargeAreNotSentAlone) {
  testing::TempRepo repo;
  repo.write("main.py", "def main():\n    return 0\n");
  repo.commitAll("init");
  repo.write("main.py", "def main():\nLONG = \"" + std::string(60000, 'a') + "\"\n    return 0\n");
  Model m;
  const ReviewResult r =
      ReviewService(factoryFor(m)).review({diff::parse(git::diffText(repo.root(), {})), repo.root(), budget(8000), {}});
  EXPECT_TRUE(m.requests.empty());
  EXPECT_EQ(r.outcome.coverage.linesReviewed, 0);
  ASSERT_EQ(r.outcome.coverage.filesSkipped.size(), 1u);
  EXPECT_EQ(r.outcome.coverage.filesSkipped[0].reason.find("line 1"), std::string::npos)
      << r.outcome.coverage.filesSkipped[0].reason;
  EXPECT_EQ(r.outcome.summary.rfind("Nothing was sent to the model", 0), 0u) << r.outcome.summary;
}

// An unchanged line larger than a request beside a changed one is context,
// not part of the change: the changed line is reviewed and nothing is called
// not reviewed. Before, the long line was listed as skipped ("not reviewed:
// line 4"), and the verdict could not be APPROVE.
TEST(ChunkedReview, ALongUnchangedLineIsNotCalledPartOfTheChangeLeftOut) {
  testing::TempRepo repo;
  const std::string blob = "BLOB = \"" + std::string(60000, 'a') + "\"\n";
  repo.write("data.py", "def f():\n    return 1\n\n" + blob + "\ndef g():\n    return 2\n");
  repo.commitAll("init");
  repo.write("data.py", "def f():\n    return 1\n\n" + blob + "print('added')\n\ndef g():\n    return 2\n");
  Model m;
  const ReviewResult r =
      ReviewService(factoryFor(m)).review({diff::parse(git::diffText(repo.root(), {})), repo.root(), budget(8000), {}});
  ASSERT_EQ(m.requests.size(), 1u);
  EXPECT_NE(m.requests[0].messages[0].text.find("print('added')"), std::string::npos);
  EXPECT_EQ(m.requests[0].messages[0].text.find("aaaa"), std::string::npos);
  EXPECT_TRUE(r.outcome.coverage.filesSkipped.empty());
  EXPECT_EQ(r.outcome.coverage.linesReviewed, 1);
  EXPECT_EQ(r.outcome.verdict, contract::Verdict::Approve);
}

// The only change a line larger than a request: no model is asked, and the
// report says so rather than "the model said APPROVE".
TEST(ChunkedReview, NothingThatFitsARequestAsksNoModelAndClaimsNoModelVerdict) {
  testing::TempRepo repo;
  repo.write("a.c", "int a;\n");
  repo.commitAll("init");
  repo.write("blob.c", "const char* s = \"" + std::string(60000, 'q') + "\";\n");  // a new file of one line
  repo.git("add -N blob.c");
  Model m;
  const ReviewResult r =
      ReviewService(factoryFor(m)).review({diff::parse(git::diffText(repo.root(), {})), repo.root(), budget(8000), {}});
  EXPECT_TRUE(m.requests.empty());
  EXPECT_EQ(r.outcome.verdict, contract::Verdict::Comment);
  EXPECT_FALSE(r.outcome.modelVerdict.has_value());
  EXPECT_EQ(r.outcome.summary.rfind("Nothing was sent to the model", 0), 0u) << r.outcome.summary;
}

TEST(ChunkedReview, ABudgetTooSmallForTheFixedPartIsAClearError) {
  ManyFiles f(2);
  Model m;
  try {
    ReviewService(factoryFor(m)).review(f.request(budget(500)));
    FAIL() << "no error";
  } catch (const review::ProviderError& e) {
    EXPECT_NE(std::string(e.what()).find("max_input_tokens 500 is too small"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tool specs, and "), std::string::npos) << e.what();
  }
  // Without tools, the error names only what a request holds then.
  config::Config noTools = budget(500);
  noTools.review.maxToolCalls = 0;
  try {
    ReviewService(factoryFor(m)).review(f.request(noTools));
    FAIL() << "no error";
  } catch (const review::ProviderError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("tokens for the system prompt, schema and intent, and "), std::string::npos) << what;
    EXPECT_EQ(what.find("tool"), std::string::npos) << what;
  }
  EXPECT_TRUE(m.requests.empty());
}

// The minimum the error names is exact, also with a long description (its share
// grows with the budget): following the advice works at once, one less does not.
TEST(ChunkedReview, TheBudgetTheErrorNamesIsTheSmallestThatWorks) {
  ManyFiles f(2);
  Model m;
  for (const std::string& description : {std::string(), std::string(30000, 'w')}) {
    config::Config c = budget(500);
    c.review.description = description;
    std::int64_t named = 0;
    try {
      ReviewService(factoryFor(m)).review(f.request(c));
      FAIL() << "no error";
    } catch (const review::ProviderError& e) {
      const std::string what = e.what();
      const auto at = what.find("use at least ");
      ASSERT_NE(at, std::string::npos) << what;
      named = std::stoll(what.substr(at + 13));
    }
    c.maxInputTokens = named - 1;
    EXPECT_THROW(ReviewService(factoryFor(m)).review(f.request(c)), review::ProviderError) << named - 1;
    c.maxInputTokens = named;
    EXPECT_NO_THROW(ReviewService(factoryFor(m)).review(f.request(c))) << named << " (description of "
                                                                         << description.size() << " bytes)";
  }
}

TEST(ChunkedReview, CancellingStopsTheRequestsNotYetSent) {
  ManyFiles f(30);
  Model m;
  CancelToken cancel;
  m.onCall = [&] { cancel.cancel(); };
  config::Config c = budget(8000);
  c.maxParallelRequests = 1;
  EXPECT_THROW(ReviewService(factoryFor(m)).review(f.request(c), cancel), Cancelled);
  EXPECT_EQ(m.requests.size(), 1u);
}

// Cancelled between two requests (the first answered, none in flight): what the
// answered one reviewed was paid for, and is kept per hunk, as when a request in
// flight is stopped. Before, it was kept only then, and the rerun paid again.
TEST(ChunkedReview, CancelledBetweenRequestsKeepsWhatTheAnsweredOnesReviewed) {
  ManyFiles f(30);
  Model m;
  CancelToken cancel;
  config::Config c = budget(8000);
  c.maxParallelRequests = 1;
  HunkCache hunks;
  const ReviewService service(factoryFor(m), nullptr, defaultGitDiff(), &hunks);
  ReviewRequest cancelled = f.request(c);
  cancelled.progress = [&cancel](const ReviewProgress& p) {  // the first request answered: cancel
    if (p.done == 1) cancel.cancel();
  };
  EXPECT_THROW(service.review(std::move(cancelled), cancel), Cancelled);
  ASSERT_EQ(m.requests.size(), 1u);
  const ReviewResult rerun = service.review(f.request(c));
  EXPECT_GT(rerun.hunksReused, 0);
  for (std::size_t i = 1; i < m.requests.size(); ++i)
    for (const auto& file : filesIn(m.requests[0].messages.at(0).text))
      EXPECT_EQ(filesIn(m.requests[i].messages.at(0).text).count(file), 0u) << file << " sent again";
}

// A provider that allows one request at a time and refuses the others with a
// rate limit (429), once its transport has waited what it asked: the requests
// sent in parallel waited the same time and were refused together, and the
// review failed at the default max_parallel_requests. Now the refused requests
// are sent again one at a time, and so is the rest; the review says so.
TEST(ChunkedReview, ARateLimitSendsTheRefusedRequestsAgainOneAtATime) {
  ManyFiles f(30);
  Model m;
  m.awaitConcurrent = 2;  // the first two calls are in flight at once: one is refused
  m.refuse = [](int inFlight, const review::ModelRequest&) { return inFlight > 1; };
  config::Config c = budget(8000);
  c.maxParallelRequests = 2;
  const ReviewResult r = ReviewService(factoryFor(m)).review(f.request(c));
  EXPECT_EQ(m.refused, 1) << "sent again when no other request was in flight";
  const std::size_t sent = m.requests.size() - 1;  // the requests answered
  EXPECT_GE(sent, 3u);
  EXPECT_EQ(r.outcome.usage.requests, static_cast<std::int64_t>(sent));
  EXPECT_EQ(r.outcome.coverage.filesReviewed, 30);
  EXPECT_TRUE(r.outcome.coverage.filesSkipped.empty());
  std::string warned;
  for (const auto& w : r.outcome.warnings) warned += w + "\n";
  EXPECT_NE(warned.find("limited the request rate (HTTP 429) while 2 requests were sent at once: the rest were sent "
                        "one at a time"),
            std::string::npos)
      << warned;
}

// One request at a time (max_parallel_requests 1), one refused: it is sent once
// more too, as the transport's own tries were used up on a limit that may pass.
TEST(ChunkedReview, ARateLimitedRequestIsSentOnceMoreWhenSentOneAtATime) {
  ManyFiles f(30);
  Model m;
  m.refuse = [&m](int, const review::ModelRequest&) { return m.requests.size() == 2 && m.refused == 0; };
  config::Config c = budget(8000);
  c.maxParallelRequests = 1;
  const ReviewResult r = ReviewService(factoryFor(m)).review(f.request(c));
  EXPECT_EQ(m.refused, 1);
  EXPECT_EQ(r.outcome.coverage.filesReviewed, 30);
  ASSERT_FALSE(r.outcome.warnings.empty());
  EXPECT_NE(r.outcome.warnings.back().find("limited the request rate (HTTP 429): the refused request was sent again"),
            std::string::npos) << r.outcome.warnings.back();
}

// A request rejected before any other was answered (a setting every request
// carries, such as an unsupported parameter, fails them all alike): its files
// are not named as the cause.
TEST(ChunkedReview, ARejectionBeforeAnyAnswerBlamesNoFile) {
  Model m;
  m.reject = [](const review::ModelRequest&) { return true; };
  EXPECT_EQ(std::string(failureOf(m, 1).what()), "fake rejected the request (HTTP 400): content filtered.");
}

// Refused again when sent alone: the review fails, and the error says it was
// alone (before, it advised sending one request at a time, which it was).
TEST(ChunkedReview, ARequestRefusedAgainAloneFailsSayingSo) {
  Model m;
  m.refuse = [](int, const review::ModelRequest& request) {
    return filesIn(request.messages.at(0).text).count("src/d1/file1.c") > 0;
  };
  const review::ProviderError e = failureOf(m, 3);
  EXPECT_EQ(e.kind(), review::ProviderError::Kind::RateLimited) << e.what();
  EXPECT_NE(std::string(e.what()).find("(sent again alone after the first refusal, with no other request of the "
                                       "review in flight, and refused again: wait for the provider's limit, or raise it)"),
            std::string::npos)
      << e.what();
  EXPECT_EQ(m.refused, 2);
}

// A request a provider rejects for what it holds (a content filter's 400) fails
// every rerun of the review: the error names the files that request held, so
// the user knows what to leave out. Before, nothing said which they were.
TEST(ChunkedReview, ARequestRejectedForWhatItHoldsNamesItsFiles) {
  Model m;
  std::set<std::string> held;
  m.reject = [&held, &m](const review::ModelRequest& request) {  // the third request, two answered before it
    if (m.requests.size() != 3) return false;
    held = filesIn(request.messages.at(0).text);
    return true;
  };
  const review::ProviderError e = failureOf(m, 1);
  const std::string what = e.what();
  EXPECT_EQ(e.kind(), review::ProviderError::Kind::BadRequest) << what;
  EXPECT_NE(what.find("fake rejected the request (HTTP 400): content filtered (other requests of this review were "
                      "answered; the one that failed held "),
            std::string::npos) << what;
  ASSERT_GE(held.size(), 2u);
  for (const auto& file : held) EXPECT_NE(what.find(file), std::string::npos) << file << " in " << what;
  EXPECT_NE(what.find(": if what it holds is the cause, the `exclude` setting leaves files out of the review)"),
            std::string::npos) << what;
}

// Tool rounds stay within the budget too: each result is capped so that
// max_tool_calls of them fit the reserve kept for them.
TEST(ChunkedReview, ToolRoundsStayWithinTheBudget) {
  ManyFiles f(30);
  std::string big;
  for (int i = 0; i < 2000; ++i) big += "a long line of the file the model reads, number " + std::to_string(i) + "\n";
  f.repo.write("docs/big.txt", big);
  f.repo.git("add docs/big.txt");
  f.repo.git("commit -q -m big -- docs/big.txt");
  Model m;
  std::atomic<int> calls{0};
  class ToolCaller : public review::Provider {
   public:
    ToolCaller(Model& m, std::atomic<int>& calls) : m_(m), calls_(calls) {}
    std::string name() const override { return "fake"; }
    std::string model() const override { return "fake-model"; }
    review::ModelResponse complete(const review::ModelRequest& request, const CancelToken&) override {
      {
        std::lock_guard<std::mutex> lock(m_.mu);
        m_.requests.push_back(request);
      }
      review::ModelResponse r;
      const auto rounds = std::count_if(request.messages.begin(), request.messages.end(),
                                        [](const review::Message& msg) { return msg.role == review::Role::Tool; });
      if (!request.tools.empty() && rounds < 5) {
        r.toolCalls.push_back({"c" + std::to_string(++calls_), "read_file", json{{"path", "docs/big.txt"}}});
        r.finish = review::FinishReason::ToolCalls;
      } else {
        r.text = kApprove.dump();
      }
      return r;
    }

   private:
    Model& m_;
    std::atomic<int>& calls_;
  };
  ProviderFactory factory = [&](const config::Config&, const diff::Diff&, const fs::path&) {
    return std::make_unique<ToolCaller>(m, calls);
  };
  const ReviewResult r = ReviewService(factory).review(f.request(budget(8000)));
  EXPECT_GT(calls.load(), 10);  // several requests, each with its tool rounds
  std::size_t withResults = 0;
  for (const auto& request : m.requests) {
    EXPECT_LE(review::estimateTokens(request), 8000);
    withResults += request.messages.size() > 1;
  }
  EXPECT_GT(withResults, 0u);
  EXPECT_GT(r.outcome.toolCalls, 10);
}

// The contract retry echoes the model's broken answer: a long one would push the
// retry over the budget the planner kept room for; it is cut instead.
TEST(ChunkedReview, AContractRetryAfterALongBrokenAnswerStaysWithinTheBudget) {
  ManyFiles f(30);
  Model m;
  // 40 KB of prose first (~13,000 tokens, more than the whole budget), then the report.
  m.reply = [](const review::ModelRequest& request) {
    return request.messages.size() == 1 ? std::string(40000, 'z') : kApprove.dump();
  };
  ProviderFactory factory = factoryFor(m);
  const ReviewResult r = ReviewService(factory).review(f.request(budget(8000)));
  std::size_t retries = 0;
  for (const auto& request : m.requests) {
    EXPECT_LE(review::estimateTokens(request), 8000);
    retries += request.messages.size() > 1;
  }
  EXPECT_GT(retries, 1u);
  EXPECT_EQ(r.outcome.verdict, contract::Verdict::Approve);
  EXPECT_EQ(r.outcome.coverage.filesReviewed, 30);
}

// A warning every request says is one line naming the requests, not one line a
// request: a 30-file review whose every grounding round fails said the same
// sentence once per request.
TEST(ChunkedReview, AWarningSeveralRequestsSayIsOneLineNamingThem) {
  ManyFiles f(30);
  Model m;
  // Each first answer places a finding off the diff; each correction is not JSON.
  m.reply = [](const review::ModelRequest& request) {
    if (request.messages.size() > 1) return std::string("no JSON here");
    const std::string file = *filesIn(request.messages[0].text).begin();
    return json{{"summary", "One finding."},
                {"verdict", "COMMENT"},
                {"findings",
                 {{{"file", file}, {"line", 9999}, {"endLine", nullptr}, {"severity", "MINOR"},
                   {"category", "STYLE"}, {"title", "Off the diff"}, {"explanation", "Nowhere."},
                   {"suggestedFix", nullptr}, {"edit", nullptr}, {"confidence", 0.9}}}}}
        .dump();
  };
  const ReviewResult r = ReviewService(factoryFor(m)).review(f.request(budget(8000)));
  std::size_t firstAnswers = 0;
  for (const auto& request : m.requests) firstAnswers += request.messages.size() == 1;
  ASSERT_GT(firstAnswers, 2u);
  ASSERT_EQ(r.outcome.warnings.size(), 1u) << ::testing::PrintToString(r.outcome.warnings);
  const std::string& w = r.outcome.warnings[0];
  EXPECT_EQ(w.rfind("requests 1, 2, ", 0), 0u) << w;
  EXPECT_NE(w.find(" and " + std::to_string(firstAnswers) + ": the corrected findings did not meet the contract"),
            std::string::npos)
      << w;
}

// `revline diff --prompt` shows what a split review sends: the same requests, in order.
TEST(ChunkedReview, ThePreviewOfASplitReviewIsEveryRequestItSends) {
  ManyFiles f(30);
  Model m;
  config::Config config = budget(8000);
  config.maxParallelRequests = 1;  // the requests in plan order
  const ReviewService service(factoryFor(m));
  const std::vector<review::ModelRequest> previews = service.preview(f.request(config));
  EXPECT_TRUE(m.requests.empty()) << "a preview calls no model";
  service.review(f.request(config));
  ASSERT_GT(previews.size(), 2u);
  ASSERT_EQ(previews.size(), m.requests.size());
  for (std::size_t i = 0; i < previews.size(); ++i) {
    EXPECT_EQ(previews[i].system, m.requests[i].system);
    ASSERT_EQ(previews[i].messages.size(), 1u);
    EXPECT_EQ(previews[i].messages[0].text, m.requests[i].messages[0].text) << "request " << i;
  }
  // A cap that leaves files out names them.
  config.maxRequests = 2;
  std::vector<std::string> notSent;
  EXPECT_EQ(service.preview(f.request(config), &notSent).size(), 2u);
  ASSERT_FALSE(notSent.empty());
  EXPECT_NE(notSent[0].find("past the max_requests cap of 2"), std::string::npos) << notSent[0];
}

TEST(ChunkedReview, ProgressCountsTheRequests) {
  ManyFiles f(30);
  Model m;
  std::vector<ReviewProgress> seen;
  ReviewRequest request = f.request(budget(8000));
  request.progress = [&](const ReviewProgress& p) { seen.push_back(p); };
  ReviewService(factoryFor(m)).review(std::move(request));
  ASSERT_EQ(seen.size(), m.requests.size() + 1);  // 0 of N, then each done
  EXPECT_EQ(seen.front().done, 0);
  EXPECT_EQ(seen.back().done, seen.back().total);
  EXPECT_EQ(seen.back().usage.inputTokens, 100 * static_cast<std::int64_t>(m.requests.size()));
}

}  // namespace
}  // namespace revline::session
