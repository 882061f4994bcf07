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
  for (const auto seg : pathSegments(body)) {
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
