// A fast, stable, non-cryptographic hash for cache file names and result ids:
// 64-bit FNV-1a. Stable across runs and machines (it names files on disk).
#pragma once
#include <cstdint>
#include <string_view>

namespace revline {

inline constexpr std::uint64_t kFnvOffsetBasis = 14695981039346656037ull;

constexpr std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t seed = kFnvOffsetBasis) {
  std::uint64_t h = seed;
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace revline
