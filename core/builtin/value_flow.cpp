#include "core/builtin/value_flow.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

#include "core/builtin/lexer.h"

namespace revline::builtin {
namespace {

constexpr int kMaxDepth = 8;              // nested resolutions before giving up (untrusted)
constexpr std::size_t kMaxFunction = 600;  // lines searched back for the function start
constexpr std::size_t kStatementSpan = 8;  // lines an assignment's right-hand side may span

template <std::size_t N>
bool in(std::string_view s, const std::array<std::string_view, N>& list) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// Functions whose result is safe to place in SQL text whatever their argument:
// identifier/literal quoting and escaping, numbers, random tokens.
constexpr std::array<std::string_view, 48> kSafeCalls{
    "quote_identifier", "quote_ident", "quote_name", "quote_table", "quote_literal", "quote", "quoted", "escape",
    "escape_string", "escape_identifier", "escape_literal", "escapeId", "escapeIdentifier", "escapeLiteral",
    "quoteIdentifier", "quoteLiteral", "QuoteIdentifier", "QuoteLiteral", "enquoteIdentifier", "enquoteLiteral",
    "literal", "sql_quote", "len", "int", "float", "bool", "count", "size", "length", "hash", "id", "uuid4", "uuid1",
    "token_hex", "token_urlsafe", "randint", "Itoa", "FormatInt", "Atoi", "ParseInt", "parseInt", "ord", "max", "min",
    "getpid", "getppid", "getuid", "getgid"};

// Quoting and escaping by name: escape_sqlite, quoteIdent, enquoteLiteral, ...
bool safeCall(std::string_view name) {
  if (in(name, kSafeCalls)) return true;
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("escape") != std::string::npos || lower.find("quote") != std::string::npos;
}

bool sqlFragmentName(std::string_view name) {
  std::string n;
  for (char c : name) if (c != '_') n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static constexpr std::array<std::string_view, 9> exact{"sql", "where", "orderby", "select", "ddl", "fragment",
                                                         "clause", "whereclause", "sqlfragment"};
  return in(std::string_view(n), exact) || n.ends_with("sql") || n.ends_with("clause") || n.starts_with("where") ||
         n.starts_with("sql");
}

// Pure operations: trusted when their receiver and arguments are.
constexpr std::array<std::string_view, 48> kPureCalls{
    "str", "repr", "join", "Join", "format", "Sprintf", "sprintf", "lower", "upper", "strip", "lstrip", "rstrip",
    "replace", "split", "toString", "valueOf", "toUpperCase", "toLowerCase", "trim", "substring", "concat", "String",
    "StringBuilder", "StringBuffer", "append", "tuple", "list", "sorted", "reversed", "range", "enumerate", "zip",
    "keys", "values", "items", "copy", "fill", "repeat", "Repeat", "ToUpper", "ToLower", "TrimSpace", "Trim",
    "join_list", "abs", "round", "sum", "chain"};

// Types whose values are numbers or booleans: they cannot carry SQL text.
constexpr std::array<std::string_view, 26> kNumericTypes{
    "int", "long", "short", "byte", "double", "float", "boolean", "bool", "Integer", "Long", "Short", "Double",
    "Float", "Boolean", "BigDecimal", "BigInteger", "number", "int64", "int32", "uint", "uint64", "uint32", "float64",
    "size_t", "usize", "i64"};

// Modules and classes whose members are called statically (fmt.Sprintf, String.valueOf).
constexpr std::array<std::string_view, 12> kModules{"fmt", "strings", "strconv", "String", "Integer", "Long", "str",
                                                   "os", "Math", "math", "Objects", "secrets"};

// Calls on a variable that add to its value: lists and string builders.
constexpr std::array<std::string_view, 9> kMutators{"append", "extend", "add", "push", "insert", "WriteString",
                                                    "Append", "appendleft", "unshift"};

constexpr std::array<std::string_view, 10> kLiteralWords{"True",      "False", "None", "true", "false",
                                                        "null",      "nil",   "NULL", "NaN",  "undefined"};

// Binary operators an expression splits at: every operand must be trusted.
bool binaryOperator(const Token& tok) {
  static constexpr std::array<std::string_view, 26> ops{"+", "-", "*", "/", "%", ",", "|", "&", "==", "!=", "<", ">",
                                                        "<=", ">=", "&&", "||", "??", "**", "and", "or", "in", "is",
                                                        "not", "+=", ":", "=>"};
  return !tok.isString() && in(tok.text, ops);
}

// A Python format spec ("d", ">08x", ",.2f") whose presentation type makes a
// number: a str formatted with it raises, so only digits reach the text.
// "%Y-%m-%d" (a date's spec) and ">10" (any value) are not.
bool numericSpec(std::string_view spec) {
  std::size_t i = 0;
  if (spec.size() >= 2 && std::string_view("<>=^").find(spec[1]) != std::string_view::npos) i = 2;  // fill, align
  else if (!spec.empty() && std::string_view("<>=^").find(spec[0]) != std::string_view::npos) i = 1;
  if (i < spec.size() && std::string_view("+- ").find(spec[i]) != std::string_view::npos) ++i;
  if (i < spec.size() && spec[i] == '#') ++i;
  while (i < spec.size() && std::isdigit(static_cast<unsigned char>(spec[i]))) ++i;  // 0 and width
  if (i < spec.size() && (spec[i] == ',' || spec[i] == '_')) ++i;
  if (i < spec.size() && spec[i] == '.') {
    ++i;
    while (i < spec.size() && std::isdigit(static_cast<unsigned char>(spec[i]))) ++i;
  }
  return i + 1 == spec.size() && std::string_view("bdoxXeEfFgGn%").find(spec[i]) != std::string_view::npos;
}

// A literal's source that spells a character by an escape (\x25 is '%', \x7b
// '{'): what it formats is not what it reads as.
bool spellsByEscape(std::string_view body) {
  for (std::size_t i = 0; i + 1 < body.size(); ++i) {
    if (body[i] != '\\') continue;
    if (std::string_view("xuUN01234567").find(body[i + 1]) != std::string_view::npos) return true;
    ++i;  // an escaped character (\\, \n) is itself
  }
  return false;
}

// Whether every conversion of a printf-style Python format ("lsof -p%d",
// "%(port)05d") is numeric: `fmt % value` then holds digits whatever the value
// (a str for %d raises TypeError). %s, %r, %a and %c carry text.
bool onlyNumericConversions(std::string_view format) {
  if (spellsByEscape(format)) return false;
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') continue;
    if (++i >= format.size()) return false;
    if (format[i] == '%') continue;
    if (format[i] == '(') {  // a mapping key
      const auto close = format.find(')', i);
      if (close == std::string_view::npos) return false;
      i = close + 1;
    }
    while (i < format.size() && std::string_view("#0- +*.").find(format[i]) != std::string_view::npos) ++i;
    while (i < format.size() && (std::isdigit(static_cast<unsigned char>(format[i])) || format[i] == '.' ||
                                 format[i] == '*'))
      ++i;
    while (i < format.size() && std::string_view("hlL").find(format[i]) != std::string_view::npos) ++i;
    if (i >= format.size() || std::string_view("diouxXeEfFgG").find(format[i]) == std::string_view::npos) return false;
  }
  return true;
}

// Whether every placeholder of a str.format template has a numeric spec
// ("{:d}", "{port:05d}"): its arguments then reach the text as digits.
bool onlyNumericPlaceholders(std::string_view format) {
  if (spellsByEscape(format)) return false;
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] == '}' && i + 1 < format.size() && format[i + 1] == '}') { ++i; continue; }
    if (format[i] != '{') continue;
    if (i + 1 < format.size() && format[i + 1] == '{') { ++i; continue; }
    const auto close = format.find('}', i);
    if (close == std::string_view::npos) return false;
    const std::string_view field = format.substr(i + 1, close - i - 1);
    const auto colon = field.find(':');
    if (colon == std::string_view::npos || field.find('!') != std::string_view::npos ||
        field.find('{') != std::string_view::npos || !numericSpec(field.substr(colon + 1)))
      return false;
    i = close;
  }
  return true;
}

