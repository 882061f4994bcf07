// Internal to core/diff: the path syntax of git's diff headers (C-style
// quoting, "a/"-style prefixes, the two names of a "diff --git" line).
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace revline::diff::detail {

// Decodes a C-quoted name starting at in[0] == '"'. On success returns the
// decoded bytes and sets `consumed` to the length including both quotes;
// nullopt for an unterminated string or an unknown escape.
std::optional<std::string> unquoteC(std::string_view in, size_t& consumed);

// The name on a "--- " / "+++ " line (after that marker): quoted or not, with
// the tab git appends to names containing spaces (or diff -u's "\ttimestamp")
// removed. "/dev/null" is returned as is. nullopt when the quoting is broken.
std::optional<std::string> fileLineName(std::string_view rest);

// Whether paths in a file section carry a one-component prefix ("a/", "w/",
// "1/", a custom --src-prefix ...).
enum class PrefixMode { Prefixed, None, Unknown };

// The two names of "diff --git <A> <B>" (the part after "diff --git "), with
// prefixes removed, and which prefix mode the line shows. Both unset with
// mode Unknown when the line cannot be split unambiguously (e.g. a rename of a
// name containing spaces: the rename lines then name the paths).
struct GitLineNames {
  std::optional<std::string> oldName, newName;
  PrefixMode mode = PrefixMode::Unknown;
};
GitLineNames diffGitNames(std::string_view rest);

// Drops the first path component ("a/x" -> "x"); nullopt when there is none.
std::optional<std::string> stripFirstComponent(std::string_view name);

}  // namespace revline::diff::detail
