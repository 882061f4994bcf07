// Test helpers: a real git repository in a fresh temporary directory, and a way
// to run shell commands / the revline binary and capture what they print.
#pragma once
#include <filesystem>
#include <string>

namespace revline::testing {

struct CommandResult {
  int exitCode = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `command` with /bin/sh in `cwd`, feeding `input` on stdin.
CommandResult runShell(const std::string& command, const std::filesystem::path& cwd = ".",
                       const std::string& input = "");

// Runs the revline binary built with the tests (REVLINE_BINARY) with `args`
// (already shell-quoted as needed) in `cwd`.
CommandResult runRevline(const std::string& args, const std::filesystem::path& cwd = ".",
                         const std::string& input = "");

// Quotes a string for /bin/sh.
std::string shellQuote(const std::string& s);

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
 private:
  std::filesystem::path path_;
};

// A git repository with a fixed identity and no global/system config influence.
class TempRepo {
 public:
  TempRepo();  // git init
  const std::filesystem::path& root() const { return dir_.path(); }
  // Writes a file (creating parent directories); content is written byte for byte.
  void write(const std::string& relPath, const std::string& content) const;
  std::string read(const std::string& relPath) const;
  void remove(const std::string& relPath) const;
  // Runs `git <args>` in the repository; fails the test (ADD_FAILURE) on a non-zero exit
  // unless allowFailure. Returns stdout.
  std::string git(const std::string& args, bool allowFailure = false) const;
  // git add -A && git commit -m message; returns the new commit id.
  std::string commitAll(const std::string& message = "commit") const;
 private:
  TempDir dir_;
};

}  // namespace revline::testing
