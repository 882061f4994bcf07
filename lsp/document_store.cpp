#include "lsp/document_store.h"

#include <algorithm>
#include <filesystem>

#include "core/support/line_diff.h"
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

std::vector<LineEdit> Document::apply(const TextDocumentContentChangeEvent& change) {
  // The whole text (a client that syncs it whole, Emacs's last resort): the
  // edit of the lines that differ, so the findings on the others move as in a
  // ranged edit rather than all being dropped.
  // A range that rewrites some of its lines as they were (Emacs modes announce
  // whole regions: cc-mode a line typed above a finding as the change of
  // everything from the line before to the end; a formatter replaces a block;
  // VS Code's reload of a file git rewrote is a range over all of it): those
  // lines are not edited, so the findings on them move rather than drop.
  const TextDocumentContentChangeEvent narrowed = change.range ? withoutLinesKept(change) : asLinesThatDiffer(change.text);
  std::vector<LineEdit> edits;
  // Applied last first, each above the one before: the lines index() found stay
  // true for the next one's range, so the text is indexed once, at the end (once
  // a part, 400 places in a 200,000-line file took 0.4 s of the loop).
  for (const auto& part : splitAtLinesKept(narrowed)) edits.push_back(applyExactly(part, /*reindex=*/false));
  index();
  return edits;
}

std::vector<TextDocumentContentChangeEvent> Document::splitAtLinesKept(const TextDocumentContentChangeEvent& change) const {
  // Changed in several places (a reload after `git checkout -m` brought lines at
  // 5 and at 400): one edit per place, the last first so each one's range still
  // holds, and the lines between them are kept (before, everything from the
  // first difference to the last was one edit, and the findings between dropped).
  // Only from a line's start: a change inside a line is one edit as it is.
  if (!change.range || change.range->start.character != 0 || change.range->end < change.range->start) return {change};
  const Position start = change.range->start;
  Position end = change.range->end;
  const std::size_t from = offsetOf(start);
  std::size_t to = offsetOf(end);
  std::string newText = change.text;
  // Ending before a line break (lines rewritten, withoutLinesKept): with the
  // break on both sides, so every line compared is whole and has its break.
  if (const std::string_view rest = std::string_view(text_).substr(to); rest.starts_with('\n') || rest.starts_with("\r\n")) {
    const std::string_view lineBreak = rest.substr(0, rest.find('\n') + 1);
    to += lineBreak.size();
    newText += lineBreak;
    end = Position{end.line + 1, 0};
  }
  // At the end of a text without a final line break its last line has none:
  // compared as if both texts had one (so "u0" and "u0\n" are one line kept),
  // that break is then added or taken away on its own.
  std::string oldSegment = text_.substr(from, to - from);
  const bool atEnd = to == text_.size();
  if (atEnd && (oldSegment.ends_with('\r') || newText.ends_with('\r'))) return {change};  // a lone "\r" last: as given
  const bool oldLacksBreak = atEnd && !oldSegment.empty() && oldSegment.back() != '\n';
  const bool newLacksBreak = atEnd && !newText.empty() && newText.back() != '\n';
  // In the other's spelling, or the text's own where both lack one, so "u0"
  // kept reads as "u0\r\n" kept.
  const auto lastBreak = [](std::string_view t) {
    const std::size_t nl = t.rfind('\n');
    return nl == std::string_view::npos ? std::string() : nl > 0 && t[nl - 1] == '\r' ? std::string("\r\n") : std::string("\n");
  };
  std::string shared = lastBreak(newText);
  if (shared.empty()) shared = lastBreak(oldSegment);
  if (shared.empty()) shared = "\n";
  const std::string oldAddedBreak = !oldLacksBreak ? "" : newLacksBreak ? shared : lastBreak(newText);
  const std::string newAddedBreak = !newLacksBreak ? "" : oldLacksBreak ? shared : lastBreak(oldSegment);
  oldSegment += oldAddedBreak;
  newText += newAddedBreak;
  // Lines with their breaks, so a line respelt with "\r\n" differs.
  const auto pieces = [](std::string_view t) {
    std::vector<std::string_view> out;
    for (std::size_t at = 0; at < t.size();) {
      const std::size_t nl = t.find('\n', at);  // none after the last line of a range ending inside a line
      const std::size_t next = nl == std::string_view::npos ? t.size() : nl + 1;
      out.push_back(t.substr(at, next - at));
      at = next;
    }
    return out;
  };
  const std::vector<std::string_view> before = pieces(oldSegment), after = pieces(newText);
  constexpr std::size_t kMostLinesCompared = 400;  // beyond it, one edit as before (the search is quadratic in it)
  const auto runs = differingLines(before, after, kMostLinesCompared);
  // No line of it kept (typing on a line): the change as given, whose range says which characters went.
  if (!runs || (runs->size() == 1 && runs->front() == DifferingLines{0, before.size(), 0, after.size()})) return {change};
  std::vector<TextDocumentContentChangeEvent> parts;
  const bool lastLineKept = runs->empty() || runs->back().oldEnd < before.size();
  if (lastLineKept && oldLacksBreak && !newLacksBreak) {
    parts.push_back(TextDocumentContentChangeEvent{Range{end, end}, oldAddedBreak});
  } else if (lastLineKept && !oldLacksBreak && newLacksBreak) {
    const int last = lineCount() - 1;  // the empty line after the final break
    parts.push_back(TextDocumentContentChangeEvent{Range{Position{last - 1, utf16Length(line(last - 1))}, end}, ""});
  }
  const auto breakOf = [](std::string_view piece) {
    return piece.ends_with("\r\n") ? std::string_view("\r\n") : piece.ends_with('\n') ? std::string_view("\n") : std::string_view();
  };
  for (auto run = runs->rbegin(); run != runs->rend(); ++run) {
    std::string text;
    for (std::size_t j = run->newBegin; j < run->newEnd; ++j) text += after[j];
    Position partStart{start.line + static_cast<int>(run->oldBegin), 0};
    Position partEnd = end;
    if (run->oldEnd < before.size()) {
      partEnd = Position{start.line + static_cast<int>(run->oldEnd), 0};
      // Lines rewritten (not only inserted or removed) end before their break, as
      // withoutLinesKept's do: a finding on them is moved onto what replaced them.
      if (run->oldEnd > run->oldBegin && run->newEnd > run->newBegin && !breakOf(after[run->newEnd - 1]).empty() &&
          breakOf(before[run->oldEnd - 1]) == breakOf(after[run->newEnd - 1])) {
        partEnd = Position{partEnd.line - 1, utf16Length(line(partEnd.line - 1))};
        text.resize(text.size() - breakOf(after[run->newEnd - 1]).size());
      }
    } else {  // to the end of the text: the breaks only compared with are not written
      if (run->oldBegin == before.size() && oldLacksBreak) {  // lines added after a last line without a break
        partStart = end;
        text.insert(0, oldAddedBreak);
      }
      if (run->newBegin == after.size() && newLacksBreak)  // the last lines gone, and the break before them
        partStart = Position{partStart.line - 1, utf16Length(line(partStart.line - 1))};
      else if (newLacksBreak)
        text.resize(text.size() - newAddedBreak.size());
    }
    parts.push_back(TextDocumentContentChangeEvent{Range{partStart, partEnd}, std::move(text)});
  }
  if (parts.empty()) return {change};  // the same text: as given
  return parts;
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

LineEdit Document::applyExactly(const TextDocumentContentChangeEvent& change, bool reindex) {
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
  if (reindex) index();
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
  for (const auto& c : params.contentChanges)
    for (const LineEdit& e : it->second.apply(c)) edits.push_back(e);
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
