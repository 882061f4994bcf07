#include "core/contract/json_repair.h"

#include <algorithm>
#include <array>

namespace revline::contract {
namespace {

// The report is four levels deep; anything far deeper is not a report, and
// the limit keeps recursion off the stack's edge.
constexpr int kMaxDepth = 64;
constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";  // U+FFFD

struct Failure {
  ReadStatus status;
  std::size_t pos;
  std::string what;
  std::string pointer;
};

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$'; }
bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }
int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void appendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string escapeToken(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

class Reader {
 public:
  Reader(std::string_view text, std::size_t begin, std::size_t limit)
      : s_(text), i_(begin), lim_(std::min(limit, text.size())) {}

  json readValue(int depth) {
    skipSpace();
    if (i_ >= lim_) truncated("the reply ends where a value should start");
    const char c = s_[i_];
    if (c == '{') return readObject(depth + 1);
    if (c == '[') return readArray(depth + 1);
    if (c == '"' || c == '\'') return readString();
    if (c == '-' || isDigit(c)) return readNumber();
    if (isIdentStart(c)) return readLiteral();
    if (c == '+' || c == '.')
      syntax(std::string("a number cannot start with '") + c + "' (write 1 or 0.5)");
    syntax(std::string("unexpected character ") + describeChar(c) + " where a value should start");
  }

  void skipSpace() {
    while (i_ < lim_) {
      const char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++i_;
      } else if (c == '/' && i_ + 1 >= lim_) {
        truncated("the reply ends inside a comment");
      } else if (c == '/' && s_[i_ + 1] == '/') {
        repair("comment", "removed a comment");
        const std::size_t nl = s_.find('\n', i_);
        i_ = (nl == std::string_view::npos || nl >= lim_) ? lim_ : nl + 1;
      } else if (c == '/' && s_[i_ + 1] == '*') {
        const std::size_t close = s_.substr(0, lim_).find("*/", i_ + 2);
        if (close == std::string_view::npos) truncated("the reply ends inside a /* comment");
        repair("comment", "removed a comment");
        i_ = close + 2;
      } else {
        break;
      }
    }
  }

  std::size_t pos() const { return i_; }
  std::size_t limit() const { return lim_; }
  [[noreturn]] void syntax(const std::string& what) { throw Failure{ReadStatus::Syntax, i_, what, pointer()}; }

  std::vector<std::string> repairs;
  std::set<std::string> duplicateKeys;

 private:
  [[noreturn]] void truncated(const std::string& what) { throw Failure{ReadStatus::Truncated, lim_, what, pointer()}; }

  void repair(std::string_view code, std::string_view what) {
    for (const auto& r : repairs)
      if (r.compare(0, code.size() + 1, std::string(code) + ":") == 0) return;
    repairs.push_back(std::string(code) + ": " + std::string(what) + " (first at " + describePosition(s_, i_) + ")");
  }

  std::string pointer() const {
    std::string p;
    for (const auto& t : path_) p += "/" + t;
    return p;
  }

  static std::string describeChar(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7F) {
      static constexpr char kHex[] = "0123456789ABCDEF";
      return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 0xF];
    }
    return std::string("'") + c + "'";
  }

  json readObject(int depth) {
    if (depth > kMaxDepth) syntax("objects and arrays are nested too deeply");
    ++i_;  // '{'
    json obj = json::object();
    skipSpace();
    if (i_ >= lim_) truncated("the reply ends inside an object");
    if (s_[i_] == '}') {
      ++i_;
      return obj;
    }
    while (true) {
      skipSpace();
      if (i_ >= lim_) truncated("the reply ends inside an object");
      std::string key;
      const char c = s_[i_];
      if (c == '"' || c == '\'') {
        key = readString();
      } else if (isIdentStart(c)) {
        repair("unquoted_key", "quoted an unquoted key");
        const std::size_t start = i_;
        while (i_ < lim_ && isIdentChar(s_[i_])) ++i_;
        key = std::string(s_.substr(start, i_ - start));
      } else {
        syntax("expected a quoted key, got " + describeChar(c));
      }
      skipSpace();
      if (i_ >= lim_) truncated("the reply ends inside an object");
      if (s_[i_] != ':') syntax("expected ':' after the key \"" + key + "\", got " + describeChar(s_[i_]));
      ++i_;
      path_.push_back(escapeToken(key));
      json value = readValue(depth);
      path_.pop_back();
      if (obj.contains(key))
        duplicateKeys.insert(pointer() + "/" + escapeToken(key));
      else
        obj[key] = std::move(value);
      skipSpace();
      if (i_ >= lim_) truncated("the reply ends inside an object");
      if (s_[i_] == ',') {
        ++i_;
        skipSpace();
        if (i_ >= lim_) truncated("the reply ends inside an object");
        if (s_[i_] == '}') {
          repair("trailing_comma", "removed a trailing comma");
          ++i_;
          return obj;
        }
        continue;
      }
      if (s_[i_] == '}') {
        ++i_;
        return obj;
      }
      syntax("expected ',' or '}' after the value of \"" + key + "\", got " + describeChar(s_[i_]) +
             " (a missing comma, or an unescaped quote inside a string?)");
    }
  }

  json readArray(int depth) {
    if (depth > kMaxDepth) syntax("objects and arrays are nested too deeply");
    ++i_;  // '['
    json arr = json::array();
    skipSpace();
    if (i_ >= lim_) truncated("the reply ends inside an array");
    if (s_[i_] == ']') {
      ++i_;
      return arr;
    }
    while (true) {
      path_.push_back(std::to_string(arr.size()));
      json value = readValue(depth);
      path_.pop_back();
      arr.push_back(std::move(value));
      skipSpace();
      if (i_ >= lim_) truncated("the reply ends inside an array");
      if (s_[i_] == ',') {
        ++i_;
        skipSpace();
        if (i_ >= lim_) truncated("the reply ends inside an array");
        if (s_[i_] == ']') {
          repair("trailing_comma", "removed a trailing comma");
          ++i_;
          return arr;
        }
        continue;
      }
      if (s_[i_] == ']') {
        ++i_;
        return arr;
      }
      syntax("expected ',' or ']' after an array element, got " + describeChar(s_[i_]) + " (a missing comma?)");
    }
  }

  std::string readString() {
    const char quote = s_[i_];
    if (quote == '\'') repair("single_quoted_string", "read a single-quoted string");
    ++i_;
    std::string out;
    while (true) {
      if (i_ >= lim_) truncated("the reply ends inside a string");
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (c == static_cast<unsigned char>(quote)) {
        ++i_;
        return out;
      }
      if (c == '\\') {
        readEscape(out, quote);
      } else if (c < 0x20) {
        repair("raw_control_character", "kept a raw newline, tab or control character inside a string");
        out += static_cast<char>(c);
        ++i_;
      } else if (c < 0x80) {
        out += static_cast<char>(c);
        ++i_;
      } else {
        readUtf8(out);
      }
    }
  }

  // Copies one UTF-8 sequence, or U+FFFD for a byte that does not start one.
  void readUtf8(std::string& out) {
    const auto b0 = static_cast<unsigned char>(s_[i_]);
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (b0 >= 0xC2 && b0 <= 0xDF) len = 2;
    else if (b0 >= 0xE0 && b0 <= 0xEF) {
      len = 3;
      if (b0 == 0xE0) lo = 0xA0;
      if (b0 == 0xED) hi = 0x9F;  // no UTF-16 surrogates
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      len = 4;
      if (b0 == 0xF0) lo = 0x90;
      if (b0 == 0xF4) hi = 0x8F;
    }
    bool valid = len != 0;
    for (std::size_t k = 1; valid && k < len; ++k) {
      if (i_ + k >= lim_) truncated("the reply ends inside a string");
      const auto b = static_cast<unsigned char>(s_[i_ + k]);
      valid = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
    }
    if (!valid) {
      repair("invalid_utf8", "replaced bytes that are not UTF-8 with U+FFFD");
      out += kReplacementChar;
      ++i_;
      return;
    }
    out.append(s_.substr(i_, len));
    i_ += len;
  }

  void readEscape(std::string& out, char quote) {
    if (i_ + 1 >= lim_) truncated("the reply ends inside a string");
    const char e = s_[i_ + 1];
    char plain = 0;
    switch (e) {
      case '"': plain = '"'; break;
      case '\\': plain = '\\'; break;
      case '/': plain = '/'; break;
      case 'b': plain = '\b'; break;
      case 'f': plain = '\f'; break;
      case 'n': plain = '\n'; break;
      case 'r': plain = '\r'; break;
      case 't': plain = '\t'; break;
      case '\'':
        // \' is how a single-quoted string spells a quote; in a double-quoted
        // one the model still meant an apostrophe.
        if (quote == '"') repair("unknown_escape", "read \\' as '");
        plain = '\'';
        break;
      case 'u': readUnicodeEscape(out); return;
      default:
        repair("unknown_escape", std::string("kept an unknown escape \\") + (e >= 0x20 && e < 0x7F ? std::string(1, e) : "") +
                                     " literally");
        out += '\\';
        ++i_;  // the escaped character is read as ordinary text next
        return;
    }
    out += plain;
    i_ += 2;
  }

  // Reads the 4 hex digits of a \u escape at i_ (pointing at the backslash).
  std::uint32_t readHex4() {
    for (std::size_t k = 2; k < 6; ++k) {
      if (i_ + k >= lim_) truncated("the reply ends inside a string");
      if (hexValue(s_[i_ + k]) < 0) syntax("a \\u escape needs four hex digits");
    }
    std::uint32_t v = 0;
    for (std::size_t k = 2; k < 6; ++k) v = v * 16 + static_cast<std::uint32_t>(hexValue(s_[i_ + k]));
    i_ += 6;
    return v;
  }

  void readUnicodeEscape(std::string& out) {
    const std::uint32_t unit = readHex4();
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      if (i_ + 1 < lim_ && s_[i_] == '\\' && s_[i_ + 1] == 'u') {
        const std::size_t save = i_;
        const std::uint32_t low = readHex4();
        if (low >= 0xDC00 && low <= 0xDFFF) {
          appendUtf8(out, 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
          return;
        }
        i_ = save;  // not a pair: the next escape stands on its own
      } else if (i_ + 1 >= lim_) {
        truncated("the reply ends inside a string");
      }
      repair("lone_surrogate", "replaced a lone UTF-16 surrogate escape with U+FFFD");
      out += kReplacementChar;
      return;
    }
    if (unit >= 0xDC00 && unit <= 0xDFFF) {
      repair("lone_surrogate", "replaced a lone UTF-16 surrogate escape with U+FFFD");
      out += kReplacementChar;
      return;
    }
    appendUtf8(out, unit);
  }

  json readNumber() {
    const std::size_t start = i_;
    auto needDigit = [&](const char* after) {
      if (i_ >= lim_) truncated("the reply ends inside a number");
      if (!isDigit(s_[i_])) syntax(std::string("a digit must follow ") + after + " in a number");
    };
    if (s_[i_] == '-') {
      ++i_;
      needDigit("'-'");
    }
    if (s_[i_] == '0') {
      ++i_;
    } else {
      while (i_ < lim_ && isDigit(s_[i_])) ++i_;
    }
    if (i_ < lim_ && s_[i_] == '.') {
      ++i_;
      needDigit("'.'");
      while (i_ < lim_ && isDigit(s_[i_])) ++i_;
    }
    if (i_ < lim_ && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < lim_ && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      needDigit("the exponent");
      while (i_ < lim_ && isDigit(s_[i_])) ++i_;
    }
    if (i_ < lim_ && (isIdentChar(s_[i_]) || s_[i_] == '.')) {
      std::size_t end = i_;
      while (end < lim_ && (isIdentChar(s_[end]) || s_[end] == '.')) ++end;
      i_ = start;
      syntax("malformed number " + std::string(s_.substr(start, std::min<std::size_t>(end - start, 40))) +
             " (JSON numbers are decimal, without leading zeros)");
    }
    const std::string token(s_.substr(start, i_ - start));
    try {
      return json::parse(token);
    } catch (const json::exception&) {
      i_ = start;
      syntax("number " + token.substr(0, 40) + " is out of range");
    }
  }

  json readLiteral() {
    const std::size_t start = i_;
    while (i_ < lim_ && isIdentChar(s_[i_])) ++i_;
    const std::string word(s_.substr(start, i_ - start));
    if (word == "true") return true;
    if (word == "false") return false;
    if (word == "null") return nullptr;
    if (word == "True" || word == "False" || word == "None") {
      repair("python_literal", "read Python True/False/None as true/false/null");
      return word == "None" ? json(nullptr) : json(word == "True");
    }
    static constexpr std::array<std::string_view, 6> kLiterals{"true", "false", "null", "True", "False", "None"};
    if (i_ >= lim_)
      for (auto lit : kLiterals)
        if (lit.size() > word.size() && lit.substr(0, word.size()) == word) truncated("the reply ends inside a literal");
    i_ = start;
    if (word == "NaN" || word == "Infinity")
      syntax(word + " is not a JSON number");
    syntax("unquoted text " + word.substr(0, 40) + " is not a JSON value (strings need double quotes)");
  }

  std::string_view s_;
  std::size_t i_;
  std::size_t lim_;
  std::vector<std::string> path_;
};

