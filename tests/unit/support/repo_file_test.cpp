// The one confined read of repository files: special files, huge files and
// symlinks out of the repository are refused before a byte is read, quickly.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include "core/support/repo_file.h"
#include "tests/support/temp_repo.h"

namespace revline::support {
namespace {

namespace fs = std::filesystem;
using Reason = RepoFileSkip::Reason;

struct Repo {
  testing::TempDir dir;
  testing::TempDir outside;
  fs::path root() const { return fs::canonical(dir.path()); }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories((dir.path() / rel).parent_path());
    std::ofstream(dir.path() / rel, std::ios::binary) << text;
  }
};

// Every refusal below must come back at once: nothing is read, nothing waits.
template <class F>
RepoFileRead timed(F f) {
  const auto start = std::chrono::steady_clock::now();
  RepoFileRead r = f();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  return r;
}

TEST(RepoFile, ReadsARegularFileInside) {
  Repo r;
  r.write("src/A.java", "class A {}\n");
  RepoFileRead read = readRepositoryFile(r.root(), "src/A.java");
  ASSERT_TRUE(read);
  EXPECT_EQ(*read.content, "class A {}\n");
}

// A name git gives that begins with a backslash is a file at the root, not an
// absolute path: `\t.py` was "an absolute path, outside the repository", and
// the builtin reviewer, reading only its diff, flagged what `t.py` was not.
TEST(RepoFile, ANameBeginningWithABackslashIsAFileInside) {
  Repo r;
  r.write("\\t.py", "x = 1\n");
  EXPECT_EQ(*readRepositoryFile(r.root(), "\\t.py").content, "x = 1\n");
  EXPECT_EQ(readRepositoryFile(r.root(), "\\missing.py").skipped->reason, Reason::Missing);
}

// A directory on the resolved path swapped for a symlink to elsewhere after the
// path was resolved (what a process racing the review does between the check and
// the open): the read is refused, not led outside. Before, only the file itself
// was opened without following, and the swapped directory led outside.
TEST(RepoFile, ADirectorySwappedForASymlinkAfterResolvingIsNotFollowed) {
  Repo r;
  r.write("d/f.txt", "inside\n");
  std::ofstream(r.outside.path() / "f.txt") << "OUTSIDE SECRET\n";
  const RepoPath where = resolveInRepository(r.root(), "d/f.txt");
  ASSERT_TRUE(where.canonical);
  fs::rename(r.root() / "d", r.root() / "d.moved");
  fs::create_directory_symlink(r.outside.path(), r.root() / "d");
  const RepoFileRead read = readRegularFile(*where.canonical, "d/f.txt");
  EXPECT_FALSE(read) << *read.content;
  ASSERT_TRUE(read.skipped);
  EXPECT_EQ(read.skipped->reason, Reason::Outside);
  EXPECT_EQ(read.skipped->why, "it or a directory above it became a symlink while being read");
}

TEST(RepoFile, SymlinkToDevZeroIsRefused) {
  Repo r;
  fs::create_symlink("/dev/zero", r.dir.path() / "Evil.java");
  RepoFileRead read = timed([&] { return readRepositoryFile(r.root(), "Evil.java"); });
  ASSERT_FALSE(read);
  EXPECT_EQ(read.skipped->reason, Reason::Outside);
  EXPECT_EQ(read.skipped->message(), "Evil.java: a symlink to /dev/zero, outside the repository; skipped");
  // And the device itself, were it reached another way.
  RepoFileRead device = timed([&] { return readRegularFile("/dev/zero", "zero"); });
  ASSERT_FALSE(device);
  EXPECT_EQ(device.skipped->reason, Reason::NotRegular);
  EXPECT_NE(device.skipped->why.find("character device"), std::string::npos);
}

TEST(RepoFile, FifoIsRefusedWithoutWaitingForAWriter) {
  Repo r;
  ASSERT_EQ(::mkfifo((r.dir.path() / "Pipe.java").c_str(), 0600), 0);
  RepoFileRead read = timed([&] { return readRepositoryFile(r.root(), "Pipe.java"); });
  ASSERT_FALSE(read);
  EXPECT_EQ(read.skipped->reason, Reason::NotRegular);
  EXPECT_NE(read.skipped->why.find("a FIFO"), std::string::npos);
  // A symlink inside the repository to the FIFO: the same.
  fs::create_symlink("Pipe.java", r.dir.path() / "Link.java");
  EXPECT_EQ(timed([&] { return readRepositoryFile(r.root(), "Link.java"); }).skipped->reason, Reason::NotRegular);
}

TEST(RepoFile, TwoGigabyteSparseFileIsSkippedNotLoaded) {
  Repo r;
  {
    std::ofstream(r.dir.path() / "Big.java");
  }
  fs::resize_file(r.dir.path() / "Big.java", std::uintmax_t(2) << 30);
  RepoFileRead read = timed([&] { return readRepositoryFile(r.root(), "Big.java"); });
  ASSERT_FALSE(read);
  EXPECT_EQ(read.skipped->reason, Reason::TooLarge);
  EXPECT_NE(read.skipped->why.find("over the 1024 KB limit"), std::string::npos) << read.skipped->why;
}

TEST(RepoFile, SymlinksAreFollowedOnlyInsideTheRoot) {
  Repo r;
  std::ofstream(r.outside.path() / "secret") << "password";
  r.write("real.txt", "inside\n");
  fs::create_symlink(r.outside.path() / "secret", r.dir.path() / "out.txt");
  fs::create_symlink("real.txt", r.dir.path() / "in.txt");
  fs::create_symlink(r.outside.path(), r.dir.path() / "outdir");
  EXPECT_EQ(readRepositoryFile(r.root(), "out.txt").skipped->reason, Reason::Outside);
  EXPECT_EQ(readRepositoryFile(r.root(), "outdir/secret").skipped->reason, Reason::Outside);
  EXPECT_EQ(*readRepositoryFile(r.root(), "in.txt").content, "inside\n");
  EXPECT_EQ(readRepositoryFile(r.root(), "../x").skipped->reason, Reason::Outside);
  EXPECT_EQ(readRepositoryFile(r.root(), "/etc/passwd").skipped->reason, Reason::Outside);
  EXPECT_EQ(readRepositoryFile(r.root(), "missing.txt").skipped->reason, Reason::Missing);
  fs::create_symlink("gone.txt", r.dir.path() / "dangling");
  EXPECT_EQ(readRepositoryFile(r.root(), "dangling").skipped->reason, Reason::Dangling);
}

TEST(RepoFile, DirectoriesAndTheCapAreRefused) {
  Repo r;
  r.write("d/x", "1");
  EXPECT_EQ(readRepositoryFile(r.root(), "d").skipped->reason, Reason::NotRegular);
  r.write("ten", std::string(10, 'x'));
  EXPECT_EQ(readRepositoryFile(r.root(), "ten", 9).skipped->reason, Reason::TooLarge);
  EXPECT_EQ(readRepositoryFile(r.root(), "ten", 10).content, std::string(10, 'x'));
}

}  // namespace
}  // namespace revline::support
