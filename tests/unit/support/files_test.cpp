#include "core/support/files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/support/hash.h"

namespace fs = std::filesystem;
using namespace revline;

namespace {
fs::path freshDir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("revline-files-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}
}  // namespace

TEST(Files, WriteThenReadRoundTripsBytesAndCreatesParents) {
  const fs::path dir = freshDir("roundtrip");
  const std::string bytes("a\0b\xff\r\nend", 9);
  ASSERT_TRUE(writeFileAtomically(dir / "x" / "y" / "f.bin", bytes));
  EXPECT_EQ(readWholeFile(dir / "x" / "y" / "f.bin"), bytes);
  EXPECT_FALSE(fs::exists(dir / "x" / "y" / "f.bin.tmp"));  // no temporary left behind
  fs::remove_all(dir);
}

TEST(Files, AWriteReplacesTheWholeFile) {
  const fs::path dir = freshDir("replace");
  ASSERT_TRUE(writeFileAtomically(dir / "f", std::string(1000, 'x')));
  ASSERT_TRUE(writeFileAtomically(dir / "f", "short"));
  EXPECT_EQ(readWholeFile(dir / "f"), "short");
  fs::remove_all(dir);
}

TEST(Files, AFailedWriteLeavesTheOldFileAndSaysSo) {
  const fs::path dir = freshDir("fail");
  ASSERT_TRUE(writeFileAtomically(dir / "f", "old"));
  // The target is a directory: the rename cannot replace it.
  fs::create_directories(dir / "d");
  EXPECT_FALSE(writeFileAtomically(dir / "d", "new"));
  EXPECT_TRUE(fs::is_directory(dir / "d"));
  EXPECT_FALSE(fs::exists(dir / "d.tmp"));
  EXPECT_EQ(readWholeFile(dir / "f"), "old");
  fs::remove_all(dir);
}

TEST(Files, AMissingFileReadsAsNothing) {
  EXPECT_EQ(readWholeFile("/nonexistent/revline/file"), std::nullopt);
  EXPECT_EQ(readWholeFile(fs::temp_directory_path()), std::nullopt);  // a directory has no bytes to read
}

// Revline's state under a repository's git directory is in the hands of whoever
// handed the repository over: a named pipe there is never waited on, a huge or
// endless file never read whole.
TEST(Files, ANamedPipeOrAnOversizedFileReadsAsNothingAtOnce) {
  const fs::path dir = freshDir("special");
  ASSERT_EQ(::mkfifo((dir / "pipe").c_str(), 0644), 0);
  EXPECT_EQ(readWholeFile(dir / "pipe"), std::nullopt);  // before, the open waited for a writer forever
  EXPECT_EQ(readWholeFile("/dev/zero"), std::nullopt);    // a device: endless
  ASSERT_TRUE(writeFileAtomically(dir / "big", std::string(2000, 'x')));
  EXPECT_EQ(readWholeFile(dir / "big", 1999), std::nullopt);
  EXPECT_EQ(readWholeFile(dir / "big", 2000), std::string(2000, 'x'));
  fs::remove_all(dir);
}

// A directory of revline's own state is used only when it is a real directory:
// a planted symlink (`.git/revline -> ~`) never leads writes or pruning elsewhere.
TEST(Files, OwnDirectoryRefusesASymlinkOrAFile) {
  const fs::path dir = freshDir("own");
  const fs::path outside = freshDir("own-outside");
  EXPECT_EQ(ownDirectory(dir, fs::path("revline") / "hunks"), dir / "revline" / "hunks");
  EXPECT_TRUE(fs::is_directory(dir / "revline" / "hunks"));
  fs::remove_all(dir / "revline");
  fs::create_directory_symlink(outside, dir / "revline");
  EXPECT_EQ(ownDirectory(dir, fs::path("revline") / "hunks"), std::nullopt);
  EXPECT_FALSE(fs::exists(outside / "hunks"));
  fs::remove(dir / "revline");
  std::ofstream(dir / "revline") << "a file";
  EXPECT_EQ(ownDirectory(dir, "revline"), std::nullopt);
  fs::remove_all(dir);
  fs::remove_all(outside);
}

// The lock file of a read-modify-write is not opened through a symlink planted
// under its name (which would create the file it points to).
TEST(Files, TheLockFileIsNotOpenedThroughASymlink) {
  const fs::path dir = freshDir("lock");
  fs::create_symlink(dir / "elsewhere", dir / "f.lock");
  { const FileLock lock(dir / "f"); }
  EXPECT_FALSE(fs::exists(dir / "elsewhere"));
  fs::remove_all(dir);
}

TEST(Hash, Fnv1aMatchesTheReferenceValues) {
  // Reference values of 64-bit FNV-1a (Fowler/Noll/Vo test vectors).
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ull);
  EXPECT_NE(fnv1a64("foobar", 1), fnv1a64("foobar"));  // the seed matters
  static_assert(fnv1a64("a") == 0xaf63dc4c8601ec8cull, "usable at compile time");
}