bool opens(const Token& t) { return t.is("(") || t.is("[") || t.is("{"); }
bool closes(const Token& t) { return t.is(")") || t.is("]") || t.is("}"); }

// The index of the `=` (or `:=`) that ends a tuple target holding t[k] that
// starts its line (`n, m = …`, `[a, b] = …`, `a, *rest = …`), when t[k] is
// not its last name (that one is followed by the `=` itself); npos otherwise.
std::size_t tupleTargetEnd(const Tokens& t, std::size_t k) {
  if (k + 1 >= t.size() || !(t[k + 1].is(",") || t[k + 1].is("]") || t[k + 1].is(")"))) return npos;
  for (std::size_t j = 0; j < t.size(); ++j) {
    if (t[j].is("=") || t[j].is(":=")) return j > k ? j : npos;
    if (!(t[j].isIdent() || t[j].is(",") || t[j].is("[") || t[j].is("]") || t[j].is("(") || t[j].is(")") ||
          t[j].is("*")))
      return npos;
  }
  return npos;
}

// Whether t[k] stands inside a bracket opened earlier on its line (a call's
// arguments, a def's parameters).
bool insideBrackets(const Tokens& t, std::size_t k) {
  int depth = 0;
  for (std::size_t j = 0; j < k; ++j) depth += opens(t[j]) ? 1 : closes(t[j]) ? -1 : 0;
  return depth > 0;
}

std::size_t closeOf(const Tokens& t, std::size_t open, std::size_t e) {
  int depth = 0;
  for (std::size_t k = open; k < e; ++k) {
    if (opens(t[k])) ++depth;
    else if (closes(t[k]) && --depth == 0) return k;
  }
  return npos;
}

std::size_t indentOf(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && (s[n] == ' ' || s[n] == '\t')) ++n;
  return n;
}

}  // namespace

