#include "core/contract/candidates.h"

#include <string>

namespace revline::contract {
namespace {

// A report is four levels deep; a deeper bracket run is not one, and the
// limit bounds the work a run of stray brackets can cause.
constexpr std::size_t kMaxBracketDepth = 64;

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$'; }
bool isIdentChar(char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }

struct Fence {
  std::size_t blockBegin, contentBegin, contentEnd, blockEnd;
  bool closed;
};

std::size_t lineEnd(std::string_view text, std::size_t at) {
  const std::size_t nl = text.find('\n', at);
  return nl == std::string_view::npos ? text.size() : nl;
}

// A fence line: up to 3 spaces, then 3+ backticks or tildes. Returns the run
// length (0: not a fence line) and where the run starts.
std::size_t fenceRun(std::string_view text, std::size_t lineStart, char& marker, std::size_t& runStart) {
  std::size_t at = lineStart;
  while (at < text.size() && at - lineStart < 3 && text[at] == ' ') ++at;
  if (at >= text.size() || (text[at] != '`' && text[at] != '~')) return 0;
  marker = text[at];
  runStart = at;
  std::size_t run = 0;
  while (at + run < text.size() && text[at + run] == marker) ++run;
  return run >= 3 ? run : 0;
}

std::vector<Fence> findFences(std::string_view text, std::size_t begin) {
  std::vector<Fence> fences;
  std::size_t line = begin;
  while (line < text.size()) {
    const std::size_t eol = lineEnd(text, line);
    char marker = 0;
    std::size_t runStart = 0;
    const std::size_t run = fenceRun(text, line, marker, runStart);
    // A backtick fence's language tag cannot hold a backtick (```{...}``` on one line is prose).
    const bool opens = run != 0 && !(marker == '`' && text.substr(runStart + run, eol - runStart - run).find('`') !=
                                                          std::string_view::npos);
    if (!opens) {
      line = eol + 1;
      continue;
    }
    Fence fence{line, std::min(eol + 1, text.size()), text.size(), text.size(), false};
    for (std::size_t inner = fence.contentBegin; inner < text.size();) {
      const std::size_t innerEol = lineEnd(text, inner);
      char innerMarker = 0;
      std::size_t innerStart = 0;
      const std::size_t innerRun = fenceRun(text, inner, innerMarker, innerStart);
      if (innerRun >= run && innerMarker == marker) {
        std::size_t rest = innerStart + innerRun;
        while (rest < innerEol && (text[rest] == ' ' || text[rest] == '\t' || text[rest] == '\r')) ++rest;
        if (rest == innerEol) {
          fence.contentEnd = inner;
          fence.blockEnd = std::min(innerEol + 1, text.size());
          fence.closed = true;
          break;
        }
      }
      inner = innerEol + 1;
    }
    fences.push_back(fence);
    line = fence.blockEnd;
  }
  return fences;
}

enum class Match { Balanced, Unclosed, Mismatched };

// String-aware bracket matching from text[at] ('{' or '['), within [at, to).
Match matchBrackets(std::string_view text, std::size_t at, std::size_t to, std::size_t& end) {
  char closers[kMaxBracketDepth];
  std::size_t depth = 0;
  char quote = 0;
  for (std::size_t k = at; k < to; ++k) {
    const char c = text[k];
    if (quote) {
      if (c == '\\') ++k;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '{' || c == '[') {
      if (depth >= kMaxBracketDepth) return Match::Mismatched;
      closers[depth++] = c == '{' ? '}' : ']';
    } else if (c == '}' || c == ']') {
      if (depth == 0 || closers[depth - 1] != c) return Match::Mismatched;
      if (--depth == 0) {
        end = k + 1;
        return Match::Balanced;
      }
    }
  }
  return Match::Unclosed;
}

// Whether a bracket in prose starts something meant as JSON rather than
// prose such as "{x}" or "[1": a quoted key or string, a nested container, an
// identifier key followed by ':', or nothing at all after it.
bool looksLikeJson(std::string_view text, std::size_t at) {
  std::size_t k = at + 1;
  while (k < text.size() && isSpace(text[k])) ++k;
  if (k >= text.size()) return true;
  const char c = text[k];
  if (c == '"' || c == '\'') return true;
  if (text[at] == '[') return c == '{' || c == '[';
  if (c == '/') return true;  // a comment before the first key
  if (!isIdentStart(c)) return false;
  while (k < text.size() && isIdentChar(text[k])) ++k;
  while (k < text.size() && isSpace(text[k])) ++k;
  return k < text.size() && text[k] == ':';
}

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  void fence(const Fence& f) {
    std::size_t b = f.contentBegin, e = f.contentEnd;
    while (b < e && isSpace(text_[b])) ++b;
    if (b >= e || (text_[b] != '{' && text_[b] != '[' && text_[b] != '"')) return;  // code, not JSON
    ReadResult r = readJsonDocument(text_, b, e);
    if (r.status == ReadStatus::Truncated) {
      if (!f.closed) {
        scan_.truncated = std::move(r);
        return;
      }
      r.status = ReadStatus::Syntax;  // the fence closed: the text went on, the value did not
      r.error = "the fenced block ends inside an unterminated value (" + r.error + ")";
    }
    scan_.candidates.push_back(Candidate{b, e, std::move(r), true});
  }

