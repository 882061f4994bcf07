#include "core/builtin/secrets.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace revline::builtin {
namespace {

bool isAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)); }
bool isUpperOrDigit(char c) { return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)); }
bool isSpace(char c) { return c == ' ' || c == '\t'; }
char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Calls f(pos) for every occurrence of `needle` in `text`.
template <typename F>
void forEach(std::string_view text, std::string_view needle, F f) {
  for (auto pos = text.find(needle); pos != std::string_view::npos; pos = text.find(needle, pos + 1)) f(pos);
}

std::size_t runLength(std::string_view text, std::size_t from, bool (*accept)(char)) {
  std::size_t k = from;
  while (k < text.size() && accept(text[k])) ++k;
  return k - from;
}

bool tokenChar(char c) { return isAlnum(c) || c == '_' || c == '-'; }
bool alnumOrUnderscore(char c) { return isAlnum(c) || c == '_'; }

// AWS access key ids: AKIA (long-term) / ASIA (temporary) + 16 of [A-Z0-9].
void awsKeys(std::string_view text, std::vector<SecretMatch>& out) {
  for (std::string_view prefix : {std::string_view("AKIA"), std::string_view("ASIA")}) {
    forEach(text, prefix, [&](std::size_t pos) {
      if (pos > 0 && isAlnum(text[pos - 1])) return;
      if (runLength(text, pos + 4, isUpperOrDigit) != 16) return;
      out.push_back({pos, 20, "aws-access-key"});
    });
  }
}

// "-----BEGIN [...] PRIVATE KEY[ BLOCK]-----" through its END line; when the END
// line is missing, everything after the header is treated as key material.
void privateKeys(std::string_view text, std::vector<SecretMatch>& out) {
  forEach(text, "-----BEGIN ", [&](std::size_t pos) {
    const auto headerEnd = text.find("-----", pos + 11);
    if (headerEnd == std::string_view::npos) return;
    const std::string_view label = text.substr(pos + 11, headerEnd - pos - 11);
    if (label.find("PRIVATE KEY") == std::string_view::npos || label.find('\n') != std::string_view::npos) return;
    const auto end = text.find("-----END ", headerEnd);
    std::size_t stop = text.size();
    if (end != std::string_view::npos) {
      const auto close = text.find("-----", end + 9);
      if (close != std::string_view::npos) stop = close + 5;
    }
    out.push_back({pos, stop - pos, "private-key"});
  });
}

// GitHub tokens: classic ghp_/gho_/ghs_/ghu_/ghr_ + 36 alphanumerics, and
// fine-grained github_pat_ tokens.
void githubTokens(std::string_view text, std::vector<SecretMatch>& out) {
  for (std::string_view prefix : {"ghp_", "gho_", "ghs_", "ghu_", "ghr_"}) {
    forEach(text, prefix, [&](std::size_t pos) {
      if (pos > 0 && alnumOrUnderscore(text[pos - 1])) return;
      const std::size_t n = runLength(text, pos + 4, isAlnum);
      if (n < 30 || (pos + 4 + n < text.size() && text[pos + 4 + n] == '_')) return;
      out.push_back({pos, 4 + n, "github-token"});
    });
  }
  forEach(text, "github_pat_", [&](std::size_t pos) {
    if (pos > 0 && alnumOrUnderscore(text[pos - 1])) return;
    const std::size_t n = runLength(text, pos + 11, alnumOrUnderscore);
    if (n >= 22) out.push_back({pos, 11 + n, "github-token"});
  });
}

