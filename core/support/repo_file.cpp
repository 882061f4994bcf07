#include "core/support/repo_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

namespace revline::support {

namespace fs = std::filesystem;

namespace {

using Reason = RepoFileSkip::Reason;

RepoFileSkip skip(Reason reason, const std::string& shown, const std::string& why) {
  return RepoFileSkip{reason, shown, why};
}

std::string kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string kib(std::uintmax_t bytes) { return std::to_string((bytes + 1023) / 1024) + " KB"; }

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { if (fd_ >= 0) ::close(fd_); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
 private:
  int fd_;
};

}  // namespace

bool insideRoot(const fs::path& root, const fs::path& canonical) {
  const fs::path rel = canonical.lexically_relative(root);
  if (rel.empty() || rel == ".") return false;
  return *rel.begin() != ".." && !rel.is_absolute();
}

RepoPath resolveInRepository(const fs::path& root, std::string_view relative) {
  const std::string shown(relative.substr(0, 200));
  if (relative.empty()) return {std::nullopt, skip(Reason::Missing, "''", "an empty path")};
  if (relative.find('\0') != std::string_view::npos) {
    return {std::nullopt, skip(Reason::Outside, shown, "the path contains a NUL byte")};
  }
  const fs::path rel(relative);
  // A leading backslash is a name here (git names `\t.py` so), not a Windows
  // root: the sandbox tells a model's Windows-style path apart before this.
  if (rel.is_absolute()) {
    return {std::nullopt, skip(Reason::Outside, shown, "an absolute path, outside the repository")};
  }
  int depth = 0;
  for (const auto& part : rel) {
    if (part == "..") {
      if (--depth < 0) return {std::nullopt, skip(Reason::Outside, shown, "the path leaves the repository")};
    } else if (part != "." && !part.empty()) {
      ++depth;
    }
  }
  std::error_code ec;
  const fs::path joined = root / rel;
  const auto status = fs::symlink_status(joined, ec);
  if (ec || !fs::exists(status)) return {std::nullopt, skip(Reason::Missing, shown, "no such file")};
  fs::path canonical = fs::canonical(joined, ec);
  if (ec) return {std::nullopt, skip(Reason::Dangling, shown, "a symlink whose target does not exist")};
  if (!insideRoot(root, canonical)) {
    return {std::nullopt, skip(Reason::Outside, shown,
                               fs::is_symlink(status) || canonical != joined.lexically_normal()
                                   ? "a symlink to " + canonical.string() + ", outside the repository"
                                   : "outside the repository")};
  }
  return {std::move(canonical), std::nullopt};
}

namespace {

// Opens `canonical` (absolute, no symlink in it) one component at a time, none
// followed if it is a symlink: a directory on the way swapped for a symlink
// after the path was resolved (by a process racing the review) fails the open
// (ENOTDIR, ELOOP) instead of leading outside. O_PATH: walking a directory needs
// no permission to list it. -1 with errno set on failure.
int openWithoutFollowing(const fs::path& canonical, int finalFlags) {
  if (!canonical.is_absolute()) {
    errno = EINVAL;
    return -1;
  }
  int dir = ::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return -1;
  std::vector<std::string> parts;
  for (const auto& part : canonical.relative_path()) parts.push_back(part.string());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const bool last = i + 1 == parts.size();
    const int next = ::openat(dir, parts[i].c_str(), last ? finalFlags : O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const int e = errno;
    ::close(dir);
    if (next < 0) {
      errno = e;
      return -1;
    }
    dir = next;
  }
  return dir;
}

}  // namespace

RepoFileRead readRegularFile(const fs::path& canonical, const std::string& shown, std::size_t maxBytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW (on every
  // component): the path was canonical, so a symlink on it was swapped in after resolving it.
  const int raw = openWithoutFollowing(canonical, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);
  if (raw < 0) {
    const int e = errno;
    if (e == ENOENT) return {std::nullopt, skip(Reason::Missing, shown, "no such file")};
    if (e == ELOOP || e == ENOTDIR)
      return {std::nullopt, skip(Reason::Outside, shown, "it or a directory above it became a symlink while being read")};
    return {std::nullopt, skip(Reason::Unreadable, shown, std::string("cannot be read (") + std::strerror(e) + ")")};
  }
  Fd fd(raw);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    return {std::nullopt, skip(Reason::Unreadable, shown, std::string("cannot be read (") + std::strerror(errno) + ")")};
  }
  if (!S_ISREG(st.st_mode)) {
    return {std::nullopt, skip(Reason::NotRegular, shown, "not a regular file (" + kindOf(st.st_mode) + ")")};
  }
  if (static_cast<std::uintmax_t>(st.st_size) > maxBytes) {
    return {std::nullopt, skip(Reason::TooLarge, shown,
                               kib(static_cast<std::uintmax_t>(st.st_size)) + ", over the " + kib(maxBytes) +
                                   " limit for repository files")};
  }
  std::string data;
  data.resize(static_cast<std::size_t>(st.st_size) + 1);
  std::size_t used = 0;
  for (;;) {
    if (used == data.size()) {
      if (data.size() > maxBytes) break;  // it grew past the cap while being read
      data.resize(std::min(maxBytes + 1, data.size() * 2 + 4096));
    }
    const ssize_t n = ::read(fd.get(), data.data() + used, data.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      return {std::nullopt,
              skip(Reason::Unreadable, shown, std::string("cannot be read (") + std::strerror(errno) + ")")};
    }
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
  }
  if (used > maxBytes) {
    return {std::nullopt, skip(Reason::TooLarge, shown, "over the " + kib(maxBytes) + " limit for repository files")};
  }
  data.resize(used);
  return {std::move(data), std::nullopt};
}

RepoFileRead readRepositoryFile(const fs::path& root, std::string_view relative, std::size_t maxBytes) {
  std::error_code ec;
  const fs::path canonicalRoot = fs::canonical(root, ec);
  if (ec) return {std::nullopt, skip(Reason::Missing, root.string(), "the repository root does not exist")};
  RepoPath where = resolveInRepository(canonicalRoot, relative);
  if (!where.canonical) return {std::nullopt, std::move(where.skipped)};
  return readRegularFile(*where.canonical, std::string(relative), maxBytes);
}

}  // namespace revline::support
