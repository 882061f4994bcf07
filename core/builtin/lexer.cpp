#include "core/builtin/lexer.h"

#include <array>
#include <cctype>
#include <string>

namespace revline::builtin {
namespace {

bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

bool cLike(Language lang) { return lang != Language::Python && lang != Language::Other; }
bool hasTripleQuotes(Language lang) {
  return lang == Language::Python || lang == Language::Java || lang == Language::CSharp;
}

// Returns true when `body` has a placeholder: "{x}" (not "{{") or "${x}".
bool hasBracePlaceholder(std::string_view body) {
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '{') continue;
    if (i + 1 < body.size() && body[i + 1] == '{') { ++i; continue; }
    return true;
  }
  return false;
}

struct Prefix {
  bool interpolating = false;  // f"" / $""
  bool raw = false;            // backslash is not an escape
  bool verbatim = false;       // C# @"": "" is the escape
  bool cppRaw = false;         // C++ R"delim( ... )delim"
};

// Recognises a string prefix made of identifier characters (or C#'s $ and @)
// directly before a quote. Returns false when `word` is an ordinary identifier.
bool stringPrefix(std::string_view word, Language lang, Prefix& p) {
  if (word.empty() || word.size() > 3) return false;
  if (lang == Language::Python) {
    for (char c : word) {
      switch (std::tolower(static_cast<unsigned char>(c))) {
        case 'f': p.interpolating = true; break;
        case 'r': p.raw = true; break;
        case 'b': case 'u': break;
        default: return false;
      }
    }
    return true;
  }
  if (lang == Language::CSharp) {
    for (char c : word) {
      if (c == '$') p.interpolating = true;
      else if (c == '@') p.verbatim = true;
      else return false;
    }
    return true;
  }
  if (lang == Language::C) {
    static constexpr std::array<std::string_view, 9> prefixes{"L", "u", "U", "u8", "R", "LR", "uR", "UR", "u8R"};
    for (auto candidate : prefixes) {
      if (candidate == word) { p.cppRaw = word.back() == 'R'; return true; }
    }
  }
  return false;
}

class LineLexer {
 public:
  LineLexer(std::string_view line, Language lang, LexState& state) : s_(line), lang_(lang), state_(state) {}

