// A repository handed over as a directory can put a named pipe or a device
// where git expects a file: git then waits forever (or reads without end), and
// so would every save in the language server. Each test plants one in a real
// repository and checks that revline's git calls end at once with an error
// naming it, never the timeout; and that a harmless pipe stops nothing.
#include "core/git/special_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>

#include "core/git/git.h"
#include "tests/support/temp_repo.h"

namespace revline::git {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::TempDir;
using testing::TempRepo;

struct Planted : ::testing::Test {
  TempRepo repo;
  TempDir elsewhere;
  void SetUp() override {
    repo.write("a.txt", "one\n");
    repo.write("sub/dir/b.txt", "two\n");
    repo.commitAll("base");
    repo.write("a.txt", "one\nmore\n");
  }
  // A named pipe at `p` (replacing what is there).
  static void fifo(const fs::path& p) {
    fs::remove(p);
    fs::create_directories(p.parent_path());
    ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0) << p;
  }
  static void zero(const fs::path& p) {
    fs::remove(p);
    fs::create_directories(p.parent_path());
    fs::create_symlink("/dev/zero", p);
  }
  fs::path dotGit() const { return repo.root() / ".git"; }
  // The diff, as the server and the CLI read it, with a timeout a hang would show as.
  std::string diffError() const {
    GitOptions options;
    options.timeout = 30s;
    const auto start = std::chrono::steady_clock::now();
    try {
      diffText(repo.root(), {}, options);
    } catch (const GitError& e) {
      EXPECT_LT(std::chrono::steady_clock::now() - start, 15s) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "the diff succeeded";
    return {};
  }
  std::string rootError() const {
    GitOptions options;
    options.timeout = 30s;
    try {
      findRepositoryRoot(repo.root() / "sub", options);
    } catch (const GitError& e) {
      return e.what();
    }
    ADD_FAILURE() << "the repository was found";
    return {};
  }
};

TEST_F(Planted, ANamedPipeForTheConfigStopsGitBeforeItStarts) {
  fifo(dotGit() / "config");
  EXPECT_THAT(rootError(), AllOf(HasSubstr("git was not run: '.git/config' is a named pipe (FIFO) where git expects "
                                           "a file (the repository's git config): git would wait on it forever. "
                                           "Remove it, or replace it with a regular file"),
                                 Not(HasSubstr("did not finish"))));
  EXPECT_THAT(diffError(), HasSubstr("'.git/config' is a named pipe"));
}

TEST_F(Planted, EveryFileGitOpensFirstIsChecked) {
  for (const std::string file : {"HEAD", "index", "packed-refs", "shallow", "commondir", "info/exclude",
                                 "info/attributes", "info/grafts", "objects/info/alternates", "refs/heads/main"}) {
    SCOPED_TRACE(file);
    const std::string before = fs::exists(dotGit() / file) ? repo.read(".git/" + file) : std::string();
    fifo(dotGit() / file);
    EXPECT_THAT(specialFileBeforeGit(repo.root()), HasSubstr("'.git/" + file + "' is a named pipe (FIFO)"));
    EXPECT_THAT(diffError(), HasSubstr("'.git/" + file + "' is a named pipe"));
    fs::remove(dotGit() / file);
    if (!before.empty()) repo.write(".git/" + file, before);
  }
}

TEST_F(Planted, ASymlinkToADeviceIsNamedWithItsTarget) {
  // git reads /dev/zero as commondir or attributes until memory runs out.
  zero(dotGit() / "info" / "attributes");
  EXPECT_THAT(diffError(), HasSubstr("'.git/info/attributes' (a symlink to /dev/zero) is a character device where "
                                     "git expects a file (info/attributes, the repository's attributes): git would "
                                     "wait on it or read it without end"));
}

TEST_F(Planted, WhatTheConfigIncludesOrNamesIsCheckedThroughIncludes) {
  fifo(elsewhere.path() / "evil");
  std::ofstream(dotGit() / "second.inc") << "[core]\n\tattributesFile = \"" << (elsewhere.path() / "evil").string()
                                         << "\" ; a comment\n";
  std::ofstream(dotGit() / "config", std::ios::app) << "[includeIf \"gitdir:/\"]\n  path = second.inc\n";
  EXPECT_THAT(diffError(), HasSubstr("'" + (elsewhere.path() / "evil").string() +
                                     "' is a named pipe (FIFO) where git expects a file (core.attributesFile in "
                                     ".git/second.inc)"));
  std::ofstream(dotGit() / "second.inc") << "[include] path = ../pipe\n";
  fifo(repo.root() / "pipe");
  EXPECT_THAT(diffError(), HasSubstr("'pipe' is a named pipe (FIFO) where git expects a file (include.path in "
                                     ".git/second.inc)"));
}

TEST_F(Planted, ANamedPipeInTheWorkTreeStopsGitWhenItStalls) {
  // Only found once git takes long: the work tree is not walked before every call.
  fifo(repo.root() / "sub" / "dir" / ".gitignore");
  EXPECT_EQ(specialFileBeforeGit(repo.root()), "");
  EXPECT_THAT(specialFileGitWaitsOn(repo.root()), HasSubstr("'sub/dir/.gitignore' is a named pipe"));
  EXPECT_THAT(diffError(), AllOf(HasSubstr("git was stopped: 'sub/dir/.gitignore' is a named pipe (FIFO) where git "
                                           "expects a file (ignore rules git reads)"),
                                 Not(HasSubstr("did not finish"))));
  fs::remove(repo.root() / "sub" / "dir" / ".gitignore");
  fifo(repo.root() / ".gitattributes");
  EXPECT_THAT(diffError(), HasSubstr("git was stopped: '.gitattributes' is a named pipe"));
}

TEST_F(Planted, HarmlessSpecialFilesStopNothing) {
  // git passes over an untracked pipe, a .gitignore symlinked to a device
  // (it does not follow in-tree symlinks) and a nested repository's pipe.
  fifo(repo.root() / "u.fifo");
  fs::create_symlink("/dev/zero", repo.root() / "sub" / ".gitignore");
  repo.git("init -q nested");
  fifo(repo.root() / "nested" / ".gitignore");
  fifo(dotGit() / "some-tool" / "socket");
  EXPECT_EQ(specialFileBeforeGit(repo.root()), "");
  EXPECT_EQ(specialFileGitWaitsOn(repo.root()), "");
  GitOptions options;
  options.timeout = 30s;
  EXPECT_NE(diffText(repo.root(), {}, options).find("+more"), std::string::npos);
  // An empty `.git` is no repository: git reads what is beside it.
  fs::remove_all(repo.root() / "nested" / ".git");
  fs::create_directory(repo.root() / "nested" / ".git");
  EXPECT_THAT(diffError(), HasSubstr("'nested/.gitignore' is a named pipe"));
}

TEST_F(Planted, OutsideARepositoryThereIsNothingToCheck) {
  EXPECT_EQ(specialFileBeforeGit(elsewhere.path()), "");
  EXPECT_EQ(specialFileGitWaitsOn(elsewhere.path()), "");
}

TEST_F(Planted, ALinkedWorkTreeIsCheckedThroughItsCommonDirectory) {
  const fs::path linked = elsewhere.path() / "linked";
  repo.git("worktree add -q " + testing::shellQuote(linked.string()) + " -b side");
  EXPECT_EQ(specialFileBeforeGit(linked), "");
  fifo(dotGit() / "info" / "exclude");
  EXPECT_THAT(specialFileBeforeGit(linked), HasSubstr("info/exclude' is a named pipe"));
}

}  // namespace
}  // namespace revline::git