  void prose(std::size_t from, std::size_t to, bool reachesEnd) {
    std::size_t failedUntil = from;  // end of the last top-level span that failed
    for (std::size_t i = from; i < to && !scan_.truncated; ++i) {
      i = text_.find_first_of("{[", i);
      if (i == std::string_view::npos || i >= to) break;
      // Prose like "[1]", "{}" or "{x}" was never meant as an answer.
      if (!looksLikeJson(text_, i)) continue;
      const bool nested = i < failedUntil;
      std::size_t end = 0;
      const Match m = matchBrackets(text_, i, to, end);
      if (m == Match::Balanced) {
        ReadResult r = readJsonDocument(text_, i, end);
        if (r.ok()) {
          scan_.candidates.push_back(Candidate{i, end, std::move(r), !nested});
          i = end - 1;
          continue;
        }
        r.status = ReadStatus::Syntax;
        if (!nested) failedUntil = end;
        scan_.candidates.push_back(Candidate{i, end, std::move(r), !nested});
      } else if (m == Match::Unclosed && reachesEnd) {
        ReadResult r = readJsonValue(text_, i, to);
        if (r.status == ReadStatus::Truncated) {
          scan_.truncated = std::move(r);
          return;
        }
        if (r.ok()) {  // brackets inside comments fooled the matcher; the reader knows better
          const std::size_t valueEnd = r.end;
          scan_.candidates.push_back(Candidate{i, valueEnd, std::move(r), !nested});
          i = valueEnd - 1;
          continue;
        }
        if (!nested) failedUntil = to;
        scan_.candidates.push_back(Candidate{i, to, std::move(r), !nested});
      }
      // Anything else is skipped one character on, so a stray brace cannot hide the report.
    }
  }

  CandidateScan take() { return std::move(scan_); }
  bool truncated() const { return scan_.truncated.has_value(); }

 private:
  std::string_view text_;
  CandidateScan scan_;
};

}  // namespace

CandidateScan findCandidates(std::string_view text, std::size_t begin) {
  std::size_t b = begin;
  while (b < text.size() && isSpace(text[b])) ++b;

  // The whole text as one value is the only candidate.
  ReadResult whole = readJsonDocument(text, b, text.size());
  if (whole.ok()) {
    CandidateScan scan;
    scan.candidates.push_back(Candidate{b, text.size(), std::move(whole), true});
    return scan;
  }
  if (whole.status == ReadStatus::Truncated && b < text.size() && (text[b] == '{' || text[b] == '[') &&
      looksLikeJson(text, b)) {
    CandidateScan scan;
    scan.truncated = std::move(whole);
    return scan;
  }

  Scanner scanner(text);
  std::size_t at = b;
  for (const Fence& f : findFences(text, b)) {
    scanner.prose(at, f.blockBegin, false);
    if (scanner.truncated()) break;
    scanner.fence(f);
    if (scanner.truncated()) break;
    at = f.blockEnd;
  }
  if (!scanner.truncated()) scanner.prose(at, text.size(), true);
  return scanner.take();
}

}  // namespace revline::contract
