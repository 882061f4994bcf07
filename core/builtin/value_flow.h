// Where a value that reaches a sink (SQL text, HTML, eval, a shell command)
// comes from: a small intra-procedural analysis over the new file (or, without
// it, the hunk), shared by the SQL and unsafe-call rules.
// A value is TRUSTED when it cannot carry outside input: literals, numbers,
// CONSTANTS, locals assigned only trusted values in the function (through both
// arms of a conditional, loops over trusted ranges, appends), numeric-typed
// variables, the results of known quoting/escaping functions, and pure string
// operations on trusted values (join, format, str, "?" * len(x)). Anything else
// (a parameter, a field, a request, an unknown call) is UNTRUSTED.
#pragma once
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/builtin/scan.h"

namespace revline::builtin {

class ValueFlow {
 public:
  // Lines in file order; `text` holds each line's source (for indentation).
  ValueFlow(Language lang, std::vector<const Tokens*> lines, std::vector<std::string_view> text);

  // The lines of a ScanFile: the whole file when known, else one hunk.
  static ValueFlow forHunk(const ScanFile& file, const ScanHunk& hunk);
  // Position in the analysed lines of hunk line `i` of `hunk`.
  std::size_t positionOf(const ScanFile& file, const ScanHunk& hunk, std::size_t i) const;

  // True when every value in `expr` (tokens of an expression used at line
  // position `at`) is trusted.
  bool trusted(const Tokens& expr, std::size_t at);

 private:
  bool expression(const Tokens& t, std::size_t b, std::size_t e, int depth);
  bool operand(const Tokens& t, std::size_t b, std::size_t e, int depth);
  bool group(const Tokens& t, std::size_t open, std::size_t close, int depth);
  bool postfix(const Tokens& t, std::size_t k, std::size_t e, int depth);
  bool callArguments(const Tokens& t, std::size_t open, std::size_t close, int depth);
  bool interpolation(const Token& literal, int depth);
  bool variable(std::string_view name, int depth);
  std::size_t functionStart(std::size_t at);
  bool isParameter(std::string_view name) const;
  bool privateCallersPassTrusted(std::string_view param, int depth);
  Tokens statementFrom(std::size_t p, std::size_t k) const;
  std::size_t definitionOf(std::string_view name) const;
  bool returnsTrusted(std::string_view name, int depth);
  bool conditionalAt(std::size_t p, std::size_t k) const;
  bool numericContext(const Tokens& t, std::size_t b, std::size_t e, const Token* before, const Token* after) const;

  Language lang_;
  std::vector<const Tokens*> lines_;
  std::vector<std::string_view> text_;
  bool fullFile_ = false;
  std::size_t at_ = 0;                       // the use being analysed
  std::size_t scopeStart_ = 0;               // first line of its function
  bool scopeFound_ = false;                  // a function header was found there
  std::map<std::string, bool> bound_;        // comprehension variables in scope
  std::set<std::string> visiting_;           // variables being resolved (cycles)
  std::set<std::string> withoutPrior_;       // of those, ones whose earlier value counts as untrusted

  // The position being analysed, kept while another function is looked into.
  struct Position {
    std::size_t at, scopeStart;
    bool scopeFound;
    std::map<std::string, bool> bound;
  };
  Position position() const { return {at_, scopeStart_, scopeFound_, bound_}; }
  void restore(Position p) {
    at_ = p.at;
    scopeStart_ = p.scopeStart;
    scopeFound_ = p.scopeFound;
    bound_ = std::move(p.bound);
  }
};

}  // namespace revline::builtin
