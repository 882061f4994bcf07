// `revline review --staged` (a pre-commit hook with a model): the index is the
// new side of the whole repository, not only of the staged files. The model's
// tools read a file outside the change as the commit will hold it, not the work
// tree's copy with unstaged edits, and never read or list an untracked file.
// Before, a callee fixed only in the work tree read as fixed to the model.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <mutex>
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

// Every tool once: the calls ToolCaller makes unless told others.
const std::vector<review::ToolCall> kEveryTool = {{"callee", "read_file", json{{"path", "check.py"}}},
                                                  {"untracked", "read_file", json{{"path", "notes.txt"}}},
                                                  {"unstaged-text", "search_text", json{{"query", "UNSTAGED"}}},
                                                  {"untracked-text", "search_text", json{{"query", "UNTRACKED"}}},
                                                  {"listing", "glob", json{{"pattern", "*"}}},
                                                  {"callers", "find_usages", json{{"symbol", "allowed"}}}};

struct StagedTools : ::testing::Test {
  testing::TempRepo repo;
  void SetUp() override {
    repo.write("check.py", "def allowed(user):\n    return user.is_admin\n");
    repo.write("handler.py", "from check import allowed\n\n\ndef get(user):\n    return 'ok'\n");
    repo.commitAll("init");
    // Staged: the handler starts relying on the check.
    repo.write("handler.py", "from check import allowed\n\n\ndef get(user):\n    if not allowed(user):\n"
                             "        return 'no'\n    return 'ok'\n");
    repo.git("add handler.py");
    // Not staged: the check is loosened in the work tree only, and a note sits untracked.
    repo.write("check.py", "def allowed(user):\n    return True  # UNSTAGED\n");
    repo.write("notes.txt", "UNTRACKED plan\n");
  }
  std::map<std::string, review::ToolResult> review(ReviewRequest::NewSide side,
                                                    const std::vector<review::ToolCall>& calls = kEveryTool) {
    std::map<std::string, review::ToolResult> results;
    ProviderFactory factory = [&results, &calls](const config::Config&, const diff::Diff&, const fs::path&) {
      return std::make_unique<testing::ToolCaller>(results, calls);
    };
    git::DiffRequest staged;
    staged.mode = git::DiffRequest::Mode::Staged;
    config::Config config;
    config.review.maxToolCalls = 6;  // one turn of six calls
    ReviewRequest request{diff::parse(git::diffText(repo.root(), staged)), repo.root(), config, {}};
    request.newSide = side;
    ReviewService(factory).review(std::move(request));
    return results;
  }
};

TEST_F(StagedTools, TheToolsReadTheRepositoryAsTheCommitWillHoldIt) {
  std::map<std::string, review::ToolResult> results = review(ReviewRequest::NewSide::Index);
  ASSERT_EQ(results.size(), 6u);
  const review::ToolResult& callee = results["callee"];
  EXPECT_TRUE(callee.ok) << callee.content;
  EXPECT_NE(callee.content.find("return user.is_admin"), std::string::npos) << callee.content;
  EXPECT_EQ(callee.content.find("UNSTAGED"), std::string::npos) << callee.content;

  const review::ToolResult& untracked = results["untracked"];
  EXPECT_FALSE(untracked.ok) << untracked.content;
  EXPECT_NE(untracked.content.find("'notes.txt' is not in the index (untracked, or only intended to be added): not "
                                   "part of the staged change"),
            std::string::npos)
      << untracked.content;
  EXPECT_EQ(untracked.content.find("plan"), std::string::npos) << untracked.content;

  EXPECT_EQ(results["unstaged-text"].content.find("check.py"), std::string::npos) << results["unstaged-text"].content;
  EXPECT_EQ(results["untracked-text"].content.find("notes.txt"), std::string::npos)
      << results["untracked-text"].content;
  EXPECT_NE(results["listing"].content.find("check.py"), std::string::npos) << results["listing"].content;
  EXPECT_EQ(results["listing"].content.find("notes.txt"), std::string::npos) << results["listing"].content;
  EXPECT_NE(results["callers"].content.find("check.py:1:"), std::string::npos) << results["callers"].content;
}

