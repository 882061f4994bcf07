// Calls that are dangerous by themselves: unbounded C string functions,
// dynamic code evaluation, shell command strings, and raw HTML assignment.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "core/builtin/rule_sets.h"
#include "core/builtin/value_flow.h"

namespace revline::builtin {
namespace {

using contract::Category;
using contract::Severity;

constexpr std::size_t kCallSpan = 4;  // lines a call's arguments may continue over

// `name(` called as a free function: not a method (`.name(`, `->name(`) and
// not a declaration (`char *name(`, `def name(`, `function name(`).
bool freeCall(const Tokens& t, std::size_t k) {
  if (k + 1 >= t.size() || !t[k + 1].is("(")) return false;
  if (k == 0) return true;
  const Token& prev = t[k - 1];
  if (prev.is(".") || prev.is("->") || prev.is("*") || prev.is("def") || prev.is("function")) return false;
  if (prev.is("::")) return k < 2 || t[k - 2].is("std");
  return !prev.isIdent() || prev.is("return") || prev.is("else") || prev.is("await");
}

// An argument that is one plain string literal cannot carry input.
bool plainLiteral(const Tokens& arg) { return arg.size() == 1 && arg[0].isString() && !arg[0].interpolated; }

// A value that cannot carry outside input: a literal, a CONSTANT, a local
// assigned only such values (see value_flow.h).
bool trustedValue(const ScanFile& file, const ScanHunk& hunk, std::size_t i, const Tokens& value) {
  if (value.empty() || plainLiteral(value)) return true;
  ValueFlow flow = ValueFlow::forHunk(file, hunk);
  return flow.trusted(value, flow.positionOf(file, hunk, i));
}

// A printf format whose conversions are all numeric (%d, %5.2f, %x, %g, %p...):
// its output length is bounded by the format, whatever the values.
bool numericFormat(const Token& format) {
  if (!format.isString() || format.interpolated) return false;
  const std::string_view f = format.body;
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') continue;
    std::size_t k = i + 1;
    if (k < f.size() && f[k] == '%') { i = k; continue; }
    while (k < f.size() && (std::isdigit(static_cast<unsigned char>(f[k])) || f[k] == '.' || f[k] == '-' || f[k] == '+' ||
                            f[k] == ' ' || f[k] == '#' || f[k] == 'l' || f[k] == 'h' || f[k] == 'z')) ++k;
    if (k >= f.size() || std::string_view("diuxXoeEfgGcp").find(f[k]) == std::string_view::npos) return false;
    i = k;
  }
  return true;
}

// Whether `name`, used at token k of line i, is a `char name[N]` array whose
// `sizeof` is its size: the nearest declaration of it in a scope enclosing the
// call, looking back through the hunk, is `char name[` outside any parameter
// list. A declaration in a block closed before the call (another function,
// however indented) is not in scope; a parameter `char name[64]` is a pointer,
// and so is a `char *name` (or anything else declared by that name).
bool charArrayInScope(const ScanHunk& hunk, std::size_t i, std::size_t k, std::string_view name) {
  int blocks = 0;  // blocks closed between here and the call, while looking back
  int parens = 0;  // ')' seen on the way back without their '(': inside a parameter list
  for (std::size_t line = i + 1; line-- > 0;) {
    const Tokens& t = hunk.lines[line].tokens;
    for (std::size_t j = line == i ? k : t.size(); j-- > 0;) {
      if (t[j].is("}")) ++blocks;
      else if (t[j].is("{") && blocks > 0) --blocks;
      else if (t[j].is(")")) ++parens;
      else if (t[j].is("(") && parens > 0) --parens;
      if (blocks > 0 || j == 0 || !t[j].isIdent() || t[j].text != name) continue;
      if (t[j - 1].is("char") && j + 1 < t.size() && t[j + 1].is("[")) return parens == 0;
      if (t[j - 1].is("char") || t[j - 1].is("*") || t[j - 1].is("&")) return false;  // a pointer, a reference, a char
    }
  }
  return false;
}

constexpr std::size_t kAllocationSpan = 30;  // lines looked back for the destination's allocation

bool sameTokens(const Tokens& a, std::size_t from, const Tokens& b) {
  if (from + b.size() > a.size()) return false;
  for (std::size_t j = 0; j < b.size(); ++j)
    if (a[from + j].text != b[j].text) return false;
  return true;
}

// The sources a size expression makes room for: `strlen(a) + strlen(b) + 1`,
// `1 + strlen(s)`, `sizeof(char) * (strlen(s) + 1)`: strlen terms and integer
// constants added, one constant at least 1 (the NUL's byte). Anything else
// (a subtraction, a division, no room for the NUL) gives nullopt.
std::optional<std::vector<Tokens>> roomFor(const Tokens& arg) {
  std::size_t b = 0, e = arg.size();
  if (e - b >= 5 && arg[b].is("sizeof") && arg[b + 1].is("(") && arg[b + 2].is("char") && arg[b + 3].is(")") &&
      arg[b + 4].is("*"))
    b += 5;
  while (e - b >= 2 && arg[b].is("(") && matchingClose(arg, b) == e - 1) ++b, --e;
  std::vector<Tokens> sources;
  bool nul = false;
  for (std::size_t k = b; k < e;) {
    if (arg[k].kind == TokenKind::Number) {
      nul = nul || std::strtoul(std::string(arg[k].text).c_str(), nullptr, 0) >= 1;
      ++k;
    } else if (arg[k].is("strlen") && k + 1 < e && arg[k + 1].is("(")) {
      const std::size_t close = matchingClose(arg, k + 1);
      if (close == npos || close >= e || close == k + 2) return std::nullopt;
      sources.emplace_back(arg.begin() + static_cast<std::ptrdiff_t>(k + 2), arg.begin() + static_cast<std::ptrdiff_t>(close));
      k = close + 1;
    } else {
      return std::nullopt;
    }
    if (k < e && !arg[k++].is("+")) return std::nullopt;
  }
  if (!nul || sources.empty()) return std::nullopt;
  return sources;
}

// Whether the copy `name(dst, src)` at token k of hunk line i writes into
// memory made for it: `dst = malloc(strlen(a) + strlen(b) + 1)` in the same
// block or one enclosing it, within kAllocationSpan lines, on every path (no
// `if` before it on its line), then only strcpy/strcat of those sources, each
// once, up to this one: the idiom that copies strings into space made for them
// (jq, zlib, every C codebase), where a bound would only repeat the size. Not
// when `dst` moves or is written otherwise, `src` changes, or a loop runs in between.
bool allocatedForCopies(const ScanHunk& hunk, std::size_t i, std::size_t k, const Tokens& dst, const Tokens& src) {
  if (dst.empty() || src.empty()) return false;
  // The allocation: the nearest `dst = CALL(args)` looking back, outside blocks closed on the way.
  std::size_t line = i, at = npos;
  int blocks = 0;
  const std::size_t floor = i > kAllocationSpan ? i - kAllocationSpan : 0;
  for (std::size_t l = i + 1; l-- > floor && at == npos;) {
    const Tokens& t = hunk.lines[l].tokens;
    for (std::size_t j = l == i ? k : t.size(); j-- > 0;) {
      if (t[j].is("}")) ++blocks;
      else if (t[j].is("{") && blocks > 0) --blocks;
      if (blocks > 0 || !sameTokens(t, j, dst) || j + dst.size() >= t.size() || !t[j + dst.size()].is("=")) continue;
      if (j > 0 && (t[j - 1].is(".") || t[j - 1].is("->"))) continue;
      line = l;
      at = j;
      break;
    }
  }
  if (at == npos) return false;
  const Tokens& alloc = hunk.lines[line].tokens;
  for (std::size_t j = 0; j < at; ++j)
    for (std::string_view branch : {"if", "else", "for", "while", "case", "do"})
      if (alloc[j].is(branch)) return false;
  std::size_t call = at + dst.size() + 1;
  while (call < alloc.size() && !(alloc[call].isIdent() && call + 1 < alloc.size() && alloc[call + 1].is("("))) ++call;
  if (call >= alloc.size()) return false;
  const std::size_t callClose = matchingClose(alloc, call + 1);
  if (callClose == npos) return false;
  std::optional<std::vector<Tokens>> room;  // the first argument that is a size: malloc(n), calloc(n, 1), calloc(1, n)
  std::size_t lastLine = line;
  for (const Tokens& arg : arguments(streamFrom(hunk, line, call + 1, 0), lastLine))
    if (!room) room = roomFor(arg);
  if (!room) return false;
  std::vector<Tokens> left = *room;
  auto use = [&](const Tokens& source) {
    for (auto it = left.begin(); it != left.end(); ++it)
      if (it->size() == source.size() && sameTokens(*it, 0, source)) {
        left.erase(it);
        return true;
      }
    return false;
  };
  // What happens to dst and src from the allocation to this copy.
  for (std::size_t l = line; l <= i; ++l) {
    const Tokens& t = hunk.lines[l].tokens;
    for (std::size_t j = l == line ? callClose + 1 : 0; j < (l == i ? k : t.size()); ++j) {
      if (t[j].is("for") || t[j].is("while") || t[j].is("do") || t[j].is("goto")) return false;
      for (const Tokens* name : {&dst, &src}) {
        if (!sameTokens(t, j, *name)) continue;
        const std::size_t after = j + name->size();
        const bool written = (after < t.size() && (t[after].is("=") || t[after].is("+=") || t[after].is("-=") ||
                                                  t[after].is("++") || t[after].is("--") || t[after].is("["))) ||
                             (j > 0 && (t[j - 1].is("++") || t[j - 1].is("--") || t[j - 1].is("*")));
        if (written) return false;
        if (name != &dst || j < 2 || !t[j - 1].is("(") || after >= t.size() || !t[after].is(",")) continue;
        // dst passed first to a call: only an earlier copy of one of the sources it was sized for.
        if (!t[j - 2].is("strcpy") && !t[j - 2].is("strcat")) return false;
        const std::size_t close = matchingClose(t, j - 1);
        if (close == npos) return false;
        const Tokens earlier(t.begin() + static_cast<std::ptrdiff_t>(after + 1), t.begin() + static_cast<std::ptrdiff_t>(close));
        if (!use(earlier)) return false;
      }
    }
  }
  return use(src);
}

// Whether the call whose "(" starts the stream is closed within it (its argument count is then known).
bool closesWithin(const Stream& s) {
  int depth = 0;
  for (const Token& tok : s.tokens) {
    if (tok.is("(") || tok.is("[") || tok.is("{")) ++depth;
    else if ((tok.is(")") || tok.is("]") || tok.is("}")) && --depth == 0) return true;
  }
  return false;
}

// The call has the C function's shape: strcpy/strcat(dst, src), sprintf(dst,
// fmt, ...), vsprintf(dst, fmt, ap), the destination not a string literal.
// Another shape is another function of that name: fmt's `vsprintf(fmt, args)`
// and `sprintf("%s", n)` return a std::string and write to no buffer.
bool cStringCallShape(std::string_view name, const std::vector<Tokens>& args, bool closed) {
  const bool literalDestination = !args.empty() && !args[0].empty() &&
                                  std::all_of(args[0].begin(), args[0].end(), [](const Token& tok) { return tok.isString(); });
  if (literalDestination) return false;
  const std::size_t least = name == "vsprintf" ? 3 : 2;
  const std::size_t most = name == "sprintf" ? std::size_t(-1) : least;
  // A comma between template arguments (`std::pair<const char*, int>(u, 1).first`)
  // splits no argument: with a '<' among them, more than expected is no sign.
  const bool templateComma = std::any_of(args.begin(), args.end(), [](const Tokens& arg) {
    return std::any_of(arg.begin(), arg.end(), [](const Token& tok) { return tok.is("<"); });
  });
  if (args.size() > most && !templateComma) return false;
  return !closed || args.size() >= least;  // cut off at the span: more may follow
}

// The call at token k, whose ')' is `close`, is a whole statement: its value unused
// (strcpy and sprintf return a char* and an int; snprintf returns an int).
bool wholeStatement(const Tokens& t, std::size_t k, std::size_t close) {
  if (close + 1 >= t.size() || !t[close + 1].is(";")) return false;
  if (k >= 2 && t[k - 1].is("::") && t[k - 2].is("std")) k -= 2;  // std::sprintf(...)
  return k == 0 || t[k - 1].is(";") || t[k - 1].is("{") || t[k - 1].is("}") || t[k - 1].is("else");
}

void cStringFunctions(const ScanFile& file, const ScanHunk& hunk, std::size_t i, Findings& out) {
  const ScanLine& l = hunk.lines[i];
  const Tokens& t = l.tokens;
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (!t[k].isIdent() || !freeCall(t, k)) continue;
    const std::string_view name = t[k].text;
    if (name == "gets") {
      out.push_back(makeFinding(
          file, l.number(), l.number(),
          {Severity::Blocker, Category::Security, RuleId::GetsCall, "gets() cannot limit the input length (buffer overflow)",
           "gets reads until a newline with no bound on the destination buffer, so any long input line overflows it "
           "and overwrites the stack; it was removed from C11 for this reason.",
           "Use fgets(buf, sizeof buf, stdin) and strip the trailing newline it keeps."}));
      return;
    }
    if (name != "strcpy" && name != "strcat" && name != "sprintf" && name != "vsprintf") continue;
    const std::size_t close = matchingClose(t, k + 1);
    {
      // strcpy(dst, "literal") copies a length known when the code is written,
      // and sprintf with only numeric conversions writes a bounded length.
      std::size_t last = i;
      const Stream call = streamFrom(hunk, i, k + 1, kCallSpan);
      const auto args = arguments(call, last);
      if (!cStringCallShape(name, args, closesWithin(call))) continue;
      if (args.size() >= 2 && (name == "strcpy" || name == "strcat") && plainLiteral(args[1])) return;
      if (args.size() == 2 && (name == "strcpy" || name == "strcat") && allocatedForCopies(hunk, i, k, args[0], args[1]))
        return;
      if (args.size() >= 2 && name == "sprintf" && args[1].size() == 1 && numericFormat(args[1][0])) return;
    }
    // snprintf bounds the write by the destination's size, which `sizeof` gives
    // only for an array; so the rewrite is offered only for a visible char array.
    std::optional<contract::Edit> edit;
    if (close != npos && (name == "strcpy" || name == "sprintf") && k + 3 < close && t[k + 2].isIdent() &&
        t[k + 3].is(",") && wholeStatement(t, k, close) && charArrayInScope(hunk, i, k, t[k + 2].text)) {
      const std::string dst(t[k + 2].text);
      const std::string rest(sourceOf(l.text(), t, k + 4, close - 1));
      const std::string call = name == "strcpy" ? "snprintf(" + dst + ", sizeof " + dst + ", \"%s\", " + rest + ")"
                                                : "snprintf(" + dst + ", sizeof " + dst + ", " + rest + ")";
      std::string line(l.text());
      line.replace(t[k].begin, t[close].end - t[k].begin, call);
      edit = contract::Edit{std::string(l.text()), line};
    }
    const std::string n(name);
    out.push_back(makeFinding(
        file, l.number(), l.number(),
        {Severity::Major, Category::Security, RuleId::UnboundedCString, n + "() writes without a bound on the destination size",
         n + " copies until the source (or the formatted text) ends, whatever the size of the destination; a longer "
             "input than expected overflows the buffer and corrupts memory.",
         name == "strcat" ? "Track the remaining space and use strncat, or build the string with snprintf."
                          : "Use snprintf(dst, sizeof dst, ...) (or strlcpy where available), which truncates "
                            "instead of overflowing."},
        std::move(edit)));
    return;
  }
}

