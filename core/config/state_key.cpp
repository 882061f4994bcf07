#include "core/config/state_key.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <mutex>
#include <optional>
#include <random>

#include "core/config/user_config.h"
#include "core/support/files.h"

namespace revline::config {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kKeyHexDigits = 64;

std::string randomKey() {
  std::random_device random;  // the kernel's generator (getrandom) on Linux
  std::string hex;
  for (std::size_t i = 0; i < kKeyHexDigits / 8; ++i) {
    char part[9];
    std::snprintf(part, sizeof part, "%08x", static_cast<unsigned>(random()));
    hex += part;
  }
  return hex;
}

bool wellFormed(const std::string& key) {
  return key.size() == kKeyHexDigits && key.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::optional<std::string> readKey(const fs::path& file) {
  std::optional<std::string> text = readWholeFile(file, 4096);
  if (!text) return std::nullopt;
  while (!text->empty() && (text->back() == '\n' || text->back() == '\r')) text->pop_back();
  if (!wellFormed(*text)) return std::nullopt;
  return text;
}

std::string loadOrMake() {
  if (userConfigPath().empty()) return randomKey();  // no home to keep it in
  const fs::path file = stateKeyPath();
  if (auto key = readKey(file)) return *key;
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  const std::string key = randomKey();
  // Written whole to a temporary, then linked into place: the key file never
  // exists half written, and of two processes starting at once the first
  // link wins (link fails where the name exists) and the other reads it.
  const fs::path tmp = file.string() + ".tmp." + std::to_string(::getpid()) + "." + randomKey().substr(0, 8);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return key;  // nowhere to keep it: this process's alone
  const std::string line = key + "\n";
  const bool wrote = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ::close(fd);
  std::string chosen = key;
  if (wrote && ::link(tmp.c_str(), file.c_str()) != 0) {
    if (auto other = readKey(file)) {
      chosen = *other;  // another process's, made first
    } else {
      // A key file that is empty or damaged (a crash, an edit) is replaced, if it is
      // a regular file; anything else (a named pipe, a directory) stays, unused.
      struct stat st {};
      if (::lstat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode)) fs::rename(tmp, file, ec);
    }
  }
  fs::remove(tmp, ec);
  return chosen;
}

}  // namespace

fs::path stateKeyPath() { return userConfigPath().parent_path() / "state-key"; }

const std::string& stateKey() {
  static std::once_flag once;
  static std::string key;
  std::call_once(once, [] { key = loadOrMake(); });
  return key;
}

}  // namespace revline::config
