// SQL injection: text built by concatenation, interpolation or formatting that
// reaches a query/execute call, directly or through a variable assigned a few
// lines earlier in the same hunk.
#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string>

#include "core/builtin/rule_sets.h"
#include "core/builtin/value_flow.h"

namespace revline::builtin {
namespace {

using contract::Category;
using contract::Severity;

constexpr std::size_t kLookback = 8;      // lines searched above the call for the SQL variable
constexpr std::size_t kContinuation = 4;  // lines an argument list or assignment may span
constexpr std::size_t kWholeCall = 40;    // lines read to judge where a call's whole argument comes from

struct Sink {
  std::string_view name;
  std::size_t argIndex;  // which argument holds the SQL text
  bool constructor;      // `new Name(` instead of `.name(`
};

const std::vector<Sink>& sinksFor(Language lang) {
  static const std::vector<Sink> java{{"executeQuery", 0, false}, {"executeUpdate", 0, false}, {"executeLargeUpdate", 0, false},
                                      {"execute", 0, false}, {"addBatch", 0, false}, {"prepareStatement", 0, false},
                                      {"prepareCall", 0, false}, {"createQuery", 0, false}, {"createNativeQuery", 0, false},
                                      {"createSQLQuery", 0, false}, {"query", 0, false}, {"queryForObject", 0, false},
                                      {"queryForList", 0, false}, {"queryForMap", 0, false}, {"queryForRowSet", 0, false},
                                      {"update", 0, false}, {"batchUpdate", 0, false}};
  static const std::vector<Sink> python{{"execute", 0, false}, {"executemany", 0, false}, {"executescript", 0, false},
                                        {"raw", 0, false}, {"read_sql", 0, false}, {"read_sql_query", 0, false},
                                        {"mogrify", 0, false}};
  static const std::vector<Sink> js{{"query", 0, false}, {"execute", 0, false}, {"raw", 0, false},
                                    {"$queryRawUnsafe", 0, false}, {"$executeRawUnsafe", 0, false}};
  static const std::vector<Sink> go{{"Query", 0, false}, {"QueryRow", 0, false}, {"Exec", 0, false}, {"Prepare", 0, false},
                                    {"Raw", 0, false}, {"QueryContext", 1, false}, {"QueryRowContext", 1, false},
                                    {"ExecContext", 1, false}, {"PrepareContext", 1, false}};
  static const std::vector<Sink> csharp{
      {"SqlCommand", 0, true}, {"NpgsqlCommand", 0, true}, {"MySqlCommand", 0, true}, {"OracleCommand", 0, true},
      {"SqliteCommand", 0, true}, {"SQLiteCommand", 0, true}, {"OleDbCommand", 0, true}, {"OdbcCommand", 0, true},
      {"ExecuteSqlRaw", 0, false}, {"ExecuteSqlRawAsync", 0, false}, {"FromSqlRaw", 0, false}, {"SqlQueryRaw", 0, false},
      {"Query", 0, false}, {"QueryAsync", 0, false}, {"QueryFirst", 0, false}, {"QueryFirstOrDefault", 0, false},
      {"QuerySingle", 0, false}, {"QuerySingleOrDefault", 0, false}, {"Execute", 0, false}, {"ExecuteAsync", 0, false},
      {"ExecuteScalar", 0, false}, {"ExecuteReader", 0, false}, {"ExecuteNonQuery", 0, false}};
  static const std::vector<Sink> none;
  switch (lang) {
    case Language::Java: return java;
    case Language::Python: return python;
    case Language::JavaScript: return js;
    case Language::Go: return go;
    case Language::CSharp: return csharp;
    default: return none;
  }
}

bool looksLikeSql(std::string_view body) {
  // JDBC escape syntax for stored procedures: "{call proc(?)}", "{? = call f(?)}".
  if (body.find("{call") != std::string_view::npos || body.find("{ call") != std::string_view::npos ||
      body.find("= call ") != std::string_view::npos) return true;
  static constexpr std::array<std::string_view, 15> keywords{"select", "insert", "update", "delete", "where",
                                                             "from",   "values", "set",    "join",   "drop",
                                                             "create", "alter",  "truncate", "merge", "having"};
  std::string word;
  auto check = [&] {
    const bool hit = std::find(keywords.begin(), keywords.end(), word) != keywords.end();
    word.clear();
    return hit;
  };
  for (char c : body) {
    if (std::isalpha(static_cast<unsigned char>(c))) word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!word.empty() && check()) return true;
  }
  return !word.empty() && check();
}

enum class Build { None, Concatenation, Interpolation, Formatting };

struct Taint {
  Build build = Build::None;
  bool sql = false;  // some literal in the expression looks like SQL
  void merge(const Taint& o) {
    if (build == Build::None) build = o.build;
    sql = sql || o.sql;
  }
};

// A value that cannot carry user input: a plain literal, a number, a CONSTANT.
bool constantAt(const Tokens& t, std::size_t k) {
  if (k >= t.size()) return true;
  const Token& tok = t[k];
  if (tok.isString()) return !tok.interpolated;
  if (tok.kind == TokenKind::Number) return true;
  if (!tok.isIdent() || !isConstantName(tok.text)) return false;
  return !(k + 1 < t.size() && (t[k + 1].is("(") || t[k + 1].is(".") || t[k + 1].is("[")));
}

// Arguments of Sprintf/format after the format string, when any is not constant.
bool formatsVariables(const Tokens& t, std::size_t open) {
  int depth = 0;
  bool afterFormat = false;
  for (std::size_t k = open; k < t.size(); ++k) {
    if (t[k].is("(") || t[k].is("[") || t[k].is("{")) ++depth;
    else if (t[k].is(")") || t[k].is("]") || t[k].is("}")) { if (--depth == 0) return false; }
    else if (depth == 1 && t[k].is(",")) afterFormat = true;
    else if (afterFormat && !constantAt(t, k) && !t[k].is(".")) return true;
  }
  return false;
}

Taint analyze(const Tokens& t, Language lang) {
  Taint r;
  int depth = 0;
  for (std::size_t k = 0; k < t.size(); ++k) {
    const Token& tok = t[k];
    if (tok.isString() && looksLikeSql(tok.body)) r.sql = true;
    if (tok.is("(") || tok.is("[") || tok.is("{")) {
      // fmt.Sprintf / String.format / string.Format with a SQL format string.
      if (k > 0 && (t[k - 1].is("Sprintf") || t[k - 1].is("format") || t[k - 1].is("Format")) && k + 1 < t.size() &&
          t[k + 1].isString() && formatsVariables(t, k) && r.build == Build::None) r.build = Build::Formatting;
      ++depth;
      continue;
    }
    if (tok.is(")") || tok.is("]") || tok.is("}")) { --depth; continue; }
    if (depth != 0 || r.build != Build::None) continue;
    if (tok.isString() && tok.interpolated) {
      // sql`...` and Prisma's $queryRaw`...` are tagged templates that bind parameters.
      const bool tagged = lang == Language::JavaScript && k > 0 && (t[k - 1].isIdent() || t[k - 1].is(")"));
      if (!tagged) r.build = Build::Interpolation;
    } else if (tok.is("+")) {
      // An operand that is not a literal or CONSTANT (a variable, a call's result) is data.
      if (!constantAt(t, k + 1) || (k > 0 && !constantAt(t, k - 1))) r.build = Build::Concatenation;
    } else if (lang == Language::Python && tok.isString() && k + 1 < t.size()) {
      if (t[k + 1].is("%")) r.build = Build::Formatting;
      if (k + 2 < t.size() && t[k + 1].is(".") && t[k + 2].is("format")) r.build = Build::Formatting;
    }
  }
  return r;
}

// The right-hand side of an assignment starting at the stream's first token,
// up to ";" or the end of a line that does not continue.
Tokens rightHandSide(const Stream& s, std::size_t& lastLine) {
  Tokens out;
  int depth = 0;
  for (std::size_t k = 0; k < s.tokens.size(); ++k) {
    const Token& tok = s.tokens[k];
    if (depth == 0 && tok.is(";")) break;
    if (k > 0 && s.lineOf[k] != s.lineOf[k - 1] && depth == 0 && !out.empty() && !out.back().is("+") && !tok.is("+")) break;
    if (tok.is("(") || tok.is("[") || tok.is("{")) ++depth;
    if (tok.is(")") || tok.is("]") || tok.is("}")) --depth;
    out.push_back(tok);
    lastLine = s.lineOf[k];
  }
  return out;
}

struct Origin {
  Taint taint;
  std::size_t firstLine = npos;  // hunk index of the earliest assignment that builds the SQL
  std::size_t lastLine = 0;
};

// Follows `variable` back through its assignments (`=`, `+=`, `:=`) above the call.
Origin traceVariable(const ScanHunk& hunk, std::size_t callLine, std::size_t callToken, std::string_view variable,
                     Language lang) {
  Origin o;
  for (std::size_t l = callLine + 1; l-- > 0 && l + kLookback >= callLine;) {
    const Tokens& t = hunk.lines[l].tokens;
    const std::size_t end = l == callLine ? callToken : t.size();
    bool initial = false;
    for (std::size_t k = end; k-- > 0;) {
      if (!(t[k].isIdent() && t[k].text == variable && k + 1 < t.size())) continue;
      const Token& op = t[k + 1];
      if (!op.is("=") && !op.is("+=") && !op.is(":=")) continue;
      if (k > 0 && t[k - 1].is(".")) continue;  // other.sql = ...
      std::size_t last = l;
      const Tokens rhs = rightHandSide(streamFrom(hunk, l, k + 2, kContinuation), last);
      Taint taint = analyze(rhs, lang);
      if (op.is("+=") && !rhs.empty() && !constantAt(rhs, 0) && rhs.size() == 1) taint.build = Build::Concatenation;
      o.taint.merge(taint);
      if (taint.build != Build::None || o.firstLine != npos) o.firstLine = l;
      o.lastLine = std::max(o.lastLine, last);
      initial = !op.is("+=");
      break;
    }
    if (initial) break;  // the first assignment: nothing before it matters
  }
  return o;
}

std::string fixFor(Language lang) {
  switch (lang) {
    case Language::Java:
      return "Use a PreparedStatement with ? placeholders and bind the values: "
             "ps = conn.prepareStatement(\"... WHERE id = ?\"); ps.setString(1, id); (JPA: named parameters and setParameter).";
    case Language::Python:
      return "Pass the values separately and let the driver bind them: cursor.execute(\"... WHERE id = %s\", (id,)).";
    case Language::JavaScript:
      return "Use placeholders and pass the values as an array: db.query(\"... WHERE id = $1\", [id]) (or ? for MySQL).";
    case Language::Go:
      return "Use placeholders and pass the values as arguments: db.Query(\"... WHERE id = $1\", id) (or ? for MySQL).";
    case Language::CSharp:
      return "Use parameters: \"... WHERE id = @id\" with cmd.Parameters.AddWithValue(\"@id\", id), "
             "or EF Core's FromSqlInterpolated/ExecuteSqlInterpolated.";
    default:
      return "Use the driver's parameter placeholders instead of building SQL text.";
  }
}

std::string_view buildWord(Build b) {
  switch (b) {
    case Build::Concatenation: return "string concatenation";
    case Build::Interpolation: return "string interpolation";
    case Build::Formatting: return "string formatting";
    case Build::None: break;
  }
  return "string building";
}

bool anyAdded(const ScanHunk& hunk, std::size_t from, std::size_t to) {
  for (std::size_t l = from; l <= to && l < hunk.lines.size(); ++l) if (hunk.lines[l].added()) return true;
  return false;
}

// Index of "(" after a sink name, skipping generic arguments (Query<User>(...)).
std::size_t openParenAfter(const Tokens& t, std::size_t name) {
  std::size_t k = name + 1;
  if (k < t.size() && t[k].is("<")) {
    int depth = 0;
    for (; k < t.size(); ++k) {
      if (t[k].is("<")) ++depth;
      else if (t[k].is(">") && --depth == 0) break;
    }
    ++k;
  }
  return k < t.size() && t[k].is("(") ? k : npos;
}

// The sink's argument read whole (a .format( call may span many lines): from
// the new file when known, else from the hunk.
Tokens wholeArgument(const ScanFile& file, const ScanHunk& hunk, std::size_t i, std::size_t open, std::size_t argIndex,
                     std::size_t assignAt) {
  Stream s;
  const auto n = static_cast<std::size_t>(hunk.lines[i].number());
  if (file.fullText && n >= 1 && n <= file.fullTokens.size() && hunk.lines[i].tokens.size() == file.fullTokens[n - 1].size()) {
    for (std::size_t l = n - 1; l < file.fullTokens.size() && l <= n - 1 + kWholeCall; ++l) {
      const Tokens& t = file.fullTokens[l];
      for (std::size_t k = l == n - 1 ? (open == npos ? assignAt : open) : 0; k < t.size(); ++k) {
        s.tokens.push_back(t[k]);
        s.lineOf.push_back(l);
      }
    }
  } else {
    s = streamFrom(hunk, i, open == npos ? assignAt : open, kWholeCall);
  }
  std::size_t last = 0;
  if (open == npos) return rightHandSide(s, last);
  auto args = arguments(s, last);
  return args.size() > argIndex ? std::move(args[argIndex]) : Tokens{};
}

}  // namespace

