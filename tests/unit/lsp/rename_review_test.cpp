// A save reviews the saved file's diff alone (review_scope "file"). A renamed
// file must still read as the rename, as `revline diff` of the whole tree shows
// it: before, the path limit hid the old path from git, and the whole file went
// to the model as added, with findings on code nobody touched.
#include <gtest/gtest.h>

#include "lsp/protocol.h"
#include "tests/support/per_hunk_model.h"
#include "tests/support/temp_repo.h"
#include "tests/unit/lsp/lsp_client.h"

namespace revline::lsp {
namespace {

namespace fs = std::filesystem;
using revline::testing::TempRepo;
using testing::LspClient;

struct RenameReview : ::testing::Test {
  TempRepo repo;
  fs::path root;
  revline::testing::PerHunkLog log;
  void SetUp() override {
    repo.write("cmd/main.go", revline::testing::fiveFunctions());
    repo.commitAll("init");
    root = fs::canonical(repo.root());
  }
  ServerOptions options() {
    ServerOptions o;
    o.sync = true;
    o.providerFactory = [this](const config::Config&, const diff::Diff&, const fs::path&) {
      return std::make_unique<revline::testing::PerHunkModel>(log);
    };
    return o;
  }
  // Saves `path` and returns the diagnostics published for it.
  json save(LspClient& c, const std::string& path) {
    const std::string uri = uriFromPath((root / path).string());
    c.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
    const json d = c.notification("textDocument/publishDiagnostics");
    EXPECT_EQ(d["params"]["uri"], uri);
    return d["params"]["diagnostics"];
  }
};

TEST_F(RenameReview, AGitMvWithoutAnEditSendsNothing) {
  repo.git("mv cmd/main.go cmd/app.go");
  LspClient c(options());
  c.initialize(uriFromPath(root.string()));
  EXPECT_TRUE(save(c, "cmd/app.go").empty());
  EXPECT_EQ(log.reviews(), 0u);  // a rename has no line to comment on
  EXPECT_EQ(c.server().stats().providerCalls, 0);
  EXPECT_EQ(c.stop(), 0);
}

TEST_F(RenameReview, APlainMvWithoutAnEditSendsNothing) {
  // The new path is untracked, the old one deleted: git pairs them only when it sees both.
  fs::rename(root / "cmd/main.go", root / "cmd/app.go");
  LspClient c(options());
  c.initialize(uriFromPath(root.string()));
  EXPECT_TRUE(save(c, "cmd/app.go").empty());
  EXPECT_EQ(log.reviews(), 0u);
  EXPECT_EQ(c.stop(), 0);
}

TEST_F(RenameReview, ARenameWithOneEditSendsThatHunkAndTheFindingLandsOnTheNewPath) {
  fs::rename(root / "cmd/main.go", root / "cmd/app.go");
  std::vector<std::string> changed(3);
  changed[2] = "    v5 = x * 3  # edited after the move";  // line 13 * 2 + 7 = 33
  repo.write("cmd/app.go", revline::testing::fiveFunctions(changed));
  LspClient c(options());
  c.initialize(uriFromPath(root.string()));
  const json diagnostics = save(c, "cmd/app.go");
  ASSERT_EQ(log.reviews(), 1u);
  EXPECT_EQ(log.hunksSent(0), 1);
  EXPECT_NE(log.prompts[0].find("File: cmd/app.go (renamed from cmd/main.go"), std::string::npos) << log.prompts[0];
  EXPECT_EQ(log.prompts[0].find("def f0"), std::string::npos);  // untouched code is not sent
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0]["range"]["start"]["line"], 32);
  EXPECT_EQ(c.stop(), 0);
}

}  // namespace
}  // namespace revline::lsp
