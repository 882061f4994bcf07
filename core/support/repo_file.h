// The one way to read a file of a repository nobody here wrote: the builtin
// reviewer's whole-file lookups, `.revline.json`, the tools' Sandbox and the
// language server's reads of unopened files all come through here.
//
// A path is accepted only when it resolves (symlinks included) to a location
// inside the root, names a regular file (no FIFO, device, socket or
// directory), and is at most `maxBytes` long. The file is opened without
// blocking and checked on the open descriptor, so a symlink to /dev/zero, a
// FIFO or a 2 GB sparse file is refused before a byte is read, and a file that
// grows while it is read is cut off at the cap, never loaded whole.
#pragma once
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace revline::support {

// The default cap for a repository file read whole (source lookups, config,
// unopened documents): 1 MiB. Larger files are skipped and reported.
inline constexpr std::size_t kMaxRepositoryFileBytes = 1024 * 1024;

struct RepoFileSkip {
  enum class Reason { Missing, Dangling, Outside, NotRegular, TooLarge, Unreadable };
  Reason reason = Reason::Missing;
  std::string path;  // as given
  std::string why;   // e.g. "not a regular file (a character device)"
  // "Evil.java: not a regular file (a character device); skipped"
  std::string message() const { return path + ": " + why + "; skipped"; }
};

struct RepoFileRead {
  std::optional<std::string> content;  // set when the file was read
  std::optional<RepoFileSkip> skipped;  // set otherwise
  explicit operator bool() const { return content.has_value(); }
};

// Where a repository-relative path resolves, symlinks followed: the canonical
// path when it stays inside `root` (itself canonical), or why not. `relative`
// must not be absolute and must not climb above the root with "..".
struct RepoPath {
  std::optional<std::filesystem::path> canonical;
  std::optional<RepoFileSkip> skipped;
};
RepoPath resolveInRepository(const std::filesystem::path& root, std::string_view relative);

// Reads an already-resolved path (canonical, no symlinks left) as a regular
// file of at most `maxBytes`. `shown` is the name used in messages.
RepoFileRead readRegularFile(const std::filesystem::path& canonical, const std::string& shown,
                             std::size_t maxBytes = kMaxRepositoryFileBytes);

// resolveInRepository + readRegularFile.
RepoFileRead readRepositoryFile(const std::filesystem::path& root, std::string_view relative,
                                std::size_t maxBytes = kMaxRepositoryFileBytes);

// True when `canonical` lies strictly inside `root` (both canonical).
bool insideRoot(const std::filesystem::path& root, const std::filesystem::path& canonical);

}  // namespace revline::support
