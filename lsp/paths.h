// Paths as the server keys them: canonical when the file exists.
#pragma once
#include <filesystem>

namespace revline::lsp {

inline std::filesystem::path canonicalPath(const std::filesystem::path& p) {
  std::error_code ec;
  std::filesystem::path c = std::filesystem::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : c;
}

}  // namespace revline::lsp
