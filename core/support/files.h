// Whole-file reads and crash-safe writes of revline's own files (caches,
// dismissals, cassettes, eval cases): trusted paths. Repository content goes
// through repo_file.h instead, which bounds size and refuses special files.
#pragma once
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace revline {

// Files larger than this are not read whole (readWholeFile's default).
inline constexpr std::size_t kMaxOwnFileBytes = std::size_t{64} << 20;

// The file's bytes; nullopt when it cannot be opened or read, is not a regular
// file (a named pipe, a device: never waited on) or is larger than `maxBytes`.
// Revline's state under a repository's git directory is in the hands of whoever
// handed the repository over: nothing there may hang a read or fill memory.
std::optional<std::string> readWholeFile(const std::filesystem::path& path, std::size_t maxBytes = kMaxOwnFileBytes);

// Writes `content` to a new temporary file beside `path` (created exclusively,
// never through a symlink planted under its name, with a name of this process,
// call and a random part), then renames it over `path` (creating the parent
// directories): a crash never leaves half a file. False, with `path`
// untouched, when any step fails. With WhenExists::Keep the file is linked into
// place instead, which fails where the name exists: of two processes creating
// it at once, the first wins. `mode`: the new file's permissions.
enum class WhenExists { Replace, Keep };
bool writeFileAtomically(const std::filesystem::path& path, const std::string& content,
                         WhenExists whenExists = WhenExists::Replace, unsigned mode = 0644);

// `base / relative` when each directory of `relative` below `base` is a real
// directory, created as needed; nullopt when one is anything else (a symlink, a
// file). For revline's state under a repository's git directory (caches,
// dismissals), so a planted `.git/revline -> ~` never leads writes or pruning
// outside it.
std::optional<std::filesystem::path> ownDirectory(const std::filesystem::path& base,
                                                  const std::filesystem::path& relative);

// An exclusive advisory lock (flock) on `<file>.lock` for the object's lifetime,
// around a read-modify-write of `file` that several processes may do at once
// (two servers dismissing findings, two `revline trust`): no update is lost.
// Creates the parent directories; when the lock file cannot be opened (or is a
// symlink, which is not followed) it locks nothing (the write stays atomic, only a concurrent update may be lost).
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
