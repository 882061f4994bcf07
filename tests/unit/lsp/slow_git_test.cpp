// The language server with a git that is slow or hangs (a repository on a
// stalled network mount): the lookup of a file's repository runs git on the
// loop thread, so it is asked as seldom as it can be and bounded. A trial with
// a git that slept in `rev-parse` found every request held for git's 120 s, and
// again for each message in that repository, since a failure beside a .git was
// never remembered; each new folder of a known repository ran git again.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "lsp/protocol.h"
#include "tests/support/temp_repo.h"
#include "tests/unit/lsp/lsp_client.h"

namespace revline::lsp {
namespace {

namespace fs = std::filesystem;
using revline::testing::TempDir;
using revline::testing::TempRepo;
using testing::LspClient;
using namespace std::chrono_literals;

// A `git` first on PATH that logs each call and, in `rev-parse --show-toplevel`,
// sleeps while `hang` exists, or fails after a second while `fail-slowly` does;
// in `diff`, takes 2.5 s while `slow-diff` exists.
struct SlowGit : ::testing::Test {
  TempRepo repo;
  TempDir bin;
  std::string oldPath;
  std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();

  void SetUp() override {
    oldPath = std::getenv("PATH") ? std::getenv("PATH") : "";
    const std::string realGit = revline::testing::runShell("command -v git", repo.root()).out;
    std::ofstream(bin.path() / "git") << "#!/bin/sh\n"
                                      << "echo \"$*\" >> '" << (bin.path() / "calls").string() << "'\n"
                                      << "case \"$*\" in *'rev-parse --show-toplevel'*)\n"
                                      << "  [ -e '" << (bin.path() / "hang").string() << "' ] && sleep 60\n"
                                      << "  [ -e '" << (bin.path() / "fail-slowly").string()
                                      << "' ] && sleep 1.2 && echo 'fatal: cannot read .git/config' >&2 && exit 128;;\n"
                                      << "  *' diff '*) [ -e '" << (bin.path() / "slow-diff").string() << "' ] && sleep 2.5;;\n"
                                      << "esac\n"
                                      << "exec " << realGit.substr(0, realGit.find('\n')) << " \"$@\"\n";
    fs::permissions(bin.path() / "git", fs::perms::owner_all);
    ::setenv("PATH", (bin.path().string() + ":" + oldPath).c_str(), 1);
    for (const char* dir : {"a", "b", "c"}) repo.write(std::string(dir) + "/x.py", "x = 1\n");
    repo.commitAll("base");
  }
  void TearDown() override { ::setenv("PATH", oldPath.c_str(), 1); }

