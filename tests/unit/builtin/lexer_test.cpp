// The line tokenizer: code is separated from comments and literals, and
// multi-line comments and strings carry over between lines.
#include "core/builtin/lexer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace revline::builtin {
namespace {

// Token texts of each line, lexed in sequence.
std::vector<std::vector<std::string>> lex(const std::vector<std::string>& lines, Language lang) {
  LexState state;
  std::vector<std::vector<std::string>> out;
  for (const auto& l : lines) {
    out.emplace_back();
    for (const auto& t : lexLine(l, lang, state)) out.back().emplace_back(t.text);
  }
  return out;
}

using Lines = std::vector<std::vector<std::string>>;

TEST(Lexer, SplitsCodeStringsAndOperators) {
  EXPECT_EQ(lex({"if (a != \"x\\\"y\" && b == 'c') // done"}, Language::Java),
            (Lines{{"if", "(", "a", "!=", "\"x\\\"y\"", "&&", "b", "==", "'c'", ")"}}));
}

TEST(Lexer, BlockCommentsSpanLines) {
  EXPECT_EQ(lex({"x = 1; /* eval(", "still eval( */ y", " * javadoc eval("}, Language::JavaScript),
            (Lines{{"x", "=", "1", ";"}, {"y"}, {}}));
}

TEST(Lexer, PythonPrefixesTripleQuotesAndComments) {
  LexState state;
  const auto t = lexLine("q = f'id = {x}' + rb\"\\d\" # eval(x)", Language::Python, state);
  ASSERT_EQ(t.size(), 5u);
  EXPECT_TRUE(t[2].isString());
  EXPECT_TRUE(t[2].interpolated);
  EXPECT_EQ(t[2].body, "id = {x}");
  EXPECT_TRUE(t[4].isString());
  EXPECT_FALSE(t[4].interpolated);
  EXPECT_EQ(lex({"s = \"\"\"start", "eval(x)", "end\"\"\" + y"}, Language::Python),
            (Lines{{"s", "=", "\"\"\"start"}, {}, {"+", "y"}}));
}

TEST(Lexer, TemplateLiteralsAndCSharpStrings) {
  LexState state;
  auto t = lexLine("q(`a ${b} c`, 'd')", Language::JavaScript, state);
  ASSERT_EQ(t.size(), 6u);
  EXPECT_TRUE(t[2].interpolated);
  t = lexLine("var s = $@\"a \"\"{b}\"\" c\" + @\"x\\\";", Language::CSharp, state);
  ASSERT_EQ(t.size(), 7u);
  EXPECT_TRUE(t[3].interpolated);
  EXPECT_EQ(t[3].body, "a \"\"{b}\"\" c");
  EXPECT_EQ(t[5].body, "x\\");
  EXPECT_FALSE(lexLine("var s = $\"{{literal}}\";", Language::CSharp, state)[3].interpolated);
}

}  // namespace
}  // namespace revline::builtin
