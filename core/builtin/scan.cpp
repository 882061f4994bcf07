#include "core/builtin/scan.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "core/builtin/notebook_view.h"
#include "core/diff/diff.h"
#include "core/diff/notebook.h"
#include "core/support/text.h"

namespace revline::builtin {

namespace {

// Tokens take some 150 bytes of memory a byte of text: lexing is bounded, so a
// change of one 32 MB line, or of a 100 MB file, cannot take gigabytes. A line
// longer than this is no code a person wrote (minified output is excluded by
// default); it and what is past the file's budget are left to the text rules
// (secrets, merge markers), which read the raw text.
constexpr std::size_t kMaxLexedLine = 16 * 1024;
constexpr std::size_t kMaxLexedPerFile = 8 * 1024 * 1024;

struct LexBudget {
  std::size_t left = kMaxLexedPerFile;
  std::vector<Token> lex(std::string_view line, Language lang, LexState& state) {
    if (line.size() > kMaxLexedLine || line.size() > left) return {};
    left -= line.size();
    return lexLine(line, lang, state);
  }
};

}  // namespace

ScanFile scanFile(const diff::FileDiff& file, std::optional<std::string> fullText, bool notebookLinesAlone) {
  ScanFile out;
  LexBudget whole, shown;  // the file's text (read for context), the diff's lines
  out.path = file.path();
  out.lang = languageOf(out.path);
  // A notebook: its cells' code, decoded, in place of the JSON strings that hold it.
  std::optional<NotebookView> notebook;
  std::vector<std::string_view> rawLines;
  std::string raw;  // the notebook's JSON, which rawLines view
  if (fullText && diff::isNotebookPath(out.path) && (notebook = notebookView(*fullText))) {
    out.notebook = true;
    out.lang = notebook->lang;
    out.decodedLines = std::make_shared<std::deque<diff::Line>>();
    raw = std::move(*fullText);
    rawLines = fileLines(raw);
    fullText = std::move(notebook->text);
  }
  // Its text not read as a notebook: each line that is a source list's element, decoded alone.
  const bool linesAlone = !notebook && notebookLinesAlone && diff::isNotebookPath(out.path);
  if (linesAlone) {
    out.notebook = true;
    out.lang = Language::Python;
    out.decodedLines = std::make_shared<std::deque<diff::Line>>();
    out.decodedTexts = std::make_shared<std::deque<std::string>>();
    fullText.reset();
  }
  if (fullText && fullText->size() <= kMaxLexedPerFile) {  // larger: its hunks are lexed alone
    out.fullText = std::make_shared<const std::string>(std::move(*fullText));
    const std::string_view text = *out.fullText;
    LexState state;
    for (std::size_t start = 0; start < text.size();) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      out.lineStarts.push_back(start);
      out.fullTokens.push_back(whole.lex(text.substr(start, end - start), out.lang, state));
      start = end + 1;
    }
  }
  for (const auto& hunk : file.hunks) {
    ScanHunk h;
    LexState state;
    for (const auto& line : hunk.lines) {
      if (line.kind == diff::LineKind::Removed) continue;
      const auto n = static_cast<std::size_t>(line.newLine);
      const diff::Line* read = &line;
      // A notebook's source line, as the file has it: read as the code it holds.
      if (notebook && n >= 1 && n <= rawLines.size() && notebook->decoded[n - 1] && rawLines[n - 1] == line.text &&
          out.fullLine(static_cast<int>(n))) {
        diff::Line code = line;
        code.text = *out.fullLine(static_cast<int>(n));
        out.decodedLines->push_back(code);
        read = &out.decodedLines->back();
      } else if (linesAlone) {
        if (auto decoded = notebookSourceElement(line.text)) {
          diff::Line code = line;
          code.text = out.decodedTexts->emplace_back(std::move(*decoded));
          out.decodedLines->push_back(code);
          read = &out.decodedLines->back();
        }
      }
      // String, comment and docstring state comes from the whole file when it
      // is known: a hunk may start inside a docstring or at its closing quotes.
      // The hunk alone is lexed only when the file is unknown or differs.
      if (out.fullText && n >= 1 && n <= out.fullTokens.size() && out.fullLine(static_cast<int>(n)) == read->text) {
        h.lines.push_back({read, out.fullTokens[n - 1], read != &line});
        state = LexState{};
        continue;
      }
      h.lines.push_back({read, shown.lex(read->text, out.lang, state), read != &line});
    }
    if (!h.lines.empty()) {
      if (!out.shownHunks.empty() && out.hunks[out.shownHunks.back()].lines.back().number() >= h.lines.front().number())
        out.shownInOrder = false;
      out.shownHunks.push_back(out.hunks.size());
    }
    out.hunks.push_back(std::move(h));
  }
  return out;
}

