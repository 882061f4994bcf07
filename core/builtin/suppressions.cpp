#include "core/builtin/suppressions.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <vector>

#include "core/contract/enums.h"

namespace revline::builtin {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// In files of no known language the lexer does not know comments, so only
// its string literals tell where a comment marker is not one.
bool coveredByToken(const Tokens& tokens, std::size_t p, bool stringsOnly) {
  return std::any_of(tokens.begin(), tokens.end(),
                     [&](const Token& t) { return p >= t.begin && p < t.end && (!stringsOnly || t.isString()); });
}

// Something shaped like a rule code: S608, B102, G201, no-eval, no-unsanitized/property, gosec.
bool looksLikeCode(std::string_view w, bool anyWord) {
  if (anyWord) return !w.empty();
  const bool digit = std::any_of(w.begin(), w.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); });
  const bool alpha = std::any_of(w.begin(), w.end(), [](char ch) { return std::isalpha(static_cast<unsigned char>(ch)); });
  return alpha && (digit || w.find('-') != std::string_view::npos || w.find('/') != std::string_view::npos || w == "gosec");
}

// Codes after a marker: "noqa: S608, E501" -> {"s608", "e501"}; nullopt for a
// bare marker (which suppresses every rule). Words that are not codes, such as
// an explanation after "# nosec", are skipped.
std::optional<std::vector<std::string>> codesAfter(std::string_view c, std::size_t at, bool needsColon) {
  const bool anyWord = needsColon;  // after "noqa:" / "nolint:" every word is a code (golangci linters are plain words)
  std::size_t k = at;
  while (k < c.size() && c[k] == ' ') ++k;
  if (k < c.size() && c[k] == ':') ++k;
  else if (needsColon) return std::nullopt;
  std::vector<std::string> codes;
  std::string cur;
  for (; k <= c.size(); ++k) {
    const char ch = k < c.size() ? c[k] : '\n';
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '/' || ch == '@') {
      cur += ch;
      continue;
    }
    if (looksLikeCode(cur, anyWord)) codes.push_back(cur);
    cur.clear();
    if (ch != ',' && ch != ' ') break;
  }
  if (codes.empty()) return std::nullopt;
  return codes;
}

bool anyCodeMatches(const RuleInfo& rule, const std::vector<std::string>& codes) {
  for (const auto& code : codes) {
    if (code == rule.name || code == "all") return true;  // golangci-lint's //nolint:all
    for (auto mine : rule.codes) if (code == lower(mine)) return true;
  }
  return false;
}

// A marker followed by nothing (all rules) or by codes naming this rule.
bool markerMatches(std::string_view c, std::string_view marker, const RuleInfo& rule, bool needsColon) {
  for (auto at = c.find(marker); at != std::string_view::npos; at = c.find(marker, at + 1)) {
    const std::size_t end = at + marker.size();
    if (end < c.size() && (std::isalnum(static_cast<unsigned char>(c[end])) || c[end] == '-')) continue;  // eslint-disable-next-line vs -line
    const auto codes = codesAfter(c, end, needsColon);
    if (!codes || anyCodeMatches(rule, *codes)) return true;
  }
  return false;
}

// revline: ignore / revline: ignore[sql-injection, raw-html] / revline: ignore[security]
// (a rule's id, or its finding's category in any case, as a model's findings are named).
bool revlineIgnore(std::string_view c, const RuleInfo& rule, std::string_view category) {
  for (auto at = c.find("revline:"); at != std::string_view::npos; at = c.find("revline:", at + 1)) {
    std::size_t k = at + 8;
    while (k < c.size() && c[k] == ' ') ++k;
    if (c.substr(k, 6) != "ignore") continue;
    k += 6;
    if (k < c.size() && (std::isalnum(static_cast<unsigned char>(c[k])) || c[k] == '-' || c[k] == '_')) continue;  // "ignored"
    if (k >= c.size() || c[k] != '[') return true;
    const auto close = c.find(']', k);
    if (close == std::string_view::npos) continue;
    std::string names(c.substr(k + 1, close - k - 1));
    std::replace(names.begin(), names.end(), ',', ' ');
    std::size_t s = 0;
    while (s < names.size()) {
      while (s < names.size() && names[s] == ' ') ++s;
      const auto e = std::min(names.find(' ', s), names.size());
      const std::string name = lower(names.substr(s, e - s));
      if (e > s && (name == rule.name || name == category)) return true;
      s = e;
    }
  }
  return false;
}