// Slack tokens: xoxb- (bot), xoxp- (user), xoxa-/xoxr-/xoxs-; real ones carry
// numeric team/user ids, which keeps prose like "xoxb-token" out.
void slackTokens(std::string_view text, std::vector<SecretMatch>& out) {
  forEach(text, "xox", [&](std::size_t pos) {
    if (pos > 0 && isAlnum(text[pos - 1])) return;
    if (pos + 5 > text.size() || text[pos + 4] != '-') return;
    if (std::string_view("bpars").find(text[pos + 3]) == std::string_view::npos) return;
    const std::size_t n = runLength(text, pos + 5, tokenChar);
    const std::string_view body = text.substr(pos + 5, n);
    const auto digits = std::count_if(body.begin(), body.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (n >= 20 && digits >= 8) out.push_back({pos, 5 + n, "slack-token"});
  });
}

// OpenAI/Anthropic-style "sk-..." keys. Slugs such as "sk-learn" or
// "sk-this-is-a-name-2024" are excluded by requiring a long random-looking run.
void apiKeys(std::string_view text, std::vector<SecretMatch>& out) {
  forEach(text, "sk-", [&](std::size_t pos) {
    if (pos > 0 && (tokenChar(text[pos - 1]) || text[pos - 1] == '.')) return;
    const std::size_t n = runLength(text, pos + 3, tokenChar);
    if (n < 20) return;
    const std::string_view body = text.substr(pos + 3, n);
    bool digit = false, letter = false;
    std::size_t run = 0, longest = 0;
    for (char c : body) {
      digit |= std::isdigit(static_cast<unsigned char>(c)) != 0;
      letter |= std::isalpha(static_cast<unsigned char>(c)) != 0;
      run = isAlnum(c) ? run + 1 : 0;
      longest = std::max(longest, run);
    }
    if (digit && letter && longest >= 16) out.push_back({pos, 3 + n, "api-key"});
  });
}

// ---- `password = "literal"` and friends -------------------------------------

bool keyChar(char c) { return isAlnum(c) || c == '_' || c == '-' || c == '.'; }

struct Keyword { std::string_view word; std::string_view kind; };
constexpr std::array<Keyword, 8> kKeywords{{{"password", "password"},   {"passwd", "password"},
                                            {"secret", "secret"},       {"api_key", "secret"},
                                            {"apikey", "secret"},       {"access_token", "secret"},
                                            {"auth_token", "secret"},   {"private_key", "secret"}}};

// Names that hold text about a secret, not the secret ("passwordPrompt",
// "SECRET_HEADER_NAME"), judged by their last word.
bool describesSecret(std::string_view name) {
  std::string lowerName;
  for (char c : name) lowerName += lower(c);
  static constexpr std::array<std::string_view, 24> suffixes{
      "label", "prompt", "message", "msg", "hint", "text", "title", "field", "pattern", "regex", "format", "name",
      "path", "file", "url", "param", "header", "placeholder", "column", "policy", "length", "env", "var", "id"};
  for (auto s : suffixes) {
    if (lowerName.size() > s.size() && lowerName.ends_with(s)) return true;
  }
  return false;
}

bool looksLikePlaceholder(std::string_view v) {
  if (v.size() < 4) return true;
  if (v.starts_with("${") || v.starts_with("{{") || v.starts_with("%(") || v.starts_with("$(") || v.starts_with("<") ||
      v.starts_with("$") || v.starts_with("%") || v.starts_with("ENC(")) return true;
  if (std::all_of(v.begin(), v.end(), [&](char c) { return c == v.front(); })) return true;  // "****", "xxxx"
  std::string l;
  for (char c : v) l += lower(c);
  static constexpr std::array<std::string_view, 14> words{"password", "passwd", "secret", "changeme", "change-me", "changeit",
                                                          "placeholder", "example", "dummy", "redacted", "todo", "none",
                                                          "null", "undefined"};
  for (auto w : words) if (l == w) return true;
  return l.starts_with("your") || l.starts_with("my-") || l.starts_with("[redacted");
}

// The value assigned after a secret-looking key, if it is a literal.
void assignment(std::string_view text, std::size_t keyStart, std::size_t keyEnd, std::string_view kind,
                std::vector<SecretMatch>& out) {
  std::size_t k = keyEnd;
  if (k < text.size() && (text[k] == '"' || text[k] == '\'')) ++k;  // "password": "..."
  while (k < text.size() && isSpace(text[k])) ++k;
  std::string_view op;
  for (std::string_view candidate : {":=", "=>", "=", ":"}) {
    if (text.substr(k).starts_with(candidate)) { op = candidate; break; }
  }
  if (op.empty()) return;
  if (op == "=" && k + 1 < text.size() && text[k + 1] == '=') return;  // comparison
  if (k > 0 && (text[k - 1] == '!' || text[k - 1] == '<' || text[k - 1] == '>')) return;
  k += op.size();
  while (k < text.size() && isSpace(text[k])) ++k;
  if (k >= text.size()) return;
  const char q = text[k];
  if (q == '"' || q == '\'' || q == '`') {
    const auto close = text.find(q, k + 1);
    if (close == std::string_view::npos) return;
    const std::string_view value = text.substr(k + 1, close - k - 1);
    if (value.find_first_of(" \t\n\\") != std::string_view::npos || looksLikePlaceholder(value)) return;
    out.push_back({k + 1, value.size(), std::string(kind)});
    return;
  }
  // Unquoted values only in key=value files (.env, .properties, YAML): the key
  // starts its line, and the value is one word that does not look like code.
  const auto lineStart = text.rfind('\n', keyStart) == std::string_view::npos ? 0 : text.rfind('\n', keyStart) + 1;
  std::size_t s = lineStart;
  while (s < keyStart && (isSpace(text[s]) || text[s] == '-' || text[s] == '+')) ++s;
  if (text.substr(s, keyStart - s) == "export ") s = keyStart;
  if (s != keyStart || (op != "=" && op != ":")) return;
  std::size_t e = k;
  while (e < text.size() && !std::isspace(static_cast<unsigned char>(text[e]))) ++e;
  const std::string_view value = text.substr(k, e - k);
  std::size_t rest = e;
  while (rest < text.size() && isSpace(text[rest])) ++rest;
  if (rest < text.size() && text[rest] != '\n' && text[rest] != '\r' && text[rest] != '#') return;
  if (value.size() < 6 || value.find_first_of("()[]{}.;,<>$%") != std::string_view::npos) return;
  if (std::all_of(value.begin(), value.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; })) return;
  if (looksLikePlaceholder(value)) return;
  out.push_back({k, value.size(), std::string(kind)});
}