const ScanLine* ScanFile::shownLine(std::int64_t n) const {
  const auto in = [&](std::size_t i) -> const ScanLine* {
    const std::vector<ScanLine>& lines = hunks[i].lines;
    const std::int64_t at = n - lines.front().number();
    return at >= 0 && at < std::ssize(lines) ? &lines[static_cast<std::size_t>(at)] : nullptr;
  };
  if (!shownInOrder) {
    for (std::size_t i : shownHunks)
      if (const ScanLine* l = in(i)) return l;
    return nullptr;
  }
  const auto h = std::partition_point(shownHunks.begin(), shownHunks.end(),
                                      [&](std::size_t i) { return hunks[i].lines.back().number() < n; });
  return h == shownHunks.end() ? nullptr : in(*h);
}

std::size_t matchingClose(const Tokens& t, std::size_t open) {
  const std::string_view o = t[open].text;
  const std::string_view c = o == "(" ? ")" : o == "[" ? "]" : "}";
  int depth = 0;
  for (std::size_t k = open; k < t.size(); ++k) {
    if (t[k].is(o)) ++depth;
    else if (t[k].is(c) && --depth == 0) return k;
  }
  return npos;
}

std::size_t matchingOpen(const Tokens& t, std::size_t close) {
  const std::string_view c = t[close].text;
  const std::string_view o = c == ")" ? "(" : c == "]" ? "[" : "{";
  int depth = 0;
  for (std::size_t k = close + 1; k-- > 0;) {
    if (t[k].is(c)) ++depth;
    else if (t[k].is(o) && --depth == 0) return k;
  }
  return npos;
}

namespace {
bool isAtom(const Token& tok) {
  return tok.isIdent() || tok.kind == TokenKind::Number || (tok.isString() && !tok.unterminated);
}
}  // namespace

std::size_t operandStart(const Tokens& t, std::size_t last) {
  std::size_t k = last;
  while (true) {
    if (t[k].is(")") || t[k].is("]")) {
      const std::size_t open = matchingOpen(t, k);
      if (open == npos || open == 0) return npos;
      if (t[k].is(")") && !t[open - 1].isIdent()) return npos;  // a parenthesised group or cast: not simple
      k = open - 1;
      continue;
    }
    if (!isAtom(t[k])) return npos;
    if (k >= 2 && t[k - 1].is(".")) { k -= 2; continue; }
    return k;
  }
}

std::size_t operandEnd(const Tokens& t, std::size_t first) {
  if (first >= t.size() || !isAtom(t[first])) return npos;
  std::size_t k = first;
  while (k + 1 < t.size()) {
    if (t[k + 1].is("(") || t[k + 1].is("[")) {
      if (t[k + 1].is("(") && !t[k].isIdent()) break;
      const std::size_t close = matchingClose(t, k + 1);
      if (close == npos) return npos;
      k = close;
    } else if (t[k + 1].is(".") && k + 2 < t.size() && t[k + 2].isIdent()) {
      k += 2;
    } else {
      break;
    }
  }
  return k;
}

