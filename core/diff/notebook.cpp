#include "core/diff/notebook.h"

#include <cctype>
#include <cstdlib>
#include <string>
#include <utility>

#include "core/support/text.h"

namespace revline::diff {
namespace {

// Deeper JSON than this is no notebook Jupyter wrote: read as it is (and the
// recursive scan cannot exhaust the stack on a hostile file).
constexpr int kMaxDepth = 256;

// Reads a JSON document for the line spans of its cells' source, and nothing
// else of it. It accepts only JSON (and the NaN/Infinity Python's json writes):
// a file it cannot read is reviewed whole, never guessed at. Keys are compared
// decoded, so an escaped "sourc\u0065" is the source Jupyter loads, not an
// output to leave out.
class SourceScanner {
 public:
  explicit SourceScanner(std::string_view text) : t_(text) {}

  struct Span {
    int first = 0, last = 0;
    bool code = true;  // of a code cell (one whose cell_type is "code", or none)
  };

  std::optional<std::vector<Span>> spans() {
    skipSpace();
    if (peek() != '{' || !value(Role::Root, 0, 0)) return std::nullopt;
    skipSpace();
    if (pos_ != t_.size() || !sawCells_ || !(version_ == "3" || version_ == "4")) return std::nullopt;
    return std::move(spans_);
  }

 private:
  // nbformat 4 keeps its cells at the top; 3 in "worksheets"[i]["cells"], a code cell's source as "input".
  enum class Role { Other, Root, Worksheets, Worksheet, Cells, Cell, Source };

  char peek() const { return pos_ < t_.size() ? t_[pos_] : '\0'; }

  void skipSpace() {
    while (pos_ < t_.size() && (t_[pos_] == ' ' || t_[pos_] == '\t' || t_[pos_] == '\n' || t_[pos_] == '\r')) {
      if (t_[pos_] == '\n') ++line_;
      ++pos_;
    }
  }

  // A string at pos_ ('"'), decoded into `out` when it is given (a \u escape
  // past ASCII as one byte that no key compared against holds).
  bool string(std::string* out) {
    ++pos_;  // the opening quote
    while (pos_ < t_.size()) {
      const char c = t_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;  // a raw control character: not JSON
      if (c != '\\') {
        if (out) *out += c;
        continue;
      }
      if (pos_ >= t_.size()) return false;
      const char e = t_[pos_++];
      if (e == 'u') {
        if (pos_ + 4 > t_.size()) return false;
        unsigned code = 0;
        for (int i = 0; i < 4; ++i) {
          const char h = t_[pos_++];
          if (!std::isxdigit(static_cast<unsigned char>(h))) return false;
          code = code * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (std::tolower(h) - 'a' + 10));
        }
        if (out) *out += code < 0x80 ? static_cast<char>(code) : '\x80';
      } else if (std::string_view("\"\\/bfnrt").find(e) != std::string_view::npos) {
        if (out) *out += e;
      } else {
        return false;
      }
    }
    return false;
  }

  bool scalar() {
    const std::size_t start = pos_;
    for (std::string_view word : {"true", "false", "null", "NaN", "Infinity", "-Infinity"})
      if (t_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return true;
      }
    while (pos_ < t_.size() && (std::isdigit(static_cast<unsigned char>(t_[pos_])) || t_[pos_] == '-' ||
                                t_[pos_] == '+' || t_[pos_] == '.' || t_[pos_] == 'e' || t_[pos_] == 'E'))
      ++pos_;
    return pos_ > start;
  }

  // One value at pos_ in `role`; a Source value's span runs from `keyLine`.
  bool value(Role role, int depth, int keyLine) {
    if (depth > kMaxDepth) return false;
    skipSpace();
    bool ok = false;
    const char c = peek();
    if (c == '{') ok = object(role, depth);
    else if (c == '[') ok = array(role, depth);
    else if (c == '"') ok = string(nullptr);
    else ok = scalar();
    if (ok && role == Role::Source) spans_.push_back({keyLine, line_, true});
    return ok;
  }

  bool object(Role role, int depth) {
    ++pos_;
    const std::size_t firstSpan = spans_.size();
    std::optional<std::string> cellType;  // a cell's "cell_type", the last as Python reads it
    // A cell's source spans are of a code cell unless its cell_type says otherwise (markdown, raw).
    auto close = [&] {
      ++pos_;
      if (role == Role::Cell && cellType)
        for (std::size_t i = firstSpan; i < spans_.size(); ++i) spans_[i].code = *cellType == "code";
      return true;
    };
    skipSpace();
    if (peek() == '}') return close();
    while (true) {
      skipSpace();
      if (peek() != '"') return false;
      const int keyLine = line_;
      std::string key;
      if (!string(&key)) return false;
      skipSpace();
      if (peek() != ':') return false;
      ++pos_;
      Role child = Role::Other;
      if ((role == Role::Root || role == Role::Worksheet) && key == "cells") child = Role::Cells;
      if (role == Role::Root && key == "worksheets") child = Role::Worksheets;
      if (role == Role::Cell && (key == "source" || key == "input")) child = Role::Source;
      if (child == Role::Cells) {
        skipSpace();
        sawCells_ = sawCells_ || peek() == '[';
      }
      skipSpace();
      const std::size_t valueStart = pos_;
      if (role == Role::Cell && key == "cell_type" && peek() == '"') {
        cellType.emplace();
        if (!string(&*cellType)) return false;
      } else if (!value(child, depth + 1, keyLine)) {
        return false;
      }
      // The version Python reads is the key's last value; 4.0 is 4 to it, "4" no version.
      if (role == Role::Root && key == "nbformat") version_ = versionOf(t_.substr(valueStart, pos_ - valueStart));
      skipSpace();
      if (peek() == '}') return close();
      if (peek() != ',') return false;
      ++pos_;
    }
  }