ReadResult run(std::string_view text, std::size_t begin, std::size_t limit, bool wholeDocument) {
  Reader reader(text, begin, limit);
  ReadResult result;
  try {
    result.value = reader.readValue(0);
    if (wholeDocument) {
      reader.skipSpace();
      if (reader.pos() < reader.limit()) reader.syntax("unexpected text after the JSON value");
    }
    result.status = ReadStatus::Ok;
    result.end = reader.pos();
  } catch (const Failure& f) {
    result.status = f.status;
    result.end = f.pos;
    result.pointer = f.pointer;
    result.error = f.what + (f.status == ReadStatus::Syntax ? " at " + describePosition(text, f.pos) : "");
    result.value = nullptr;
  }
  result.repairs = std::move(reader.repairs);
  result.duplicateKeys = std::move(reader.duplicateKeys);
  return result;
}

}  // namespace

ReadResult readJsonValue(std::string_view text, std::size_t begin, std::size_t limit) {
  return run(text, begin, limit, false);
}

ReadResult readJsonDocument(std::string_view text, std::size_t begin, std::size_t limit) {
  return run(text, begin, limit, true);
}

std::string describePosition(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1, lineStart = 0;
  for (std::size_t k = 0; k < offset; ++k)
    if (text[k] == '\n') {
      ++line;
      lineStart = k + 1;
    }
  return "line " + std::to_string(line) + ", column " + std::to_string(offset - lineStart + 1);
}

}  // namespace revline::contract