bool sameLineSuppression(std::string_view c, const RuleInfo& rule, std::string_view category) {
  return revlineIgnore(c, rule, category) || markerMatches(c, "noqa", rule, true) || markerMatches(c, "nosec", rule, false) ||
         c.find("nosonar") != std::string_view::npos || markerMatches(c, "nolint", rule, true) ||
         markerMatches(c, "eslint-disable-line", rule, false);
}

bool lineAboveSuppression(std::string_view c, const RuleInfo& rule, std::string_view category) {
  return revlineIgnore(c, rule, category) || markerMatches(c, "eslint-disable-next-line", rule, false);
}

bool wordChar(char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '\''; }

constexpr std::array<std::string_view, 16> kNegations{"not", "no", "never", "non", "nor", "without", "cannot", "can't",
                                                      "isn't", "isnt", "aren't", "wasn't", "don't", "doesn't", "didn't",
                                                      "won't"};
constexpr std::array<std::string_view, 10> kGuards{"safe", "prevent", "prevents", "avoid", "avoids", "against",
                                                   "guard", "guards", "free", "protected"};

// Whether one of `words` stands among the (up to four) words before `at` in
// the same clause: "NOT intentional", "does not check if src fits", "non-sanitized".
template <std::size_t N>
bool saidBefore(std::string_view c, std::size_t at, const std::array<std::string_view, N>& words) {
  std::size_t k = at;
  for (int seen = 0; seen < 4 && k > 0;) {
    const char ch = c[k - 1];
    if (std::string_view(".;:!?,()[]").find(ch) != std::string_view::npos) return false;  // the clause starts here
    if (!wordChar(ch)) {
      --k;
      continue;
    }
    const std::size_t end = k;
    while (k > 0 && wordChar(c[k - 1])) --k;
    if (std::find(words.begin(), words.end(), c.substr(k, end - k)) != words.end()) return true;
    ++seen;
  }
  return false;
}

// A phrase that names the danger, not the reason it is absent: it states
// intent only when denied or guarded against ("no SQL injection: ids are
// ints", "safe from shell injection"); "this is a shell injection hole" is a
// report of one.
bool namesTheDanger(std::string_view phrase) { return phrase == "sql injection" || phrase == "shell injection"; }

// A concern phrase as words of the comment (not inside another word:
// "unfake", "unsanitized", "unbounded" state the opposite), allowing an
// inflection ("placeholders", "faked"), and not negated.
bool statesIntent(std::string_view c, const RuleInfo& rule) {
  return std::any_of(rule.concern.begin(), rule.concern.end(), [&](std::string_view phrase) {
    for (auto at = c.find(phrase); at != std::string_view::npos; at = c.find(phrase, at + 1)) {
      if (at > 0 && std::isalnum(static_cast<unsigned char>(c[at - 1]))) continue;
      std::size_t end = at + phrase.size();
      for (int i = 0; i < 2 && end < c.size() && std::string_view("sed").find(c[end]) != std::string_view::npos; ++i) ++end;
      if (end < c.size() && std::isalnum(static_cast<unsigned char>(c[end]))) continue;
      const bool denied = saidBefore(c, at, kNegations);
      if (namesTheDanger(phrase) ? denied || saidBefore(c, at, kGuards) : !denied) return true;
    }
    return false;
  });
}

}  // namespace

