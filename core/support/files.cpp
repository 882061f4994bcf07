#include "core/support/files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <random>

namespace revline {
namespace fs = std::filesystem;

std::optional<std::string> readWholeFile(const fs::path& path, std::size_t maxBytes) {
  // Non-blocking: opening a named pipe would wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::uint64_t>(st.st_size) > maxBytes)
    return std::nullopt;
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    if (text.size() + static_cast<std::size_t>(n) > maxBytes) return std::nullopt;  // grew while read
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

namespace {
// Writes all of `content` to `fd`; false on any error.
bool writeAll(int fd, const std::string& content) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}
}  // namespace

bool writeFileAtomically(const fs::path& path, const std::string& content, WhenExists whenExists, unsigned mode) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  // A temporary of its own per writer: a server and a CLI run may write the same
  // cache entry at once. The random part keeps its name from being known ahead.
  static std::atomic<unsigned> serial{0};
  static const unsigned salt = std::random_device{}();
  for (int attempt = 0; attempt < 4; ++attempt) {
    const fs::path tmp = path.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial++) + "." +
                         std::to_string(salt ^ (std::random_device{}() & 0xffffffu));
    // O_EXCL: a name already taken (a symlink planted there included) is never opened.
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      return false;
    }
    const bool wrote = writeAll(fd, content);
    const bool closed = ::close(fd) == 0;
    if (!wrote || !closed) {
      fs::remove(tmp, ec);
      return false;
    }
    if (whenExists == WhenExists::Keep) {
      const bool linked = ::link(tmp.c_str(), path.c_str()) == 0;
      fs::remove(tmp, ec);
      return linked;
    }
    std::error_code renamed;
    fs::rename(tmp, path, renamed);
    if (renamed) fs::remove(tmp, ec);
    return !renamed;
  }
  return false;
}

std::optional<fs::path> ownDirectory(const fs::path& base, const fs::path& relative) {
  fs::path dir = base;
  for (const fs::path& part : relative) {
    if (part.empty() || part == "." || part == "..") return std::nullopt;
    dir /= part;
    ::mkdir(dir.c_str(), 0755);  // fails harmlessly when it exists (a symlink there is not followed)
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return std::nullopt;
  }
  return dir;
}

FileLock::FileLock(const fs::path& file) {
  std::error_code ec;
  if (file.has_parent_path()) fs::create_directories(file.parent_path(), ec);
  fd_ = ::open((file.string() + ".lock").c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ >= 0) {
    while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
}

FileLock::~FileLock() {
  if (fd_ < 0) return;
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
}

}  // namespace revline
