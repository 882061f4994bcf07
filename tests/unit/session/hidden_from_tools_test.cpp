// What the diff does not show, the model's tools do not read: another
// repository's work tree inside this one (a submodule, whose own .gitignore
// this repository's git never reads), git's own directory when it sits in the
// work tree under another name (a dotfiles repository's .cfg under $HOME), and
// untracked files when status.showUntrackedFiles=no keeps them out of the
// change. Before, each was read, searched and listed: a submodule's ignored
// .env, the credentials in .cfg/config, an untracked ~/.ssh key.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/git/git.h"
#include "core/session/review_service.h"
#include "tests/support/temp_repo.h"
#include "tests/support/tool_caller.h"

namespace revline::session {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;

struct HiddenFromTools : ::testing::Test {
  testing::TempRepo repo;
  void SetUp() override {
    repo.write("app.py", "x = 1\n");
    repo.commitAll("init");
  }
  // A working-tree review (the language server's, and `revline review`'s) in which the model makes `calls`.
  std::map<std::string, review::ToolResult> review(const std::vector<review::ToolCall>& calls) {
    repo.write("app.py", "x = 2\n");
    std::map<std::string, review::ToolResult> results;
    ProviderFactory factory = [&results, &calls](const config::Config&, const diff::Diff&, const fs::path&) {
      return std::make_unique<testing::ToolCaller>(results, calls);
    };
    config::Config config;
    config.review.maxToolCalls = static_cast<int>(calls.size());
    ReviewService(factory).review(
        ReviewRequest{diff::parse(git::diffText(repo.root(), {})), repo.root(), config, {}});
    EXPECT_EQ(results.size(), calls.size());
    return results;
  }
};

bool shows(const review::ToolResult& r, const std::string& text) { return r.content.find(text) != std::string::npos; }

TEST_F(HiddenFromTools, ASubmodulesWorkTreeIsNotRead) {
  testing::TempRepo sub;
  sub.write("lib.py", "SUBMODULE_CODE = 1\n");
  sub.commitAll("sub");
  repo.git("-c protocol.file.allow=always submodule add -q " + sub.root().string() + " sm");
  repo.git("commit -q -m sm");
  repo.write("sm/.gitignore", ".env\n*.txt\n");
  repo.write("sm/.env", "DB_PASSWORD=hunter2\n");
  repo.write("sm/notes.txt", "customer: Alice Smith\n");
  const auto results = review({{"env", "read_file", json{{"path", "sm/.env"}}},
                               {"notes", "read_file", json{{"path", "sm/notes.txt"}}},
                               {"code", "read_file", json{{"path", "./sm/lib.py"}}},
                               {"password", "search_text", json{{"query", "hunter2"}}},
                               {"gitdir", "search_text", json{{"query", "gitdir"}}},
                               {"listing", "glob", json{{"pattern", "**"}}},
                               {"usages", "find_usages", json{{"symbol", "SUBMODULE_CODE"}}}});
  for (const char* id : {"env", "notes", "code"}) {
    EXPECT_FALSE(results.at(id).ok) << results.at(id).content;
    EXPECT_TRUE(shows(results.at(id), "is inside 'sm', the work tree of another git repository")) << results.at(id).content;
  }
  // (A search's answer names its query: what must not show is the rest of the line found.)
  for (const char* text : {"DB_PASSWORD", "Alice", "SUBMODULE_CODE = 1", "gitdir: "})
    for (const auto& [id, r] : results) EXPECT_FALSE(shows(r, text)) << id << " shows " << text << ": " << r.content;
  EXPECT_TRUE(shows(results.at("listing"), "app.py")) << results.at("listing").content;
  EXPECT_TRUE(shows(results.at("listing"), ".gitmodules")) << results.at("listing").content;
  EXPECT_FALSE(shows(results.at("listing"), "sm/")) << results.at("listing").content;
}

// A file of the change is this repository's, even in a directory that also
// holds a `.git` (a clone whose files the repository tracks too): the model can
// read and list what it reviews. The clone's other files stay out.
TEST_F(HiddenFromTools, AFileOfTheChangeIsReadInsideAnotherClone) {
  repo.write("lib3/f.py", "def v():\n    return 1\n");
  repo.write("lib3/g.py", "G = 1\n");
  repo.commitAll("lib3");
  repo.git("-C lib3 init -q");  // a stray clone where the repository tracks files
  repo.write("lib3/f.py", "def v():\n    return 2\n");
  const auto results = review({{"changed", "read_file", json{{"path", "lib3/f.py"}}},
                               {"other", "read_file", json{{"path", "lib3/g.py"}}},
                               {"listing", "glob", json{{"pattern", "**"}}}});
  EXPECT_TRUE(results.at("changed").ok) << results.at("changed").content;
  EXPECT_TRUE(shows(results.at("changed"), "return 2")) << results.at("changed").content;
  EXPECT_FALSE(results.at("other").ok) << results.at("other").content;
  EXPECT_TRUE(shows(results.at("listing"), "lib3/f.py")) << results.at("listing").content;
  EXPECT_FALSE(shows(results.at("listing"), "lib3/g.py")) << results.at("listing").content;
}

TEST_F(HiddenFromTools, GitsDirectoryUnderAnotherNameIsNotRead) {
  // A dotfiles repository's layout: the git directory is .cfg inside the work tree.
  fs::rename(repo.root() / ".git", repo.root() / ".cfg");
  repo.write(".git", "gitdir: .cfg\n");
  repo.git("config remote.origin.url https://deploy:S3cretPassw0rd@example.com/x.git");
  const auto results = review({{"config", "read_file", json{{"path", ".cfg/config"}}},
                               {"head", "read_file", json{{"path", ".cfg/HEAD"}}},
                               {"password", "search_text", json{{"query", "S3cret"}}},
                               {"listing", "glob", json{{"pattern", "**"}}}});
  for (const char* id : {"config", "head"}) {
    EXPECT_FALSE(results.at(id).ok) << results.at(id).content;
    EXPECT_TRUE(shows(results.at(id), "is git's own data")) << results.at(id).content;
  }
  for (const auto& [id, r] : results) EXPECT_FALSE(shows(r, "Passw0rd")) << id << ": " << r.content;
  EXPECT_TRUE(shows(results.at("listing"), "app.py")) << results.at("listing").content;
  EXPECT_FALSE(shows(results.at("listing"), ".cfg")) << results.at("listing").content;
  EXPECT_FALSE(shows(results.at("listing"), ".git")) << results.at("listing").content;
}

TEST_F(HiddenFromTools, UntrackedFilesStatusDoesNotShowAreNotRead) {
  repo.git("config status.showUntrackedFiles no");
  repo.write(".ssh/id_work", "PRIVATE KEY MATERIAL\n");
  const auto results = review({{"key", "read_file", json{{"path", ".ssh/id_work"}}},
                               {"text", "search_text", json{{"query", "MATERIAL"}}},
                               {"listing", "glob", json{{"pattern", "**"}}}});
  EXPECT_FALSE(results.at("key").ok) << results.at("key").content;
  EXPECT_TRUE(shows(results.at("key"), "status.showUntrackedFiles=no")) << results.at("key").content;
  for (const auto& [id, r] : results) EXPECT_FALSE(shows(r, "PRIVATE")) << id << ": " << r.content;
  EXPECT_FALSE(shows(results.at("listing"), "id_work")) << results.at("listing").content;
  EXPECT_TRUE(shows(results.at("listing"), "app.py")) << results.at("listing").content;
}

// A submodule the index names (a gitlink) where the work tree has a plain
// directory: git's listing of ignored files never enters it, so its ignored
// files were read (a local credentials file). It is another repository's.
TEST_F(HiddenFromTools, ADirectoryTheIndexCallsASubmoduleIsNotRead) {
  repo.write(".gitignore", "config/creds.json\n");
  repo.write("config/app.json", "{}\n");
  repo.commitAll("config");
  repo.git("rm -q --cached config/app.json");
  const std::string head = repo.git("rev-parse HEAD").substr(0, 40);
  repo.git("update-index --add --cacheinfo 160000," + head + ",config");
  repo.write("config/creds.json", "{\"SECRET_TOKEN\": \"tok-123\"}\n");
  const auto results = review({{"creds", "read_file", json{{"path", "config/creds.json"}}},
                               {"search", "search_text", json{{"query", "SECRET_TOKEN"}}},
                               {"listing", "glob", json{{"pattern", "config/*"}}}});
  EXPECT_FALSE(results.at("creds").ok) << results.at("creds").content;
  EXPECT_TRUE(shows(results.at("creds"), "the work tree of another git repository")) << results.at("creds").content;
  for (const auto& [id, r] : results) EXPECT_FALSE(shows(r, "tok-123")) << id << ": " << r.content;
  EXPECT_FALSE(shows(results.at("listing"), "creds.json")) << results.at("listing").content;
}

// A tracked file git is told not to look at in the work tree (a config kept
// with local edits: skip-worktree, assume-unchanged) shows in no diff: the
// tools read it as the index has it. Before, its local copy was read and searched.
TEST_F(HiddenFromTools, FilesGitReadsFromTheIndexAreNotReadFromTheWorkTree) {
  repo.write("config/settings.ini", "endpoint = http://localhost:8080\n");
  repo.write("config/flags.ini", "beta = off\n");
  repo.commitAll("config");
  repo.git("update-index --skip-worktree config/settings.ini");
  repo.git("update-index --assume-unchanged config/flags.ini");
  repo.write("config/settings.ini", "endpoint = http://billing.internal.example:9000\n");
  repo.write("config/flags.ini", "beta = LOCAL_ONLY\n");
  const auto results = review({{"settings", "read_file", json{{"path", "config/settings.ini"}}},
                               {"flags", "read_file", json{{"path", "config//flags.ini"}}},
                               {"local", "search_text", json{{"query", "billing.internal"}}},
                               {"committed", "search_text", json{{"query", "localhost:8080"}}},
                               {"listing", "glob", json{{"pattern", "config/*"}}}});
  EXPECT_TRUE(results.at("settings").ok) << results.at("settings").content;
  EXPECT_TRUE(shows(results.at("settings"), "localhost:8080")) << results.at("settings").content;
  EXPECT_TRUE(shows(results.at("flags"), "beta = off")) << results.at("flags").content;
  for (const char* text : {"billing.internal.example:9000", "LOCAL_ONLY"})
    for (const auto& [id, r] : results) EXPECT_FALSE(shows(r, text)) << id << " shows " << text << ": " << r.content;
  EXPECT_TRUE(shows(results.at("committed"), "config/settings.ini:1:")) << results.at("committed").content;
  EXPECT_TRUE(shows(results.at("listing"), "config/settings.ini")) << results.at("listing").content;
  EXPECT_TRUE(shows(results.at("listing"), "config/flags.ini")) << results.at("listing").content;
}

// A sparse checkout leaves the files outside its cone out of the work tree, not
// out of the repository: the model finds, reads and searches them as the index
// has them. Before, it was told "no such file in the repository".
TEST_F(HiddenFromTools, FilesOutsideASparseCheckoutAreReadFromTheIndex) {
  repo.write("lib/util.py", "def helper():\n    return 42  # LIB_MARKER\n");
  repo.write("src/main.py", "import lib.util\n");
  repo.commitAll("tree");
  repo.git("sparse-checkout set src");
  ASSERT_FALSE(fs::exists(repo.root() / "lib" / "util.py"));
  const auto results = review({{"read", "read_file", json{{"path", "lib/util.py"}}},
                               {"search", "search_text", json{{"query", "LIB_MARKER"}}},
                               {"usages", "find_usages", json{{"symbol", "helper"}}},
                               {"listing", "glob", json{{"pattern", "lib/*"}}}});
  EXPECT_TRUE(results.at("read").ok) << results.at("read").content;
  EXPECT_TRUE(shows(results.at("read"), "return 42")) << results.at("read").content;
  EXPECT_TRUE(shows(results.at("search"), "lib/util.py:2:")) << results.at("search").content;
  EXPECT_TRUE(shows(results.at("usages"), "lib/util.py:1:")) << results.at("usages").content;
  EXPECT_TRUE(shows(results.at("listing"), "lib/util.py")) << results.at("listing").content;
}

// A branch's review in a sparse CI checkout (--base): a file of the change
// outside the cone is read as the index has it, which is what the diff shows.
TEST_F(HiddenFromTools, AChangedFileOutsideASparseCheckoutIsReadUnderBase) {
  repo.write("lib/util.py", "def helper():\n    return 1\n");
  repo.write("src/main.py", "import lib.util\n");
  repo.commitAll("tree");
  repo.git("branch -M main");
  repo.git("checkout -q -b feat");
  repo.write("lib/util.py", "def helper():\n    return 2  # FEATURE_MARKER\n");
  repo.commitAll("feature");
  repo.git("sparse-checkout set src");
  ASSERT_FALSE(fs::exists(repo.root() / "lib" / "util.py"));
  git::DiffRequest base;
  base.mode = git::DiffRequest::Mode::Base;
  base.base = "main";
  std::map<std::string, review::ToolResult> results;
  const std::vector<review::ToolCall> calls{{"read", "read_file", json{{"path", "lib/util.py"}}}};
  ProviderFactory factory = [&results, &calls](const config::Config&, const diff::Diff&, const fs::path&) {
    return std::make_unique<testing::ToolCaller>(results, calls);
  };
  ReviewService(factory).review(ReviewRequest{diff::parse(git::diffText(repo.root(), base)), repo.root(), {}, {}});
  ASSERT_EQ(results.count("read"), 1u);
  EXPECT_TRUE(results.at("read").ok) << results.at("read").content;
  EXPECT_TRUE(shows(results.at("read"), "FEATURE_MARKER")) << results.at("read").content;
}

}  // namespace
}  // namespace revline::session