namespace {

struct Span { std::size_t begin, end; };

// The comments of a line: a block comment closed on the line ("/* db */") is
// one span and the code after it is not comment; the last runs to the end.
std::vector<Span> commentSpans(std::string_view line, const Tokens& tokens, Language lang) {
  std::vector<std::string_view> markers;
  switch (lang) {
    case Language::Python: markers = {"#"}; break;
    case Language::Other: markers = {"#", "--", "//", "<!--", "/*"}; break;
    default: markers = {"//", "/*"}; break;
  }
  std::vector<Span> spans;
  for (std::size_t p = 0; p < line.size(); ++p) {
    if (coveredByToken(tokens, p, lang == Language::Other)) continue;
    for (auto m : markers) {
      if (!line.substr(p).starts_with(m)) continue;
      // In config and shell files "#" or "--" starts a comment only after a blank.
      if (lang == Language::Other && p > 0 && !std::isspace(static_cast<unsigned char>(line[p - 1]))) continue;
      const std::string_view close = m == "/*" ? "*/" : m == "<!--" ? "-->" : "";
      const auto end = close.empty() ? std::string_view::npos : line.find(close, p + m.size());
      if (end == std::string_view::npos) {
        spans.push_back({p, line.size()});
        return spans;
      }
      spans.push_back({p, end + close.size()});
      p = end + close.size() - 1;
      break;
    }
  }
  // A line inside a block comment has no tokens at all; " * text" is comment.
  if (spans.empty() && tokens.empty() && lang != Language::Other) spans.push_back({0, line.size()});
  return spans;
}

}  // namespace

namespace {
enum class Where { AfterCode, OwnLine };

// The lower-cased comment of new-file line n, from the whole file or the
// hunks; with OwnLine, only a comment with no code before it on its line (a
// comment that trails code is about that code, not the line below it).
std::string commentAt(const ScanFile& file, int n, Where where = Where::AfterCode) {
  std::string_view text;
  const Tokens* tokens = nullptr;
  if (const auto full = file.fullLine(n)) {
    text = *full;
    tokens = &file.fullTokens[static_cast<std::size_t>(n) - 1];
  } else if (const ScanLine* l = file.shownLine(n)) {
    text = l->text();
    tokens = &l->tokens;
  } else {
    return {};
  }
  const std::vector<Span> spans = commentSpans(text, *tokens, file.lang);
  if (spans.empty()) return {};
  const std::string_view before = text.substr(0, spans.front().begin);
  if (where == Where::OwnLine && !std::all_of(before.begin(), before.end(), [](unsigned char ch) { return std::isspace(ch); }))
    return {};
  return lower(text.substr(spans.front().begin));
}
}  // namespace

std::string commentOf(std::string_view line, const Tokens& tokens, Language lang) {
  const std::vector<Span> spans = commentSpans(line, tokens, lang);
  return spans.empty() ? std::string() : std::string(line.substr(spans.front().begin));
}

bool insideComment(std::string_view line, const Tokens& tokens, Language lang, std::size_t offset) {
  return LineComments(line, tokens, lang).contains(offset);
}

bool LineComments::contains(std::size_t offset) {
  if (!spans_) {
    spans_.emplace();
    for (const Span& s : commentSpans(line_, tokens_, lang_)) spans_->emplace_back(s.begin, s.end);
  }
  return std::any_of(spans_->begin(), spans_->end(), [&](const auto& s) { return offset >= s.first && offset < s.second; });
}

bool isSuppressed(const ScanFile& file, const RuleFinding& found) {
  const RuleInfo& rule = ruleInfo(found.rule);
  const std::string category = lower(contract::enumName(found.finding.category));
  const int first = static_cast<int>(found.finding.line);
  const int last = static_cast<int>(found.finding.lastLine());
  for (int n = first; n <= last; ++n) {
    const std::string c = commentAt(file, n);
    if (!c.empty() && (sameLineSuppression(c, rule, category) || statesIntent(c, rule))) return true;
  }
  if (first > 1) {
    const std::string above = commentAt(file, first - 1, Where::OwnLine);
    if (!above.empty() && (lineAboveSuppression(above, rule, category) || statesIntent(above, rule))) return true;
  }
  return false;
}

}  // namespace revline::builtin