// What the work tree lost is still what the commit holds: a file deleted
// there but not staged is read, searched and listed as the index has it; one
// whose deletion is staged but kept in the work tree (`git rm --cached`) is
// untracked, so it is neither. Before, the first was "no such file".
TEST_F(StagedTools, TheIndexDecidesWhatExistsNotTheWorkTree) {
  repo.write("limits.py", "MAX_USERS = 10\n");
  repo.git("add limits.py");
  repo.git("commit -q -m limits -- limits.py");  // handler.py stays staged
  repo.remove("check.py");                        // deleted, not staged
  repo.git("rm -q --cached limits.py");  // deletion staged, the file kept
  std::map<std::string, review::ToolResult> results =
      review(ReviewRequest::NewSide::Index, {{"callee", "read_file", json{{"path", "check.py"}}},
                                             {"unstaged-deletion", "read_file", json{{"path", "limits.py"}}},
                                             {"listing", "glob", json{{"pattern", "*.py"}}},
                                             {"callee-text", "search_text", json{{"query", "is_admin"}}},
                                             {"callers", "find_usages", json{{"symbol", "allowed"}}},
                                             {"kept-text", "search_text", json{{"query", "MAX_USERS"}}}});
  ASSERT_EQ(results.size(), 6u);
  EXPECT_TRUE(results["callee"].ok) << results["callee"].content;
  EXPECT_NE(results["callee"].content.find("return user.is_admin"), std::string::npos) << results["callee"].content;
  EXPECT_FALSE(results["unstaged-deletion"].ok) << results["unstaged-deletion"].content;
  EXPECT_NE(results["unstaged-deletion"].content.find("'limits.py' is not in the index (untracked"),
            std::string::npos)
      << results["unstaged-deletion"].content;
  EXPECT_NE(results["listing"].content.find("check.py"), std::string::npos) << results["listing"].content;
  EXPECT_EQ(results["listing"].content.find("limits.py"), std::string::npos) << results["listing"].content;
  EXPECT_NE(results["callee-text"].content.find("check.py:2:"), std::string::npos) << results["callee-text"].content;
  EXPECT_NE(results["callers"].content.find("check.py:1:"), std::string::npos) << results["callers"].content;
  EXPECT_EQ(results["kept-text"].content.find("limits.py"), std::string::npos) << results["kept-text"].content;

  // The work tree's view of the same repository: the deleted file is gone, the kept one there.
  results = review(ReviewRequest::NewSide::WorkTree, {{"callee", "read_file", json{{"path", "check.py"}}},
                                                      {"kept", "read_file", json{{"path", "limits.py"}}}});
  EXPECT_NE(results["callee"].content.find("no such file"), std::string::npos) << results["callee"].content;
  EXPECT_TRUE(results["kept"].ok) << results["kept"].content;
}

