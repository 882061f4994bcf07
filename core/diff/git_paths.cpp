#include "core/diff/git_paths.h"

#include "core/diff/diff.h"
#include "core/support/utf8.h"

namespace revline::diff {

std::string quotePath(std::string_view path) {
  // git's quote_c_style with core.quotePath=true: control bytes, DEL, '"', '\\'
  // and every byte >= 0x80 force quoting.
  auto needsQuote = [](unsigned char c) { return c < 0x20 || c == '"' || c == '\\' || c >= 0x7f; };
  bool any = false;
  for (unsigned char c : path) any = any || needsQuote(c);
  if (!any) return std::string(path);
  std::string out = "\"";
  for (unsigned char c : path) {
    switch (c) {
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\v': out += "\\v"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      default:
        if (needsQuote(c)) {
          out += '\\';
          out += static_cast<char>('0' + ((c >> 6) & 7));
          out += static_cast<char>('0' + ((c >> 3) & 7));
          out += static_cast<char>('0' + (c & 7));
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string jsonPath(std::string_view path) { return validUtf8(path) ? std::string(path) : quotePath(path); }

namespace detail {

std::optional<std::string> unquoteC(std::string_view in, size_t& consumed) {
  if (in.empty() || in[0] != '"') return std::nullopt;
  std::string out;
  for (size_t i = 1; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '"') {
      consumed = i + 1;
      return out;
    }
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i >= in.size()) return std::nullopt;
    const char e = in[i];
    switch (e) {
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 't': out += '\t'; break;
      case 'n': out += '\n'; break;
      case 'v': out += '\v'; break;
      case 'f': out += '\f'; break;
      case 'r': out += '\r'; break;
      case '"': case '\\': out += e; break;
      default: {
        // Exactly three octal digits, as git writes them (\303\251 for "é").
        if (i + 2 >= in.size()) return std::nullopt;
        int v = 0;
        for (int k = 0; k < 3; ++k) {
          const char d = in[i + k];
          if (d < '0' || d > '7') return std::nullopt;
          v = v * 8 + (d - '0');
        }
        if (v > 0xff) return std::nullopt;
        out += static_cast<char>(v);
        i += 2;
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> fileLineName(std::string_view rest) {
  if (!rest.empty() && rest[0] == '"') {
    size_t used = 0;
    return unquoteC(rest, used);
  }
  // An unquoted name never holds a tab (git would have quoted it), so a tab
  // ends the name: git's marker after names with spaces, or diff -u's timestamp.
  const size_t tab = rest.find('\t');
  if (tab != std::string_view::npos) rest = rest.substr(0, tab);
  return std::string(rest);
}

std::optional<std::string> stripFirstComponent(std::string_view name) {
  const size_t slash = name.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 >= name.size()) return std::nullopt;
  return std::string(name.substr(slash + 1));
}

namespace {

// Given both raw names, decides the prefix mode: identical names mean
// --no-prefix; otherwise both must lose one component and then agree.
GitLineNames resolve(const std::string& a, const std::string& b, bool mustMatch) {
  GitLineNames r;
  if (a == b) {
    r.oldName = a;
    r.newName = b;
    r.mode = PrefixMode::None;
    return r;
  }
  auto sa = stripFirstComponent(a), sb = stripFirstComponent(b);
  if (sa && sb && (!mustMatch || *sa == *sb)) {
    r.oldName = std::move(sa);
    r.newName = std::move(sb);
    r.mode = PrefixMode::Prefixed;
  }
  return r;
}

}  // namespace

GitLineNames diffGitNames(std::string_view rest) {
  if (!rest.empty() && rest[0] == '"') {
    size_t used = 0;
    auto a = unquoteC(rest, used);
    if (!a || used >= rest.size() || rest[used] != ' ') return {};
    std::string_view tail = rest.substr(used + 1);
    std::optional<std::string> b;
    if (!tail.empty() && tail[0] == '"') {
      size_t used2 = 0;
      b = unquoteC(tail, used2);
      if (!b || used2 != tail.size()) return {};
    } else {
      b = std::string(tail);
    }
    // Both names are delimited, so a rename's differing names are fine.
    return resolve(*a, *b, false);
  }
  // An unquoted name holds no '"', so a '"' starts a quoted second name.
  const size_t quote = rest.find('"');
  if (quote != std::string_view::npos) {
    if (quote == 0 || rest[quote - 1] != ' ') return {};
    size_t used = 0;
    auto b = unquoteC(rest.substr(quote), used);
    if (!b || quote + used != rest.size()) return {};
    return resolve(std::string(rest.substr(0, quote - 1)), *b, false);
  }
  // Both unquoted and either may hold spaces: identical halves (split in the
  // middle) mean no prefix; otherwise take the split whose names agree once
  // each loses its prefix component.
  if (rest.size() % 2 == 1) {
    const size_t mid = rest.size() / 2;
    if (rest[mid] == ' ' && rest.substr(0, mid) == rest.substr(mid + 1)) {
      return resolve(std::string(rest.substr(0, mid)), std::string(rest.substr(mid + 1)), true);
    }
  }
  const size_t first = rest.find(' ');
  if (first != std::string_view::npos && rest.find(' ', first + 1) == std::string_view::npos) {
    // One space: the split is certain, and a rename's names may differ.
    return resolve(std::string(rest.substr(0, first)), std::string(rest.substr(first + 1)), false);
  }
  for (size_t sp = first; sp != std::string_view::npos; sp = rest.find(' ', sp + 1)) {
    GitLineNames r = resolve(std::string(rest.substr(0, sp)), std::string(rest.substr(sp + 1)), true);
    if (r.mode == PrefixMode::Prefixed) return r;
  }
  return {};
}

}  // namespace detail
}  // namespace revline::diff
