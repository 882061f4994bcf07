// The server runs reviews through the session (core/session): the change comes
// from the injected git reader, and the verdict follows the one verdict rule,
// no false approval included, fresh and from the cache after a restart.
#include <gtest/gtest.h>

#include <atomic>
#include <map>

#include "lsp/protocol.h"
#include "tests/support/per_hunk_model.h"
#include "tests/support/temp_repo.h"
#include "tests/unit/lsp/lsp_client.h"

namespace revline::lsp {
namespace {

using revline::testing::TempRepo;
using testing::LspClient;

// Answers with `answer`; counts its calls.
class FixedProvider : public review::Provider {
 public:
  FixedProvider(json answer, std::atomic<int>& calls) : answer_(std::move(answer)), calls_(calls) {}
  std::string name() const override { return "fixed"; }
  std::string model() const override { return "m1"; }
  review::ModelResponse complete(const review::ModelRequest&, const CancelToken&) override {
    ++calls_;
    review::ModelResponse r;
    r.text = answer_.dump();
    return r;
  }

 private:
  json answer_;
  std::atomic<int>& calls_;
};

ServerOptions fixed(json answer, std::atomic<int>& calls) {
  ServerOptions o;
  o.sync = true;
  o.providerFactory = [answer, &calls](const config::Config&, const diff::Diff&, const std::filesystem::path&) {
    return std::make_unique<FixedProvider>(answer, calls);
  };
  return o;
}

struct ReviewSession : ::testing::Test {
  TempRepo repo;
  std::filesystem::path root;
  std::string uri;
  void SetUp() override {
    repo.write("a.txt", "one\ntwo\n");
    repo.commitAll("init");
    repo.write("a.txt", "one changed\ntwo\n");
    root = std::filesystem::canonical(repo.root());
    uri = uriFromPath((root / "a.txt").string());
  }
  json reviewFile(LspClient& c) {
    const int id = c.request("workspace/executeCommand",
                             {{"command", "revline.reviewFile"}, {"arguments", json::array({{{"uri", uri}}})}});
    json r = c.reply(id);
    c.notification("textDocument/publishDiagnostics");
    return r;
  }
};

// The model asks for changes with a BLOCKER on a line the diff does not show,
// twice (the grounding feedback round does not fix it): nothing can be
// published, and the verdict must not become APPROVE, in the editor either.
TEST_F(ReviewSession, AnUnplacedBlockingFindingNeverApprovesFreshOrFromCache) {
  const json answer = {{"summary", "bug"},
                       {"verdict", "REQUEST_CHANGES"},
                       {"findings",
                        {{{"file", "a.txt"}, {"line", 40}, {"endLine", nullptr}, {"severity", "BLOCKER"},
                          {"category", "CORRECTNESS"}, {"title", "Off by one"}, {"explanation", "It reads past."},
                          {"suggestedFix", nullptr}, {"edit", nullptr}, {"confidence", 0.9}}}}};
  std::atomic<int> calls{0};
  {
    LspClient c(fixed(answer, calls));
    c.initialize(uriFromPath(root.string()));
    const json r = reviewFile(c);
    EXPECT_EQ(r["result"]["verdict"], "COMMENT") << r.dump();
    EXPECT_EQ(r["result"]["findings"], 0);
    EXPECT_EQ(c.stop(), 0);
  }
  const int asked = calls.load();
  EXPECT_GE(asked, 1);
  // A restarted server answers a save of the same change from the cache, with
  // the same verdict (its progress says it; "Review this file now" would ask again).
  LspClient again(fixed(answer, calls));
  again.initialize(uriFromPath(root.string()), json::object(), {{"window", {{"workDoneProgress", true}}}});
  again.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
  again.acceptProgressCreate();
  const json end = again.progressEnd();
  EXPECT_NE(end.value("message", "").find("verdict COMMENT"), std::string::npos) << end.dump();
  EXPECT_EQ(calls.load(), asked);  // no model call
  EXPECT_EQ(again.server().stats().cacheHits, 1);
  again.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(again.stop(), 0);
}

// The server reads the change through the session's injected git reader.
TEST_F(ReviewSession, TheChangeComesFromTheInjectedGitReader) {
  const json answer = {{"summary", "ok"}, {"verdict", "APPROVE"}, {"findings", json::array()}};
  std::atomic<int> calls{0};
  ServerOptions options = fixed(answer, calls);
  std::atomic<int> reads{0};
  options.gitDiff = [&reads](const std::filesystem::path&, const git::DiffRequest& request) {
    ++reads;
    EXPECT_EQ(request.paths, std::vector<std::string>{"a.txt"});
    return std::string("diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+injected\n two\n");
  };
  LspClient c(std::move(options));
  c.initialize(uriFromPath(root.string()));
  const json r = reviewFile(c);
  EXPECT_EQ(r["result"]["verdict"], "APPROVE") << r.dump();
  EXPECT_GE(reads.load(), 1);
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(c.stop(), 0);
}

// Incremental review on save: editing one hunk of five sends only that hunk and
// keeps five diagnostics published, the four untouched ones with their ids at
// their moved lines; "Review this file now" sends the whole file again.
// a.py with its five functions changed, and a server whose model answers one finding per hunk it is sent.
struct FiveChangedHunks : ::testing::Test {
  TempRepo repo;
  std::filesystem::path root;
  std::string uri;
  revline::testing::PerHunkLog log;
  void SetUp() override {
    repo.write("a.py", revline::testing::fiveFunctions());
    repo.commitAll("init");
    repo.write("a.py", revline::testing::fiveFunctions(revline::testing::allChanged()));
    root = std::filesystem::canonical(repo.root());
    uri = uriFromPath((root / "a.py").string());
  }
  ServerOptions perHunkModel() {
    ServerOptions options;
    options.sync = true;
    options.providerFactory = [this](const config::Config&, const diff::Diff&, const std::filesystem::path&) {
      return std::make_unique<revline::testing::PerHunkModel>(log);
    };
    return options;
  }
};

TEST_F(FiveChangedHunks, EditingOneHunkOfFiveSendsOnlyThatHunk) {
  LspClient c(perHunkModel());
  c.initialize(uriFromPath(root.string()));
  auto saved = [&] {
    c.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
    const json d = c.notification("textDocument/publishDiagnostics");
    EXPECT_EQ(d["params"]["uri"], uri);
    std::map<std::string, int> lineById;
    for (const auto& diag : d["params"]["diagnostics"]) lineById[diag["data"]["id"]] = diag["range"]["start"]["line"];
    return lineById;
  };
  const auto first = saved();
  ASSERT_EQ(log.reviews(), 1u);
  EXPECT_EQ(log.hunksSent(0), 5);
  ASSERT_EQ(first.size(), 5u);

  // Function 0's hunk gets two more lines: the four hunks below it move down by two.
  std::vector<std::string> changed = revline::testing::allChanged();
  changed[0] = "    v5 = x * 20\n    w = v5 + 1\n    v5 = w - 1";
  repo.write("a.py", revline::testing::fiveFunctions(changed));
  const auto second = saved();
  ASSERT_EQ(log.reviews(), 2u);
  EXPECT_EQ(log.hunksSent(1), 1);
  EXPECT_NE(log.prompts[1].find("w = v5 + 1"), std::string::npos);
  ASSERT_EQ(second.size(), 5u);
  int moved = 0;
  for (const auto& [id, line] : first) {
    if (auto it = second.find(id); it != second.end()) {
      EXPECT_EQ(it->second, line + 2) << id;
      ++moved;
    }
  }
  EXPECT_EQ(moved, 4);

  // "Review this file now": the whole file's diff goes to the model again.
  const int id = c.request("workspace/executeCommand",
                           {{"command", "revline.reviewFile"}, {"arguments", json::array({{{"uri", uri}}})}});
  const json r = c.reply(id);
  EXPECT_EQ(r["result"]["findings"], 5) << r.dump();
  const json d = c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(d["params"]["diagnostics"].size(), 5u);
  ASSERT_EQ(log.reviews(), 3u);
  EXPECT_EQ(log.hunksSent(2), 5);
  EXPECT_EQ(c.stop(), 0);
}

// "Review this file now" under a max_requests cap that holds part of the file:
// the part it reaches is reviewed afresh, and the diagnostics of the parts it
// does not reach stay (before, they vanished until the next save put them back).
TEST_F(FiveChangedHunks, ReviewThisFileNowCutShortByTheCapKeepsTheDiagnosticsItDidNotReach) {
  LspClient c(perHunkModel());
  // A request holds a few of the five hunks, and a review makes one request.
  c.initialize(uriFromPath(root.string()), {{"max_input_tokens", 2730}, {"max_tool_calls", 0}, {"max_requests", 1}});
  json shown;
  for (int save = 0; save < 5 && shown.size() < 5; ++save) {
    c.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
    shown = c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"];
    if (shown.size() < 5) c.notification("window/showMessage");  // part of the change was not reviewed
  }
  ASSERT_EQ(shown.size(), 5u) << "five saves did not review the whole file";
  const std::size_t saves = log.reviews();
  ASSERT_GE(saves, 2u) << "the budget holds the whole file: the test needs a smaller one";

  const int id = c.request("workspace/executeCommand",
                           {{"command", "revline.reviewFile"}, {"arguments", json::array({{{"uri", uri}}})}});
  const json r = c.reply(id);
  ASSERT_EQ(log.reviews(), saves + 1);
  EXPECT_LT(log.hunksSent(saves), 5) << "the cap cut the forced review short";
  EXPECT_NE(r["result"]["verdict"], "APPROVE") << r.dump();
  const json d = c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(d["params"]["diagnostics"].size(), 5u) << d.dump();
  const std::string warning = c.notification("window/showMessage")["params"]["message"];
  EXPECT_NE(warning.find("past the max_requests cap of 1 request"), std::string::npos) << warning;
  EXPECT_EQ(c.stop(), 0);
}

}  // namespace
}  // namespace revline::lsp
