#include "lsp/document_store.h"

#include <algorithm>
#include <filesystem>

#include "core/support/repo_file.h"
#include "core/support/text.h"
#include "lsp/jsonrpc.h"

namespace revline::lsp {

std::vector<std::string> documentLines(std::string_view text) {
  const std::vector<std::string_view> views = splitLines(text);
  return {views.begin(), views.end()};
}

std::optional<std::vector<std::string>> readRepositoryLines(const std::filesystem::path& root,
                                                            const std::string& relative, std::string* why) {
  try {
    support::RepoFileRead read = support::readRepositoryFile(root, relative);
    if (!read) {
      if (why) *why = read.skipped->message();
      return std::nullopt;
    }
    return documentLines(*read.content);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

namespace {
// Length in bytes of the UTF-8 sequence starting with `lead` (1 for invalid).
std::size_t sequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}
}  // namespace

int utf16Length(std::string_view s) {
  int units = 0;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = std::min(sequenceLength(static_cast<unsigned char>(s[i])), s.size() - i);
    units += (n == 4) ? 2 : 1;
    i += n;
  }
  return units;
}

std::size_t byteOffsetOfUtf16(std::string_view s, int character) {
  int units = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t n = std::min(sequenceLength(static_cast<unsigned char>(s[i])), s.size() - i);
    int w = (n == 4) ? 2 : 1;
    if (units + w > character) break;
    units += w;
    i += n;
  }
  return i;
}

bool moveLines(int& first, int& last, const LineEdit& e) {
  const int sL = e.start.line, eL = e.end.line, k = e.insertedNewlines, delta = e.delta();
  // Entirely above the change, or the change starts after the span's content.
  // Not an empty last line whose break the change takes: that line is deleted
  // (emptied, then removed: Vim's `cc` then `dd`, or an undo of an added line),
  // and the line below must not slide under the finding.
  const bool emptyLineDeleted = last == sL && e.startLineLength == 0 && eL > sL;
  if (last < sL || (last == sL && e.start.character >= e.startLineLength && !emptyLineDeleted)) return true;
  // Entirely below: the change ends before the span's first character.
  if (first > eL || (first == eL && e.end.character == 0 && e.end > e.start) ||
      (first == eL && e.start == e.end && e.end.character == 0)) {
    first += delta;
    last += delta;
    return true;
  }
  // Overlap: a line is deleted when the removed range covers its content and
  // one of the line breaks next to it.
  auto deleted = [&](int L) {
    const bool coversStart = e.start.line < L || (e.start.line == L && e.start.character == 0);
    const bool coversEnd = e.end.line > L || (e.end.line == L && e.end.character >= e.endLineLength);
    const bool takesBreak = e.start.line < L || e.end.line > L;
    return coversStart && coversEnd && takesBreak;
  };
  int lo = first, hi = last;
  while (lo <= hi && deleted(lo)) ++lo;
  while (hi >= lo && deleted(hi)) --hi;
  if (lo > hi) return false;
  auto map = [&](int L) { return L <= sL ? L : (L > eL ? L + delta : std::min(L, sL + k)); };
  const int a = map(lo), b = map(hi);
  first = a;
  last = std::max(a, b);
  return true;
}

Document::Document(std::string uri, int version, std::string text)
    : uri_(std::move(uri)), version_(version), text_(std::move(text)) {
  index();
}

