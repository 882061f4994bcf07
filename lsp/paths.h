// Paths as the server keys them: canonical when the file exists.
#pragma once
#include <filesystem>

namespace revline::lsp {

inline std::filesystem::path canonicalPath(const std::filesystem::path& p) {
  std::error_code ec;
  std::filesystem::path c = std::filesystem::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : c;
}

// `path` is `dir` or below it, compared by path components (both as the server keys them).
inline bool isWithin(const std::filesystem::path& path, const std::filesystem::path& dir) {
  const std::filesystem::path rel = path.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace revline::lsp