  std::vector<Token> run() {
    resumeMultiLine();
    if (atStartOfLine() && javadocContinuation()) return {};
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (std::isspace(static_cast<unsigned char>(c))) { ++i_; continue; }
      if (startsComment()) continue;
      if (c == '"' || c == '\'' || (c == '`' && (lang_ == Language::JavaScript || lang_ == Language::Go))) {
        lexString(i_, i_, Prefix{});
        continue;
      }
      if ((c == '$' || c == '@') && lang_ == Language::CSharp) {
        std::size_t j = i_;
        while (j < s_.size() && (s_[j] == '$' || s_[j] == '@')) ++j;
        Prefix p;
        if (j < s_.size() && s_[j] == '"' && stringPrefix(s_.substr(i_, j - i_), lang_, p)) {
          lexString(i_, j, p);
          continue;
        }
      }
      if (identStart(c)) { lexWord(); continue; }
      if (std::isdigit(static_cast<unsigned char>(c))) { lexNumber(); continue; }
      lexPunct();
    }
    return std::move(tokens_);
  }

 private:
  bool atStartOfLine() const {
    for (std::size_t k = 0; k < i_; ++k) if (!std::isspace(static_cast<unsigned char>(s_[k]))) return false;
    return true;
  }

  // " * text" inside a doc comment whose opening line the hunk does not show.
  // Not for C, where a line may start with a pointer dereference.
  bool javadocContinuation() const {
    if (!cLike(lang_) || lang_ == Language::C) return false;
    std::size_t k = i_;
    while (k < s_.size() && std::isspace(static_cast<unsigned char>(s_[k]))) ++k;
    if (k >= s_.size() || s_[k] != '*') return false;
    return k + 1 == s_.size() || s_[k + 1] == ' ' || s_[k + 1] == '/' || s_[k + 1] == '\t';
  }

  void resumeMultiLine() {
    using Mode = LexState::Mode;
    switch (state_.mode) {
      case Mode::Code: return;
      case Mode::BlockComment: {
        const auto end = s_.find("*/");
        if (end == std::string_view::npos) { i_ = s_.size(); return; }
        i_ = end + 2;
        break;
      }
      case Mode::TripleDouble:
      case Mode::TripleSingle: {
        const auto end = s_.find(state_.mode == Mode::TripleDouble ? "\"\"\"" : "'''");
        if (end == std::string_view::npos) { i_ = s_.size(); return; }
        i_ = end + 3;
        break;
      }
      case Mode::Template: {
        std::size_t k = 0;
        while (k < s_.size() && s_[k] != '`') k += s_[k] == '\\' ? 2 : 1;
        if (k >= s_.size()) { i_ = s_.size(); return; }
        i_ = k + 1;
        break;
      }
      case Mode::Verbatim: {
        std::size_t k = 0;
        while (k < s_.size() && !(s_[k] == '"' && (k + 1 >= s_.size() || s_[k + 1] != '"'))) k += s_[k] == '"' ? 2 : 1;
        if (k >= s_.size()) { i_ = s_.size(); return; }
        i_ = k + 1;
        break;
      }
    }
    state_.mode = LexState::Mode::Code;
  }

  bool startsComment() {
    const std::string_view rest = s_.substr(i_);
    if (lang_ == Language::Python || lang_ == Language::Other) {
      if (lang_ == Language::Python && rest.front() == '#') { i_ = s_.size(); return true; }
      return false;
    }
    if (rest.starts_with("//")) { i_ = s_.size(); return true; }
    if (rest.starts_with("/*")) {
      const auto end = s_.find("*/", i_ + 2);
      if (end == std::string_view::npos) {
        state_.mode = LexState::Mode::BlockComment;
        i_ = s_.size();
      } else {
        i_ = end + 2;
      }
      return true;
    }
    return false;
  }

  void lexWord() {
    const std::size_t start = i_;
    while (i_ < s_.size() && identChar(s_[i_])) ++i_;
    if (i_ < s_.size() && (s_[i_] == '"' || (s_[i_] == '\'' && lang_ == Language::Python))) {
      Prefix p;
      if (stringPrefix(s_.substr(start, i_ - start), lang_, p)) { lexString(start, i_, p); return; }
    }
    push(TokenKind::Identifier, start, i_);
  }

  void lexNumber() {
    const std::size_t start = i_;
    while (i_ < s_.size() && (identChar(s_[i_]) || s_[i_] == '.')) ++i_;
    push(TokenKind::Number, start, i_);
  }

  void lexPunct() {
    static constexpr std::array<std::string_view, 20> multi{
        "===", "!==", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=", "*=", "%=",
        "->", "::", "=>", ":=", "++", "--", "**", "??"};
    for (auto op : multi) {
      if (s_.substr(i_).starts_with(op)) {
        push(TokenKind::Punct, i_, i_ + op.size());
        i_ += op.size();
        return;
      }
    }
    push(TokenKind::Punct, i_, i_ + 1);
    ++i_;
  }

  // `start` is where the token begins (prefix included), `q` the opening quote.
  void lexString(std::size_t start, std::size_t q, Prefix p) {
    const char quote = s_[q];
    Token t{TokenKind::String};
    t.quote = quote;
    t.begin = start;
    const bool triple = hasTripleQuotes(lang_) && quote != '`' && q + 2 < s_.size() && s_[q + 1] == quote &&
                        s_[q + 2] == quote;
    std::size_t bodyStart = q + (triple ? 3 : 1);
    std::size_t k = bodyStart;
    bool closed = false;
    std::size_t bodyEnd = s_.size();
    if (p.cppRaw) {
      const auto paren = s_.find('(', bodyStart);
      const std::string delim = paren == std::string_view::npos ? "" : ")" + std::string(s_.substr(bodyStart, paren - bodyStart)) + "\"";
      const auto close = paren == std::string_view::npos ? std::string_view::npos : s_.find(delim, paren);
      if (close != std::string_view::npos) { bodyStart = paren + 1; bodyEnd = close; k = close + delim.size(); closed = true; }
    } else if (triple) {
      const auto close = s_.find(s_.substr(q, 3), bodyStart);
      if (close != std::string_view::npos) { bodyEnd = close; k = close + 3; closed = true; }
    } else {
      const bool backslashEscapes = !p.raw && !p.verbatim && !(quote == '`' && lang_ == Language::Go);
      while (k < s_.size()) {
        if (s_[k] == '\\' && (backslashEscapes || (p.raw && k + 1 < s_.size() && s_[k + 1] == quote))) { k += 2; continue; }
        if (s_[k] == quote) {
          if (p.verbatim && k + 1 < s_.size() && s_[k + 1] == quote) { k += 2; continue; }
          bodyEnd = k;
          ++k;
          closed = true;
          break;
        }
        ++k;
      }
      if (k > s_.size()) k = s_.size();
    }
    if (!closed) {
      k = s_.size();
      bodyEnd = s_.size();
      t.unterminated = true;
      if (triple) state_.mode = quote == '"' ? LexState::Mode::TripleDouble : LexState::Mode::TripleSingle;
      else if (quote == '`' && lang_ == Language::JavaScript) state_.mode = LexState::Mode::Template;
      else if (p.verbatim && quote == '"') state_.mode = LexState::Mode::Verbatim;  // C# @"...", on to a later line
    }
    t.end = k;
    t.text = s_.substr(start, k - start);
    t.body = s_.substr(bodyStart, bodyEnd - bodyStart);
    if (quote == '`' && lang_ == Language::JavaScript) t.interpolated = t.body.find("${") != std::string_view::npos;
    else if (p.interpolating) t.interpolated = hasBracePlaceholder(t.body);
    tokens_.push_back(t);
    i_ = k;
  }

  void push(TokenKind kind, std::size_t b, std::size_t e) {
    Token t{kind};
    t.begin = b;
    t.end = e;
    t.text = s_.substr(b, e - b);
    tokens_.push_back(t);
  }

  std::string_view s_;
  Language lang_;
  LexState& state_;
  std::size_t i_ = 0;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> lexLine(std::string_view line, Language lang, LexState& state) {
  return LineLexer(line, lang, state).run();
}

}  // namespace revline::builtin