void Document::index() {
  lineStarts_.assign(1, 0);
  for (std::size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') lineStarts_.push_back(i + 1);
}

std::string_view Document::line(int index) const {
  if (index < 0 || index >= lineCount()) return {};
  const std::size_t begin = lineStarts_[index];
  std::size_t end = index + 1 < lineCount() ? lineStarts_[index + 1] - 1 : text_.size();
  if (end > begin && text_[end - 1] == '\r') --end;
  return std::string_view(text_).substr(begin, end - begin);
}

std::size_t Document::offsetOf(const Position& p) const {
  if (p.line < 0) return 0;
  if (p.line >= lineCount()) return text_.size();
  return lineStarts_[p.line] + byteOffsetOfUtf16(line(p.line), std::max(0, p.character));
}

TextDocumentContentChangeEvent Document::asLinesThatDiffer(std::string text) const {
  // The lines both texts start with, and end with (not overlapping them).
  std::size_t prefix = 0;
  const std::size_t shorter = std::min(text_.size(), text.size());
  while (prefix < shorter && text_[prefix] == text[prefix]) ++prefix;
  while (prefix > 0 && text_[prefix - 1] != '\n') --prefix;
  std::size_t suffix = 0;
  while (suffix < text_.size() - prefix && suffix < text.size() - prefix &&
         text_[text_.size() - 1 - suffix] == text[text.size() - 1 - suffix])
    ++suffix;
  // ... starting at a line start: the prefix's end (the whole rest), or after a line break.
  while (suffix > 0 && text_.size() - suffix > prefix && text_[text_.size() - suffix - 1] != '\n') --suffix;
  const auto linesBefore = [&](std::size_t offset) {
    return static_cast<int>(std::count(text_.begin(), text_.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
  };
  const Position start{linesBefore(prefix), 0};
  const Position end = suffix == 0 ? Position{lineCount() - 1, utf16Length(line(lineCount() - 1))}
                                   : Position{linesBefore(text_.size() - suffix), 0};
  return TextDocumentContentChangeEvent{Range{start, end}, text.substr(prefix, text.size() - suffix - prefix)};
}

LineEdit Document::apply(const TextDocumentContentChangeEvent& change) {
  // The whole text (a client that syncs it whole, Emacs's last resort): the
  // edit of the lines that differ, so the findings on the others move as in a
  // ranged edit rather than all being dropped.
  if (!change.range) return applyExactly(asLinesThatDiffer(change.text));
  // A range that rewrites some of its lines as they were (Emacs modes announce
  // whole regions: cc-mode a line typed above a finding as the change of
  // everything from the line before to the end; a formatter replaces a block):
  // those lines are not edited, so the findings on them move rather than drop.
  return applyExactly(withoutLinesKept(change));
}

TextDocumentContentChangeEvent Document::withoutLinesKept(const TextDocumentContentChangeEvent& change) const {
  Position s = change.range->start, e = change.range->end;
  if (e < s) std::swap(s, e);
  const std::size_t from = offsetOf(s), to = offsetOf(e);
  const std::string_view before = std::string_view(text_).substr(from, to - from), after = change.text;
  // Whole lines (each with its break) that both start with.
  std::size_t lead = 0;
  for (std::size_t nl; (nl = after.find('\n', lead)) != std::string_view::npos;) {
    const std::size_t n = nl + 1 - lead;
    if (before.size() < lead + n || before.compare(lead, n, after, lead, n) != 0) break;
    lead += n;
  }
  // And lines that both end with: a common tail that starts a line in both.
  const bool leadStartsLine = lead > 0 || s.character == 0;
  const std::size_t room = std::min(before.size(), after.size()) - lead;
  std::size_t tail = 0;
  while (tail < room && before[before.size() - 1 - tail] == after[after.size() - 1 - tail]) ++tail;
  auto startsLine = [&](std::string_view t, std::size_t k) {
    return k == t.size() - lead ? leadStartsLine : t[t.size() - k - 1] == '\n';
  };
  while (tail > 0 && !(startsLine(before, tail) && startsLine(after, tail))) --tail;
  // Lines inserted or removed whole end at a line start; lines rewritten end
  // before their break, so they count as edited, not deleted (moveLines), and a
  // finding over them and the lines kept is one the edit touched.
  const bool rewritten = tail > 0 && before.size() - lead > tail && after.size() - lead > tail;
  if (rewritten) {
    ++tail;  // the '\n' both have there
    auto crBefore = [&](std::string_view t) { return tail < t.size() - lead && t[t.size() - 1 - tail] == '\r'; };
    if (crBefore(before) != crBefore(after)) tail = 0;  // a line break respelt: the range as given
    else if (crBefore(before)) ++tail;
  }
  if (lead == 0 && tail == 0) return change;
  auto linesIn = [](std::string_view t) { return static_cast<int>(std::count(t.begin(), t.end(), '\n')); };
  const Position start = lead == 0 ? s : Position{s.line + linesIn(before.substr(0, lead)), 0};
  Position end = e;
  if (tail > 0) {
    end.line = s.line + linesIn(before.substr(0, before.size() - tail));
    end.character = rewritten ? utf16Length(line(end.line)) : 0;
  }
  return TextDocumentContentChangeEvent{Range{start, end}, std::string(after.substr(lead, after.size() - lead - tail))};
}

LineEdit Document::applyExactly(const TextDocumentContentChangeEvent& change) {
  LineEdit edit;
  edit.insertedNewlines = static_cast<int>(std::count(change.text.begin(), change.text.end(), '\n'));
  {
    Position s = change.range->start, e = change.range->end;
    if (e < s) std::swap(s, e);
    // Clamp to the document, so the reported edit matches what was applied.
    auto clamp = [&](Position p) {
      if (p.line >= lineCount()) return Position{lineCount() - 1, utf16Length(line(lineCount() - 1))};
      p.line = std::max(0, p.line);
      p.character = std::clamp(p.character, 0, utf16Length(line(p.line)));
      return p;
    };
    s = clamp(s);
    e = clamp(e);
    edit.start = s;
    edit.end = e;
    edit.startLineLength = utf16Length(line(s.line));
    edit.endLineLength = utf16Length(line(e.line));
    const std::size_t from = offsetOf(s), to = offsetOf(e);
    text_.replace(from, to - from, change.text);
  }
  index();
  return edit;
}

void DocumentStore::open(const TextDocumentItem& item) {
  docs_.insert_or_assign(item.uri, Document(item.uri, item.version, item.text));
}

std::vector<LineEdit> DocumentStore::change(const DidChangeTextDocumentParams& params) {
  auto it = docs_.find(params.textDocument.uri);
  if (it == docs_.end())
    throw LspError(ErrorCode::InvalidParams, "didChange for a document that is not open: " + params.textDocument.uri);
  std::vector<LineEdit> edits;
  for (const auto& c : params.contentChanges) edits.push_back(it->second.apply(c));
  it->second.setVersion(params.textDocument.version);
  return edits;
}

void DocumentStore::close(const std::string& uri) { docs_.erase(uri); }

std::vector<std::string> DocumentStore::uris() const {
  std::vector<std::string> out;
  for (const auto& [uri, doc] : docs_) out.push_back(uri);
  return out;
}

const Document* DocumentStore::get(const std::string& uri) const {
  auto it = docs_.find(uri);
  return it == docs_.end() ? nullptr : &it->second;
}

}  // namespace revline::lsp
