// What the builtin rules look at: every RIGHT-side line of a file's hunks
// (added and context, in new-file order), already tokenized, plus the small
// expression helpers several rules share.
#pragma once
#include <algorithm>
#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/builtin/language.h"
#include "core/builtin/lexer.h"
#include "core/builtin/rule_catalog.h"
#include "core/contract/contract.h"
#include "core/diff/diff.h"

namespace revline::builtin {

constexpr std::size_t npos = static_cast<std::size_t>(-1);
using Tokens = std::vector<Token>;

struct ScanLine {
  const diff::Line* line = nullptr;
  Tokens tokens;  // code tokens; comments are dropped
  // A notebook's cell source line read as its code; false for its other lines
  // (outputs, metadata, JSON structure) and for every line of another file.
  bool cellCode = false;
  bool added() const { return line->kind == diff::LineKind::Added; }
  int number() const { return line->newLine; }
  std::string_view text() const { return line->text; }
};

// Lines of one hunk; their new-file numbers are consecutive.
struct ScanHunk {
  std::vector<ScanLine> lines;
};

struct ScanFile {
  std::string path;
  Language lang = Language::Other;
  std::vector<ScanHunk> hunks;
  // A Jupyter notebook read as its cells' code (notebook_view.h): its source
  // lines are shown decoded (copies of the diff's lines, held here) and the
  // whole-file text is the decoded view. An edit made on decoded text would not
  // apply to the JSON line, so its findings carry none.
  bool notebook = false;
  std::shared_ptr<std::deque<diff::Line>> decodedLines;
  std::shared_ptr<std::deque<std::string>> decodedTexts;  // what decodedLines' texts view, when not fullText
  // The whole new file, tokenized line by line, when the caller supplied its
  // text: for looking up declarations. Views point into *fullText.
  std::shared_ptr<const std::string> fullText;
  std::vector<Tokens> fullTokens;
  std::vector<std::size_t> lineStarts;  // byte offset of each line in *fullText

  // The line the diff shows as new-file line n, or null; found by number, in
  // log time (each hunk's lines are consecutive; hunks in order, as git writes
  // them, else by a walk: a hand-made patch may list them in any order).
  const ScanLine* shownLine(std::int64_t n) const;
  std::vector<std::size_t> shownHunks;  // the hunks that show new-side lines (scanFile sets both)
  bool shownInOrder = true;

  // 1-based line n of the whole file, or nullopt when the file is unknown.
  std::optional<std::string_view> fullLine(int n) const {
    if (!fullText || n < 1 || static_cast<std::size_t>(n) > lineStarts.size()) return std::nullopt;
    const std::size_t start = lineStarts[static_cast<std::size_t>(n) - 1];
    const std::size_t end = std::min(fullText->find('\n', start), fullText->size());
    return std::string_view(*fullText).substr(start, end - start);
  }

  // Calls f(tokens, text) for every line that may hold a declaration: the whole
  // file when known, else the lines the diff shows.
  template <typename F>
  void forEachKnownLine(F f) const {
    if (fullText) {
      std::size_t start = 0;
      for (const auto& t : fullTokens) {
        const std::size_t end = std::min(fullText->find('\n', start), fullText->size());
        f(t, std::string_view(*fullText).substr(start, end - start));
        start = end + 1;
      }
      return;
    }
    for (const auto& h : hunks)
      for (const auto& l : h.lines) f(l.tokens, l.text());
  }
};

// `notebookLinesAlone`: a notebook whose text is unknown or does not read as one
// (the old side rebuilt from a notebook's narrowed hunks) has each of its lines
// that is a source list's element read as the code it holds. For the old side
// only, where reading too much as code can only make fewer findings new.
ScanFile scanFile(const diff::FileDiff& file, std::optional<std::string> fullText = std::nullopt,
                  bool notebookLinesAlone = false);

// Index of the bracket matching tokens[open] ("(", "[" or "{") on the same
// line, or npos. matchingOpen is the reverse.
std::size_t matchingClose(const Tokens& t, std::size_t open);
std::size_t matchingOpen(const Tokens& t, std::size_t close);

// A postfix expression such as `a`, `this.x`, `req.getCurrency()`, `m[k].y`:
// operandStart walks back from its last token, operandEnd forward from its
// first. npos when the tokens there do not form one.
std::size_t operandStart(const Tokens& t, std::size_t last);
std::size_t operandEnd(const Tokens& t, std::size_t first);

// True when the token before `first` / after `last` binds more loosely than
// `==`, so an expression there can be rewritten without changing precedence.
bool looseBefore(const Tokens& t, std::size_t first);
bool looseAfter(const Tokens& t, std::size_t last);

// Source text from the start of tokens[first] to the end of tokens[last].
std::string_view sourceOf(std::string_view line, const Tokens& t, std::size_t first, std::size_t last);

// Finds `.name(` (a method call) from index `from`; returns the index of name or npos.
std::size_t findCall(const Tokens& t, std::string_view name, std::size_t from = 0);

// True for identifiers written as constants (UPPER_CASE), which are not user input.
bool isConstantName(std::string_view name);

// Tokens of a hunk flattened from line `line`, token `from`, onwards (at most
// `extraLines` further lines), with the hunk line index each came from: for
// calls and assignments that continue on the next lines.
struct Stream {
  Tokens tokens;
  std::vector<std::size_t> lineOf;
};
Stream streamFrom(const ScanHunk& hunk, std::size_t line, std::size_t from, std::size_t extraLines);

// The arguments of the call whose "(" starts the stream, split at top-level
// commas; `lastLine` receives the hunk line of the closing ")" (or of the last token seen).
std::vector<Tokens> arguments(const Stream& s, std::size_t& lastLine);

struct Rule {
  contract::Severity severity;
  contract::Category category;
  RuleId id;  // its confidence is the rule's measured precision (rule_catalog.h)
  std::string title;
  std::string explanation;
  std::optional<std::string> suggestedFix;
};

RuleFinding makeFinding(const ScanFile& file, int line, int endLine, Rule rule,
                        std::optional<contract::Edit> edit = std::nullopt);

}  // namespace revline::builtin
