// The server runs reviews through the session (core/session): the change comes
// from the injected git reader, and the verdict follows the one verdict rule,
// no false approval included, fresh and from the cache after a restart.
#include <gtest/gtest.h>

#include <atomic>

#include "lsp/protocol.h"
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
  // A restarted server answers the same change from the cache, with the same verdict.
  LspClient again(fixed(answer, calls));
  again.initialize(uriFromPath(root.string()));
  const json r = reviewFile(again);
  EXPECT_EQ(r["result"]["verdict"], "COMMENT") << r.dump();
  EXPECT_EQ(calls.load(), asked);  // no model call
  EXPECT_EQ(again.server().stats().cacheHits, 1);
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

}  // namespace
}  // namespace revline::lsp