// True when the operand t[b, e) between operators `before` and `after` is
// used arithmetically, so its value reaches the text as a number.
bool ValueFlow::numericContext(const Tokens& t, std::size_t b, std::size_t e, const Token* before,
                               const Token* after) const {
  auto arithmetic = [](const Token* op) { return op && (op->is("-") || op->is("/")); };
  if (arithmetic(before) || arithmetic(after)) return true;
  if (lang_ != Language::Python) return false;
  // Python: "... %d" % value formats numbers only; the literals before the %
  // are one format string ("a" "b%d").
  if (before && before->is("%") && b >= 2 && t[b - 2].isString()) {
    bool numeric = true;
    for (std::size_t k = b - 1; k-- > 0 && t[k].isString();)
      numeric = numeric && !t[k].interpolated && onlyNumericConversions(t[k].body);
    if (numeric) return true;
  }
  // Python: str + int raises, so x + 1 and x * 2 are numbers.
  auto numberOp = [](const Token* op) { return op && (op->is("+") || op->is("*")); };
  const bool nextIsNumber = numberOp(after) && e + 1 < t.size() && t[e + 1].kind == TokenKind::Number;
  const bool prevIsNumber = numberOp(before) && b >= 2 && t[b - 2].kind == TokenKind::Number;
  return nextIsNumber || prevIsNumber;
}

ValueFlow::ValueFlow(Language lang, std::vector<const Tokens*> lines, std::vector<std::string_view> text)
    : lang_(lang), lines_(std::move(lines)), text_(std::move(text)) {}

ValueFlow ValueFlow::forHunk(const ScanFile& file, const ScanHunk& hunk) {
  std::vector<const Tokens*> lines;
  std::vector<std::string_view> text;
  if (file.fullText) {
    for (std::size_t n = 1; n <= file.fullTokens.size(); ++n) {
      lines.push_back(&file.fullTokens[n - 1]);
      text.push_back(*file.fullLine(static_cast<int>(n)));
    }
    ValueFlow flow(file.lang, std::move(lines), std::move(text));
    flow.fullFile_ = true;
    return flow;
  }
  for (const auto& l : hunk.lines) {
    lines.push_back(&l.tokens);
    text.push_back(l.text());
  }
  return ValueFlow(file.lang, std::move(lines), std::move(text));
}

std::size_t ValueFlow::positionOf(const ScanFile& file, const ScanHunk& hunk, std::size_t i) const {
  if (!fullFile_) return i;
  const auto n = static_cast<std::size_t>(hunk.lines[i].number());
  (void)file;
  return n >= 1 && n <= lines_.size() ? n - 1 : 0;
}

bool ValueFlow::trusted(const Tokens& expr, std::size_t at) {
  at_ = std::min(at, lines_.empty() ? 0 : lines_.size() - 1);
  scopeStart_ = functionStart(at_);
  bound_.clear();
  visiting_.clear();
  withoutPrior_.clear();
  return expression(expr, 0, expr.size(), 0);
}

std::size_t ValueFlow::functionStart(std::size_t at) {
  const std::size_t floor = at > kMaxFunction ? at - kMaxFunction : 0;
  if (lang_ == Language::Python) {
    // The innermost enclosing def: each line less indented than everything
    // since is an enclosing block header; a nested def before the use is not.
    std::size_t bound = at < text_.size() ? indentOf(text_[at]) : 0;
    for (std::size_t p = at; p-- > floor;) {
      const Tokens& t = *lines_[p];
      if (t.empty() || closes(t[0]) || indentOf(text_[p]) >= bound) continue;  // a closing bracket continues a statement
      bound = indentOf(text_[p]);
      if (t[0].is("def") || t[0].is("class") || (t.size() > 1 && t[0].is("async") && t[1].is("def"))) {
        scopeFound_ = t[0].is("def") || t[0].is("async");
        return p;
      }
    }
    scopeFound_ = false;
    return floor;
  }
  int depth = 0;
  for (std::size_t p = at + 1; p-- > floor;) {
    const Tokens& t = *lines_[p];
    for (std::size_t k = t.size(); k-- > 0;) {
      if (t[k].is("}")) ++depth;
      else if (t[k].is("{") && depth > 0) --depth;
      else if (t[k].is("{")) {
        // An unmatched "{": a block inside the function, or the function itself.
        // Its statement may start lines above: `try (A a = ...;\n B b = ...) {`,
        // a parameter list over several lines, Allman style's lone "{".
        std::size_t q = t.size() == 1 && p > 0 ? p - 1 : p;
        auto balance = [&](std::size_t line) {
          int b = 0;
          for (const auto& x : *lines_[line]) b += x.is("(") ? 1 : x.is(")") ? -1 : 0;
          return b;
        };
        for (int open = balance(q); open < 0 && q > floor; open += balance(--q)) {}
        const Tokens& h = *lines_[q];
        static constexpr std::array<std::string_view, 14> blocks{"if", "for", "while", "else", "try", "catch",
                                                                  "finally", "switch", "do", "synchronized", "case",
                                                                  "using", "foreach", "select"};
        std::size_t first = 0;
        while (first < h.size() && h[first].is("}")) ++first;
        if (first < h.size() && in(h[first].text, blocks)) continue;
        if (first < h.size() && (h[first].is("default") || h[first].is("defer") || h[first].is("go"))) continue;
        scopeFound_ = std::any_of(h.begin(), h.end(), [](const Token& x) { return x.is("(") || x.is("=>"); });
        return q;
      }
    }
  }
  scopeFound_ = false;
  return floor;
}