bool looseBefore(const Tokens& t, std::size_t first) {
  if (first == 0) return false;  // the expression may continue from the previous line
  static constexpr std::array<std::string_view, 9> ok{"(", "&&", "||", "=", ",", "return", "?", ":", "{"};
  return std::find(ok.begin(), ok.end(), t[first - 1].text) != ok.end() && !t[first - 1].isString();
}

bool looseAfter(const Tokens& t, std::size_t last) {
  if (last + 1 >= t.size()) return false;
  static constexpr std::array<std::string_view, 8> ok{")", "&&", "||", ";", "?", ":", ",", "}"};
  return std::find(ok.begin(), ok.end(), t[last + 1].text) != ok.end() && !t[last + 1].isString();
}

std::string_view sourceOf(std::string_view line, const Tokens& t, std::size_t first, std::size_t last) {
  return line.substr(t[first].begin, t[last].end - t[first].begin);
}

std::size_t findCall(const Tokens& t, std::string_view name, std::size_t from) {
  for (std::size_t k = std::max<std::size_t>(from, 1); k + 1 < t.size(); ++k) {
    if (t[k].isIdent() && t[k].text == name && t[k - 1].is(".") && t[k + 1].is("(")) return k;
  }
  return npos;
}

bool isConstantName(std::string_view name) {
  bool letter = false;
  for (char c : name) {
    if (std::islower(static_cast<unsigned char>(c))) return false;
    letter |= std::isupper(static_cast<unsigned char>(c)) != 0;
  }
  return letter;
}

Stream streamFrom(const ScanHunk& hunk, std::size_t line, std::size_t from, std::size_t extraLines) {
  Stream s;
  for (std::size_t l = line; l < hunk.lines.size() && l <= line + extraLines; ++l) {
    const Tokens& t = hunk.lines[l].tokens;
    for (std::size_t k = l == line ? from : 0; k < t.size(); ++k) {
      s.tokens.push_back(t[k]);
      s.lineOf.push_back(l);
    }
  }
  return s;
}

std::vector<Tokens> arguments(const Stream& s, std::size_t& lastLine) {
  std::vector<Tokens> args(1);
  int depth = 0;
  lastLine = s.lineOf.empty() ? 0 : s.lineOf.front();
  for (std::size_t k = 0; k < s.tokens.size(); ++k) {
    const Token& tok = s.tokens[k];
    lastLine = s.lineOf[k];
    if (tok.is("(") || tok.is("[") || tok.is("{")) {
      if (depth++ == 0) continue;
    } else if (tok.is(")") || tok.is("]") || tok.is("}")) {
      if (--depth == 0) break;
    } else if (depth == 1 && tok.is(",")) {
      args.emplace_back();
      continue;
    }
    args.back().push_back(tok);
  }
  return args;
}

RuleFinding makeFinding(const ScanFile& file, int line, int endLine, Rule rule,
                        std::optional<contract::Edit> edit) {
  contract::Finding f;
  // As the prompt spells it: the answer is JSON, where bytes that are not
  // UTF-8 become U+FFFD and two such names would read the same.
  f.file = diff::jsonPath(file.path);
  f.line = line;
  if (endLine > line) f.endLine = endLine;
  f.severity = rule.severity;
  f.category = rule.category;
  f.title = std::move(rule.title);
  const RuleInfo& info = ruleInfo(rule.id);
  // The rule's name, where every report shows it (text, JSON, SARIF, the editor's
  // diagnostic, a pull-request comment): the word a suppression comment needs.
  f.explanation = std::move(rule.explanation) + " (Rule " + std::string(info.name) + ": a comment `revline: ignore[" +
                  std::string(info.name) + "]` on the line or the line above marks it deliberate.)";
  f.suggestedFix = std::move(rule.suggestedFix);
  if (!file.notebook) f.edit = std::move(edit);  // made on a cell's decoded code, not the JSON line
  f.confidence = info.precision;
  return {rule.id, std::move(f)};
}

}  // namespace revline::builtin
