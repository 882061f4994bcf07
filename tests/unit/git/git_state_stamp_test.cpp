// git::gitStateStamp, which a language server whose client watches no files
// compares once a second: it must change with every git operation that changes
// what the working-tree diff is against (stage, commit, reset --soft, checkout,
// stash), stay the same when nothing happened, and never wait on a planted file.
#include "core/git/git_state_stamp.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "tests/support/temp_repo.h"

namespace revline::git {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::TempRepo;

struct GitStateStamp : ::testing::Test {
  TempRepo repo;
  void SetUp() override {
    repo.write("a.txt", "one\n");
    repo.commitAll("init");
  }
  std::string stamp() const { return gitStateStamp(repo.root()); }
};

TEST_F(GitStateStamp, NothingDoneKeepsIt) {
  const std::string before = stamp();
  EXPECT_FALSE(before.empty());
  repo.write("a.txt", "one changed\n");  // the work tree is the diff's other side: a save reviews it
  EXPECT_EQ(stamp(), before);
}

TEST_F(GitStateStamp, EachOperationChangesIt) {
  repo.write("a.txt", "one changed\n");
  std::string last = stamp();
  const auto changedBy = [&](const std::string& args) {
    repo.git(args);
    const std::string now = stamp();
    EXPECT_NE(now, last) << "git " << args;
    last = now;
  };
  changedBy("add a.txt");
  changedBy("commit -q -m c");
  changedBy("reset -q --soft HEAD~1");  // the index stays; the branch moves
  changedBy("checkout -q -b topic");    // HEAD names another branch
  changedBy("stash -q");
  changedBy("stash pop -q");
  repo.git("commit -q -a -m on-topic");
  last = stamp();
  changedBy("pack-refs --all");  // the branch now lives in packed-refs only
  changedBy("checkout -q --detach HEAD~1");
}

// A linked work tree keeps its index and HEAD in .git/worktrees/NAME and its
// branch in the main repository: a commit there changes its stamp.
TEST_F(GitStateStamp, ALinkedWorkTreeHasItsOwn) {
  TempDir other;
  const fs::path tree = other.path() / "tree";
  repo.git("worktree add -q -b side " + tree.string());
  const std::string main = stamp();
  const std::string before = gitStateStamp(tree);
  EXPECT_FALSE(before.empty());
  std::ofstream(tree / "a.txt") << "changed in the linked tree\n";
  repo.git("-C " + tree.string() + " commit -q -am side");
  EXPECT_NE(gitStateStamp(tree), before);
  EXPECT_EQ(stamp(), main);
}

TEST(GitStateStampOutside, NoGitDirectoryIsEmpty) {
  TempDir dir;
  EXPECT_EQ(gitStateStamp(dir.path()), "");
}

// A repository handed over with a named pipe for HEAD: git fails on it, and the
// stamp is read at once (the server's loop thread reads it), never waiting for a writer.
TEST_F(GitStateStamp, APlantedPipeIsNotWaitedOn) {
  const fs::path head = repo.root() / ".git" / "HEAD";
  fs::remove(head);
  ASSERT_EQ(::mkfifo(head.c_str(), 0600), 0);
  EXPECT_NE(stamp(), "");
}

}  // namespace
}  // namespace revline::git
