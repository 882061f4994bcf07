#include "core/builtin/introduced.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>

#include "core/builtin/notebook_view.h"
#include "core/diff/notebook.h"

namespace revline::builtin {

std::string normalizedStatement(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    out += c == '\'' ? '"' : c;
  }
  return out;
}

RemovedText::RemovedText(const diff::Diff& diff) {
  for (const auto& file : diff.files) {
    // A notebook's lines as the code they hold (a cell moved, or the JSON re-indented, is not new code).
    const bool notebook = diff::isNotebookPath(file.path());
    for (const auto& hunk : file.hunks) {
      OldSide side;
      bool anyRemoved = false;
      for (const auto& line : hunk.lines) {
        if (line.kind == diff::LineKind::Added) continue;
        const bool removed = line.kind == diff::LineKind::Removed;
        anyRemoved |= removed;
        const std::optional<std::string> code = notebook ? notebookSourceElement(line.text) : std::nullopt;
        const std::string n = normalizedStatement(code ? std::string_view(*code) : line.text);
        side.text += n;
        side.removed.insert(side.removed.end(), n.size(), removed);
      }
      if (anyRemoved) hunks_.push_back(std::move(side));
    }
  }
}

bool RemovedText::contains(const std::string& statement) const {
  if (statement.size() < 8) return false;  // too short to be the same statement rather than a coincidence
  for (const auto& side : hunks_) {
    for (auto at = side.text.find(statement); at != std::string::npos; at = side.text.find(statement, at + 1)) {
      for (std::size_t k = at; k < at + statement.size(); ++k)
        if (side.removed[k]) return true;
    }
  }
  return false;
}

diff::FileDiff oldSideOf(const diff::FileDiff& file) {
  diff::FileDiff old;
  old.oldPath = file.newPath;
  old.newPath = file.oldPath ? file.oldPath : file.newPath;
  old.status = file.status;
  for (const diff::Hunk& h : file.hunks) {
    diff::Hunk back{h.newStart, h.newCount, h.oldStart, h.oldCount, h.section, {}, h.origin};
    for (diff::Line line : h.lines) {
      std::swap(line.oldLine, line.newLine);
      if (line.kind == diff::LineKind::Added) line.kind = diff::LineKind::Removed;
      else if (line.kind == diff::LineKind::Removed) line.kind = diff::LineKind::Added;
      back.lines.push_back(line);
    }
    old.hunks.push_back(std::move(back));
  }
  return old;
}

std::optional<std::string> oldTextOf(const diff::FileDiff& file, const std::optional<std::string>& newText) {
  if (!newText) return std::nullopt;
  std::vector<std::string_view> lines;  // of the new text, each with its line break
  for (std::size_t at = 0; at < newText->size();) {
    const std::size_t nl = newText->find('\n', at);
    const std::size_t end = nl == std::string::npos ? newText->size() : nl + 1;
    lines.push_back(std::string_view(*newText).substr(at, end - at));
    at = end;
  }
  std::string out;
  std::size_t next = 0;  // index of the next new line not yet copied
  for (const diff::Hunk& h : file.hunks) {
    const std::size_t first = h.newCount == 0 ? static_cast<std::size_t>(h.newStart) : static_cast<std::size_t>(h.newStart - 1);
    if (first < next || first + static_cast<std::size_t>(h.newCount) > lines.size()) return std::nullopt;  // another text
    for (; next < first; ++next) out += lines[next];
    for (const diff::Line& line : h.lines) {
      if (line.kind == diff::LineKind::Added) continue;
      out += line.text;
      if (!line.noNewlineAtEnd) out += line.crlf ? "\r\n" : "\n";
    }
    next = first + static_cast<std::size_t>(h.newCount);
  }
  for (; next < lines.size(); ++next) out += lines[next];
  return out;
}

std::string withoutPointerCasts(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '(') {
      std::size_t k = i + 1;
      const bool identStart = k < s.size() && (std::isalpha(static_cast<unsigned char>(s[k])) || s[k] == '_');
      while (k < s.size() && (std::isalnum(static_cast<unsigned char>(s[k])) || s[k] == '_')) ++k;
      const std::size_t stars = k;
      while (k < s.size() && s[k] == '*') ++k;
      if (identStart && k > stars && k < s.size() && s[k] == ')') {  // "(char*)", "(constchar*)" (normalized)
        i = k + 1;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

double statementSimilarity(std::string_view a, std::string_view b) {
  const std::size_t longer = std::max(a.size(), b.size());
  if (longer == 0) return 1;
  const std::size_t shorter = std::min(a.size(), b.size());
  std::size_t prefix = 0;
  while (prefix < shorter && a[prefix] == b[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < shorter - prefix && a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) ++suffix;
  return static_cast<double>(prefix + suffix) / static_cast<double>(longer);
}

}  // namespace revline::builtin