  bool array(Role role, int depth) {
    ++pos_;
    skipSpace();
    if (peek() == ']') return ++pos_, true;
    const Role element = role == Role::Cells ? Role::Cell : role == Role::Worksheets ? Role::Worksheet : Role::Other;
    while (true) {
      if (!value(element, depth + 1, line_)) return false;
      skipSpace();
      if (peek() == ']') return ++pos_, true;
      if (peek() != ',') return false;
      ++pos_;
    }
  }

  // "3", "4" (also written 4.0 or 4e0) or "" for any other value.
  static std::string versionOf(std::string_view number) {
    if (number.empty() || !(std::isdigit(static_cast<unsigned char>(number[0])))) return "";
    const std::string text(number);
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size()) return "";
    return v == 3.0 ? "3" : v == 4.0 ? "4" : "";
  }

  std::string_view t_;
  std::size_t pos_ = 0;
  std::string version_;  // the top level's "nbformat"
  int line_ = 1;
  bool sawCells_ = false;
  std::vector<Span> spans_;
};

bool kept(const std::vector<bool>& keep, int number) {
  return number >= 1 && static_cast<std::size_t>(number) <= keep.size() && keep[static_cast<std::size_t>(number - 1)];
}

}  // namespace

bool isNotebookPath(std::string_view path) {
  constexpr std::string_view kExtension = ".ipynb";
  if (path.size() < kExtension.size()) return false;
  const std::string_view tail = path.substr(path.size() - kExtension.size());
  for (std::size_t i = 0; i < tail.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(tail[i])) != kExtension[i]) return false;
  return true;
}

std::optional<std::vector<bool>> notebookSourceLines(std::string_view text, bool codeCellsOnly) {
  auto spans = SourceScanner(text).spans();
  if (!spans) return std::nullopt;
  std::vector<bool> source(fileLines(text).size(), false);
  for (const auto& span : *spans)
    if (span.code || !codeCellsOnly)
      for (int n = span.first; n <= span.last && static_cast<std::size_t>(n) <= source.size(); ++n)
        source[static_cast<std::size_t>(n - 1)] = true;
  return source;
}

std::optional<CellLine> cellLineOf(const std::vector<bool>& source, const std::vector<std::string_view>& lines,
                                   int line) {
  auto inSource = [&](int n) { return n >= 1 && static_cast<std::size_t>(n) <= source.size() && source[static_cast<std::size_t>(n - 1)]; };
  if (!inSource(line) || static_cast<std::size_t>(line) > lines.size()) return std::nullopt;
  int start = line;
  while (inSource(start - 1)) --start;
  CellLine at;
  for (int n = 1; n < start; ++n) at.cell += inSource(n) && !inSource(n - 1);  // the source lists before it
  // `"source": [` opens a list of one line each; `"source": "..."` is the whole cell on its key's line.
  std::string_view key = lines[static_cast<std::size_t>(start - 1)];
  while (!key.empty() && (key.back() == ' ' || key.back() == '\t' || key.back() == '\r')) key.remove_suffix(1);
  if (!key.ends_with('[')) {
    if (line != start) return std::nullopt;
    return at;
  }
  if (line == start || !inSource(line + 1)) return std::nullopt;  // the key, the closing bracket
  at.line = line - start - 1;
  return at;
}

std::int64_t keepOnlyLines(FileDiff& file, const std::vector<bool>& keepOld, const std::vector<bool>& keepNew) {
  std::int64_t dropped = 0;
  std::vector<Hunk> hunks;
  for (std::size_t index = 0; index < file.hunks.size(); ++index) {
    const Hunk& h = file.hunks[index];
    const int origin = h.origin >= 0 ? h.origin : static_cast<int>(index);
    int nextOld = h.oldStart, nextNew = h.newStart;  // where the next line of each side is
    // git writes the start of an empty side as the line before it
    if (h.oldCount == 0) ++nextOld;
    if (h.newCount == 0) ++nextNew;
    Hunk run;
    bool changes = false;
    auto close = [&] {
      if (changes) {
        // An empty side starts, as git writes it, at the line before.
        if (run.oldCount == 0) --run.oldStart;
        if (run.newCount == 0) --run.newStart;
        hunks.push_back(std::move(run));
      }
      run = Hunk{};
      changes = false;
    };
    for (const Line& l : h.lines) {
      const bool keep = l.kind == LineKind::Removed ? kept(keepOld, l.oldLine) : kept(keepNew, l.newLine);
      if (!keep) {
        dropped += l.kind != LineKind::Context;
        close();
      } else {
        if (run.lines.empty()) {
          run.oldStart = nextOld;
          run.newStart = nextNew;
          run.section = h.section;
          run.origin = origin;
        }
        run.lines.push_back(l);
        run.oldCount += l.kind != LineKind::Added;
        run.newCount += l.kind != LineKind::Removed;
        changes = changes || l.kind != LineKind::Context;
      }
      nextOld += l.kind != LineKind::Added;
      nextNew += l.kind != LineKind::Removed;
    }
    close();
  }
  file.hunks = std::move(hunks);
  return dropped;
}

}  // namespace revline::diff
