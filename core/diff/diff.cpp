// The Diff model's queries and the small free functions of diff.h.
#include "core/diff/diff.h"

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

const FileDiff* Diff::findFile(std::string_view path) const {
  const std::string wanted = normalizePath(path);
  auto lookup = [this](std::string_view p) -> const FileDiff* {
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
  };
  if (const FileDiff* f = lookup(wanted)) return f;
  // "b/src/x" as a model may copy it from a git header.
  if (wanted.size() > 2 && wanted[1] == '/' && wanted[0] != '/') return lookup(std::string_view(wanted).substr(2));
  return nullptr;
}

namespace {
std::string withLine(int inputLine, const std::string& what) {
  return "line " + std::to_string(inputLine) + ": " + what;
}
}  // namespace

ParseError::ParseError(int inputLine, const std::string& what)
    : std::runtime_error(withLine(inputLine, what)), inputLine_(inputLine) {}

}  // namespace revline::diff
