#include "core/diff/function_context.h"

#include <algorithm>
#include <array>
#include <optional>
#include <cctype>
#include <cstdint>

#include "core/diff/notebook.h"

namespace revline::diff {
namespace {

constexpr int kMaxScanLines = 5000;  // how far above a hunk its definition is looked for

std::vector<std::string_view> splitFile(std::string_view text) {
  std::vector<std::string_view> lines{std::string_view()};  // 1-based: lines[0] unused
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

std::string_view trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

bool blank(std::string_view s) { return trimmed(s).empty(); }

// Columns of leading whitespace, a tab counting as one column more than a space would
// not matter: files mix them rarely and the comparison is only "less than".
std::size_t indentOf(std::string_view s) { return std::min(s.size(), s.find_first_not_of(" \t")); }

bool startsWithWord(std::string_view s, std::string_view word) {
  if (s.substr(0, word.size()) != word) return false;
  return s.size() == word.size() || !(std::isalnum(static_cast<unsigned char>(s[word.size()])) || s[word.size()] == '_');
}

bool containsWord(std::string_view s, std::string_view word) {
  for (std::size_t at = s.find(word); at != std::string_view::npos; at = s.find(word, at + 1)) {
    const bool startOk = at == 0 || !(std::isalnum(static_cast<unsigned char>(s[at - 1])) || s[at - 1] == '_');
    if (startOk && startsWithWord(s.substr(at), word)) return true;
  }
  return false;
}

bool looksLikeDefinition(std::string_view line) {
  const std::string_view t = trimmed(line);
  if (t.empty() || t.starts_with("//") || t.starts_with("/*") || t.starts_with("*") || t.starts_with("#") ||
      t.starts_with("}") || t.starts_with(")"))
    return false;
  static constexpr std::array<std::string_view, 12> control = {"if", "for", "while", "switch", "catch", "else",
                                                               "do", "try", "return", "with", "elif", "except"};
  for (auto word : control)
    if (startsWithWord(t, word)) return false;
  static constexpr std::array<std::string_view, 19> keywords = {
      "def",    "class",  "function", "func",     "fn",     "sub",     "impl",     "struct", "interface", "enum",
      "trait",  "module", "namespace", "public", "private", "protected", "static", "async",  "export"};
  for (auto word : keywords)
    if (startsWithWord(t, word)) return true;
  if (containsWord(t, "function")) return true;  // `res.send = function send(body) {`
  // `Type name(args) {`, `name(args):` ...: an identifier directly before '(' and not a call statement.
  // A call that opens a block (`this.format({`, `describe('x', () => {`) is not:
  // the parameter list must close on the line and only a body opener may follow.
  const std::size_t paren = t.find('(');
  if (paren == std::string_view::npos || paren == 0) return false;
  const char before = t[paren - 1];
  if (!(std::isalnum(static_cast<unsigned char>(before)) || before == '_')) return false;
  if (paren + 1 < t.size() && (t[paren + 1] == '{' || t[paren + 1] == '[' || t[paren + 1] == '\'' || t[paren + 1] == '"'))
    return false;
  const std::size_t close = t.rfind(')');
  if (close == std::string_view::npos || close < paren) return false;
  const std::string_view rest = trimmed(t.substr(close + 1));
  return rest.empty() || rest == "{" || rest == ":" || rest.starts_with("->") || rest.starts_with("const") ||
         rest.starts_with("throws") || rest.starts_with("override") || rest.starts_with("noexcept");
}

bool closesBlock(std::string_view line) {
  const std::string_view t = trimmed(line);
  return t.starts_with("}") || t.starts_with(")") || t.starts_with("]") || startsWithWord(t, "end");
}

// The hunk's lines agree with the file: otherwise `newText` is not the new side.
bool matches(const Hunk& h, const std::vector<std::string_view>& lines) {
  for (const Line& l : h.lines) {
    if (l.kind == LineKind::Removed) continue;
    if (l.newLine < 1 || static_cast<std::size_t>(l.newLine) >= lines.size() || lines[l.newLine] != l.text) return false;
  }
  return true;
}

// First and last new-file line the hunk changes: added lines, or for a pure
// deletion the line that follows it (the last shown line when none does).
std::pair<int, int> changedSpan(const Hunk& h) {
  int first = 0, last = 0;
  bool afterRemoval = false;
  for (const Line& l : h.lines) {
    if (l.kind == LineKind::Added) {
      if (!first) first = l.newLine;
      last = l.newLine;
    } else if (l.kind == LineKind::Removed) {
      afterRemoval = true;
    } else if (afterRemoval && !first) {
      first = last = l.newLine;
    }
  }
  if (!first) first = last = std::max(1, h.newStart + h.newCount - 1);
  return {first, last};
}

struct Definition {
  int start = 0, end = 0;
};

// The nearest definition above `first` indented less than `threshold`, and
// where it ends (see function_context.h for the rule).
std::optional<Definition> enclosing(const std::vector<std::string_view>& lines, int first, int last,
                                    std::size_t threshold) {
  const int count = static_cast<int>(lines.size()) - 1;
  int start = 0;
  for (int n = first - 1; n >= 1 && first - n <= kMaxScanLines; --n) {
    if (blank(lines[n]) || indentOf(lines[n]) >= threshold) continue;
    if (looksLikeDefinition(lines[n])) { start = n; break; }
    threshold = indentOf(lines[n]);  // an enclosing block (if, loop): keep looking above it
    if (threshold == 0) break;
  }
  if (!start) return std::nullopt;
  const std::size_t own = indentOf(lines[start]);
  int end = count;
  for (int n = std::max(last, start) + 1; n <= count; ++n) {
    if (blank(lines[n]) || indentOf(lines[n]) > own) continue;
    end = closesBlock(lines[n]) ? n : n - 1;
    break;
  }
  while (end > last && blank(lines[end])) --end;
  return Definition{start, end};
}

// A notebook's definition is the cell: the source value holding `first`
// (notebook.h), the lines around it being outputs and metadata.
std::optional<Definition> cellAround(const std::vector<bool>& source, int first) {
  auto inSource = [&](int n) { return n >= 1 && static_cast<std::size_t>(n) <= source.size() && source[static_cast<std::size_t>(n - 1)]; };
  if (!inSource(first)) return std::nullopt;
  Definition cell{first, first};
  while (inSource(cell.start - 1)) --cell.start;
  while (inSource(cell.end + 1)) ++cell.end;
  return cell;
}

}  // namespace

namespace {

// The new file's lines as the rule reads them (1-based: lines[n]), and its cells for a notebook.
struct NewFile {
  std::vector<std::string_view> lines;
  int count = 0;
  std::optional<std::vector<bool>> cells;
  bool readable = true;  // false: a notebook not read as cells (JSON lines are no definitions)
};

NewFile readNewFile(const FileDiff& file, std::string_view newText) {
  NewFile f;
  f.lines = splitFile(newText);
  f.count = static_cast<int>(f.lines.size()) - 1;
  if (isNotebookPath(file.path())) {
    f.cells = notebookSourceLines(newText);
    f.readable = f.cells.has_value();
  }
  return f;
}

// The context of hunk `h`, given the last line already shown (`shownUpTo`, moved
// past what this hunk shows) and where the next hunk starts.
HunkContext contextOfHunk(const Hunk& h, int nextStart, int& shownUpTo, const NewFile& f, int maxLines) {
  HunkContext ctx;
  const std::vector<std::string_view>& lines = f.lines;
  const int count = f.count;
  const int hunkFirst = h.newStart, hunkLast = h.newStart + h.newCount - 1;
  auto [first, last] = changedSpan(h);
  first = std::min(first, count);
  if (first < 1) {
    shownUpTo = std::max(shownUpTo, hunkLast);
    return ctx;
  }
  std::size_t threshold = SIZE_MAX;
  for (int n = first; n <= std::min(last, count); ++n)
    if (!blank(lines[n])) threshold = std::min(threshold, indentOf(lines[n]));
  // The innermost definition around the change; when the hunk already shows
  // all of it (a three-line callback), the one around that, and so on.
  std::optional<Definition> def = f.cells ? cellAround(*f.cells, first) : enclosing(lines, first, last, threshold);
  while (!f.cells && def && def->start >= hunkFirst && def->end <= hunkLast) {
    std::optional<Definition> outer = enclosing(lines, def->start, def->end, indentOf(lines[def->start]));
    if (!outer) break;
    def = outer;
  }
  if (!def) {
    shownUpTo = std::max(shownUpTo, hunkLast);
    return ctx;
  }
  const int start = def->start, end = def->end;
  auto take = [&](std::vector<ContextLine>& into, int from, int to) {
    for (int n = from; n <= to; ++n) into.push_back({n, std::string(lines[n])});
  };
  const int beforeFrom = std::max(start, shownUpTo + 1);
  if (end - start + 1 > maxLines) {
    if (start >= beforeFrom && start < hunkFirst) take(ctx.before, start, start);  // the signature only
  } else {
    take(ctx.before, beforeFrom, hunkFirst - 1);
    take(ctx.after, hunkLast + 1, std::min(end, nextStart - 1));
  }
  shownUpTo = ctx.after.empty() ? hunkLast : ctx.after.back().newLine;
  return ctx;
}

}  // namespace

std::vector<HunkContext> functionContext(const FileDiff& file, std::string_view newText, int maxLines) {
  std::vector<HunkContext> out(file.hunks.size());
  const NewFile f = readNewFile(file, newText);
  for (const Hunk& h : file.hunks)
    if (!matches(h, f.lines)) return out;
  if (!f.readable) return out;
  int shownUpTo = 0;  // the last line already shown (by a hunk or added context)
  for (std::size_t k = 0; k < file.hunks.size(); ++k) {
    const int nextStart = k + 1 < file.hunks.size() ? file.hunks[k + 1].newStart : f.count + 1;
    out[k] = contextOfHunk(file.hunks[k], nextStart, shownUpTo, f, maxLines);
  }
  return out;
}

std::vector<HunkContext> functionContextOfEachAlone(const FileDiff& file, std::string_view newText, int maxLines) {
  std::vector<HunkContext> out(file.hunks.size());
  const NewFile f = readNewFile(file, newText);  // once, not once a hunk (a 63,000-line change took 5 s)
  if (!f.readable) return out;
  for (std::size_t k = 0; k < file.hunks.size(); ++k) {
    if (!matches(file.hunks[k], f.lines)) continue;
    int shownUpTo = 0;
    out[k] = contextOfHunk(file.hunks[k], f.count + 1, shownUpTo, f, maxLines);
  }
  return out;
}

}  // namespace revline::diff
