// The Diff model's queries and the small free functions of diff.h.
#include "core/diff/diff.h"

#include "core/diff/git_paths.h"

#include <algorithm>
#include <map>
#include <vector>

namespace revline::diff {

std::string_view toString(FileStatus s) {
  switch (s) {
    case FileStatus::Added: return "added";
    case FileStatus::Deleted: return "deleted";
    case FileStatus::Modified: return "modified";
    case FileStatus::Renamed: return "renamed";
    case FileStatus::Copied: return "copied";
    case FileStatus::Binary: return "binary";
    case FileStatus::Mode: return "mode";
  }
  return "unknown";
}

const std::string& FileDiff::path() const {
  static const std::string empty;
  if (newPath) return *newPath;
  return oldPath ? *oldPath : empty;
}

namespace {
// The hunk whose new-side range holds newLine: every number in that range is
// an added or context line, since the new count counts exactly those.
const Hunk* hunkFor(const std::vector<Hunk>& hunks, int newLine) {
  for (const Hunk& h : hunks) {
    if (newLine >= h.newStart && newLine < h.newStart + h.newCount) return &h;
  }
  return nullptr;
}
}  // namespace

bool FileDiff::isRightSideLine(int newLine) const { return newLine >= 1 && hunkFor(hunks, newLine) != nullptr; }

std::optional<std::string_view> FileDiff::newLineText(int newLine) const {
  if (newLine < 1) return std::nullopt;
  const Hunk* h = hunkFor(hunks, newLine);
  if (!h) return std::nullopt;
  for (const Line& l : h->lines) {
    if (l.kind != LineKind::Removed && l.newLine == newLine) return l.text;
  }
  return std::nullopt;
}

std::string normalizePath(std::string_view path) {
  while (path.size() >= 2 && path[0] == '.' && path[1] == '/') {
    path.remove_prefix(2);
    while (!path.empty() && path[0] == '/') path.remove_prefix(1);  // ".//x"
  }
  return std::string(path);
}

namespace {
// How a finding may spell a file's path, tried in order against `lookup` (the
// file with that normalised path): as given; "b/src/x" as a model may copy it
// from a git header; "a\"b.py" (quoted), as git's headers and the prompt's
// "File:" line spell a name with a quote, a backslash, a control character.
template <typename Lookup>
const FileDiff* findSpelled(std::string_view path, const Lookup& lookup) {
  const std::string wanted = normalizePath(path);
  if (const FileDiff* f = lookup(wanted)) return f;
  if (wanted.size() > 2 && wanted[1] == '/' && wanted[0] != '/')
    if (const FileDiff* f = lookup(std::string_view(wanted).substr(2))) return f;
  if (path.size() > 2 && path.front() == '"') {
    std::size_t consumed = 0;
    if (auto name = detail::unquoteC(path, consumed); name && consumed == path.size()) return findSpelled(*name, lookup);
  }
  return nullptr;
}
}  // namespace

const FileDiff* Diff::findFile(std::string_view path) const {
  return findSpelled(path, [this](std::string_view p) -> const FileDiff* {
    // A type change lists the path twice (deleted, then added): the section
    // with a new side wins, since that is where RIGHT-side lines live.
    // Stored paths are normalised too: a hand-made diff may spell "./x".
    for (const FileDiff& f : files) {
      if (f.newPath && normalizePath(*f.newPath) == p) return &f;
    }
    for (const FileDiff& f : files) {
      if (!f.newPath && f.oldPath && normalizePath(*f.oldPath) == p) return &f;
    }
    return nullptr;
  });
}

FileIndex::FileIndex(const Diff& diff) {
  // emplace keeps the first section of a path, as findFile's scan does.
  for (const FileDiff& f : diff.files) {
    if (f.newPath) byNewPath_.emplace(normalizePath(*f.newPath), &f);
    else if (f.oldPath) byDeletedPath_.emplace(normalizePath(*f.oldPath), &f);
  }
}

const FileDiff* FileIndex::find(std::string_view path) const {
  return findSpelled(path, [this](std::string_view p) -> const FileDiff* {
    const std::string key(p);
    if (auto it = byNewPath_.find(key); it != byNewPath_.end()) return it->second;
    if (auto it = byDeletedPath_.find(key); it != byDeletedPath_.end()) return it->second;
    return nullptr;
  });
}

namespace {
// The input line where section `i` of `diff` starts: its `diff --git` line when
// every section has one (git's output), else its first changed line; 1 when
// neither can be told (a plain diff's section without hunks).
int sectionLine(const Diff& diff, std::size_t i) {
  if (!diff.source) return 1;
  const std::string& text = *diff.source;
  std::vector<std::size_t> headers;  // 1-based lines of "diff --git "
  std::size_t line = 1;
  for (std::size_t pos = 0; pos < text.size(); ++line) {
    if (text.compare(pos, 11, "diff --git ") == 0) headers.push_back(line);
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  if (headers.size() == diff.files.size()) return static_cast<int>(headers[i]);
  const FileDiff& f = diff.files[i];
  if (f.hunks.empty() || f.hunks[0].lines.empty()) return 1;
  const char* at = f.hunks[0].lines[0].text.data();
  if (at < text.data() || at > text.data() + text.size()) return 1;
  return 1 + static_cast<int>(std::count(text.data(), at, '\n'));
}
}  // namespace

void requireOneSectionPerFile(const Diff& diff) {
  std::map<std::string, std::size_t> seen;  // "+path" (a new side) or "-path" (deleted): the first section
  for (std::size_t i = 0; i < diff.files.size(); ++i) {
    const FileDiff& f = diff.files[i];
    const std::string key = f.newPath ? "+" + normalizePath(*f.newPath) : "-" + normalizePath(f.path());
    const auto [first, isNew] = seen.emplace(key, i);
    if (isNew) continue;
    const int inputLine = sectionLine(diff, i);
    throw ParseError(inputLine, "'" + f.path() + "' has a second section in this diff (sections " +
                                    std::to_string(first->second + 1) + " and " + std::to_string(i + 1) +
                                    "): this looks like patches one after another (`git log -p`, `git format-patch "
                                    "--stdout`), whose line numbers belong to different versions of the file, so a "
                                    "finding could not be placed; review the range as one diff: `revline review --base "
                                    "REF`, or `git diff A B | revline review --stdin`");
  }
}

namespace {
std::string withLine(int inputLine, const std::string& what) {
  return "line " + std::to_string(inputLine) + ": " + what;
}
}  // namespace

ParseError::ParseError(int inputLine, const std::string& what)
    : std::runtime_error(withLine(inputLine, what)), inputLine_(inputLine) {}

}  // namespace revline::diff