bool ValueFlow::expression(const Tokens& t, std::size_t b, std::size_t e, int depth) {
  if (depth > kMaxDepth) return false;
  if (b >= e) return true;
  // A conditional: both arms must be trusted; the condition never reaches the text.
  int d = 0;
  for (std::size_t k = b; k < e; ++k) {
    if (opens(t[k])) ++d;
    else if (closes(t[k])) --d;
    else if (d == 0 && lang_ == Language::Python && t[k].is("if")) {
      for (std::size_t j = k + 1, dd = 0; j < e; ++j) {
        if (opens(t[j])) ++dd;
        else if (closes(t[j])) --dd;
        else if (dd == 0 && t[j].is("else")) return expression(t, b, k, depth) && expression(t, j + 1, e, depth);
      }
      return expression(t, b, k, depth);  // `x if c` in a comprehension filter
    } else if (d == 0 && lang_ != Language::Python && t[k].is("?")) {
      for (std::size_t j = k + 1, dd = 0; j < e; ++j) {
        if (opens(t[j])) ++dd;
        else if (closes(t[j])) --dd;
        else if (dd == 0 && t[j].is(":")) return expression(t, k + 1, j, depth) && expression(t, j + 1, e, depth);
      }
    }
  }
  // Operands between top-level binary operators. Arithmetic makes numbers:
  // an operand of - or / (and, in Python, of + or * next to a number) is
  // numeric whatever it holds.
  d = 0;
  std::size_t start = b;
  const Token* before = nullptr;  // the operator before the current operand
  for (std::size_t k = b; k <= e; ++k) {
    if (k < e && opens(t[k])) { ++d; continue; }
    if (k < e && closes(t[k])) { --d; continue; }
    if (k == e || (d == 0 && binaryOperator(t[k]))) {
      const Token* after = k < e ? &t[k] : nullptr;
      if (!numericContext(t, start, k, before, after) && !operand(t, start, k, depth)) return false;
      before = after;
      start = k + 1;
    }
  }
  return true;
}

bool ValueFlow::operand(const Tokens& t, std::size_t b, std::size_t e, int depth) {
  // Unary prefixes, `new`, `await`, casts such as (int) x.
  while (b < e && (t[b].is("!") || t[b].is("-") || t[b].is("not") || t[b].is("new") || t[b].is("await") ||
                   t[b].is("typeof") || t[b].is("range") || t[b].is("*") || t[b].is("&"))) ++b;
  if (b + 2 < e && t[b].is("(") && t[b + 1].isIdent() && t[b + 2].is(")") && in(t[b + 1].text, kNumericTypes))
    return true;
  if (b >= e) return true;
  const Token& first = t[b];
  if (first.isString()) {
    if (first.interpolated && !interpolation(first, depth)) return false;
    return postfix(t, b + 1, e, depth);
  }
  if (first.kind == TokenKind::Number || (first.isIdent() && in(first.text, kLiteralWords))) return postfix(t, b + 1, e, depth);
  if (opens(first)) {
    const std::size_t close = closeOf(t, b, e);
    if (close == npos) return false;
    if (!group(t, b, close, depth)) return false;
    return postfix(t, close + 1, e, depth);
  }
  if (!first.isIdent()) return false;

  // A keyword argument, name=value: the value is what counts.
  if (b + 1 < e && t[b + 1].is("=")) return expression(t, b + 2, e, depth);
  // A dotted name a.b.c, then maybe a call.
  std::size_t k = b;
  while (k + 2 < e && t[k + 1].is(".") && t[k + 2].isIdent()) k += 2;
  const std::string_view last = t[k].text;
  if (k + 1 < e && t[k + 1].is("(")) {
    const std::size_t close = closeOf(t, k + 1, e);
    if (close == npos) return false;
    if (safeCall(last)) return postfix(t, close + 1, e, depth);
    // C#'s nameof(x): the symbol's name, fixed when the code compiles (the operator,
    // not a method of that name: Util.nameof(x); in other languages, any function).
    if (lang_ == Language::CSharp && last == "nameof" && k == b) return postfix(t, close + 1, e, depth);
    if (!in(last, kPureCalls)) {
      // A function of this file whose every return is trusted whatever its
      // arguments (it quotes them, or returns constants); any other call may
      // return anything.
      const bool local = k == b || (k == b + 2 && (t[b].is("self") || t[b].is("this") || t[b].is("cls")));
      return local && returnsTrusted(last, depth) && postfix(t, close + 1, e, depth);
    }
    if (!callArguments(t, k + 1, close, depth)) return false;
    if (k > b) {
      // The receiver: a module or class (fmt., String.), or a value that must be trusted.
      const bool module = k == b + 2 && (in(t[b].text, kModules) || (std::isupper(static_cast<unsigned char>(t[b].text[0])) != 0));
      if (!module && !operand(t, b, k - 1, depth + 1)) return false;
    }
    return postfix(t, close + 1, e, depth);
  }
  // Not a call: a CONSTANT, a local, or a field / module attribute.
  if (isConstantName(last)) return postfix(t, k + 1, e, depth);
  if (k == b) {
    if (!variable(last, depth)) return false;
    return postfix(t, k + 1, e, depth);
  }
  // self.x / this.x: the object's own state (a table name, a configured
  // limit), set by its constructor, not input crossing this function's
  // boundary. Other attributes (request.args, obj.field) may come from outside.
  if (k == b + 2 && (t[b].is("self") || t[b].is("this") || t[b].is("cls"))) return postfix(t, k + 1, e, depth);
  return false;
}

