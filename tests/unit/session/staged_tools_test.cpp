// `revline review --staged` (a pre-commit hook with a model): the index is the
// new side of the whole repository, not only of the staged files. The model's
// tools read a file outside the change as the commit will hold it, not the work
// tree's copy with unstaged edits, and never read or list an untracked file.
// Before, a callee fixed only in the work tree read as fixed to the model.
#include <gtest/gtest.h>

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
  EXPECT_NE(untracked.content.find("'notes.txt' is not in the index (untracked): not part of the staged change"),
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
  EXPECT_NE(results["unstaged-deletion"].content.find("'limits.py' is not in the index (untracked)"),
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
