#include "core/support/glob.h"

#include <algorithm>

namespace revline {
std::vector<std::string_view> pathSegments(std::string_view s) {
  std::vector<std::string_view> out;
  for (;;) {
    const auto slash = s.find('/');
    out.push_back(s.substr(0, slash));
    if (slash == std::string_view::npos) return out;
    s.remove_prefix(slash + 1);
  }
}

namespace {

constexpr std::size_t kMaxExpansions = 64;
// Longer patterns are matched as written: each expansion is a copy of the
// pattern, so this bounds the memory of one at 64 x 4 KiB.
constexpr std::size_t kMaxExpandedPattern = 4096;

void expand(const std::string& pattern, std::vector<std::string>& out, int depth) {
  if (out.size() >= kMaxExpansions) return;
  const auto open = pattern.find('{');
  const auto close = open == std::string::npos ? std::string::npos : pattern.find('}', open);
  if (open == std::string::npos || close == std::string::npos || depth > 8 || pattern.size() > kMaxExpandedPattern) {
    out.push_back(pattern);
    return;
  }
  const std::string head = pattern.substr(0, open), tail = pattern.substr(close + 1);
  const std::string body = pattern.substr(open + 1, close - open - 1);
  for (std::size_t start = 0; out.size() < kMaxExpansions;) {
    const auto comma = body.find(',', start);
    expand(head + body.substr(start, comma == std::string::npos ? std::string::npos : comma - start) + tail, out,
           depth + 1);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

// [set] at p[i] (p[i] == '['): the index after ']' and whether c matched; npos when malformed.
std::size_t matchSet(std::string_view p, std::size_t i, char c, bool& matched) {
  std::size_t j = i + 1;
  const bool negate = j < p.size() && (p[j] == '!' || p[j] == '^');
  if (negate) ++j;
  bool any = false;
  for (bool first = true; j < p.size() && (p[j] != ']' || first); first = false) {
    if (j + 2 < p.size() && p[j + 1] == '-' && p[j + 2] != ']') {
      if (p[j] <= c && c <= p[j + 2]) any = true;
      j += 3;
    } else {
      if (p[j] == c) any = true;
      ++j;
    }
  }
  if (j >= p.size()) return std::string_view::npos;
  matched = any != negate;
  return j + 1;
}

// One segment against one name: `*`, `?`, `[set]`, literals; a malformed set is
// a literal '['. Greedy, going back only to the last `*` (what any later `*`
// can take, an earlier one need not): at most the product of the two lengths,
// where trying every split at every `*` was exponential in their number (a
// model's `*a*a*a...` over 3,000 long names took 56 s).
bool segmentMatches(std::string_view p, std::string_view s, int& budget) {
  std::size_t pi = 0, si = 0, starP = std::string_view::npos, starS = 0;
  while (si < s.size()) {
    if (--budget < 0) return false;
    if (pi < p.size() && p[pi] == '*') {
      while (pi < p.size() && p[pi] == '*') ++pi;
      if (pi == p.size()) return true;
      starP = pi;
      starS = si;
      continue;
    }
    std::size_t next = std::string_view::npos;
    if (pi < p.size()) {
      if (p[pi] == '[') {
        bool matched = false;
        const std::size_t end = matchSet(p, pi, s[si], matched);
        if (end != std::string_view::npos) {
          if (matched) next = end;
        } else if (s[si] == '[') {
          next = pi + 1;
        }
      } else if (p[pi] == '?' || p[pi] == s[si]) {
        next = pi + 1;
      }
    }
    if (next != std::string_view::npos) {
      pi = next;
      ++si;
      continue;
    }
    if (starP == std::string_view::npos) return false;
    pi = starP;
    si = ++starS;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

struct Matcher {
  const std::vector<std::string_view>& pattern;
  const std::vector<std::string_view>& path;
  GlobMatch found;
  int budget = 0;
  // (pattern segment, path segment) pairs already tried: `**/**/...` reaches
  // each pair many ways, and each way would try what follows it again.
  std::vector<bool> tried = std::vector<bool>((pattern.size() + 1) * (path.size() + 1), false);

  // Records every way the pattern can end: with the path (whole) or before its last segment (directory).
  void match(std::size_t pi, std::size_t si) {
    if (--budget < 0 || (found.whole && found.directory)) return;
    const std::size_t state = pi * (path.size() + 1) + si;
    if (tried[state]) return;
    tried[state] = true;
    if (pi == pattern.size()) {
      (si == path.size() ? found.whole : found.directory) = true;
      return;
    }
    if (pattern[pi] == "**") {
      for (std::size_t k = si; k <= path.size(); ++k) match(pi + 1, k);
      return;
    }
    if (si < path.size() && segmentMatches(pattern[pi], path[si], budget)) match(pi + 1, si + 1);
  }
};

}  // namespace

std::vector<std::string> expandGlobBraces(std::string_view pattern) {
  std::vector<std::string> out;
  expand(std::string(pattern), out, 0);
  return out;
}

namespace {

constexpr int kStepsPerAlternative = 100000;  // one alternative against one path

// One alternative's segments against a path's, within `budget` steps: `found`
// gains what it matches; returns the steps taken.
int matchAlternative(const std::vector<std::string_view>& pattern, const std::vector<std::string_view>& path,
                     GlobMatch& found, int budget) {
  Matcher m{pattern, path, found};
  m.budget = budget;
  m.match(0, 0);
  found = m.found;
  return budget - std::max(m.budget, 0);
}

}  // namespace

GlobMatch globMatchPrefix(std::string_view pattern, std::string_view path) {
  const auto pathParts = pathSegments(path);
  GlobMatch found;
  for (const std::string& alternative : expandGlobBraces(pattern))
    matchAlternative(pathSegments(alternative), pathParts, found, kStepsPerAlternative);
  return found;
}

bool globMatchPath(std::string_view pattern, std::string_view path) { return globMatchPrefix(pattern, path).whole; }

GlobMatcher::GlobMatcher(std::string_view pattern, std::int64_t maxSteps)
    : alternatives_(expandGlobBraces(pattern)), steps_(maxSteps) {
  for (const std::string& alternative : alternatives_) segments_.push_back(pathSegments(alternative));
}

bool GlobMatcher::matches(std::string_view path) {
  const auto pathParts = pathSegments(path);
  const std::vector<std::string_view> nameOnly = {pathParts.back()};
  for (const auto& pattern : segments_) {
    if (steps_ <= 0) return false;
    GlobMatch found;
    const int budget = static_cast<int>(std::min<std::int64_t>(kStepsPerAlternative, steps_));
    steps_ -= matchAlternative(pattern, pattern.size() == 1 ? nameOnly : pathParts, found, budget) + 1;
    if (found.whole) return true;
  }
  return false;
}

}  // namespace revline