// What follows an operand: .method(args) of pure operations, indexing.
bool ValueFlow::postfix(const Tokens& t, std::size_t k, std::size_t e, int depth) {
  while (k < e) {
    if (t[k].isString()) {  // implicit concatenation of adjacent literals: "a" f"{b}"
      if (t[k].interpolated && !interpolation(t[k], depth)) return false;
      ++k;
      continue;
    }
    if (t[k].is(".") && k + 1 < e && t[k + 1].isIdent()) {
      const std::string_view name = t[k + 1].text;
      if (k + 2 < e && t[k + 2].is("(")) {
        const std::size_t close = closeOf(t, k + 2, e);
        if (close == npos) return false;
        if (!safeCall(name) && !in(name, kPureCalls)) return false;
        // "{:d}".format(n): a template of numeric placeholders makes digits of any argument.
        const bool numericTemplate = lang_ == Language::Python && name == "format" && k > 0 &&
                                     t[k - 1].isString() && !t[k - 1].interpolated &&
                                     onlyNumericPlaceholders(t[k - 1].body);
        if (!safeCall(name) && !numericTemplate && !callArguments(t, k + 2, close, depth)) return false;
        k = close + 1;
        continue;
      }
      if (isConstantName(name)) { k += 2; continue; }
      return false;
    }
    if (t[k].is("[")) {  // indexing a trusted value gives a trusted value
      const std::size_t close = closeOf(t, k, e);
      if (close == npos) return false;
      k = close + 1;
      continue;
    }
    if (t[k].is("(")) return false;  // calling a value
    if (t[k].is("!") || t[k].is("++") || t[k].is("--")) { ++k; continue; }
    return false;
  }
  return true;
}

bool ValueFlow::callArguments(const Tokens& t, std::size_t open, std::size_t close, int depth) {
  return group(t, open, close, depth);
}

// (…), […], {…}: the contents, with comprehensions: `elem for v in iterable`.
bool ValueFlow::group(const Tokens& t, std::size_t open, std::size_t close, int depth) {
  int d = 0;
  for (std::size_t k = open + 1; k < close; ++k) {
    if (opens(t[k])) { ++d; continue; }
    if (closes(t[k])) { --d; continue; }
    if (d != 0 || !t[k].is("for") || lang_ != Language::Python) continue;
    std::size_t inAt = k + 1;
    while (inAt < close && !t[inAt].is("in")) ++inAt;
    std::size_t iterEnd = inAt + 1;
    for (int dd = 0; iterEnd < close; ++iterEnd) {
      if (opens(t[iterEnd])) ++dd;
      else if (closes(t[iterEnd])) --dd;
      else if (dd == 0 && (t[iterEnd].is("if") || t[iterEnd].is("for"))) break;
    }
    const bool iterable = expression(t, inAt + 1, iterEnd, depth + 1);
    std::vector<std::pair<std::string, std::optional<bool>>> saved;
    for (std::size_t v = k + 1; v < inAt; ++v) {
      if (!t[v].isIdent()) continue;
      const std::string name(t[v].text);
      const auto old = bound_.find(name);
      saved.emplace_back(name, old == bound_.end() ? std::nullopt : std::optional<bool>(old->second));
      bound_[name] = iterable;
    }
    const bool element = expression(t, open + 1, k, depth + 1);
    for (auto& [name, old] : saved) {
      if (old) bound_[name] = *old; else bound_.erase(name);
    }
    return element;
  }
  return expression(t, open + 1, close, depth + 1);
}

// The placeholders of f"…{x}…", `…${x}…` or $"…{x}…", lexed as expressions.
bool ValueFlow::interpolation(const Token& literal, int depth) {
  const std::string_view body = literal.body;
  const bool dollar = literal.quote == '`';
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '{') continue;
    if (dollar && (i == 0 || body[i - 1] != '$')) continue;
    if (!dollar && i + 1 < body.size() && body[i + 1] == '{') { ++i; continue; }
    int d = 0;
    std::size_t j = i;
    for (; j < body.size(); ++j) {
      if (body[j] == '{') ++d;
      else if (body[j] == '}' && --d == 0) break;
    }
    if (j >= body.size()) return false;
    std::string_view inner = body.substr(i + 1, j - i - 1);
    if (!dollar) {  // Python/C# format spec and conversion: {x!r:>10}
      const auto spec = inner.find_first_of("!:");
      // Python's f"{pid:d}" makes digits of any value (a str raises); C#
      // ignores a spec a string does not know, so there it proves nothing.
      if (lang_ == Language::Python && spec != std::string_view::npos && inner[spec] == ':' &&
          numericSpec(inner.substr(spec + 1))) {
        i = j;
        continue;
      }
      if (spec != std::string_view::npos && inner.substr(spec).find_first_of("()[]") == std::string_view::npos)
        inner = inner.substr(0, spec);
    }
    LexState state;
    const Tokens expr = lexLine(inner, lang_, state);
    if (!expression(expr, 0, expr.size(), depth + 1)) return false;
    i = j;
  }
  return true;
}

