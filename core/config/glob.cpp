#include "core/config/glob.h"

#include <vector>

#include "core/config/config.h"
#include "core/support/glob.h"

namespace revline::config {
std::optional<std::string> globProblem(std::string_view glob) {
  if (glob.empty() || glob == "/") return "a glob must not be empty";
  std::string_view body = glob;
  if (body.front() == '/') body.remove_prefix(1);
  if (!body.empty() && body.back() == '/') body.remove_suffix(1);
  // .gitignore's negation is not this syntax: "!vendor/keep" would be a file named so, matched by nothing.
  if (glob.front() == '!')
    return "a leading '!' does not negate here (as in .gitignore): \"exclude\" lists what to leave out and "
           "\"include\" what to keep; for a name that starts with '!', write '?' in its place";
  for (const auto seg : pathSegments(body)) {
    if (seg.empty()) return "a glob must not contain an empty path segment (\"//\")";
    if (seg != "**" && seg.find("**") != std::string_view::npos) {
      return "'**' must be a whole path segment, as in \"src/**/test\" or \"**/*.md\"; use '*' within a name";
    }
    // An unclosed set matches nothing: every file would silently be left out (or kept).
    for (std::size_t i = 0; i < seg.size(); ++i) {
      if (seg[i] != '[') continue;
      std::size_t k = i + 1;
      if (k < seg.size() && (seg[k] == '!' || seg[k] == '^')) ++k;
      if (k < seg.size() && seg[k] == ']') ++k;  // "[]a]": a ']' first is one of the set
      const auto close = seg.find(']', k);
      if (close == std::string_view::npos)
        return "'[' in \"" + std::string(seg) + "\" opens a set of characters that no ']' closes, as in \"[a-z]*.c\"";
      i = close;
    }
  }
  // Alternatives may hold '/' ("{src,lib}/x"): counted over the whole glob.
  int braces = 0;
  for (const char c : body) {
    if (c == '{') ++braces;
    if (c == '}' && --braces < 0) return "'}' closes no '{' (alternatives are written as in \"*.{js,ts}\")";
  }
  if (braces > 0) return "'{' opens alternatives that no '}' closes, as in \"*.{js,ts}\"";
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

  // Matched whole: a file or directory. Matched a leading directory of the path:
  // everything inside a directory matches.
  const GlobMatch m = globMatchPrefix(pattern, path);
  return m.directory || (m.whole && !directoryOnly);
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
