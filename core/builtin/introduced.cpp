#include "core/builtin/introduced.h"

#include <cctype>

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
    for (const auto& hunk : file.hunks) {
      OldSide side;
      bool anyRemoved = false;
      for (const auto& line : hunk.lines) {
        if (line.kind == diff::LineKind::Added) continue;
        const bool removed = line.kind == diff::LineKind::Removed;
        anyRemoved |= removed;
        const std::string n = normalizedStatement(line.text);
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

}  // namespace revline::builtin