// The definition line of function `name` in the analysed lines, or npos.
std::size_t ValueFlow::definitionOf(std::string_view name) const {
  for (std::size_t p = 0; p < lines_.size(); ++p) {
    const Tokens& t = *lines_[p];
    for (std::size_t k = 1; k + 1 < t.size(); ++k) {
      if (!(t[k].isIdent() && t[k].text == name && t[k + 1].is("("))) continue;
      const Token& prev = t[k - 1];
      if (prev.is("def") || prev.is("function") || prev.is("func") || prev.is(")")) return p;  // Go methods: func (r T) name(
      if (lang_ == Language::Java || lang_ == Language::CSharp) {
        if ((prev.isIdent() || prev.is(">") || prev.is("]")) && !prev.is("new") && !prev.is("return") &&
            t.back().is("{")) return p;
      }
    }
  }
  return npos;
}

bool ValueFlow::returnsTrusted(std::string_view name, int depth) {
  if (depth > kMaxDepth) return false;
  const std::string key = "()" + std::string(name);
  if (visiting_.count(key)) return false;
  const std::size_t def = definitionOf(name);
  if (def == npos) return false;
  visiting_.insert(key);
  Position saved = position();
  bool any = false, all = true;
  const std::size_t indent = indentOf(text_[def]);
  int d = 0;
  for (std::size_t p = def; p < lines_.size() && all; ++p) {
    const Tokens& t = *lines_[p];
    if (lang_ == Language::Python) {
      if (p > def && !t.empty() && indentOf(text_[p]) <= indent) break;
    } else {
      for (const auto& tok : t) d += tok.is("{") ? 1 : tok.is("}") ? -1 : 0;
      if (p > def && d <= 0) break;
    }
    if (t.empty() || !t[0].is("return") || p == def) continue;
    any = true;
    at_ = p;
    scopeStart_ = def;
    scopeFound_ = true;
    bound_.clear();
    const Tokens value = statementFrom(p, 1);
    all = expression(value, 0, value.size(), depth + 1);
  }
  restore(std::move(saved));
  visiting_.erase(key);
  return any && all;
}

bool ValueFlow::privateCallersPassTrusted(std::string_view param, int depth) {
  if (!fullFile_ || depth > kMaxDepth) return false;
  // The header: `private T f(A a, B b) {` or `def _f(a, b):`, up to its "(".
  Tokens header;
  for (std::size_t p = scopeStart_; p < lines_.size() && p <= scopeStart_ + 12 && header.size() < 400; ++p) {
    for (const auto& x : *lines_[p]) header.push_back(x);
    if (std::any_of(lines_[p]->begin(), lines_[p]->end(), [](const Token& x) { return x.is("{") || x.is(":"); })) break;
  }
  std::size_t open = 0;
  while (open < header.size() && !header[open].is("(")) ++open;
  if (open == 0 || open >= header.size() || !header[open - 1].isIdent()) return false;
  const std::string_view fname = header[open - 1].text;
  const bool isPrivate = lang_ == Language::Python
                             ? fname.starts_with("_") && !fname.starts_with("__")
                             : std::any_of(header.begin(), header.begin() + static_cast<std::ptrdiff_t>(open),
                                           [](const Token& x) { return x.is("private"); });
  if (!isPrivate) return false;
  // Which parameter: the comma-separated group (at depth 1) that names it.
  std::size_t index = 0, found = npos;
  for (std::size_t k = open + 1, d = 1; k < header.size() && d > 0; ++k) {
    if (opens(header[k])) ++d;
    else if (closes(header[k])) --d;
    else if (d == 1 && header[k].is(",")) ++index;
    else if (header[k].isIdent() && header[k].text == param) found = index;
  }
  if (found == npos) return false;
  if (lang_ == Language::Python && !header.empty() && (header[open + 1].is("self") || header[open + 1].is("cls"))) {
    if (found == 0) return false;
    --found;  // self.f(a) passes a as the second parameter
  }
  const std::string key = "(call)" + std::string(fname);
  if (visiting_.count(key)) return false;
  visiting_.insert(key);
  const std::size_t defLine = scopeStart_;
  Position saved = position();
  bool any = false, all = true;
  for (std::size_t p = 0; p < lines_.size() && all; ++p) {
    if (p == defLine) continue;
    const Tokens& t = *lines_[p];
    for (std::size_t k = 0; k + 1 < t.size() && all; ++k) {
      if (!(t[k].isIdent() && t[k].text == fname && t[k + 1].is("("))) continue;
      if (k > 0 && !(t[k - 1].is(".") || !t[k - 1].isIdent() || t[k - 1].is("return"))) continue;  // a declaration
      const Tokens call = statementFrom(p, k + 1);
      // Arguments of the call, split at top-level commas.
      std::vector<std::pair<std::size_t, std::size_t>> args;
      std::size_t start = 1;
      int d = 0;
      for (std::size_t j = 0; j < call.size(); ++j) {
        if (opens(call[j])) { if (d++ == 0) start = j + 1; continue; }
        if (closes(call[j])) { if (--d == 0) { args.emplace_back(start, j); break; } continue; }
        if (d == 1 && call[j].is(",")) { args.emplace_back(start, j); start = j + 1; }
      }
      if (found >= args.size()) { all = false; break; }
      any = true;
      at_ = p;
      scopeStart_ = functionStart(p);
      bound_.clear();
      all = expression(call, args[found].first, args[found].second, depth + 1);
    }
  }
  restore(std::move(saved));
  visiting_.erase(key);
  return any && all;
}

