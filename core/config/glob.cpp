#include "core/config/glob.h"

#include <vector>

#include "core/config/config.h"

namespace revline::config {
namespace {

std::vector<std::string_view> segments(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const auto slash = s.find('/', start);
    out.push_back(s.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) return out;
    start = slash + 1;
  }
}

// `*` and `?` within one segment; iterative with one backtrack point, so linear-ish.
bool segmentMatches(std::string_view pattern, std::string_view name) {
  std::size_t p = 0, n = 0, starP = std::string_view::npos, starN = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      starP = p++, starN = n;
    } else if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p, ++n;
    } else if (starP != std::string_view::npos) {
      p = starP + 1, n = ++starN;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

struct Matcher {
  const std::vector<std::string_view>& pattern;
  const std::vector<std::string_view>& path;
  bool directoryOnly;

  bool match(std::size_t pi, std::size_t si) const {
    if (pi == pattern.size()) {
      // Whole path matched: a file or directory. Path left over: the glob named
      // one of its directories, and everything inside a directory matches.
      return si < path.size() || !directoryOnly;
    }
    if (pattern[pi] == "**") {
      for (std::size_t k = si; k <= path.size(); ++k) {
        if (match(pi + 1, k)) return true;
      }
      return false;
    }
    return si < path.size() && segmentMatches(pattern[pi], path[si]) && match(pi + 1, si + 1);
  }
};

}  // namespace

std::optional<std::string> globProblem(std::string_view glob) {
  if (glob.empty() || glob == "/") return "a glob must not be empty";
  std::string_view body = glob;
  if (body.front() == '/') body.remove_prefix(1);
  if (!body.empty() && body.back() == '/') body.remove_suffix(1);
  for (const auto seg : segments(body)) {
    if (seg.empty()) return "a glob must not contain an empty path segment (\"//\")";
    if (seg != "**" && seg.find("**") != std::string_view::npos) {
      return "'**' must be a whole path segment, as in \"src/**/test\" or \"**/*.md\"; use '*' within a name";
    }
  }
  return std::nullopt;
}

bool globMatches(std::string_view glob, std::string_view path) {
  if (globProblem(glob)) return false;
  while (path.substr(0, 2) == "./") path.remove_prefix(2);
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  if (path.empty()) return false;

  std::string pattern(glob);
  const bool anchored = pattern.front() == '/';
  if (anchored) pattern.erase(0, 1);
  const bool directoryOnly = pattern.back() == '/';
  if (directoryOnly) pattern.pop_back();
  // A bare name ("*.lock", "vendor") matches at any depth, like .gitignore.
  if (!anchored && pattern.find('/') == std::string::npos) pattern = "**/" + pattern;

  const auto patternSegments = segments(pattern);
  const auto pathSegments = segments(path);
  return Matcher{patternSegments, pathSegments, directoryOnly}.match(0, 0);
}

bool pathSelected(const Config& config, const std::string& path) {
  bool included = config.include.empty();
  for (const auto& glob : config.include) {
    if (globMatches(glob, path)) { included = true; break; }
  }
  if (!included) return false;
  for (const auto& glob : config.exclude) {
    if (globMatches(glob, path)) return false;
  }
  return true;
}

}  // namespace revline::config
