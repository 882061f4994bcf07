// Path globs for the `include` / `exclude` configuration keys, matched against
// repository-relative paths ('/'-separated) by the one glob engine
// (support/glob.h, shared with the model's tools):
//   `*` any run of characters within one path segment, `?` one character,
//   `[a-z]` / `[!x]` sets, `{a,b}` alternatives,
//   `**` as a whole segment: zero or more segments.
//   A glob without '/' matches a file or directory name at any depth (like
//   .gitignore: "*.lock", "vendor"); a leading '/' anchors it to the root.
//   A glob that matches a directory matches everything inside it; a trailing
//   '/' ("build/") matches directories only.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace revline::config {

// What is wrong with a glob ("'**' must be a whole path segment ..."), or
// nullopt when it is well-formed.
std::optional<std::string> globProblem(std::string_view glob);

// True when `path` (repository-relative; a leading "./" is ignored) matches `glob`.
bool globMatches(std::string_view glob, std::string_view path);

}  // namespace revline::config