// Files git is told not to look at in the work tree (skip-worktree: a tracked
// config kept with local edits; assume-unchanged) are read as the index has
// them, and a file added with --intent-to-add, which the commit leaves out, is
// refused. Before, the work tree's copies were read, the local edits included.
TEST_F(StagedTools, FlaggedAndIntendedFilesAreReadAsTheCommitHoldsThem) {
  repo.write("settings.py", "DATABASE = 'placeholder'\n");
  repo.write("assumed.py", "LIMIT = 10\n");
  repo.git("add settings.py assumed.py");
  repo.git("commit -q -m settings -- settings.py assumed.py");  // handler.py stays staged
  repo.git("update-index --skip-worktree settings.py");
  repo.git("update-index --assume-unchanged assumed.py");
  repo.write("settings.py", "DATABASE = 'LOCAL-ONLY-PASSWORD'\n");
  repo.write("assumed.py", "LIMIT = 99999  # LOCAL\n");
  repo.write("planned.py", "PLANNED = True\n");
  repo.git("add --intent-to-add planned.py");
  std::map<std::string, review::ToolResult> results =
      review(ReviewRequest::NewSide::Index, {{"skip", "read_file", json{{"path", "settings.py"}}},
                                             {"assume", "read_file", json{{"path", "assumed.py"}}},
                                             {"intended", "read_file", json{{"path", "planned.py"}}},
                                             {"local", "search_text", json{{"query", "LOCAL"}}},
                                             {"listing", "glob", json{{"pattern", "*.py"}}}});
  ASSERT_EQ(results.size(), 5u);
  EXPECT_NE(results["skip"].content.find("DATABASE = 'placeholder'"), std::string::npos) << results["skip"].content;
  EXPECT_NE(results["assume"].content.find("LIMIT = 10"), std::string::npos) << results["assume"].content;
  EXPECT_FALSE(results["intended"].ok) << results["intended"].content;
  EXPECT_NE(results["intended"].content.find("only intended to be added"), std::string::npos)
      << results["intended"].content;
  for (const char* local : {"LOCAL-ONLY-PASSWORD", "99999", "PLANNED = True"})
    for (const auto& [id, r] : results) EXPECT_EQ(r.content.find(local), std::string::npos) << id << ": " << r.content;
  EXPECT_EQ(results["listing"].content.find("planned.py"), std::string::npos) << results["listing"].content;
}

// A symlink leads to the file as the commit holds it (`alias.py -> check.py`,
// check.py loosened only in the work tree), and a tracked file the work tree
// replaced by a symlink out of the repository (not staged) is read from the
// index, not refused. Before, the first read the work tree's edit.
TEST_F(StagedTools, SymlinksLeadToWhatTheCommitHolds) {
  testing::TempDir outside;
  repo.write("rates.py", "RATE = 3\n");
  fs::create_symlink("check.py", repo.root() / "alias.py");
  repo.git("add alias.py rates.py");
  repo.git("commit -q -m alias -- alias.py rates.py");  // handler.py stays staged
  repo.remove("rates.py");
  std::ofstream(outside.path() / "secret.py") << "OUTSIDE SECRET\n";
  fs::create_symlink(outside.path() / "secret.py", repo.root() / "rates.py");
  std::map<std::string, review::ToolResult> results =
      review(ReviewRequest::NewSide::Index, {{"alias", "read_file", json{{"path", "alias.py"}}},
                                             {"retyped", "read_file", json{{"path", "rates.py"}}},
                                             {"text", "search_text", json{{"query", "is_admin"}}}});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_NE(results["alias"].content.find("return user.is_admin"), std::string::npos) << results["alias"].content;
  EXPECT_NE(results["retyped"].content.find("RATE = 3"), std::string::npos) << results["retyped"].content;
  EXPECT_NE(results["text"].content.find("alias.py:2:"), std::string::npos) << results["text"].content;
  for (const auto& [id, r] : results) {
    EXPECT_EQ(r.content.find("UNSTAGED"), std::string::npos) << id << ": " << r.content;
    EXPECT_EQ(r.content.find("OUTSIDE"), std::string::npos) << id << ": " << r.content;
  }
}

// The same change reviewed as the work tree has it (what the language server
// does): the work tree's copies, untracked files included.
TEST_F(StagedTools, AWorkTreeReviewReadsTheWorkTree) {
  std::map<std::string, review::ToolResult> results = review(ReviewRequest::NewSide::WorkTree);
  ASSERT_EQ(results.size(), 6u);
  EXPECT_NE(results["callee"].content.find("UNSTAGED"), std::string::npos) << results["callee"].content;
  EXPECT_TRUE(results["untracked"].ok) << results["untracked"].content;
  EXPECT_NE(results["unstaged-text"].content.find("check.py"), std::string::npos) << results["unstaged-text"].content;
  EXPECT_NE(results["listing"].content.find("notes.txt"), std::string::npos) << results["listing"].content;
}

}  // namespace
}  // namespace revline::session
