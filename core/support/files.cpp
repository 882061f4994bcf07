#include "core/support/files.h"

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>

namespace revline {
namespace fs = std::filesystem;

std::optional<std::string> readWholeFile(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return std::nullopt;  // opens on Linux, but has no bytes
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(text).str();
}

bool writeFileAtomically(const fs::path& path, const std::string& content) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  // A temporary of its own per writer: a server and a CLI run may write the same cache entry at once.
  static std::atomic<unsigned> serial{0};
  const fs::path tmp = path.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out << content;
    out.flush();
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      return false;
    }
  }
  std::error_code renamed;
  fs::rename(tmp, path, renamed);
  if (renamed) fs::remove(tmp, ec);
  return !renamed;
}

}  // namespace revline