  ServerOptions options() {
    ServerOptions o;
    o.repositoryLookupTimeout = 300ms;
    o.clock = [this] { return now; };
    o.gitStatePoll = std::chrono::milliseconds(0);
    return o;
  }
  std::string uriOf(const std::string& rel) { return uriFromPath((fs::canonical(repo.root()) / rel).string()); }
  std::string rootUri() { return uriFromPath(fs::canonical(repo.root()).string()); }
  int lookups() {
    std::ifstream in(bin.path() / "calls");
    int n = 0;
    for (std::string line; std::getline(in, line);) n += line.find("rev-parse --show-toplevel") != std::string::npos;
    return n;
  }
  void open(LspClient& c, const std::string& rel) {
    c.notify("textDocument/didOpen",
             {{"textDocument", {{"uri", uriOf(rel)}, {"languageId", "python"}, {"version", 1}, {"text", "x = 1\n"}}}});
  }
  // The first diagnostics published for `rel` that hold a finding (null after 10 s without).
  json findingsOf(LspClient& c, const std::string& rel) {
    return c.waitFor([&](const json& m) { return m.value("method", "") == "textDocument/publishDiagnostics" &&
                                                 m["params"]["uri"] == uriOf(rel) && !m["params"]["diagnostics"].empty(); },
                     "diagnostics with a finding for " + rel);
  }
  json codeActions(LspClient& c, const std::string& rel) {
    const int id = c.request("textDocument/codeAction",
                             {{"textDocument", {{"uri", uriOf(rel)}}},
                              {"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}}},
                              {"context", {{"diagnostics", json::array()}}}});
    return c.reply(id);
  }
};

// The files of three folders of one repository: git is asked which repository
// once, not once per folder.
TEST_F(SlowGit, AFolderOfARepositorySeenBeforeNeedsNoGit) {
  LspClient c(options());
  c.initialize(rootUri());
  for (const char* rel : {"a/x.py", "b/x.py", "c/x.py"}) {
    open(c, rel);
    EXPECT_TRUE(codeActions(c, rel).contains("result")) << rel;
  }
  EXPECT_EQ(lookups(), 1);
  EXPECT_EQ(c.stop(), 0);
}

// git hangs in the lookup (a stalled mount): the server answers after the
// lookup's timeout, takes the folder holding the nearest .git for the
// repository and says so once, and git is not asked again for every message;
// the review itself runs git on a worker, as long as git takes. Before, every
// request waited 120 s, again on every message; with a first fix, a git that
// answered in 20 s was never reviewed.
TEST_F(SlowGit, AHangingLookupIsBoundedAndTheRepositoryStillReviewed) {
  std::ofstream(bin.path() / "hang") << "";
  LspClient c(options());
  c.initialize(rootUri());
  open(c, "a/x.py");
  const std::string warning = c.notification("window/showMessage")["params"]["message"];
  EXPECT_NE(warning.find("git took longer than 300 ms to say which repository"), std::string::npos) << warning;
  EXPECT_NE(warning.find("taken to be " + fs::canonical(repo.root()).string() + ", the folder holding the nearest .git"),
            std::string::npos) << warning;
  for (const char* rel : {"a/x.py", "b/x.py", "c/x.py"}) EXPECT_TRUE(codeActions(c, rel).contains("result")) << rel;
  EXPECT_EQ(lookups(), 1) << "the repository is known";
  fs::remove(bin.path() / "hang");
  repo.write("b/x.py", "x = 1\ndb_password = \"hunter2secret\"\n");
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", uriOf("b/x.py")}}}});
  const json published = findingsOf(c, "b/x.py");
  ASSERT_TRUE(published.is_object());
  EXPECT_EQ(published["params"]["diagnostics"].size(), 1u) << published.dump();
  EXPECT_EQ(c.stop(), 0);
}

// git fails slowly (an error after a second or more): not asked again for
// every message, but after a while, when the user may have fixed it; a quick
// failure is asked again at once (Hostile.ANamedPipeWhereGitExpectsAFile...).
TEST_F(SlowGit, ASlowFailureIsAskedAgainAfterAWhile) {
  std::ofstream(bin.path() / "fail-slowly") << "";
  ServerOptions o = options();
  o.repositoryLookupTimeout = 5s;
  LspClient c(std::move(o));
  c.initialize(rootUri());
  open(c, "a/x.py");
  const std::string warning = c.notification("window/showMessage")["params"]["message"];
  EXPECT_NE(warning.find("nothing here is reviewed"), std::string::npos) << warning;
  for (const char* rel : {"a/x.py", "b/x.py"}) EXPECT_TRUE(codeActions(c, rel).contains("result")) << rel;
  EXPECT_EQ(lookups(), 1) << "a failure that took git long is remembered for a while";
  fs::remove(bin.path() / "fail-slowly");
  now += Server::kRetryRepositoryProblem + 1s;
  repo.write("b/x.py", "x = 1\ndb_password = \"hunter2secret\"\n");
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", uriOf("b/x.py")}}}});
  const json published = findingsOf(c, "b/x.py");
  ASSERT_TRUE(published.is_object());
  EXPECT_EQ(lookups(), 2);
  EXPECT_EQ(c.stop(), 0);
}

// A review held by a slow git says so in its progress while git runs, and
// goes back to the plain message once git is done. Before, the progress said
// "reviewing b/x.py" and nothing else for as long as git took (120 s when it
// hung), so a slow mount read as a slow model.
TEST_F(SlowGit, AReviewWaitingForGitSaysSoInItsProgress) {
  std::ofstream(bin.path() / "slow-diff") << "";
  LspClient c(options());
  c.initialize(rootUri(), json::object(), {{"window", {{"workDoneProgress", true}}}});
  repo.write("b/x.py", "x = 1\ndb_password = \"hunter2secret\"\n");
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", uriOf("b/x.py")}}}});
  c.acceptProgressCreate();
  std::vector<std::string> reports;
  for (json m; (m = c.notification("$/progress")).is_object();) {
    const json& value = m["params"]["value"];
    if (value["kind"] == "end") break;
    if (value["kind"] == "report") reports.push_back(value.value("message", ""));
  }
  // The wait, its end (the plain message again), then the review's own "reviewing" report.
  EXPECT_EQ(reports, std::vector<std::string>({"reviewing b/x.py: waiting for `git diff` (2 s so far)",
                                               "reviewing b/x.py", "reviewing b/x.py"}));
  EXPECT_EQ(findingsOf(c, "b/x.py")["params"]["diagnostics"].size(), 1u);
  EXPECT_EQ(c.stop(), 0);
}

}  // namespace
}  // namespace revline::lsp