// True when `name` appears in the header of the function being analysed (its
// parameter list, which may span lines above the line with "{").
bool ValueFlow::isParameter(std::string_view name) const {
  auto has = [&](const Tokens& t) {
    return std::any_of(t.begin(), t.end(), [&](const Token& x) { return x.isIdent() && x.text == name; });
  };
  if (lang_ == Language::Python) {
    Tokens header = statementFrom(scopeStart_, 0);
    int d = 0;
    for (std::size_t k = 0; k < header.size(); ++k) {  // up to the ":" that ends `def f(...) -> T:`
      if (opens(header[k])) ++d;
      else if (closes(header[k])) --d;
      else if (d == 0 && header[k].is(":") && k > 0) { header.resize(k); break; }
    }
    return has(header);
  }
  // From the header's first line to its "{" (after the parameter list).
  int d = 0;
  for (std::size_t p = scopeStart_; p < lines_.size() && p <= scopeStart_ + 12; ++p) {
    for (const auto& x : *lines_[p]) {
      if (x.is("{") && d == 0) return false;
      d += x.is("(") ? 1 : x.is(")") ? -1 : 0;
      if (x.isIdent() && x.text == name) return true;
    }
  }
  return false;
}

// Tokens from line p, token k, over the lines the statement continues on (open
// brackets, a trailing operator), up to a top-level ";" or an unmatched close.
Tokens ValueFlow::statementFrom(std::size_t p, std::size_t k) const {
  Tokens out;
  int d = 0;
  for (std::size_t q = p; q < lines_.size() && q <= p + kStatementSpan; ++q) {
    const Tokens& line = *lines_[q];
    for (std::size_t j = q == p ? k : 0; j < line.size(); ++j) {
      if (d == 0 && line[j].is(";")) return out;
      if (opens(line[j])) ++d;
      if (closes(line[j]) && --d < 0) return out;
      out.push_back(line[j]);
    }
    const bool continues = d > 0 || (!out.empty() && (binaryOperator(out.back()) || out.back().is("\\")));
    if (!continues) break;
  }
  return out;
}

// Whether the statement at token k of line p runs only on some paths through
// the function: behind an `if`, a loop or a handler on its line, or in a block
// nested in the function's body (deeper indentation in Python, braces
// elsewhere). Unknown function bounds count as one straight path.
bool ValueFlow::conditionalAt(std::size_t p, std::size_t k) const {
  static constexpr std::array<std::string_view, 11> branching{"if", "else", "elif", "for", "while", "case", "switch",
                                                              "catch", "except", "try", "do"};
  const Tokens& t = *lines_[p];
  for (std::size_t j = 0; j < k && j < t.size(); ++j)
    if (t[j].isIdent() && in(t[j].text, branching)) return true;
  if (!scopeFound_ || p <= scopeStart_) return false;
  if (lang_ == Language::Python) {
    const std::size_t header = indentOf(text_[scopeStart_]);
    for (std::size_t q = scopeStart_ + 1; q < p; ++q)
      if (!lines_[q]->empty() && indentOf(text_[q]) > header) return indentOf(text_[p]) > indentOf(text_[q]);
    return false;
  }
  int depth = 0;
  for (std::size_t q = scopeStart_; q <= p; ++q) {
    const Tokens& line = *lines_[q];
    for (std::size_t j = 0; j < line.size() && (q < p || j < k); ++j) depth += line[j].is("{") ? 1 : line[j].is("}") ? -1 : 0;
  }
  return depth > 1;
}