void checkSqlInjection(const ScanFile& file, Findings& out) {
  const auto& sinks = sinksFor(file.lang);
  if (sinks.empty()) return;
  for (const auto& hunk : file.hunks) {
    std::optional<ValueFlow> flow;  // built on the first candidate: most hunks have none
    std::set<std::size_t> reported;
    for (std::size_t i = 0; i < hunk.lines.size(); ++i) {
      const ScanLine& line = hunk.lines[i];
      const Tokens& t = line.tokens;
      for (std::size_t k = 0; k < t.size() && !reported.count(i); ++k) {
        if (!t[k].isIdent()) continue;
        std::size_t argIndex = 0;
        std::size_t open = npos;
        std::string_view sinkName;
        if (file.lang == Language::CSharp && t[k].is("CommandText") && k + 1 < t.size() && t[k + 1].is("=")) {
          sinkName = "CommandText";
        } else {
          const auto sink = std::find_if(sinks.begin(), sinks.end(), [&](const Sink& s) { return t[k].text == s.name; });
          if (sink == sinks.end() || k == 0) continue;
          if (sink->constructor ? !t[k - 1].is("new") : !t[k - 1].is(".")) continue;
          open = openParenAfter(t, k);
          if (open == npos) continue;
          argIndex = sink->argIndex;
          sinkName = sink->name;
        }
        std::size_t lastLine = i;
        Tokens arg;
        if (open == npos) {
          arg = rightHandSide(streamFrom(hunk, i, k + 2, kContinuation), lastLine);
        } else {
          auto args = arguments(streamFrom(hunk, i, open, kContinuation), lastLine);
          if (args.size() <= argIndex) continue;
          arg = std::move(args[argIndex]);
        }
        if (arg.empty()) continue;

        Taint taint = analyze(arg, file.lang);
        std::size_t firstLine = i;
        if (arg.size() == 1 && arg[0].isIdent() && !isConstantName(arg[0].text)) {
          const Origin origin = traceVariable(hunk, i, k, arg[0].text, file.lang);
          if (origin.firstLine == npos) continue;
          taint = origin.taint;
          firstLine = origin.firstLine;
        }
        if (sinkName == "prepareCall") taint.sql = true;  // its text is SQL whatever it looks like
        if (taint.build == Build::None || !taint.sql) continue;
        if (!anyAdded(hunk, firstLine, lastLine)) continue;
        // Built, but only from values that cannot come from outside the function.
        if (!flow) flow.emplace(ValueFlow::forHunk(file, hunk));
        if (flow->trusted(wholeArgument(file, hunk, i, open, argIndex, k + 2), flow->positionOf(file, hunk, i))) continue;
        reported.insert(i);
        const std::string how(buildWord(taint.build));
        out.push_back(makeFinding(
            file, hunk.lines[firstLine].number(), hunk.lines[lastLine].number(),
            {Severity::Blocker, Category::Security, RuleId::SqlInjection,
             "SQL built by " + how + " is passed to " + std::string(sinkName) + " (SQL injection)",
             "The SQL text is assembled from values with " + how +
                 ", so whatever those values contain becomes part of the statement: an id such as ' OR '1'='1 "
                 "changes the query to read or modify other rows, or run a different statement. Once data and SQL "
                 "are one string the driver cannot tell them apart.",
             fixFor(file.lang)}));
      }
    }
  }
}

}  // namespace revline::builtin
