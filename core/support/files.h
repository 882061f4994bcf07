// Whole-file reads and crash-safe writes of revline's own files (caches,
// dismissals, cassettes, eval cases): trusted paths. Repository content goes
// through repo_file.h instead, which bounds size and refuses special files.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace revline {

// The file's bytes; nullopt when it cannot be opened or read.
std::optional<std::string> readWholeFile(const std::filesystem::path& path);

// Writes `content` to a temporary file beside `path` (named for this process
// and call, so concurrent writers never share one), then renames it over
// `path` (creating the parent directories): a crash never leaves half a file.
// False, with `path` untouched, when any step fails.
bool writeFileAtomically(const std::filesystem::path& path, const std::string& content);

// An exclusive advisory lock (flock) on `<file>.lock` for the object's lifetime,
// around a read-modify-write of `file` that several processes may do at once
// (two servers dismissing findings, two `revline trust`): no update is lost.
// Creates the parent directories; when the lock file cannot be opened it
// locks nothing (the write stays atomic, only a concurrent update may be lost).
class FileLock {
 public:
  explicit FileLock(const std::filesystem::path& file);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace revline