// A name used at at_: trusted when bound by a trusted comprehension, declared
// numeric, or assigned only trusted values in its function (or, outside any
// function, as a module-level or final constant).
bool ValueFlow::variable(std::string_view name, int depth) {
  if (depth > kMaxDepth) return false;
  const std::string key(name);
  if (auto b = bound_.find(key); b != bound_.end()) return b->second;
  // A cycle adds nothing new: the other assignments decide; but while an
  // update's right-hand side is judged without the value it had, not that.
  if (visiting_.count(key)) return !withoutPrior_.count(key);
  visiting_.insert(key);
  struct Guard { std::set<std::string>& s; std::string k; ~Guard() { s.erase(k); } } guard{visiting_, key};

  bool assigned = false;
  // An update that keeps the value it had (name = name.strip(), name += x)
  // before any assignment that replaces it: the value it came in with (a
  // parameter's) flows on, and must be trusted too.
  bool replaced = false, keepsIncoming = false;
  // Whether `rhs` is trusted whatever value `name` had before it (int(n), len(name)).
  auto trustedWithoutPrior = [&](const Tokens& rhs) {
    withoutPrior_.insert(key);
    const bool trusted = expression(rhs, 0, rhs.size(), depth + 1);
    withoutPrior_.erase(key);
    return trusted;
  };
  // The assignment of `rhs` to the name at token k of line p; `plain`: an `=`,
  // which may replace the value (`+=` adds to it). False when what it assigns
  // is untrusted.
  auto assign = [&](const Tokens& rhs, bool plain, std::size_t p, std::size_t k) {
    assigned = true;
    if (plain && trustedWithoutPrior(rhs)) {
      // Only on every path: `if c: name = "x"` leaves the caller's value on the other.
      replaced = replaced || !conditionalAt(p, k);
      return true;
    }
    if (!expression(rhs, 0, rhs.size(), depth + 1)) return false;
    keepsIncoming = keepsIncoming || !replaced;  // trusted only if what it had was: `name = name.strip()`, `+=`
    return true;
  };
  for (std::size_t p = scopeStart_; p <= at_ && p < lines_.size(); ++p) {
    const Tokens& t = *lines_[p];
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (!(t[k].isIdent() && t[k].text == name)) continue;
      if (k > 0 && (t[k - 1].is(".") || t[k - 1].is("->"))) continue;
      // Declared with a numeric type: int i, i int, i: int, i: number.
      if (k > 0 && t[k - 1].isIdent() && in(t[k - 1].text, kNumericTypes)) return true;
      if (k + 1 < t.size() && t[k + 1].isIdent() && in(t[k + 1].text, kNumericTypes)) return true;
      if (lang_ != Language::Go && k + 2 < t.size() && t[k + 1].is(":") && in(t[k + 2].text, kNumericTypes)) return true;
      if (k + 1 >= t.size()) continue;
      // One name of a tuple target, `n, m = int(n), int(m)` or `[a, b] = …`:
      // the statement assigns it, judged as a whole as for its last name.
      if (const std::size_t eq = tupleTargetEnd(t, k); eq != npos) {
        if (!assign(statementFrom(p, eq + 1), /*plain=*/true, p, k)) return false;
        continue;
      }
      const Token& op = t[k + 1];
      // Python's `f(host="x")` and `def f(name="x")`: a keyword argument or a
      // default, inside brackets, is no assignment of the name.
      if (lang_ == Language::Python && op.is("=") && insideBrackets(t, k)) continue;
      // Python `for a, v in xs` / Java `for (String v : xs)`.
      if (k > 0 && (op.is("in") || (op.is(":") && lang_ == Language::Java))) {
        bool loop = false;
        for (std::size_t j = 0; j < k; ++j) loop |= t[j].is("for");
        if (!loop) continue;
        const Tokens iter = statementFrom(p, k + 2);
        std::size_t end = 0;
        for (int d = 0; end < iter.size(); ++end) {
          if (opens(iter[end])) ++d;
          else if (closes(iter[end]) && --d < 0) break;
          else if (d == 0 && (iter[end].is(":") || iter[end].is("if"))) break;
        }
        assigned = replaced = true;
        if (!expression(iter, 0, end, depth + 1)) return false;
        continue;
      }
      // Mutations that add to the value: v.append(x), sb.append(a).append(b).
      if (op.is(".") && k + 3 < t.size() && in(t[k + 2].text, kMutators) && t[k + 3].is("(")) {
        for (std::size_t c = k + 1; c + 2 < t.size() && t[c].is(".") && t[c + 2].is("(");) {
          const std::size_t close = closeOf(t, c + 2, t.size());
          if (close == npos) return false;
          if (in(t[c + 1].text, kMutators) && !group(t, c + 2, close, depth + 1)) return false;
          c = close + 1;
        }
        continue;
      }
      if (!op.is("=") && !op.is("+=") && !op.is(":=") && !op.is("|=")) continue;
      // The right-hand side, over continuation lines until the statement ends.
      const Tokens rhs = statementFrom(p, k + 2);
      // Python `x, v = a, b` and a for-init `int i = 0, n = xs.size()`: judged as a whole.
      if (!assign(rhs, op.is("=") || op.is(":="), p, k)) return false;
    }
  }
  if (assigned && !keepsIncoming) return true;
  // A parameter whose name says it holds SQL (where, order_by, sql, *_clause):
  // the function's contract is to take a SQL fragment, which its caller owns.
  if (sqlFragmentName(name)) return true;
  // Neither a local nor a parameter of the function: the object's fields and
  // the enclosing scope's variables, like self.x, are state set elsewhere,
  // not input crossing this function's boundary. Only when the function's
  // header is known; otherwise the name may be a parameter we cannot see.
  if (scopeFound_ && !isParameter(name)) return true;
  // A parameter of a private function whose every call in this file passes a
  // trusted value for it (fetchAll("table"), fetchAll("view")).
  if (scopeFound_ && privateCallersPassTrusted(name, depth)) return true;
  // Not assigned in the function: a module-level or final constant, else a
  // parameter, a field or a global, which may come from outside. A parameter
  // hides a constant of its name.
  if (!fullFile_ || (scopeFound_ && isParameter(name))) return false;
  for (std::size_t p = 0; p < lines_.size(); ++p) {
    if (p >= scopeStart_ && p <= at_) continue;
    const Tokens& t = *lines_[p];
    if (t.size() < 3) continue;
    const bool topLevel = lang_ == Language::Python ? indentOf(text_[p]) == 0 : false;
    bool constant = topLevel;
    for (const auto& tok : t) constant |= tok.is("final") || tok.is("const") || tok.is("readonly");
    if (!constant) continue;
    for (std::size_t k = 0; k + 1 < t.size(); ++k) {
      if (!(t[k].isIdent() && t[k].text == name && (t[k + 1].is("=") || t[k + 1].is(":=")))) continue;
      std::size_t end = k + 2;
      while (end < t.size() && !t[end].is(";")) ++end;
      return expression(t, k + 2, end, depth + 1);
    }
  }
  return false;
}

}  // namespace revline::builtin
