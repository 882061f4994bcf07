#include "core/config/state_key.h"

#include <sys/stat.h>

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

struct LoadedKey {
  std::string key;
  bool kept = false;  // read from, or written to, stateKeyPath()
};

LoadedKey loadOrMake() {
  if (userConfigPath().empty()) return {randomKey(), false};  // no home to keep it in
  const fs::path file = stateKeyPath();
  if (auto key = readKey(file)) return {*key, true};
  const std::string key = randomKey();
  const std::string line = key + "\n";
  // Never half written, and of two processes starting at once the first wins.
  if (writeFileAtomically(file, line, WhenExists::Keep, 0600)) return {key, true};
  if (auto other = readKey(file)) return {*other, true};  // another process's, made first
  // A key file that is empty or damaged (a crash, an edit) is replaced, if it is
  // a regular file; anything else (a named pipe, a directory) stays, unused.
  struct stat st {};
  const bool replaced = ::lstat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
                        writeFileAtomically(file, line, WhenExists::Replace, 0600);
  return {key, replaced};  // kept, or (nowhere to keep it) this process's alone
}

const LoadedKey& loaded() {
  static std::once_flag once;
  static LoadedKey key;
  std::call_once(once, [] { key = loadOrMake(); });
  return key;
}

}  // namespace

fs::path stateKeyPath() { return userConfigPath().parent_path() / "state-key"; }

const std::string& stateKey() { return loaded().key; }

bool stateKeyKept() { return loaded().kept; }

}  // namespace revline::config
