// Java equality mistakes: `==` on Strings compares references, and
// BigDecimal.equals compares scale as well as value.
#include <string>

#include "core/builtin/rule_sets.h"

namespace revline::builtin {
namespace {

using contract::Category;
using contract::Severity;

bool isStringLiteral(const Token& t) { return t.isString() && t.quote == '"' && !t.unterminated; }

struct Rewrite {
  std::size_t begin, end;  // byte range in the line
  std::string text;
};

std::string applyRewrites(std::string_view line, const std::vector<Rewrite>& rewrites) {
  std::string out;
  std::size_t at = 0;
  for (const auto& r : rewrites) {
    out.append(line.substr(at, r.begin - at));
    out += r.text;
    at = r.end;
  }
  out.append(line.substr(at));
  return out;
}

// `x == "A"` / `"A" != x` at operator index `op`. Returns false when this is no
// String identity comparison; sets `rewrite` when the fix is certain.
bool stringComparison(std::string_view line, const Tokens& t, std::size_t op, std::optional<Rewrite>& rewrite) {
  if (op == 0 || op + 1 >= t.size()) return false;
  const bool literalRight = isStringLiteral(t[op + 1]);
  const bool literalLeft = isStringLiteral(t[op - 1]);
  if (!literalRight && !literalLeft) return false;
  std::size_t first, last, literal;
  if (literalRight) {
    literal = op + 1;
    first = operandStart(t, op - 1);
    last = literal;
    if (first != npos && t[first].is("null")) return false;
    if (literalLeft) first = op - 1;
  } else {
    literal = op - 1;
    const std::size_t end = operandEnd(t, op + 1);
    if (t[op + 1].is("null")) return false;
    first = literal;
    last = end;
  }
  if (first == npos || last == npos) return true;  // a String comparison, but no certain rewrite
  const std::size_t otherFirst = literalRight ? first : op + 1;
  const std::size_t otherLast = literalRight ? op - 1 : last;
  if (!looseBefore(t, first) || !looseAfter(t, last)) return true;
  const std::string other(sourceOf(line, t, otherFirst, otherLast));
  const std::string call = std::string(t[literal].text) + ".equals(" + other + ")";
  rewrite = Rewrite{t[first].begin, t[last].end, (t[op].is("!=") ? "!" : "") + call};
  return true;
}

}  // namespace

void checkJavaStringIdentity(const ScanFile& file, Findings& out) {
  if (file.lang != Language::Java) return;
  for (const auto& hunk : file.hunks) {
    for (const auto& l : hunk.lines) {
      if (!l.added()) continue;
      const std::string_view text = l.text();
      if (text.find('"') == std::string_view::npos ||
          (text.find("==") == std::string_view::npos && text.find("!=") == std::string_view::npos)) continue;
      const Tokens& t = l.tokens;
      bool found = false, certain = true;
      std::vector<Rewrite> rewrites;
      for (std::size_t k = 0; k < t.size(); ++k) {
        if (!t[k].is("==") && !t[k].is("!=")) continue;
        std::optional<Rewrite> rw;
        if (!stringComparison(text, t, k, rw)) continue;
        found = true;
        if (rw) rewrites.push_back(*rw); else certain = false;
      }
      if (!found) continue;
      std::optional<contract::Edit> edit;
      if (certain && !rewrites.empty()) edit = contract::Edit{std::string(text), applyRewrites(text, rewrites)};
      out.push_back(makeFinding(
          file, l.number(), l.number(),
          {Severity::Major, Category::Correctness, RuleId::StringIdentity, "String compared with == / != instead of equals()",
           "In Java, == and != on Strings compare object references, not contents. A String read from a request, "
           "a database or built at run time is a different object from the literal, so the comparison gives the "
           "wrong answer even when the text is identical; it only appears to work for interned constants.",
           "Compare contents with the literal first, which is also null-safe: \"VALUE\".equals(x) "
           "(negate it for !=)."},
          std::move(edit)));
    }
  }
}

namespace {

// BigDecimal.ZERO / ONE / TEN, BigDecimal.valueOf(...) or new BigDecimal(...)
// starting at index k.
bool bigDecimalExpression(const Tokens& t, std::size_t k) {
  if (k + 2 < t.size() && t[k].is("BigDecimal") && t[k + 1].is(".") &&
      (t[k + 2].is("ZERO") || t[k + 2].is("ONE") || t[k + 2].is("TEN") || t[k + 2].is("valueOf"))) return true;
  return k + 1 < t.size() && t[k].is("new") && t[k + 1].is("BigDecimal");
}

// `BigDecimal name` (a parameter, a local or a field) among the known lines.
bool declaredBigDecimal(const ScanFile& file, std::string_view name) {
  bool found = false;
  file.forEachKnownLine([&](const Tokens& t, std::string_view) {
    for (std::size_t k = 0; k + 1 < t.size() && !found; ++k)
      found = t[k].is("BigDecimal") && t[k + 1].isIdent() && t[k + 1].text == name;
  });
  return found;
}

}  // namespace

void checkBigDecimalEquals(const ScanFile& file, Findings& out) {
  if (file.lang != Language::Java) return;
  for (const auto& hunk : file.hunks) {
    for (const auto& l : hunk.lines) {
      if (!l.added() || l.text().find(".equals(") == std::string_view::npos) continue;
      const Tokens& t = l.tokens;
      for (std::size_t name = findCall(t, "equals"); name != npos; name = findCall(t, "equals", name + 1)) {
        const std::size_t open = name + 1, close = matchingClose(t, open);
        const std::size_t receiver = name >= 2 ? operandStart(t, name - 2) : npos;
        const bool argIsBigDecimal = bigDecimalExpression(t, open + 1);
        const bool receiverIsBigDecimal = receiver != npos && bigDecimalExpression(t, receiver);
        // a.equals(b) where both are declared BigDecimal (typed parameters, locals, fields).
        const bool typedOperands = receiver != npos && receiver == name - 2 && t[receiver].isIdent() &&
                                   close == open + 2 && t[open + 1].isIdent() &&
                                   declaredBigDecimal(file, t[receiver].text) && declaredBigDecimal(file, t[open + 1].text);
        if (!argIsBigDecimal && !receiverIsBigDecimal && !typedOperands) continue;

        std::optional<contract::Edit> edit;
        if (receiver != npos && close != npos && close > open + 1) {
          const bool negated = receiver > 0 && t[receiver - 1].is("!");
          const std::size_t first = negated ? receiver - 1 : receiver;
          if (looseBefore(t, first) && looseAfter(t, close)) {
            const std::string_view text = l.text();
            const std::string replacement = std::string(sourceOf(text, t, receiver, name - 2)) + ".compareTo(" +
                                            std::string(sourceOf(text, t, open + 1, close - 1)) + ")" +
                                            (negated ? " != 0" : " == 0");
            std::string line(text);
            line.replace(t[first].begin, t[close].end - t[first].begin, replacement);
            edit = contract::Edit{std::string(text), line};
          }
        }
        out.push_back(makeFinding(
            file, l.number(), l.number(),
            {Severity::Major, Category::Correctness, RuleId::BigDecimalEquals, "BigDecimal compared with equals(), which also compares scale",
             "BigDecimal.equals is true only when value AND scale match: new BigDecimal(\"0.00\").equals(BigDecimal.ZERO) "
             "is false. Amounts parsed from input or produced by arithmetic usually carry a scale, so this check "
             "silently fails for values that are numerically equal.",
             "Compare numerically: a.compareTo(b) == 0 (or a.signum() == 0 for a zero check)."},
            std::move(edit)));
        break;  // one finding per line
      }
    }
  }
}

}  // namespace revline::builtin
