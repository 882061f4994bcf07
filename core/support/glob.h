// The one glob engine: the include/exclude settings (config/glob.h) and the
// model's `glob`/`search_text` tools (tools/sandbox.h) match paths with it, so
// a pattern means the same in both. Over '/'-separated paths:
//   `*` any run of characters within a segment, `?` one character (not '/'),
//   `[abc]`, `[a-z]`, `[!x]` / `[^x]` one character of (not of) a set,
//   `{a,b}` alternatives (no nesting; at most 64 expansions; a pattern over 4 KiB is matched as written),
//   `**` as a whole segment: zero or more segments (elsewhere it acts as `*`).
// A match is of the whole path. Work is bounded: a pathological pattern fails
// to match rather than spinning.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace revline {

// "a/b/c" as {"a", "b", "c"} ("" is {""}; empty segments are kept).
std::vector<std::string_view> pathSegments(std::string_view path);

// The alternatives of a pattern's `{a,b}` groups.
std::vector<std::string> expandGlobBraces(std::string_view pattern);

// True when `path` matches `pattern` whole (braces expanded).
bool globMatchPath(std::string_view pattern, std::string_view path);

// How `path` matches `pattern`: whole, and/or a leading run of its segments,
// i.e. one of its directories (pattern "vendor", path "vendor/a/b.js"). For the
// settings, where a matched directory selects everything inside it.
struct GlobMatch {
  bool whole = false;
  bool directory = false;
};
GlobMatch globMatchPrefix(std::string_view pattern, std::string_view path);

// One pattern matched against many paths (a tool call's walk of the
// repository): its braces expanded once, and one bound on the work of all the
// matches. Expanded again per path, a pattern whose braces the first expansion
// left (past its depth) made 64 x 64 matchers a path, and a 254-character
// pattern ran past 2 minutes over 3,000 names. Past the bound nothing more
// matches and exhausted() says so. An alternative without '/' is matched
// against the path's last segment (a file name at any depth).
class GlobMatcher {
 public:
  // About as many seconds at most: `**/*.{py,go,rs,java,kt,c,h,cpp}` over the
  // 100,000 paths a walk holds takes a few hundred million.
  static constexpr std::int64_t kMaxSteps = 1'000'000'000;
  explicit GlobMatcher(std::string_view pattern, std::int64_t maxSteps = kMaxSteps);
  GlobMatcher(const GlobMatcher&) = delete;  // segments_ views alternatives_
  GlobMatcher(GlobMatcher&&) = default;      // (a vector's move keeps its strings where they are)
  bool matches(std::string_view path);
  bool exhausted() const { return steps_ <= 0; }

 private:
  std::vector<std::string> alternatives_;
  std::vector<std::vector<std::string_view>> segments_;  // each alternative's, split once
  std::int64_t steps_;
};

}  // namespace revline
