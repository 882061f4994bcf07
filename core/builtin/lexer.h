// A line-at-a-time tokenizer, just precise enough for the builtin rules: it
// separates code from comments and string literals, so that "eval" in a
// comment or `==` inside a string never looks like code.
#pragma once
#include <cstddef>
#include <string_view>
#include <vector>

#include "core/builtin/language.h"

namespace revline::builtin {

enum class TokenKind { Identifier, Number, String, Punct };

struct Token {
  TokenKind kind;
  std::size_t begin = 0, end = 0;  // byte offsets in the line
  std::string_view text;           // the whole token, for strings with prefix and quotes
  // String tokens only:
  char quote = 0;                  // '"', '\'' or '`'
  std::string_view body;           // between the quotes
  bool interpolated = false;       // f-string, template literal or C# $"" with a placeholder
  bool unterminated = false;       // continues on the next line (triple quotes, templates)

  bool is(std::string_view s) const { return kind != TokenKind::String && text == s; }
  bool isString() const { return kind == TokenKind::String; }
  bool isIdent() const { return kind == TokenKind::Identifier; }
};

// What carries over from one line to the next: we may be inside a block
// comment or a multi-line string. A hunk is assumed to start in code.
struct LexState {
  // Verbatim: inside a C# @"..." string, which may span lines ("" is its quote).
  enum class Mode { Code, BlockComment, TripleDouble, TripleSingle, Template, Verbatim } mode = Mode::Code;
};

std::vector<Token> lexLine(std::string_view line, Language lang, LexState& state);

}  // namespace revline::builtin