void secretAssignments(std::string_view text, std::vector<SecretMatch>& out) {
  // Case-insensitive search: one lowered copy, only when a first letter occurs.
  if (text.find_first_of("pPsSaA") == std::string_view::npos) return;
  std::string lowered(text.size(), '\0');
  std::transform(text.begin(), text.end(), lowered.begin(), lower);
  const std::string_view l = lowered;
  for (const auto& kw : kKeywords) {
    forEach(l, kw.word, [&](std::size_t pos) {
      // "secretary" and "passwords" are other words; "secretKey" and "SECRET_KEY" are keys.
      const std::size_t after = pos + kw.word.size();
      if (after < text.size() && std::islower(static_cast<unsigned char>(text[after]))) return;
      std::size_t start = pos, end = pos + kw.word.size();
      while (start > 0 && keyChar(text[start - 1])) --start;
      while (end < text.size() && keyChar(text[end])) ++end;
      if (describesSecret(text.substr(start, end - start))) return;
      assignment(text, start, end, kw.kind, out);
    });
  }
}

}  // namespace

std::vector<SecretMatch> findSecrets(std::string_view text) {
  std::vector<SecretMatch> all;
  awsKeys(text, all);
  privateKeys(text, all);
  githubTokens(text, all);
  slackTokens(text, all);
  apiKeys(text, all);
  secretAssignments(text, all);
  // Text order; where matches overlap keep the earlier (then longer) one.
  std::sort(all.begin(), all.end(), [](const SecretMatch& a, const SecretMatch& b) {
    return a.offset != b.offset ? a.offset < b.offset : a.length > b.length;
  });
  std::vector<SecretMatch> out;
  for (auto& m : all) {
    if (!out.empty() && m.offset < out.back().offset + out.back().length) continue;
    out.push_back(std::move(m));
  }
  return out;
}

std::string redactSecrets(std::string_view text) {
  std::string out;
  std::size_t at = 0;
  for (const auto& m : findSecrets(text)) {
    out.append(text.substr(at, m.offset - at));
    out += "[REDACTED:" + m.kind + "]";
    at = m.offset + m.length;
  }
  out.append(text.substr(at));
  return out;
}

}  // namespace revline::builtin
