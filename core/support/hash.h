// A fast, stable, non-cryptographic hash for cache file names and result ids:
// 64-bit FNV-1a. Stable across runs and machines (it names files on disk).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
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

// 32 lowercase hex digits from two FNV-1a passes with different seeds: a cache
// file's name for `key` (collisions are negligible at cache sizes).
inline std::string fingerprint128(std::string_view key) {
  char name[40];
  std::snprintf(name, sizeof name, "%016llx%016llx", static_cast<unsigned long long>(fnv1a64(key)),
                static_cast<unsigned long long>(fnv1a64(key, 0x9e3779b97f4a7c15ull)));
  return name;
}

}  // namespace revline