void pythonCalls(const ScanFile& file, const ScanHunk& hunk, std::size_t i, Findings& out) {
  const ScanLine& l = hunk.lines[i];
  const Tokens& t = l.tokens;
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (!t[k].isIdent()) continue;
    if ((t[k].is("eval") || t[k].is("exec")) && freeCall(t, k)) {
      std::size_t last = i;
      const auto args = arguments(streamFrom(hunk, i, k + 1, kCallSpan), last);
      if (trustedValue(file, hunk, i, args.front())) continue;
      const std::string n(t[k].text);
      out.push_back(makeFinding(
          file, l.number(), l.number(),
          {Severity::Major, Category::Security, RuleId::DynamicEval, n + "() runs a dynamically built string as Python code",
           n + " executes its argument with the full rights of the process; if any part of it comes from a user, a "
               "file or the network, that source can run arbitrary code.",
           "Parse data instead of executing it: ast.literal_eval for Python literals, json.loads for JSON, or an "
           "explicit mapping from names to functions."}));
      return;
    }
    if (t[k].is("subprocess") && k + 3 < t.size() && t[k + 1].is(".") && t[k + 3].is("(") &&
        (t[k + 2].is("run") || t[k + 2].is("call") || t[k + 2].is("Popen") || t[k + 2].is("check_call") ||
         t[k + 2].is("check_output"))) {
      std::size_t last = i;
      const auto args = arguments(streamFrom(hunk, i, k + 3, kCallSpan), last);
      bool shell = false;
      for (const auto& a : args) {
        if (a.size() == 3 && a[0].is("shell") && a[1].is("=") && a[2].is("True")) shell = true;
      }
      if (!shell || trustedValue(file, hunk, i, args.front())) continue;  // a fixed command string injects nothing
      out.push_back(makeFinding(
          file, l.number(), hunk.lines[last].number(),
          {Severity::Major, Category::Security, RuleId::ShellCommand, "subprocess called with shell=True on a built command (command injection)",
           "With shell=True the command string is interpreted by /bin/sh, so quotes, ;, | or $(...) inside any value "
           "that went into it run as shell commands.",
           "Pass the command as a list of arguments without shell=True: subprocess.run([\"tool\", arg], check=True)."}));
      return;
    }
  }
}

