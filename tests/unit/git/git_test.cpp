#include "core/git/git.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "core/git/text_shown_binary.h"
#include "tests/support/temp_repo.h"

namespace revline::git {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;
using testing::TempDir;
using testing::TempRepo;

// Keeps the machine's git configuration out of the results, as TempRepo does.
GitOptions isolated(const TempRepo& repo) {
  GitOptions options;
  options.env["HOME"] = repo.root().string();
  options.env["GIT_CONFIG_NOSYSTEM"] = "1";
  return options;
}

// isolated(), with git run through a shell script in the repository's .git:
// `before` (shell lines) runs first, then the real git with the same arguments.
GitOptions wrappedGit(const TempRepo& repo, const std::string& before) {
  const fs::path wrapper = repo.root() / ".git" / "wrapped-git";
  {
    std::ofstream script(wrapper);
    script << "#!/bin/sh\n" << before << "exec git \"$@\"\n";
  }
  fs::permissions(wrapper, fs::perms::owner_all);
  GitOptions options = isolated(repo);
  options.program = wrapper.string();
  return options;
}

std::string diff(const TempRepo& repo, const DiffRequest& request = {}) {
  return diffText(repo.root(), request, isolated(repo));
}

std::string bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

template <typename F>
std::string gitErrorOf(F&& f) {
  try {
    f();
  } catch (const GitError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a GitError";
  return "";
}

TEST(FindRepositoryRoot, FromSubdirectoryAndFromFile) {
  TempRepo repo;
  repo.write("src/deep/a.txt", "a\n");
  const fs::path root = fs::canonical(repo.root());
  EXPECT_EQ(fs::canonical(findRepositoryRoot(repo.root() / "src" / "deep", isolated(repo))), root);
  EXPECT_EQ(fs::canonical(findRepositoryRoot(repo.root() / "src" / "deep" / "a.txt", isolated(repo))), root);
}

TEST(FindRepositoryRoot, OutsideARepositoryExplainsWhatToDo) {
  TempDir dir;
  GitOptions options;
  options.env["GIT_CEILING_DIRECTORIES"] = dir.path().parent_path().string();
  const std::string message = gitErrorOf([&] { findRepositoryRoot(dir.path(), options); });
  EXPECT_EQ(message, "'" + dir.path().string() +
                         "' is not inside a git repository; run revline from a git work tree or `git init`");
}

// A CI container's checkout owned by another user: git's safe.directory check,
// said as such with git's advice (was "is not inside a git work tree: fatal: …").
// git's own test switch stands in for a chown, which needs root.
TEST(FindRepositoryRoot, ARepositoryOfAnotherOwnerSaysHowToTrustIt) {
  TempRepo repo;
  GitOptions options = isolated(repo);
  options.env["GIT_TEST_ASSUME_DIFFERENT_OWNER"] = "1";
  const std::string message = gitErrorOf([&] { findRepositoryRoot(repo.root(), options); });
  EXPECT_THAT(message, HasSubstr("git refuses to read the repository of '" + repo.root().string() +
                                 "': it is owned by another user than the one running revline"));
  EXPECT_THAT(message, HasSubstr("; to add an exception for this directory, call: git config --global --add "
                                 "safe.directory "));
  EXPECT_THAT(message, Not(HasSubstr("not inside a git work tree")));
}

// GIT_DIR and GIT_WORK_TREE exported (a dotfiles setup) and revline run from
// elsewhere: the error names the environment, not a core.worktree that is not set.
TEST(FindRepositoryRoot, AWorkTreeFromTheEnvironmentIsNamedAsSuch) {
  TempRepo repo;
  TempDir elsewhere;
  GitOptions options = isolated(repo);
  options.env["GIT_DIR"] = (repo.root() / ".git").string();
  options.env["GIT_WORK_TREE"] = repo.root().string();
  const std::string error = gitErrorOf([&] { findRepositoryRoot(elsewhere.path(), options); });
  EXPECT_THAT(error, HasSubstr("set by GIT_WORK_TREE in the environment"));
  EXPECT_THAT(error, HasSubstr("unset GIT_WORK_TREE"));
  EXPECT_THAT(error, Not(HasSubstr("core.worktree")));
}

// Where there is no work tree, the error says which case it is and where to go
// (before: "cannot use bare repository ... (safe.bareRepository is 'explicit')"
// for both, a setting revline itself sets).
TEST(FindRepositoryRoot, AGitDirectoryOrABareRepositoryIsNamedAsSuch) {
  TempRepo repo;
  repo.write("a.txt", "a\n");
  repo.commitAll("base");
  const std::string inside = gitErrorOf([&] { findRepositoryRoot(repo.root() / ".git" / "refs", isolated(repo)); });
  EXPECT_THAT(inside, HasSubstr("is inside the git directory of " + repo.root().string() +
                                ", not its work tree; run revline from " + repo.root().string()));
  TempDir place;
  repo.git("clone -q --bare . " + (place.path() / "bare.git").string());
  const std::string bare = gitErrorOf([&] { findRepositoryRoot(place.path() / "bare.git", isolated(repo)); });
  EXPECT_THAT(bare, HasSubstr("is in a bare repository: it has no work tree, so there is no change to review"));
}

// A damaged index is named as the user's .git/index, with the repair, not as
// revline's temporary copy of it.
TEST(DiffText, ADamagedIndexIsNamedAsTheRepositorysOwn) {
  TempRepo repo;
  repo.write("a.txt", "a\n");
  repo.commitAll("base");
  repo.write("a.txt", "b\n");
  repo.write(".git/index", "garbage");
  const std::string error = gitErrorOf([&] { diff(repo); });
  const std::string index = (repo.root() / ".git" / "index").string();
  EXPECT_THAT(error, HasSubstr("fatal: " + index + ": index file smaller than expected"));
  EXPECT_THAT(error, HasSubstr("`rm " + index + " && git reset`"));
  EXPECT_THAT(error, Not(HasSubstr("revline-index-")));
}

TEST(FindRepositoryRoot, MissingDirectoryIsNamed) {
  const std::string message = gitErrorOf([] { findRepositoryRoot("/nonexistent/revline-xyz"); });
  EXPECT_THAT(message, HasSubstr("'/nonexistent/revline-xyz' does not exist"));
}

TEST(Git, MissingGitSaysHowToInstallIt) {
  TempRepo repo;
  TempDir emptyBin;
  GitOptions options = isolated(repo);
  options.env["PATH"] = emptyBin.path().string();
  EXPECT_EQ(gitErrorOf([&] { findRepositoryRoot(repo.root(), options); }),
            "git was not found on PATH; install git (apt-get install git)");
  EXPECT_EQ(gitErrorOf([&] { diffText(repo.root(), {}, options); }),
            "git was not found on PATH; install git (apt-get install git)");
}

TEST(DiffText, ACancelledRequestRunsNoGit) {
  TempRepo repo;
  repo.write("a.txt", "one\n");
  DiffRequest request;
  request.cancel.cancel();
  EXPECT_THROW(diffText(repo.root(), request, isolated(repo)), Cancelled);
}

TEST(DiffText, CancellationKillsTheGitCallRunning) {
  // A git that hangs (a huge repository, a slow disk): the review that asked
  // for the diff was cancelled, so the call stops now, not after the timeout.
  TempRepo repo;
  repo.write("a.txt", "one\n");
  const fs::path slowGit = repo.root() / "slow-git";
  {
    std::ofstream script(slowGit);
    script << "#!/bin/sh\nsleep 30\n";
  }
  fs::permissions(slowGit, fs::perms::owner_all);
  GitOptions options = isolated(repo);
  options.program = slowGit.string();
  DiffRequest request;
  std::thread canceller([cancel = request.cancel] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancel.cancel();
  });
  EXPECT_THROW(diffText(repo.root(), request, options), Cancelled);
  canceller.join();
}

TEST(DiffText, ModifiedAddedDeletedRenamed) {
  TempRepo repo;
  repo.write("modified.txt", "one\ntwo\nthree\n");
  repo.write("deleted.txt", "gone\n");
  repo.write("old_name.txt", "a fairly long line so rename detection is sure\nsecond line\nthird line\n");
  repo.commitAll("base");
  repo.write("modified.txt", "one\nTWO\nthree\n");
  repo.remove("deleted.txt");
  repo.remove("old_name.txt");
  repo.write("new_name.txt", "a fairly long line so rename detection is sure\nsecond line\nthird line\n");
  repo.write("staged_new.txt", "staged\n");
  repo.git("add staged_new.txt");

  const std::string text = diff(repo);
  EXPECT_THAT(text, HasSubstr("diff --git a/modified.txt b/modified.txt\n"));
  EXPECT_THAT(text, HasSubstr("-two\n+TWO\n"));
  EXPECT_THAT(text, HasSubstr("diff --git a/deleted.txt b/deleted.txt\ndeleted file mode 100644\n"));
  EXPECT_THAT(text, HasSubstr("diff --git a/old_name.txt b/new_name.txt\nsimilarity index 100%\n"
                              "rename from old_name.txt\nrename to new_name.txt\n"));
  EXPECT_THAT(text, HasSubstr("diff --git a/staged_new.txt b/staged_new.txt\nnew file mode 100644\n"));
}

TEST(DiffText, UntrackedFilesAreAddedAndIgnoredFilesAreNot) {
  TempRepo repo;
  repo.write(".gitignore", "*.log\nbuild/\n");
  repo.write("kept.txt", "kept\n");
  repo.commitAll("base");
  repo.write("src/new file.cpp", "int main() {}\n");
  repo.write("debug.log", "noise\n");
  repo.write("build/out.txt", "artifact\n");

  const std::string text = diff(repo);
  EXPECT_THAT(text, HasSubstr("diff --git a/src/new file.cpp b/src/new file.cpp\nnew file mode 100644\n"));
  // git appends a tab to names with spaces on the ---/+++ lines.
  EXPECT_THAT(text, HasSubstr("+++ b/src/new file.cpp\t\n@@ -0,0 +1 @@\n+int main() {}\n"));
  EXPECT_THAT(text, Not(HasSubstr("debug.log")));
  EXPECT_THAT(text, Not(HasSubstr("build/out.txt")));

  DiffRequest trackedOnly;
  trackedOnly.includeUntracked = false;
  EXPECT_EQ(diff(repo, trackedOnly), "");
}

// Untracked files count as git status shows them: none when the repository says
// status.showUntrackedFiles=no (a dotfiles repository over $HOME: every file of
// the home directory, keys included, was reviewed as added).
// The user's diff.context, diff.interHunkContext or GIT_DIFF_OPTS do not take the
// context lines a reviewer is shown (and a finding on one may be placed).
TEST(DiffText, ThreeLinesOfContextWhateverTheUsersSettings) {
  TempRepo repo;
  repo.write("n.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n");
  repo.commitAll("base");
  repo.write("n.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\nTEN\n11\n12\n13\n14\n15\n16\n17\nEIGHTEEN\n19\n20\n");
  repo.git("config diff.context 0");
  repo.git("config diff.interHunkContext 10");
  GitOptions options = isolated(repo);
  options.env["GIT_DIFF_OPTS"] = "-u0";
  const std::string text = diffText(repo.root(), {}, options);
  EXPECT_THAT(text, HasSubstr("@@ -7,7 +7,7 @@\n 7\n 8\n 9\n-10\n+TEN\n 11\n 12\n 13\n"));
  EXPECT_THAT(text, HasSubstr("@@ -15,6 +15,6 @@\n 15\n"));
}

TEST(DiffText, UntrackedFilesFollowStatusShowUntrackedFiles) {
  TempRepo repo;
  repo.write("kept.txt", "kept\n");
  repo.commitAll("base");
  repo.write("kept.txt", "kept\nmore\n");
  repo.write("notes.txt", "untracked\n");
  EXPECT_THAT(diff(repo), HasSubstr("b/notes.txt"));
  repo.git("config status.showUntrackedFiles no");
  std::vector<std::string> notices;
  DiffRequest whole;
  whole.notices = &notices;
  const std::string text = diff(repo, whole);
  EXPECT_THAT(text, Not(HasSubstr("notes.txt")));
  EXPECT_THAT(text, HasSubstr("+more"));
  EXPECT_TRUE(notices.empty()) << "the repository's own choice (a dotfiles repository over $HOME) is not said";
  // The user's global setting (some set it for speed) hid a new file's every line,
  // silently: said, with how many.
  repo.git("config --unset status.showUntrackedFiles");
  TempDir home;
  std::ofstream(home.path() / "gitconfig") << "[status]\n\tshowUntrackedFiles = no\n";
  GitOptions global = isolated(repo);
  global.env["GIT_CONFIG_GLOBAL"] = (home.path() / "gitconfig").string();
  EXPECT_THAT(diffText(repo.root(), whole, global), Not(HasSubstr("notes.txt")));
  EXPECT_THAT(notices, ElementsAre("1 untracked file is not part of this review: status.showUntrackedFiles is `no` in "
                                   "your global git config, so git status lists none; `git add -N FILE` takes a new "
                                   "file in (or `git -c status.showUntrackedFiles=normal status` shows which)"));
  repo.git("config status.showUntrackedFiles no");
  // The file the editor saved is asked for by name: shown.
  DiffRequest named;
  named.paths = {"notes.txt"};
  EXPECT_THAT(diff(repo, named), HasSubstr("b/notes.txt"));
  repo.git("config status.showUntrackedFiles normal");
  EXPECT_THAT(diff(repo), HasSubstr("b/notes.txt"));
}

// A git directory inside the work tree under another name (GIT_DIR=~/.dotfiles,
// GIT_WORK_TREE=~) is never part of the change, though git lists it as untracked.
TEST(DiffText, TheRepositorysOwnGitDirectoryIsNeverAnAddedFile) {
  TempDir home;
  const fs::path root = fs::canonical(home.path());
  GitOptions options;
  options.env["HOME"] = root.string();
  options.env["GIT_CONFIG_NOSYSTEM"] = "1";
  options.env["GIT_DIR"] = (root / ".dotfiles").string();
  options.env["GIT_WORK_TREE"] = root.string();
  testing::runShell("git init -q --bare .dotfiles && printf 'x\\n' > .bashrc && GIT_DIR=.dotfiles GIT_WORK_TREE=. "
                    "git add .bashrc && GIT_DIR=.dotfiles GIT_WORK_TREE=. git -c user.name=t -c user.email=t@t "
                    "commit -qm init && printf 'x\\ny\\n' > .bashrc && printf 'new\\n' > todo.txt",
                    root);
  const std::string text = diffText(root, {}, options);
  EXPECT_THAT(text, HasSubstr("+y"));
  EXPECT_THAT(text, HasSubstr("b/todo.txt"));
  EXPECT_THAT(text, Not(HasSubstr(".dotfiles/")));
}

TEST(IgnoredUntracked, ListsIgnoredFilesAndWholeDirectoriesOnly) {
  TempRepo repo;
  repo.write(".gitignore", ".env\nout/\n*.log\n");
  repo.write("tracked.log", "kept\n");
  repo.git("add -f tracked.log .gitignore");
  repo.git("commit -q -m base");
  repo.write(".env", "TOKEN=x\n");
  repo.write("out/a/b.txt", "x\n");
  repo.write("src/debug.log", "x\n");
  repo.write("src/new.txt", "x\n");  // untracked, not ignored
  std::vector<std::string> listed = ignoredUntracked(repo.root(), isolated(repo));
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(listed, (std::vector<std::string>{".env", "out/", "src/debug.log"}));
}

TEST(DiffText, UntrackedEmbeddedRepositoriesAreSkipped) {
  TempRepo repo;
  repo.write("a.txt", "a\n");
  repo.commitAll("base");
  repo.write("new.txt", "new\n");
  fs::create_directories(repo.root() / "empty_nested");
  repo.git("init -q empty_nested");
  repo.write("nested/n.txt", "n\n");
  repo.git("init -q nested");
  repo.git("-C nested add n.txt");
  repo.git("-C nested -c user.name=t -c user.email=t@t.invalid commit -q -m n");

  std::vector<LeftOut> left;
  DiffRequest request;
  request.leftOut = &left;
  const std::string text = diff(repo, request);
  EXPECT_THAT(text, HasSubstr("b/new.txt"));
  EXPECT_THAT(text, Not(HasSubstr("nested")));
  // Listed, never silently dropped; not part of the change (no approval is held back for them).
  std::set<std::string> listed;
  for (const LeftOut& l : left) {
    listed.insert(l.path);
    EXPECT_FALSE(l.partOfTheChange) << l.path;
    EXPECT_THAT(l.reason, HasSubstr("an untracked git repository inside this one")) << l.path;
  }
  EXPECT_EQ(listed, (std::set<std::string>{"empty_nested", "nested"}));

  // A linked work tree of this repository inside it: not "add it as a submodule".
  repo.git("worktree add -q inner");
  left.clear();
  diff(repo, request);
  const auto inner = std::find_if(left.begin(), left.end(), [](const LeftOut& l) { return l.path == "inner"; });
  ASSERT_NE(inner, left.end());
  EXPECT_EQ(inner->reason, "a linked work tree (git worktree add) inside this one: its files are its own checkout's, "
                           "which a commit here would not hold (review it there: cd inner && revline review)");
  EXPECT_FALSE(inner->partOfTheChange);
}

TEST(DiffText, LinkedWorktreeUsesItsOwnIndexAndLeavesItAlone) {
  TempRepo repo;
  repo.write("a.txt", "a\n");
  repo.commitAll("base");
  TempDir outside;
  const fs::path tree = outside.path() / "wt";
  repo.git("worktree add -q -b side " + testing::shellQuote(tree.string()));
  {
    std::ofstream(tree / "a.txt") << "changed in the worktree\n";
    std::ofstream(tree / "untracked.txt") << "u\n";
  }
  const fs::path worktreeIndex = repo.root() / ".git" / "worktrees" / "wt" / "index";
  const std::string indexBefore = bytes(worktreeIndex);

  const std::string text = diffText(tree, {}, isolated(repo));
  EXPECT_THAT(text, HasSubstr("+changed in the worktree\n"));
  EXPECT_THAT(text, HasSubstr("diff --git a/untracked.txt b/untracked.txt\nnew file mode 100644\n"));
  EXPECT_TRUE(bytes(worktreeIndex) == indexBefore);
  EXPECT_EQ(diff(repo), "");  // the main work tree is unchanged
}

TEST(DiffText, LeavesTheIndexAndWorkTreeUntouched) {
  TempRepo repo;
  repo.write("a.txt", "a\n");
  repo.write("b.txt", "b\n");
  repo.commitAll("base");
  repo.write("a.txt", "changed\n");
  repo.write("untracked.txt", "new\n");
  repo.write("staged.txt", "staged\n");
  repo.git("add staged.txt");
  // `git status` refreshes (rewrites) the index itself, so it runs before the snapshot.
  const std::string statusBefore = repo.git("status --porcelain=v1 --untracked-files=all");
  // A stat-only change: a `git diff` on the real index would rewrite it to refresh b.txt.
  fs::last_write_time(repo.root() / "b.txt", fs::last_write_time(repo.root() / "b.txt") + std::chrono::hours(1));
  const std::string indexBefore = bytes(repo.root() / ".git" / "index");
  const auto indexTimeBefore = fs::last_write_time(repo.root() / ".git" / "index");

  const std::string text = diff(repo);
  EXPECT_THAT(text, HasSubstr("b/untracked.txt"));
  EXPECT_THAT(text, Not(HasSubstr("b/b.txt")));  // stat-only change is not a difference

  EXPECT_TRUE(bytes(repo.root() / ".git" / "index") == indexBefore) << "diffText rewrote .git/index";
  EXPECT_EQ(fs::last_write_time(repo.root() / ".git" / "index"), indexTimeBefore);
  EXPECT_EQ(repo.git("status --porcelain=v1 --untracked-files=all"), statusBefore);
  EXPECT_THAT(statusBefore, HasSubstr("?? untracked.txt"));
  EXPECT_FALSE(fs::exists(repo.root() / ".git" / "index.lock"));
}

TEST(DiffText, StagedModeShowsOnlyTheIndex) {
  TempRepo repo;
  repo.write("a.txt", "a\n");
  repo.commitAll("base");
  repo.write("a.txt", "staged\n");
  repo.git("add a.txt");
  repo.write("a.txt", "unstaged\n");
  repo.write("untracked.txt", "new\n");

  DiffRequest staged;
  staged.mode = DiffRequest::Mode::Staged;
  const std::string text = diff(repo, staged);
  EXPECT_THAT(text, HasSubstr("-a\n+staged\n"));
  EXPECT_THAT(text, Not(HasSubstr("unstaged")));
  EXPECT_THAT(text, Not(HasSubstr("untracked.txt")));
}

// During a merge, `git diff --cached` says "* Unmerged path NAME" for a
// conflicted file and shows nothing of it: the line is not passed on as diff
// (alone, it read as a malformed diff), and the file is reported left out.
TEST(DiffText, StagedModeReportsUnmergedPathsAsLeftOut) {
  TempRepo repo;
  repo.write("m.py", "x = 1\n");
  repo.write("other.py", "b = 1\n");
  repo.commitAll("base");
  repo.git("checkout -q -b feat");
  repo.write("m.py", "x = 2\n");
  repo.write("other.py", "b = 2\n");
  repo.commitAll("feat");
  repo.git("checkout -q main");
  repo.write("m.py", "x = 3\n");
  repo.commitAll("main");
  repo.git("merge feat", /*allowFailure=*/true);  // conflicts in m.py; other.py merged and staged

  DiffRequest staged;
  staged.mode = DiffRequest::Mode::Staged;
  std::vector<LeftOut> leftOut;
  staged.leftOut = &leftOut;
  const std::string text = diff(repo, staged);
  EXPECT_THAT(text, HasSubstr("-b = 1\n+b = 2\n"));
  EXPECT_THAT(text, Not(HasSubstr("Unmerged")));
  ASSERT_EQ(leftOut.size(), 1u);
  EXPECT_EQ(leftOut[0].path, "m.py");
  EXPECT_THAT(leftOut[0].reason, HasSubstr("unmerged: its merge conflict is not resolved"));

  repo.git("checkout -q HEAD -- other.py");  // only the conflict is left
  leftOut.clear();
  EXPECT_EQ(diff(repo, staged), "");
  EXPECT_EQ(leftOut.size(), 1u);
}

// A tracked file replaced by a named pipe stops `git diff` altogether ("error:
// c.txt: unsupported file type"): it is left out, reported, and the rest diffed;
// paths given stay literal (a file named `*.txt` means itself).
TEST(DiffText, ATrackedFileReplacedByANamedPipeIsLeftOutNotTheWholeDiff) {
  TempRepo repo;
  repo.write("a.txt", "a\n");
  repo.write("*.txt", "star\n");
  repo.write("c.txt", "c\n");
  repo.write("d.txt", "d\n");
  repo.commitAll("base");
  repo.write("a.txt", "a2\n");
  repo.write("*.txt", "star2\n");
  for (const std::string name : {"c.txt", "d.txt"}) {
    repo.remove(name);
    ASSERT_EQ(::mkfifo((repo.root() / name).c_str(), 0600), 0);
  }
  std::vector<LeftOut> leftOut;
  DiffRequest request;
  request.leftOut = &leftOut;
  std::string text = diff(repo, request);
  EXPECT_THAT(text, HasSubstr("+a2\n"));
  EXPECT_THAT(text, HasSubstr("+star2\n"));
  ASSERT_EQ(leftOut.size(), 2u);
  EXPECT_EQ(leftOut[0].path, "c.txt");
  EXPECT_EQ(leftOut[0].reason, "tracked, but now a named pipe (FIFO), which git cannot diff");
  EXPECT_EQ(leftOut[1].path, "d.txt");

  leftOut.clear();
  request.paths = {"*.txt", "c.txt"};
  text = diff(repo, request);
  EXPECT_THAT(text, HasSubstr("+star2\n"));
  EXPECT_THAT(text, Not(HasSubstr("+a2\n")));  // `*.txt` is the file of that name, not a glob
  ASSERT_EQ(leftOut.size(), 1u);
  EXPECT_EQ(leftOut[0].path, "c.txt");
}

TEST(DiffText, UntrackedFilesOverTheCapAreLeftOutWithTheirSize) {
  TempRepo repo;
  repo.write("kept.txt", "kept\n");
  repo.commitAll("base");
  repo.write("big.bin", std::string(2048, 'a'));
  repo.write("small.txt", "small\n");
  DiffRequest request;
  request.maxUntrackedBytes = 1024;
  std::vector<LeftOut> leftOut;
  request.leftOut = &leftOut;
  const std::string text = diff(repo, request);
  EXPECT_THAT(text, HasSubstr("b/small.txt"));
  EXPECT_THAT(text, Not(HasSubstr("big.bin")));
  ASSERT_EQ(leftOut.size(), 1u);
  EXPECT_EQ(leftOut[0].path, "big.bin");
  EXPECT_EQ(leftOut[0].reason, "untracked, 2048 bytes, over the 1024-byte limit for untracked files");
}

// Untracked files are marked intent-to-add by folder where a whole folder is
// theirs (named one by one, 50,000 files took git 36 s): what is left out of a
// folder (a file over the cap, a nested repository) still stays out, and its
// folder's other files are still in.
TEST(DiffText, UntrackedFoldersAreAddedWholeButWhatIsLeftOutStaysOut) {
  TempRepo repo;
  repo.write("kept.txt", "kept\n");
  repo.write("lib/tracked.py", "t = 1\n");
  repo.commitAll("base");
  repo.write("lib/tracked.py", "t = 2\n");
  repo.write("lib/big.bin", std::string(2048, 'a'));
  repo.write("lib/a.py", "a = 1\n");
  repo.write("lib/sub/b.py", "b = 1\n");
  repo.write("lib/nested/n.txt", "n\n");
  repo.git("init -q lib/nested");
  repo.write("venv/x/y.py", "y = 1\n");
  repo.write("venv/[ab].py", "ab = 1\n");
  repo.write("venv/ignored.log", "log\n");
  repo.write(".gitignore", "*.log\n");
  DiffRequest request;
  request.maxUntrackedBytes = 1024;
  std::vector<LeftOut> leftOut;
  request.leftOut = &leftOut;
  const std::string text = diff(repo, request);
  for (const char* added : {"+++ b/lib/a.py", "+++ b/lib/sub/b.py", "+++ b/venv/x/y.py", "+++ b/venv/[ab].py", "+++ b/.gitignore"})
    EXPECT_THAT(text, HasSubstr(added));
  EXPECT_THAT(text, HasSubstr("-t = 1\n+t = 2"));
  EXPECT_THAT(text, Not(HasSubstr("big.bin")));
  EXPECT_THAT(text, Not(HasSubstr("nested")));
  EXPECT_THAT(text, Not(HasSubstr("ignored.log")));
  ASSERT_EQ(leftOut.size(), 2u);
  std::sort(leftOut.begin(), leftOut.end(), [](const LeftOut& a, const LeftOut& b) { return a.path < b.path; });
  EXPECT_EQ(leftOut[0].path, "lib/big.bin");
  EXPECT_EQ(leftOut[1].path, "lib/nested");  // listed, not part of the change
  EXPECT_FALSE(leftOut[1].partOfTheChange);
  EXPECT_EQ(repo.git("status --porcelain --untracked-files=no"), " M lib/tracked.py\n") << "the index is untouched";
}

// `base` committed on main, then `feature` committed on a branch of that name, which stays checked out.
void commitFeatureBranch(const TempRepo& repo, const std::map<std::string, std::string>& base,
                         const std::map<std::string, std::string>& feature) {
  for (const auto& [path, text] : base) repo.write(path, text);
  repo.commitAll("base");
  repo.git("checkout -q -b feature");
  for (const auto& [path, text] : feature) repo.write(path, text);
  repo.commitAll("feature");
}

TEST(DiffText, BaseModeDiffsAgainstTheMergeBase) {
  TempRepo repo;
  commitFeatureBranch(repo, {{"shared.txt", "shared\n"}}, {{"feature.txt", "feature work\n"}});
  repo.git("checkout -q main");
  repo.write("main_only.txt", "landed on main after the fork\n");
  repo.commitAll("main moves on");
  repo.git("checkout -q feature");
  repo.write("shared.txt", "shared\nuncommitted edit\n");

  DiffRequest request;
  request.mode = DiffRequest::Mode::Base;
  request.base = "main";
  const std::string text = diff(repo, request);
  EXPECT_THAT(text, HasSubstr("diff --git a/feature.txt b/feature.txt\nnew file mode 100644\n"));
  EXPECT_THAT(text, HasSubstr("+uncommitted edit\n"));
  // main's later commit is not part of this branch's change, so it must not show as a deletion.
  EXPECT_THAT(text, Not(HasSubstr("main_only.txt")));
}

// What the branch's commits say, and which files each changed: a hunk's cache
// key holds the messages of the commits that changed its file (hunk_cache.h).
TEST(CommitsSince, MessagesOldestFirstWithThePathsEachChanged) {
  TempRepo repo;
  commitFeatureBranch(repo, {{"old name.txt", "kept\n"}}, {{"a.txt", "a\n"}});  // "feature" adds a.txt
  repo.git("mv \"old name.txt\" \"new\tname.txt\"");
  repo.write("b.txt", "b\n");
  repo.git("add -A");
  repo.git("commit -q -m \"Rename it\" -m \"Body line\"");
  repo.git("commit -q --allow-empty -m \"Nothing changed\"");
  // Paths of any bytes: one that starts with a newline, one shaped like a commit's start.
  repo.write("\nweird", "w\n");
  repo.write("\x01" + std::string(40, 'a'), "x\n");
  repo.git("add -A");
  repo.git("commit -q -m \"Odd names\"");
  repo.git("checkout -q -b side main");
  repo.write("side.txt", "side\n");
  repo.commitAll("side work");
  repo.git("checkout -q feature");
  repo.git("merge -q --no-ff --no-edit side");

  const std::vector<Commit> commits = commitsSince(repo.root(), "main");
  ASSERT_EQ(commits.size(), 6u);
  EXPECT_EQ(commits[0].message, "feature");
  EXPECT_EQ(commits[1].message, "Rename it\n\nBody line");
  std::map<std::string, std::vector<std::string>> paths;  // the side branch's commits interleave by date
  for (const Commit& c : commits) paths[c.message.substr(0, c.message.find('\''))] = c.paths;
  EXPECT_THAT(paths, ElementsAre(Pair("Merge branch ", ElementsAre()),  // a merge lists no path of its own
                                 Pair("Nothing changed", ElementsAre()),
                                 Pair("Odd names", ElementsAre("\x01" + std::string(40, 'a'), "\nweird")),
                                 // A rename is its old path and its new one, as the path is (-z: no quoting).
                                 Pair("Rename it\n\nBody line", ElementsAre("b.txt", "new\tname.txt", "old name.txt")),
                                 Pair("feature", ElementsAre("a.txt")), Pair("side work", ElementsAre("side.txt"))));
  EXPECT_EQ(commits[5].message.substr(0, 13), "Merge branch ");
  // At most maxCommits, the newest.
  const std::vector<Commit> newest = commitsSince(repo.root(), "main", 2);
  ASSERT_EQ(newest.size(), 2u);
  EXPECT_EQ(newest[1].message, commits[5].message);
}

TEST(DiffText, BaseModeErrors) {
  TempRepo repo;
  repo.write("a.txt", "a\n");
  repo.commitAll("base");
  DiffRequest request;
  request.mode = DiffRequest::Mode::Base;
  EXPECT_THAT(gitErrorOf([&] { diff(repo, request); }), HasSubstr("a base revision is needed"));
  request.base = "no-such-branch";
  EXPECT_EQ(gitErrorOf([&] { diff(repo, request); }),
            "'no-such-branch' is not a commit in this repository; check the name (git branch -a) or fetch it");
  request.base = "--output=/tmp/x";
  EXPECT_THAT(gitErrorOf([&] { diff(repo, request); }), HasSubstr("'--output=/tmp/x' is not a commit"));
  request.base = "HEAD:a.txt";
  EXPECT_THAT(gitErrorOf([&] { diff(repo, request); }), HasSubstr("'HEAD:a.txt' names "));
  EXPECT_THAT(gitErrorOf([&] { diff(repo, request); }), HasSubstr(", a blob, not a commit; pass a commit"));
}

TEST(DiffText, RepositoryWithoutCommits) {
  TempRepo repo;
  repo.write("staged.txt", "staged\n");
  repo.git("add staged.txt");
  repo.write("untracked.txt", "untracked\n");

  const std::string text = diff(repo);
  EXPECT_THAT(text, HasSubstr("diff --git a/staged.txt b/staged.txt\nnew file mode 100644\n"));
  EXPECT_THAT(text, HasSubstr("diff --git a/untracked.txt b/untracked.txt\nnew file mode 100644\n"));

  DiffRequest staged;
  staged.mode = DiffRequest::Mode::Staged;
  const std::string stagedText = diff(repo, staged);
  EXPECT_THAT(stagedText, HasSubstr("b/staged.txt"));
  EXPECT_THAT(stagedText, Not(HasSubstr("untracked.txt")));

  DiffRequest base;
  base.mode = DiffRequest::Mode::Base;
  base.base = "HEAD";
  // Said as it is (it was "'HEAD' is not a commit in this repository; ... fetch it").
  const std::string unborn = "the current branch has no commits yet (a new repository, or a branch made with `git "
                             "checkout --orphan`), so it has no merge base with ";
  EXPECT_THAT(gitErrorOf([&] { diff(repo, base); }), HasSubstr(unborn + "'HEAD'"));
  // An orphan branch in a repository with commits (it said "the repository has no commits yet").
  repo.commitAll("first");
  repo.git("checkout -q --orphan fresh");
  base.base = "HEAD@{1}";
  EXPECT_THAT(gitErrorOf([&] { diff(repo, base); }), HasSubstr(unborn));
}

// HEAD names a commit git cannot read (an object file left empty by a full disk
// here; also objects the user may not read, a --shared clone whose source is
// gone): an error with git's words, never "no commits yet", which reviewed the
// whole tree as added and gated CI on that.
TEST(DiffText, AnUnreadableHeadCommitIsAnErrorNotAnUnbornBranch) {
  TempRepo repo;
  repo.write("a.txt", "a\n");
  repo.write("b.txt", "b\n");
  repo.commitAll("base");
  repo.git("branch -q other");
  repo.write("a.txt", "a\nedited\n");
  std::string head = repo.git("rev-parse HEAD");
  head.erase(head.find_last_not_of("\n") + 1);
  const fs::path object = repo.root() / ".git" / "objects" / head.substr(0, 2) / head.substr(2);
  fs::permissions(object, fs::perms::owner_write, fs::perm_options::add);
  std::ofstream(object, std::ios::trunc).close();

  for (auto mode : {DiffRequest::Mode::WorkingTree, DiffRequest::Mode::Staged}) {
    DiffRequest request;
    request.mode = mode;
    const std::string error = gitErrorOf([&] { diff(repo, request); });
    EXPECT_THAT(error, HasSubstr("HEAD names commit " + head + ", which git cannot read ("));
    EXPECT_THAT(error, HasSubstr("is empty"));
    EXPECT_THAT(error, HasSubstr("git fsck"));
  }
  DiffRequest base;
  base.mode = DiffRequest::Mode::Base;
  base.base = "other";
  EXPECT_THAT(gitErrorOf([&] { diff(repo, base); }), HasSubstr("'other' names commit " + head + ", which git cannot read"));
}

// A directory moved with an edit in each file: renames past git's own default
// limit (1,000) showed as every file deleted and added whole, silently. Past
// revline's limit (here 2, for the test) a notice says so.
TEST(DiffText, RenamesPastTheLimitAreSaidNotSilentlyDeletedAndAdded) {
  TempRepo repo;
  auto body = [](int m) {
    std::string text;
    for (int i = 0; i < 40; ++i) text += "line " + std::to_string(i) + " of module " + std::to_string(m) + "\n";
    return text;
  };
  for (int m = 0; m < 4; ++m) repo.write("lib/m" + std::to_string(m) + ".txt", body(m));
  repo.commitAll("base");
  // New names too: git pairs files of one name in two directories before its limit applies.
  std::filesystem::create_directories(repo.root() / "src");
  for (int m = 0; m < 4; ++m) {
    repo.git("mv lib/m" + std::to_string(m) + ".txt src/n" + std::to_string(m) + ".txt");
    repo.write("src/n" + std::to_string(m) + ".txt", body(m) + "edited\n");
  }

  std::vector<std::string> notices;
  DiffRequest request;
  request.notices = &notices;
  const std::string renamed = diff(repo, request);
  EXPECT_THAT(renamed, HasSubstr("rename from lib/m3.txt\nrename to src/n3.txt\n"));
  EXPECT_TRUE(notices.empty());

  request.renameLimit = 2;
  const std::string whole = diff(repo, request);
  EXPECT_THAT(whole, HasSubstr("deleted file mode 100644"));
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_THAT(notices[0], HasSubstr("git did not look for renamed files: more than 2 files were added and deleted"));
}

TEST(DiffText, EmptyRepositoryWithNoFilesGivesEmptyDiff) {
  TempRepo repo;
  EXPECT_EQ(diff(repo), "");
}

TEST(DiffText, PathsLimitTheDiffLiterally) {
  TempRepo repo;
  repo.write("src/a.txt", "a\n");
  repo.write("docs/b.txt", "b\n");
  repo.commitAll("base");
  repo.write("src/a.txt", "a2\n");
  repo.write("docs/b.txt", "b2\n");
  repo.write("src/new.txt", "new\n");
  repo.write("docs/new.txt", "new\n");
  repo.write("star*.txt", "literal name\n");
  repo.write("starX.txt", "would match the glob\n");

  DiffRequest request;
  request.paths = {"src"};
  const std::string text = diff(repo, request);
  EXPECT_THAT(text, HasSubstr("b/src/a.txt"));
  EXPECT_THAT(text, HasSubstr("b/src/new.txt"));
  EXPECT_THAT(text, Not(HasSubstr("docs/")));

  request.paths = {"star*.txt"};
  const std::string literal = diff(repo, request);
  EXPECT_THAT(literal, HasSubstr("b/star*.txt"));
  EXPECT_THAT(literal, Not(HasSubstr("starX.txt")));
}

// `n` distinct lines, enough for rename detection to be sure; line `changed` (1-based) edited.
std::string numberedLines(int n, int changed = 0) {
  std::string out;
  for (int i = 1; i <= n; ++i)
    out += "line " + std::to_string(i) + (i == changed ? " was edited here" : " of the file, unchanged") + "\n";
  return out;
}

int countOf(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The server reviews a save with the diff limited to the saved path. A path
// limit hides a renamed file's source from git's rename detection, so the file
// read as added whole: every line went to the model as new.
TEST(DiffText, AFileRenamedIntoThePathsIsShownAsTheRename) {
  TempRepo repo;
  repo.write("cmd/main.go", numberedLines(40));
  repo.write("src/orders.py", "# orders\n" + numberedLines(30));
  repo.write("old name.txt", "# caf\xc3\xa9\n" + numberedLines(20));
  repo.write("lib/util.txt", "# util\n" + numberedLines(20));
  repo.write("gone.txt", "unrelated\n");
  repo.commitAll("base");
  repo.git("mv cmd/main.go cmd/app.go");  // staged, content unchanged
  // A plain mv: the new path is untracked (added through the intent-to-add index), the old one deleted.
  fs::rename(repo.root() / "src/orders.py", repo.root() / "src/orders2.py");
  repo.write("src/orders2.py", "# orders\n" + numberedLines(30, 12));
  fs::rename(repo.root() / "old name.txt", repo.root() / "caf\xc3\xa9 new.txt");
  repo.git("mv lib/util.txt cmd/util.txt");
  repo.remove("gone.txt");
  repo.write("brand_new.txt", numberedLines(5));

  DiffRequest request;
  auto limitedTo = [&](const std::string& path) {
    request.paths = {path};
    return diff(repo, request);
  };
  const std::string pure = "diff --git a/cmd/main.go b/cmd/app.go\nsimilarity index 100%\n"
                           "rename from cmd/main.go\nrename to cmd/app.go\n";
  EXPECT_EQ(limitedTo("cmd/app.go"), pure);
  request.mode = DiffRequest::Mode::Staged;
  EXPECT_EQ(limitedTo("cmd/app.go"), pure);
  request.mode = DiffRequest::Mode::WorkingTree;

  // Edited after the move: only the edited line's hunk, not the whole file.
  const std::string edited = limitedTo("src/orders2.py");
  EXPECT_THAT(edited, HasSubstr("rename from src/orders.py\nrename to src/orders2.py\n"));
  EXPECT_EQ(countOf(edited, "\n@@ "), 1) << edited;
  EXPECT_THAT(edited, HasSubstr("-line 12 of the file, unchanged\n+line 12 was edited here\n"));
  EXPECT_THAT(edited, Not(HasSubstr("new file mode")));
  EXPECT_THAT(edited, Not(HasSubstr("gone.txt")));  // an unrelated deletion stays outside the paths

  // Unusual names come back from git unquoted (-z) and go in the pathspec literally.
  EXPECT_THAT(limitedTo("caf\xc3\xa9 new.txt"), HasSubstr("similarity index 100%\nrename from old name.txt\n"
                                                        "rename to \"caf\\303\\251 new.txt\"\n"));

  // A directory: the file moved into it from outside is a rename too, the others are untouched.
  const std::string directory = limitedTo("cmd/");
  for (const char* rename : {"rename from cmd/main.go\nrename to cmd/app.go\n",
                             "rename from lib/util.txt\nrename to cmd/util.txt\n"})
    EXPECT_THAT(directory, HasSubstr(rename));
  EXPECT_THAT(directory, Not(HasSubstr("orders")));

  // A new file is still a new file, and the deletion elsewhere is not drawn in.
  const std::string added = limitedTo("brand_new.txt");
  EXPECT_THAT(added, HasSubstr("diff --git a/brand_new.txt b/brand_new.txt\nnew file mode 100644\n"));
  for (const char* absent : {"gone.txt", "rename"}) EXPECT_THAT(added, Not(HasSubstr(absent)));
}

// The server diffs on every save (docs/PERFORMANCE.md): renames are looked for
// only when the limited diff adds a file, and read in full only when found.
TEST(DiffText, RenamesAreLookedForOnlyWhenTheLimitedDiffAddsAFile) {
  TempRepo repo;
  repo.write("a.txt", numberedLines(20));
  repo.write("moved.txt", numberedLines(30));
  repo.commitAll("base");
  repo.write("a.txt", numberedLines(20, 3));
  repo.git("mv moved.txt there.txt");
  repo.write("new.txt", "new\n");
  const fs::path log = repo.root() / ".git" / "calls.log";
  const GitOptions options = wrappedGit(repo, "echo \"$*\" >> '" + log.string() + "'\n");
  auto callsFor = [&](const std::string& path) {
    fs::remove(log);
    DiffRequest request;
    request.paths = {path};
    diffText(repo.root(), request, options);
    const std::string calls = bytes(log);
    return std::make_pair(countOf(calls, " diff --no-color"), countOf(calls, " diff --name-status"));
  };
  EXPECT_EQ(callsFor("a.txt"), std::make_pair(1, 0));      // modified: one diff, as before
  EXPECT_EQ(callsFor("new.txt"), std::make_pair(1, 1));    // added, no rename: the names only
  EXPECT_EQ(callsFor("there.txt"), std::make_pair(2, 1));  // renamed: the pair diffed again
}

// An editor writing a file in place (truncate, then write) while git maps it
// for the diff: git dies of SIGBUS, and the review failed with "git diff ...
// failed (exit code 135)" though the file was only being rewritten. Read again.
TEST(DiffText, AFileTruncatedWhileGitReadsItIsReadAgain) {
  TempRepo repo;
  repo.write("a.txt", "one\n");
  repo.commitAll("base");
  repo.write("a.txt", "two\n");
  const fs::path marker = repo.root() / ".git" / "bus.once";
  const GitOptions options = wrappedGit(repo, "for a in \"$@\"; do\n  if [ \"$a\" = diff ] && [ ! -e '" +
                                                  marker.string() + "' ]; then : > '" + marker.string() +
                                                  "'; kill -BUS $$; fi\ndone\n");
  EXPECT_THAT(diffText(repo.root(), {}, options), HasSubstr("-one\n+two\n"));
  EXPECT_TRUE(fs::exists(marker));  // it did die once
}

// git never waits on a credential prompt it cannot show (a trusted partial
// clone fetching from a remote behind HTTP auth, run in a terminal): each call
// has terminal prompts off, whatever the environment says. Before, git stopped
// on the prompt until the 120 s timeout.
TEST(DiffText, GitIsNeverLeftWaitingOnACredentialPrompt) {
  TempRepo repo;
  repo.write("a.txt", "one\n");
  repo.commitAll("base");
  repo.write("a.txt", "two\n");
  const fs::path log = repo.root() / ".git" / "prompt.log";
  GitOptions options = wrappedGit(repo, "echo \"prompt=${GIT_TERMINAL_PROMPT-unset}\" >> '" + log.string() + "'\n");
  options.env["GIT_TERMINAL_PROMPT"] = "1";
  DiffRequest request;
  request.mode = DiffRequest::Mode::Base;
  request.base = "HEAD";
  diffText(repo.root(), request, options);
  const std::string calls = bytes(log);
  EXPECT_GT(countOf(calls, "prompt=0"), 0) << calls;
  EXPECT_EQ(countOf(calls, "prompt=0"), countOf(calls, "prompt=")) << calls;
}

// CI's default checkout is shallow: a base whose fork point was not fetched is
// said to be that, with the fetch that fixes it, not "no common ancestor".
TEST(DiffText, ABaseBeyondAShallowClonesHistorySaysToFetchMore) {
  TempRepo origin;
  origin.write("a.txt", "one\n");
  origin.commitAll("base");
  origin.git("branch -M main");
  origin.git("checkout -q -b feat");
  origin.write("a.txt", "two\n");
  origin.commitAll("feature");
  origin.git("checkout -q main");
  origin.write("b.txt", "main moved on\n");
  origin.commitAll("main");
  TempRepo ci;
  const std::string url = "file://" + origin.root().string();
  ci.git("fetch -q --depth 1 " + url + " feat");
  ci.git("checkout -q -b feat FETCH_HEAD");
  ci.git("fetch -q --depth 1 " + url + " main:refs/remotes/origin/main");
  DiffRequest request;
  request.mode = DiffRequest::Mode::Base;
  request.base = "origin/main";
  try {
    diffText(ci.root(), request, isolated(ci));
    FAIL() << "expected GitError";
  } catch (const GitError& e) {
    EXPECT_NE(std::string(e.what()).find("no common ancestor in this shallow clone"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("git fetch --unshallow"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("GIT_DEPTH: 0 in GitLab CI"), std::string::npos) << e.what();
  }
  request.base = "HEAD~2";  // past the depth
  try {
    diffText(ci.root(), request, isolated(ci));
    FAIL() << "expected GitError";
  } catch (const GitError& e) {
    EXPECT_NE(std::string(e.what()).find("'HEAD~2' is not a commit in this shallow clone"), std::string::npos)
        << e.what();
  }
  // CI passes the base's full id (github.event.pull_request.base.sha), which
  // git verifies by its shape alone: a commit the clone lacks, not damage.
  std::string forkPoint = origin.git("rev-parse main~1");
  forkPoint.erase(forkPoint.find_last_not_of("\n") + 1);
  request.base = forkPoint;
  const std::string error = gitErrorOf([&] { diffText(ci.root(), request, isolated(ci)); });
  EXPECT_THAT(error, HasSubstr("'" + forkPoint + "' is not a commit in this shallow clone")) << error;
  EXPECT_THAT(error, HasSubstr("fetch-depth: 0")) << error;
  EXPECT_THAT(error, Not(HasSubstr("git fsck"))) << error;
}

// A full object id that names nothing (a typo, a commit never fetched) is said
// to be that, with how to fetch it, not blamed on damaged objects.
TEST(DiffText, AFullIdTheRepositoryLacksIsNotCalledDamage) {
  TempRepo repo;
  repo.write("a.txt", "a\n");
  repo.commitAll("base");
  repo.write("a.txt", "b\n");
  DiffRequest request;
  request.mode = DiffRequest::Mode::Base;
  request.base = "0123456789abcdef0123456789abcdef01234567";
  const std::string error = gitErrorOf([&] { diff(repo, request); });
  EXPECT_THAT(error, HasSubstr("'0123456789abcdef0123456789abcdef01234567' is not a commit in this repository; "
                               "check the id, or fetch the branch that holds it"));
  EXPECT_THAT(error, Not(HasSubstr("git fsck")));
}

TEST(DiffText, UserConfigDoesNotChangeTheFormat) {
  TempRepo repo;
  repo.write("a.txt", "one\n\nthree\n");
  repo.write("caf\xc3\xa9.txt", "x\n");
  repo.commitAll("base");
  repo.write("a.txt", "one\n\nTHREE\n");
  repo.write("caf\xc3\xa9.txt", "y\n");
  repo.write("untracked.txt", "u\n");
  const std::string expected = diff(repo);
  EXPECT_THAT(expected, HasSubstr("diff --git a/a.txt b/a.txt\n"));
  EXPECT_THAT(expected, HasSubstr("\"a/caf\\303\\251.txt\""));  // C-quoted

  repo.git("config diff.noprefix true");
  repo.git("config diff.mnemonicPrefix true");
  repo.git("config color.ui always");
  repo.git("config color.diff always");
  repo.git("config core.quotePath false");
  repo.git("config diff.suppressBlankEmpty true");
  repo.git("config diff.external false");
  repo.git("config diff.relative true");
  repo.git("config diff.renames false");
  repo.write(".gitattributes", "*.txt diff=upper\n");
  repo.git("config diff.upper.textconv 'tr a-z A-Z <'");
  repo.git("add .gitattributes");
  repo.git("commit -q -m attrs");

  EXPECT_EQ(diff(repo), expected);
}

// The full id of the object `spec` names (rev-parse syntax: "HEAD:path", ":path").
std::string blobId(const TempRepo& repo, const std::string& spec) {
  const std::string out = repo.git("rev-parse " + spec);
  return out.substr(0, out.find('\n'));
}

// --staged: the files whose work-tree copy differs from the index, with the
// index's blob (what a commit holds); a file deleted from the work tree is not one.
TEST(UnstagedIndexBlobs, NameTheIndexBlobOfEachFileEditedOrDeletedSinceItWasStaged) {
  TempRepo repo;
  repo.write("edited.txt", "committed\n");
  repo.write("deleted.txt", "gone\n");
  repo.write("staged-then-edited.txt", "committed\n");
  repo.write("untouched.txt", "same\n");
  repo.commitAll("init");
  repo.write("edited.txt", "edited\n");
  fs::remove(repo.root() / "deleted.txt");
  repo.write("staged-then-edited.txt", "staged\n");
  repo.git("add staged-then-edited.txt");
  repo.write("staged-then-edited.txt", "edited after\n");
  const std::map<std::string, std::string> blobs = unstagedIndexBlobs(repo.root());
  ASSERT_EQ(blobs.size(), 3u);
  EXPECT_EQ(blobs.at("edited.txt"), blobId(repo, "HEAD:edited.txt"));
  EXPECT_EQ(blobs.at("deleted.txt"), blobId(repo, "HEAD:deleted.txt"));  // the commit still holds it
  EXPECT_EQ(blobs.at("staged-then-edited.txt"), blobId(repo, ":staged-then-edited.txt"));
  const auto texts = blobTexts(repo.root(), {blobs.at("edited.txt"), blobs.at("staged-then-edited.txt")}, 100);
  EXPECT_EQ(texts.at(blobs.at("staged-then-edited.txt")), "staged\n");
}

// Texts read past a total are not read: memory stays bounded however many files are asked for.
TEST(BlobTexts, StopAtTheTotalAsked) {
  TempRepo repo;
  repo.write("a.txt", "aaaa\n");
  repo.write("b.txt", "bbbb\n");
  repo.commitAll("init");
  const std::string a = blobId(repo, "HEAD:a.txt"), b = blobId(repo, "HEAD:b.txt");
  const auto both = blobTexts(repo.root(), {a, b}, 100);
  EXPECT_EQ(both.at(a), "aaaa\n");
  EXPECT_EQ(both.at(b), "bbbb\n");
  const auto first = blobTexts(repo.root(), {a, b}, 100, {}, 7);
  EXPECT_EQ(first.at(a), "aaaa\n");
  EXPECT_EQ(first.at(b), std::nullopt);
}

// Text files a .gitattributes shows as binary (`-diff`, `binary`) are reviewed:
// diffText shows their lines (text_shown_binary.h). Before, any repository could
// hide a change from the review with `*.py -diff`, and the report counted the
// file as reviewed.
const std::string kPng("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);

struct ShownBinary : ::testing::Test {
  TempRepo repo;
  void SetUp() override {
    // Each file: its text before the attributes, and after.
    const std::vector<std::array<std::string, 3>> files = {
        {"settings.py", "x = 1\n", "import subprocess\nsubprocess.call(cmd, shell=True)\n"},
        {"notes.txt", "plain\n", "plain\npassword = 'hunter2hunter2'\n"},
        {"image.png", kPng + "1", kPng + "2"}};
    for (const auto& f : files) repo.write(f[0], f[1]);
    repo.write("old_name.py", "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\n");
    repo.commitAll("init");
    repo.write(".gitattributes", "*.py -diff\n*.txt binary\n");
    repo.commitAll("attributes");
    for (const auto& f : files) repo.write(f[0], f[2]);
    repo.write("untracked.py", "import os\nos.system(input())\n");
    repo.remove("old_name.py");
    repo.write("new_name.py", "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 7\n");
  }
  std::string diff(const DiffRequest& request = {}) const { return git::diff(repo, request); }
};

TEST_F(ShownBinary, TextFilesMarkedBinaryShowTheirLines) {
  const std::string text = diff();
  EXPECT_THAT(text, HasSubstr("+subprocess.call(cmd, shell=True)\n"));  // -diff
  EXPECT_THAT(text, HasSubstr("+password = 'hunter2hunter2'\n"));       // binary
  EXPECT_THAT(text, HasSubstr("+os.system(input())\n"));                // untracked, shown as added
  EXPECT_THAT(text, HasSubstr("rename from old_name.py\nrename to new_name.py\n"));
  EXPECT_THAT(text, HasSubstr("+f = 7\n"));
  // A real binary (a NUL in it) stays as git shows it.
  EXPECT_THAT(text, HasSubstr("Binary files a/image.png and b/image.png differ\n"));
  EXPECT_EQ(text.find('\0'), std::string::npos);
  EXPECT_THAT(text, Not(HasSubstr("Binary files a/settings.py")));
}

TEST_F(ShownBinary, StagedAndNamedPathsToo) {
  repo.git("add -A");
  DiffRequest staged;
  staged.mode = DiffRequest::Mode::Staged;
  EXPECT_THAT(diff(staged), HasSubstr("+subprocess.call(cmd, shell=True)\n"));
  DiffRequest saved;  // the language server's save of one file
  saved.paths = {"settings.py"};
  const std::string one = diff(saved);
  EXPECT_THAT(one, HasSubstr("+subprocess.call(cmd, shell=True)\n"));
  EXPECT_THAT(one, Not(HasSubstr("notes.txt")));
}

// A --staged review judges a file by what is staged, not by the work tree: a
// staged text file whose work tree copy is now binary, or deleted, still shows
// its staged lines. And a deleted text file shows what it held.
TEST_F(ShownBinary, StagedFilesAreJudgedByTheIndexAndDeletedOnesByWhatTheyHeld) {
  repo.git("add -A");
  repo.write("settings.py", kPng + "no longer text");
  repo.remove("notes.txt");
  DiffRequest staged;
  staged.mode = DiffRequest::Mode::Staged;
  const std::string text = diff(staged);
  EXPECT_THAT(text, HasSubstr("+subprocess.call(cmd, shell=True)\n"));
  EXPECT_THAT(text, HasSubstr("+password = 'hunter2hunter2'\n"));
  EXPECT_THAT(text, HasSubstr("Binary files a/image.png and b/image.png differ\n"));

  repo.git("reset -q");
  repo.write("settings.py", "x = 1\n");
  repo.remove("settings.py");  // deleted, with `*.py -diff`
  const std::string deleted = diff();
  EXPECT_THAT(deleted, HasSubstr("deleted file mode 100644\n"));
  EXPECT_THAT(deleted, HasSubstr("\n-x = 1\n"));
  EXPECT_THAT(deleted, Not(HasSubstr("Binary files a/settings.py")));
}

// A file whose new side has a NUL in its first 8000 bytes is binary content
// (git's own test): it stays as git shows it, whatever its old side.
TEST_F(ShownBinary, BinaryContentStaysAsGitShowsIt) {
  repo.write("notes.txt", kPng + "now binary");
  const std::string text = diff();
  EXPECT_THAT(text, HasSubstr("Binary files a/notes.txt and b/notes.txt differ\n"));
  EXPECT_THAT(text, HasSubstr("Binary files a/image.png and b/image.png differ\n"));
}

// Too large to diff again as text (over 8 MiB): taken out of the diff and said
// not reviewed. Before, it stayed "Binary files differ", counted as reviewed.
TEST_F(ShownBinary, ATextFileTooLargeToDiffAgainIsLeftOutAndSaid) {
  std::string big;
  while (big.size() <= kMaxTextShownBinaryBytes) big += "padding = 'a line of a large generated module'\n";
  repo.write("huge.py", big);
  repo.git("add huge.py");
  repo.git("commit -q -m huge -- huge.py");
  repo.write("huge.py", big + "AWS_KEY = 'AKIAIOSFODNN7EXAMPLQ'\n");
  std::vector<LeftOut> leftOut;
  DiffRequest request;
  request.leftOut = &leftOut;
  const std::string text = diff(request);
  EXPECT_THAT(text, Not(HasSubstr("huge.py")));
  EXPECT_THAT(text, HasSubstr("+subprocess.call(cmd, shell=True)\n")) << "the others are still shown";
  EXPECT_THAT(text, HasSubstr("Binary files a/image.png and b/image.png differ\n"));
  ASSERT_EQ(leftOut.size(), 1u);
  EXPECT_EQ(leftOut[0].path, "huge.py");
  EXPECT_THAT(leftOut[0].reason, HasSubstr("text that a .gitattributes shows as binary (`-diff`, `binary`)"));
  EXPECT_THAT(leftOut[0].reason, HasSubstr("over the 8 MiB limit (8388608 bytes) a file"));
}

// A diff made elsewhere (revline pr: GitHub's diff of the pull request, which
// honours its .gitattributes as git does) gets the same treatment in the
// checkout: against the merge base with the base branch, HEAD's text files.
TEST(ShownBinaryElsewhere, APullRequestsDiffShowsItsTextFilesLines) {
  TempRepo repo;
  commitFeatureBranch(repo, {{"a.py", "def f(x):\n    return x\n"}},
                      {{".gitattributes", "*.py -diff\n"},
                       {"a.py", "AWS_KEY = 'AKIAIOSFODNN7EXAMPLQ'\ndef f(x):\n    return x\n"}});
  const std::string github = repo.git("diff --src-prefix=a/ --dst-prefix=b/ main...HEAD");
  ASSERT_THAT(github, HasSubstr("Binary files a/a.py and b/a.py differ\n"));
  std::vector<LeftOut> leftOut;
  const std::string shown = withTextOfFilesShownBinary(repo.root(), "main", github, &leftOut, isolated(repo));
  EXPECT_THAT(shown, HasSubstr("+AWS_KEY = 'AKIAIOSFODNN7EXAMPLQ'\n"));
  EXPECT_THAT(shown, HasSubstr("+*.py -diff\n"));
  EXPECT_TRUE(leftOut.empty());
  EXPECT_EQ(withTextOfFilesShownBinary(repo.root(), "main", "", &leftOut, isolated(repo)), "");
}

}  // namespace
}  // namespace revline::git