void javascriptCalls(const ScanFile& file, const ScanHunk& hunk, std::size_t i, Findings& out) {
  const ScanLine& l = hunk.lines[i];
  const Tokens& t = l.tokens;
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (t[k].is("eval") && freeCall(t, k)) {
      std::size_t last = i;
      const auto args = arguments(streamFrom(hunk, i, k + 1, kCallSpan), last);
      if (trustedValue(file, hunk, i, args.front())) continue;
      out.push_back(makeFinding(
          file, l.number(), l.number(),
          {Severity::Major, Category::Security, RuleId::DynamicEval, "eval() runs a dynamically built string as code",
           "eval executes its argument with the page's or the server's privileges; any user-influenced part of the "
           "string becomes code (cross-site scripting in a browser, remote code execution in Node).",
           "Use JSON.parse for data, or look the operation up in an explicit table of functions."}));
      return;
    }
    if ((t[k].is("innerHTML") || t[k].is("outerHTML")) && k > 0 && t[k - 1].is(".") && k + 1 < t.size() &&
        (t[k + 1].is("=") || t[k + 1].is("+="))) {
      // The assigned value, over the lines it continues on.
      Tokens rhs;
      const Stream s = streamFrom(hunk, i, k + 2, kCallSpan);
      for (std::size_t q = 0; q < s.tokens.size(); ++q) {
        if (s.tokens[q].is(";")) break;
        const bool newLine = q > 0 && s.lineOf[q] != s.lineOf[q - 1];
        const bool continues = rhs.empty() || rhs.back().is("+") || rhs.back().is("(") || rhs.back().is(",") ||
                               rhs.back().is("?") || rhs.back().is(":") || s.tokens[q].is("+") ||
                               s.tokens[q].is(".") || s.tokens[q].is("?") || s.tokens[q].is(":");
        if (newLine && !continues) break;
        rhs.push_back(s.tokens[q]);
      }
      // A fixed fragment, a CONSTANT icon, clearing with "": not an injection.
      if (trustedValue(file, hunk, i, rhs)) continue;
      const std::string prop(t[k].text);
      out.push_back(makeFinding(
          file, l.number(), l.number(),
          {Severity::Major, Category::Security, RuleId::RawHtml, "Dynamic content assigned to ." + prop + " (cross-site scripting)",
           "Assigning to " + prop + " parses the string as HTML; any user-controlled part of it can inject markup and "
           "script (e.g. <img src=x onerror=...>) into the page.",
           "Assign textContent for text, build nodes with createElement, or sanitize the HTML (e.g. DOMPurify.sanitize) first."}));
      return;
    }
  }
}

}  // namespace

void checkUnsafeCalls(const ScanFile& file, Findings& out) {
  if (file.lang != Language::C && file.lang != Language::Python && file.lang != Language::JavaScript) return;
  for (const auto& hunk : file.hunks) {
    for (std::size_t i = 0; i < hunk.lines.size(); ++i) {
      const ScanLine& l = hunk.lines[i];
      if (!l.added() || l.tokens.empty()) continue;
      const std::string_view s = l.text();
      switch (file.lang) {
        case Language::C:
          if (s.find("gets") != std::string_view::npos || s.find("str") != std::string_view::npos ||
              s.find("sprintf") != std::string_view::npos) cStringFunctions(file, hunk, i, out);
          break;
        case Language::Python:
          if (s.find("eval") != std::string_view::npos || s.find("exec") != std::string_view::npos ||
              s.find("subprocess") != std::string_view::npos) pythonCalls(file, hunk, i, out);
          break;
        default:
          if (s.find("eval") != std::string_view::npos || s.find("HTML") != std::string_view::npos)
            javascriptCalls(file, hunk, i, out);
          break;
      }
    }
  }
}

}  // namespace revline::builtin
