#include "core/builtin/secrets.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "core/review/provider.h"

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

// The length of the run of bytes `accept` takes from `from` on. Detectors ask it
// once per keyword on a line, and a run ends where it ends whichever of its bytes
// it is asked from: so the last run read with each predicate is kept (per thread,
// for one findSecrets call: `scanOf` below), and a later start inside it is
// answered from it. Read again each time, a line of "password=" 100,000 times
// took an hour (each occurrence read the rest of the line).
struct LastRun {
  std::uint64_t scan = 0;  // the findSecrets call it was read in
  const char* text = nullptr;  // the text or its lowered copy (a view of it: its size too)
  std::size_t size = 0;
  bool (*accept)(char) = nullptr;
  std::size_t from = 0, end = 0;
};
thread_local std::array<LastRun, 8> lastRuns;
thread_local std::uint64_t currentScan = 0;  // findSecrets counts its calls: runs of another text never match

thread_local std::size_t nextRun = 0;  // the entry the next run read replaces

std::size_t runLength(std::string_view text, std::size_t from, bool (*accept)(char)) {
  for (const LastRun& last : lastRuns)
    if (last.scan == currentScan && currentScan != 0 && last.text == text.data() && last.size == text.size() &&
        last.accept == accept && from >= last.from && from <= last.end)
      return last.end - from;
  std::size_t k = from;
  while (k < text.size() && accept(text[k])) ++k;
  // Only long runs are kept: short ones cost nothing to read again, and would push them out.
  if (k - from >= 64) lastRuns[nextRun++ % lastRuns.size()] = {currentScan, text.data(), text.size(), accept, from, k};
  return k - from;
}

// The same, read no further than `most` + 1 bytes: for a value looked at once per
// keyword on a line ("password=" 100,000 times on one line read the rest of the
// line each time: quadratic, an hour for 900 KB). A longer run is no such value.
template <typename Accept>
std::size_t runLengthUpTo(std::string_view text, std::size_t from, Accept accept, std::size_t most) {
  std::size_t k = from;
  const std::size_t end = std::min(text.size(), from + most + 1);
  while (k < end && accept(text[k])) ++k;
  return k - from;
}

// A password or token typed under a name is never longer than this.
constexpr std::size_t kMaxNamedValue = 4096;

bool tokenChar(char c) { return isAlnum(c) || c == '_' || c == '-'; }
bool hasDigit(std::string_view v) {
  return std::any_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}
// Letters and digits both: a generated value, not a word or a number.
bool lettersAndDigits(std::string_view v) {
  return hasDigit(v) && std::any_of(v.begin(), v.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
}
bool alnumOrUnderscore(char c) { return isAlnum(c) || c == '_'; }

bool awsSecretChar(char c) { return isAlnum(c) || c == '/' || c == '+'; }

// The secret access key written after its key id on the same line, unnamed: the
// CSV IAM's console downloads ("ci-bot,,AKIA…,wJalr…,https://…"), a table row,
// a tuple. It is 40 of [A-Za-z0-9/+], a word of its own.
void awsSecretBeside(std::string_view text, std::size_t from, std::vector<SecretMatch>& out) {
  constexpr std::size_t kSecretSize = 40, kReach = 200;
  const std::size_t end = std::min({text.find('\n', from), text.size(), from + kReach});
  for (std::size_t k = from; k < end;) {
    const std::size_t n = runLength(text, k, awsSecretChar);
    if (n == 0) {
      ++k;
      continue;
    }
    const std::string_view word = text.substr(k, n);
    const bool bounded = k + n >= text.size() || text[k + n] != '=';
    if (n == kSecretSize && bounded && lettersAndDigits(word) && k + n <= end) {
      out.push_back({k, n, "aws-secret-key"});
      return;
    }
    k += n;
  }
}

// AWS access key ids: AKIA (long-term) / ASIA (temporary) + 16 of [A-Z0-9],
// and a secret access key beside one.
void awsKeys(std::string_view text, std::vector<SecretMatch>& out) {
  for (std::string_view prefix : {std::string_view("AKIA"), std::string_view("ASIA")}) {
    forEach(text, prefix, [&](std::size_t pos) {
      // After a letter or digit it is part of a longer word, unless that is a
      // URL-encoded "=" ("X-Amz-Credential%3DAKIA...").
      const bool percentEncoded = pos >= 3 && text[pos - 3] == '%' && text[pos - 2] == '3' && lower(text[pos - 1]) == 'd';
      if (pos > 0 && isAlnum(text[pos - 1]) && !percentEncoded) return;
      if (runLength(text, pos + 4, isUpperOrDigit) != 16) return;
      out.push_back({pos, 20, "aws-access-key"});
      awsSecretBeside(text, pos + 20, out);
    });
  }
}

// "-----BEGIN [...] PRIVATE KEY[ BLOCK]-----" through its END line; when the END
// line is missing, everything after the header is treated as key material.
void privateKeys(std::string_view text, std::vector<SecretMatch>& out) {
  // The next "-----END " from a position, remembered: looked for once per header,
  // it read to the text's end for each one of a line of headers (quadratic).
  std::size_t searchedFrom = std::string_view::npos, found = std::string_view::npos;
  const auto nextEnd = [&](std::size_t from) {
    if (searchedFrom == std::string_view::npos || from < searchedFrom || (found != std::string_view::npos && from > found)) {
      searchedFrom = from;
      found = text.find("-----END ", from);
    }
    return found;
  };
  forEach(text, "-----BEGIN ", [&](std::size_t pos) {
    // The label is short and on the header's line ("RSA PRIVATE KEY", "OPENSSH PRIVATE KEY").
    const auto headerEnd = text.substr(0, std::min(text.size(), pos + 11 + 64)).find("-----", pos + 11);
    if (headerEnd == std::string_view::npos) return;
    const std::string_view label = text.substr(pos + 11, headerEnd - pos - 11);
    if (label.find("PRIVATE KEY") == std::string_view::npos || label.find('\n') != std::string_view::npos) return;
    const auto end = nextEnd(headerEnd);
    std::size_t stop = text.size();
    if (end != std::string_view::npos) {
      const auto close = text.find("-----", end + 9);
      if (close != std::string_view::npos) stop = close + 5;
    }
    out.push_back({pos, stop - pos, "private-key"});
  });
}

// A private key's PEM text as base64, as kubeconfig's `client-key-data:` and a
// Helm value hold it: "LS0tLS1CRUdJTi" is "-----BEGIN" encoded. Only a block
// whose label names a PRIVATE KEY counts (`client-certificate-data:` and
// `certificate-authority-data:` are public certificates).
std::string base64Decoded(std::string_view v);

void encodedPrivateKeys(std::string_view text, std::vector<SecretMatch>& out) {
  auto base64Char = [](char c) { return isAlnum(c) || c == '+' || c == '/' || c == '='; };
  forEach(text, "LS0tLS1CRUdJTi", [&](std::size_t pos) {
    // Not inside a longer run ('=' before it is an assignment's: CLIENT_KEY_DATA=LS0t...).
    if (pos > 0 && (isAlnum(text[pos - 1]) || text[pos - 1] == '+' || text[pos - 1] == '/')) return;
    const std::size_t n = runLength(text, pos, base64Char);
    if (n < 64) return;
    // The header: the first 64 characters decode to 48 bytes, more than any label's line.
    const std::string header = base64Decoded(text.substr(pos, 64));
    const std::size_t line = header.find('\n');
    if (header.substr(0, line).find("PRIVATE KEY") == std::string::npos) return;
    // Wrapped (`base64` writes 76 columns, a YAML block scalar indents them):
    // the lines after it that are base64 alone are the rest of the key.
    std::size_t end = pos + n;
    for (;;) {
      std::size_t k = end;
      if (k < text.size() && text[k] == '\r') ++k;
      if (k >= text.size() || text[k] != '\n') break;
      ++k;
      while (k < text.size() && (text[k] == ' ' || text[k] == '\t')) ++k;
      const std::size_t run = runLength(text, k, base64Char);
      const std::size_t after = k + run;
      if (run < 4 || (after < text.size() && text[after] != '\n' && text[after] != '\r' && text[after] != '"' &&
                      text[after] != '\''))
        break;
      end = after;
    }
    out.push_back({pos, end - pos, "private-key"});
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
    if (n > kMaxNamedValue) return;  // no token: a run that long is read again for each "xox" in it
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

// Google API keys: "AIza" + 35 of [A-Za-z0-9_-].
void googleKeys(std::string_view text, std::vector<SecretMatch>& out) {
  forEach(text, "AIza", [&](std::size_t pos) {
    if (pos > 0 && tokenChar(text[pos - 1])) return;
    if (runLength(text, pos + 4, tokenChar) == 35) out.push_back({pos, 39, "google-api-key"});
  });
}

// Stripe secret and restricted keys: sk_live_, rk_live_, sk_test_, rk_test_ + 24 or more alphanumerics.
void stripeKeys(std::string_view text, std::vector<SecretMatch>& out) {
  for (std::string_view prefix : {"sk_live_", "rk_live_", "sk_test_", "rk_test_"}) {
    forEach(text, prefix, [&](std::size_t pos) {
      if (pos > 0 && alnumOrUnderscore(text[pos - 1])) return;
      const std::size_t n = runLength(text, pos + prefix.size(), isAlnum);
      if (n >= 24) out.push_back({pos, prefix.size() + n, "stripe-key"});
    });
  }
}

// npm access tokens: "npm_" + 36 alphanumerics.
void npmTokens(std::string_view text, std::vector<SecretMatch>& out) {
  forEach(text, "npm_", [&](std::size_t pos) {
    if (pos > 0 && alnumOrUnderscore(text[pos - 1])) return;
    if (runLength(text, pos + 4, isAlnum) == 36) out.push_back({pos, 40, "npm-token"});
  });
}

bool base64UrlChar(char c) { return isAlnum(c) || c == '_' || c == '-'; }
bool hexChar(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool lowerHexChar(char c) { return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f'); }
bool upperOrDigitChar(char c) { return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)); }

bool base64UrlOrDot(char c) { return base64UrlChar(c) || c == '.'; }

// Services' tokens of a fixed shape (a prefix, then so many characters of a
// kind): SendGrid, Hugging Face, DigitalOcean, PyPI, Shopify, age, Twilio,
// Stripe webhook secrets, Slack app-level tokens, Vault, Mapbox, Google OAuth
// access and refresh tokens, Sentry, Heroku, Telegram and Discord bot tokens.
// (Not Mailgun's "key-" + 32: a cache key named by its MD5 reads the same.)
void serviceTokens(std::string_view text, std::vector<SecretMatch>& out) {
  struct Shape {
    std::string_view prefix;
    bool (*body)(char);
    std::size_t min, max;  // the body's length
    std::string_view kind;
  };
  static constexpr Shape kShapes[] = {
      {"hf_", isAlnum, 34, 34, "huggingface-token"},
      {"dop_v1_", lowerHexChar, 64, 64, "digitalocean-token"},
      {"doo_v1_", lowerHexChar, 64, 64, "digitalocean-token"},
      {"dor_v1_", lowerHexChar, 64, 64, "digitalocean-token"},
      {"pypi-AgEIcHlwaS5vcmc", base64UrlChar, 50, 1000, "pypi-token"},
      {"shpat_", hexChar, 32, 32, "shopify-token"},
      {"shpca_", hexChar, 32, 32, "shopify-token"},
      {"shppa_", hexChar, 32, 32, "shopify-token"},
      {"shpss_", hexChar, 32, 32, "shopify-token"},
      {"AGE-SECRET-KEY-1", upperOrDigitChar, 58, 58, "age-secret-key"},
      {"SK", lowerHexChar, 32, 32, "twilio-key"},
      {"whsec_", isAlnum, 24, 128, "stripe-key"},
      {"xapp-", base64UrlChar, 40, 256, "slack-token"},
      {"hvs.", base64UrlChar, 24, 1024, "vault-token"},
      {"hvb.", base64UrlChar, 24, 1024, "vault-token"},
      {"hvr.", base64UrlChar, 24, 1024, "vault-token"},
      {"sk.eyJ", base64UrlOrDot, 60, 512, "mapbox-token"},
      {"ya29.", base64UrlOrDot, 20, 2048, "google-oauth-token"},
      {"1//0", base64UrlChar, 30, 512, "google-oauth-token"},
      {"sntryu_", lowerHexChar, 64, 64, "sentry-token"},
      {"sntrys_", base64UrlChar, 40, 1024, "sentry-token"},
      {"HRKU-", base64UrlChar, 20, 256, "heroku-key"},
  };
  for (const Shape& shape : kShapes) {
    forEach(text, shape.prefix, [&](std::size_t pos) {
      if (pos > 0 && base64UrlChar(text[pos - 1])) return;
      const std::size_t n = runLength(text, pos + shape.prefix.size(), shape.body);
      if (n < shape.min || n > shape.max) return;
      const std::size_t end = pos + shape.prefix.size() + n;
      if (end < text.size() && base64UrlChar(text[end])) return;  // part of a longer word
      out.push_back({pos, shape.prefix.size() + n, std::string(shape.kind)});
    });
  }
  // SendGrid: "SG." + 22 + "." + 43 of [A-Za-z0-9_-].
  forEach(text, "SG.", [&](std::size_t pos) {
    if (pos > 0 && base64UrlChar(text[pos - 1])) return;
    if (runLength(text, pos + 3, base64UrlChar) != 22 || pos + 25 >= text.size() || text[pos + 25] != '.') return;
    if (runLength(text, pos + 26, base64UrlChar) != 43) return;
    out.push_back({pos, 69, "sendgrid-key"});
  });
  // Telegram bot tokens: the bot's id (8 to 10 digits), ':', "AA" + 33 of [A-Za-z0-9_-],
  // also inside a URL's path (api.telegram.org/bot<token>/sendMessage).
  forEach(text, ":AA", [&](std::size_t pos) {
    std::size_t digits = 0;
    while (digits < pos && std::isdigit(static_cast<unsigned char>(text[pos - digits - 1]))) ++digits;
    if (digits < 8 || digits > 10 || runLength(text, pos + 1, base64UrlChar) != 35) return;
    const std::size_t start = pos - digits;
    if (start > 0 && isAlnum(text[start - 1]) && !text.substr(0, start).ends_with("bot")) return;
    out.push_back({start, digits + 36, "telegram-bot-token"});
  });
  // Discord bot tokens: the bot's id in base64 ('M', 'N' or 'O', then 23 to 25
  // more), '.', 6 of [A-Za-z0-9_-], '.', 27 to 38 more; found from their first '.'.
  forEach(text, ".", [&](std::size_t dot) {
    std::size_t id = 0;
    while (id < dot && id <= 26 && isAlnum(text[dot - id - 1])) ++id;
    const std::size_t pos = dot - id;
    if (id < 24 || id > 26 || (text[pos] != 'M' && text[pos] != 'N' && text[pos] != 'O') ||
        (pos > 0 && base64UrlOrDot(text[pos - 1])))
      return;
    const std::size_t stamp = runLength(text, dot + 1, base64UrlChar);
    const std::size_t at = dot + 1 + stamp;
    if (stamp != 6 || at >= text.size() || text[at] != '.') return;
    const std::size_t mac = runLength(text, at + 1, base64UrlChar);
    if (mac < 27 || mac > 38 || (at + 1 + mac < text.size() && text[at + 1 + mac] == '.')) return;
    out.push_back({pos, at + 1 + mac - pos, "discord-bot-token"});
  });
}

// JSON Web Tokens: three base64url parts, the first two JSON objects ("eyJ" is base64 for '{"').
void jwts(std::string_view text, std::vector<SecretMatch>& out) {
  forEach(text, "eyJ", [&](std::size_t pos) {
    if (pos > 0 && base64UrlChar(text[pos - 1])) return;
    std::size_t k = pos;
    for (int part = 0; part < 3; ++part) {
      const std::size_t n = runLength(text, k, base64UrlChar);
      if (n < (part == 2 ? 16 : 10)) return;
      if (part == 1 && !text.substr(k).starts_with("eyJ")) return;
      k += n;
      if (part < 2) {
        if (k >= text.size() || text[k] != '.') return;
        ++k;
      }
    }
    out.push_back({pos, k - pos, "jwt"});
  });
}

bool looksLikePlaceholder(std::string_view v);
bool highEntropy(std::string_view v);
std::string alnumLower(std::string_view s);
bool keyChar(char c);

// The password in a URL's userinfo: scheme://user:PASSWORD@host.
void urlPasswords(std::string_view text, std::vector<SecretMatch>& out) {
  forEach(text, "://", [&](std::size_t pos) {
    std::size_t k = pos + 3;
    const std::size_t user = runLength(text, k, [](char c) {
      return c != ':' && c != '/' && c != '@' && !std::isspace(static_cast<unsigned char>(c)) && c != '"' && c != '\'';
    });
    k += user;
    if (k >= text.size() || text[k] != ':') return;
    const std::size_t from = k + 1;
    const std::size_t n = runLength(text, from, [](char c) {
      return c != '@' && c != '/' && !std::isspace(static_cast<unsigned char>(c)) && c != '"' && c != '\'';
    });
    if (n == 0 || from + n >= text.size() || text[from + n] != '@') return;
    const std::string_view password = text.substr(from, n);
    // At a host reserved for examples too: the rule leaves those alone
    // (text_rules.cpp), the redaction of what is sent does not.
    if (looksLikePlaceholder(password)) return;
    out.push_back({from, n, "password"});
  });
  // Oracle's thin URL: "jdbc:oracle:thin:USER/PASSWORD@host:1521/SID".
  forEach(text, "oracle:thin:", [&](std::size_t pos) {
    const std::size_t k = pos + 12;
    const std::size_t user = runLength(text, k, [](char c) { return isAlnum(c) || c == '_' || c == '$' || c == '#'; });
    if (user == 0 || k + user >= text.size() || text[k + user] != '/') return;
    const std::size_t from = k + user + 1;
    const std::size_t n = runLength(text, from, [](char c) {
      return c != '@' && c != '/' && !std::isspace(static_cast<unsigned char>(c)) && c != '"' && c != '\'';
    });
    if (n == 0 || from + n >= text.size() || text[from + n] != '@' || looksLikePlaceholder(text.substr(from, n))) return;
    out.push_back({from, n, "password"});
  });
}

// .npmrc credentials: "//registry/:_authToken=VALUE", "_auth=", "_password=".
void npmrcCredentials(std::string_view text, std::vector<SecretMatch>& out) {
  for (std::string_view key : {":_authToken=", ":_auth=", ":_password=", "\n_auth=", "\n_authToken="}) {
    forEach(text, key, [&](std::size_t pos) {
      const std::size_t from = pos + key.size();
      const std::size_t n = runLength(text, from, [](char c) { return !std::isspace(static_cast<unsigned char>(c)); });
      if (n < 4 || text.substr(from).starts_with("${")) return;
      out.push_back({from, n, "npm-token"});
    });
  }
}

// ---- credentials on a command line and in an Authorization header -----------

bool valueChar(char c) { return !std::isspace(static_cast<unsigned char>(c)) && c != '"' && c != '\'' && c != '`'; }

// Where the line holding `pos` starts, looked for at most kLookBack bytes back
// (past that, the reach's start stands in for it). Detectors read what precedes
// a match on its line: on a long line (a minified file, an encoded blob of 8 MB
// where "-u" and "-p" occur every few KB) reading the whole line again for each
// match was quadratic (68 s for one 8 MB line). A command, a key or a lead-in
// sits well within the reach.
constexpr std::size_t kLookBack = 1024;
std::size_t lineStartNear(std::string_view text, std::size_t pos) {
  pos = std::min(pos, text.size());
  const std::size_t floor = pos > kLookBack ? pos - kLookBack : 0;
  const void* nl = pos > floor ? ::memrchr(text.data() + floor, '\n', pos - floor) : nullptr;
  return nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) + 1 : floor;
}

// The longest name a key or variable is read as: a longer run of name
// characters is an encoded blob, not followed to its ends for each match in it.
constexpr std::size_t kMaxKeyName = 256;

// The line of `lowered` (the text, lowered) that ends at `pos`: its last kLookBack bytes.
std::string_view lineBefore(std::string_view lowered, std::size_t pos) {
  const std::size_t from = lineStartNear(lowered, pos);
  return lowered.substr(from, pos - from);
}

// The value after a flag at `pos` (length `flagSize`): "--flag=V", "--flag V",
// either quoted or not. {npos, 0} when no value follows; `bare` says it was an
// unquoted word after a space, which prose also has ("use --password when ...").
struct FlagValue { std::size_t from = std::string_view::npos, length = 0; bool bare = false; };

// The text inside the quote that opens at `open`, on its line and at most 256
// bytes (a password may hold spaces: 'Sup3r S3cret'); {npos, 0} when unclosed.
FlagValue quotedValue(std::string_view text, std::size_t open) {
  const char q = text[open];
  for (std::size_t k = open + 1; k < text.size() && k <= open + 257; ++k) {
    if (text[k] == '\n' || text[k] == '\r') break;
    if (text[k] == q) return {open + 1, k - open - 1, false};
  }
  return {};
}

// The value starting at `k`: inside its quotes when quoted (spaces and all), else one unquoted word.
FlagValue valueAt(std::string_view text, std::size_t k) {
  if (k >= text.size()) return {};
  if (text[k] == '"' || text[k] == '\'') return quotedValue(text, k);
  return {k, runLength(text, k, valueChar), false};
}

// After an argv element closed at `close` ("-u", "admin:x" in Python, JSON,
// YAML flow lists): the next element's opening quote, or npos.
std::size_t nextArgvElement(std::string_view text, std::size_t close) {
  std::size_t k = close + 1;
  while (k < text.size() && isSpace(text[k])) ++k;
  if (k >= text.size() || text[k] != ',') return std::string_view::npos;
  ++k;
  while (k < text.size() && isSpace(text[k])) ++k;
  return k < text.size() && (text[k] == '"' || text[k] == '\'') ? k : std::string_view::npos;
}

FlagValue flagValue(std::string_view text, std::size_t pos, std::size_t flagSize, bool spaceOnly = false) {
  if (pos > 0 && !isSpace(text[pos - 1]) && text[pos - 1] != '"' && text[pos - 1] != '\'' && text[pos - 1] != '(' &&
      text[pos - 1] != '[' && text[pos - 1] != ',' && text[pos - 1] != '+') return {};
  std::size_t k = pos + flagSize;
  if (k >= text.size()) return {};
  bool bare = false;
  if (pos > 0 && (text[pos - 1] == '"' || text[pos - 1] == '\'') && text[k] == text[pos - 1]) {
    k = nextArgvElement(text, k);  // ["curl", "-u", "admin:x"]
    if (k == std::string_view::npos) return {};
  } else if (text[k] == '=' && !spaceOnly) {
    ++k;
  } else if (isSpace(text[k])) {
    while (k < text.size() && isSpace(text[k])) ++k;
    bare = true;
  } else {
    return {};
  }
  if (k < text.size() && (text[k] == '"' || text[k] == '\'')) {
    const FlagValue quoted = quotedValue(text, k);
    if (quoted.length == 0 || text[quoted.from] == '-') return {};
    return quoted;
  }
  const std::size_t n = runLength(text, k, valueChar);
  if (n == 0 || text[k] == '-') return {};
  return {k, n, bare};
}

// True when one of `words` is a word of `line` (a command name: "mysql", not "mysql_config").
bool hasWord(std::string_view line, std::initializer_list<std::string_view> words) {
  auto boundary = [](char c) { return std::isspace(static_cast<unsigned char>(c)) || c == '"' || c == '\'' || c == ',' || c == '[' || c == '(' || c == '/' || c == '`'; };
  for (std::string_view w : words) {
    for (auto at = line.find(w); at != std::string_view::npos; at = line.find(w, at + 1)) {
      const std::size_t end = at + w.size();
      if (!((at == 0 || boundary(line[at - 1])) && (end == line.size() || (boundary(line[end]) && line[end] != '/')))) continue;
      // Not a path given to an option ("-I/usr/include/mysql"): the word's token starts there.
      std::size_t token = at;
      while (token > 0 && !std::isspace(static_cast<unsigned char>(line[token - 1])) && line[token - 1] != '"' &&
             line[token - 1] != '\'' && line[token - 1] != ',' && line[token - 1] != '[' && line[token - 1] != '(')
        --token;
      if (line[token] != '-') return true;
    }
  }
  return false;
}

bool plausibleSecret(std::string_view v, bool bare) {
  if (looksLikePlaceholder(v)) return false;
  // An unquoted word after a space may be prose; a secret has a digit or a sign in it.
  return !bare || !std::all_of(v.begin(), v.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
}

// "curl -u user:PASSWORD", "--user=user:PASSWORD", "--password=V", "--token V",
// "sshpass -p V", mysql's "-pV": what scripts, READMEs and CI files pass to tools.
void commandLineCredentials(std::string_view text, std::string_view l, std::vector<SecretMatch>& out) {
  for (std::string_view flag : {"-u", "--user", "-U", "--proxy-user"}) {
    forEach(text, flag, [&](std::size_t pos) {
      // curl and wget take user:password; docker, chown and the like take
      // user:group ("1000:1000", "app:app"), so elsewhere only a password-like one.
      const std::string_view before = lineBefore(l, pos);
      const bool http = before.find("curl") != std::string::npos || before.find("wget") != std::string::npos ||
                        before.find("http") != std::string::npos;
      FlagValue v = flagValue(text, pos, flag.size(), flag.size() == 2);
      // curl's "-uadmin:x", the value attached to the flag.
      if (v.length == 0 && flag == "-u" && http && (pos == 0 || isSpace(text[pos - 1]) || text[pos - 1] == '"' || text[pos - 1] == '\'')) {
        const std::size_t n = runLength(text, pos + 2, valueChar);
        if (n > 0 && text[pos + 2] != '-') v = {pos + 2, n, false};
      }
      if (v.length == 0) return;
      const std::string_view pair = text.substr(v.from, v.length);
      // "-u redis://default:PASSWORD@host": a URL, whose password urlPasswords judges.
      if (pair.find("://") != std::string_view::npos) return;
      auto colon = pair.find(':');
      if (colon == std::string_view::npos && hasWord(before, {"smbclient", "rpcclient"})) colon = pair.find('%');  // user%password
      if (colon == 0 || colon == std::string_view::npos || colon + 1 == pair.size()) return;
      const std::string_view password = pair.substr(colon + 1);
      // Elsewhere a user:group ("www-data:www-data", "app:staff") is far likelier: only one with a digit.
      if (!http && (!plausibleSecret(password, true) || !hasDigit(password) || password == pair.substr(0, colon))) return;
      if (looksLikePlaceholder(password) ||
          std::all_of(password.begin(), password.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) return;
      out.push_back({v.from + colon + 1, password.size(), "password"});
    });
  }
  for (std::string_view flag : {"--password", "--passwd", "--pass", "--http-password", "--http-passwd", "--proxy-password",
                                "--proxy-passwd", "--docker-password", "-storepass", "-keypass", "-srcstorepass",
                                "-deststorepass", "-srckeypass", "-destkeypass",
                                "--ftp-password", "--token", "--api-key", "--apikey", "--access-token",
                                "--auth-token", "--secret", "--client-secret"}) {
    forEach(text, flag, [&](std::size_t pos) {
      const FlagValue v = flagValue(text, pos, flag.size());
      if (v.length == 0 || !plausibleSecret(text.substr(v.from, v.length), v.bare)) return;
      out.push_back({v.from, v.length, flag.find("pass") != std::string_view::npos ? "password" : "secret"});
    });
  }
  // "-p V" after sshpass and a registry login, "-a V" after redis-cli, "-pV"
  // after mysql and sshpass; also as argv list elements ("-p", "V").
  auto shortFlag = [&](char letter, std::size_t pos) {
    if (pos > 0 && !isSpace(text[pos - 1]) && text[pos - 1] != '"' && text[pos - 1] != '\'') return;
    // The command the flag is in: "docker login ... && docker run -p 5432:5432" is two.
    std::string_view before = lineBefore(l, pos);
    // One backward scan for the last of ';', '|', "||", '&&' or '&' (not a redirection's ">&").
    for (std::size_t cut = before.size(); cut > 0; --cut) {
      const char c = before[cut - 1];
      if (c == ';' || c == '|' || (c == '&' && !(cut >= 2 && before[cut - 2] == '>'))) {
        before.remove_prefix(cut);
        break;
      }
    }
    auto has = [&](std::string_view w) { return before.find(w) != std::string::npos; };
    const bool sshpass = hasWord(before, {"sshpass"});
    const bool login = has("login") && hasWord(before, {"docker", "podman", "helm", "buildah", "skopeo", "nerdctl", "az"});
    const bool spaced =
        letter == 'a'   ? hasWord(before, {"redis-cli"})
        : letter == 'w' ? hasWord(before, {"ldapsearch", "ldapmodify", "ldapadd", "ldapdelete", "ldapwhoami", "ldappasswd"})
        : letter == 'P' ? hasWord(before, {"sqlcmd", "bcp"})
                        : sshpass || login;
    const bool attached = letter == 'p' && (sshpass || hasWord(before, {"mysql", "mysqldump", "mysqladmin", "mysqlimport",
                                                                       "mysqlcheck", "mysqlshow", "mariadb", "mariadb-dump"}));
    std::size_t k = pos + 2;
    if (k >= text.size()) return;
    FlagValue v;
    if (pos > 0 && (text[pos - 1] == '"' || text[pos - 1] == '\'') && text[k] == text[pos - 1]) {
      if (!spaced) return;
      const std::size_t next = nextArgvElement(text, k);  // ["sshpass", "-p", "V"]
      if (next == std::string_view::npos) return;
      v = quotedValue(text, next);
    } else if (spaced && (isSpace(text[k]) || text[k] == '=')) {
      while (k < text.size() && (isSpace(text[k]) || text[k] == '=')) ++k;
      v = valueAt(text, k);
    } else if (attached && k < text.size() && !isSpace(text[k])) {
      v = valueAt(text, k);
    }
    if (v.length == 0 || text[v.from] == '-' || looksLikePlaceholder(text.substr(v.from, v.length))) return;
    out.push_back({v.from, v.length, "password"});
  };
  for (char letter : {'p', 'a', 'w', 'P'})
    forEach(text, std::string{'-', letter}, [&](std::size_t pos) { shortFlag(letter, pos); });
  // "echo V | docker login --password-stdin" (and printf, helm, podman...): the value echoed into the login.
  forEach(text, "--password-stdin", [&](std::size_t pos) {
    const std::size_t lineStart = lineStartNear(text, pos);
    const std::string_view line = text.substr(lineStart, pos - lineStart);
    const std::size_t pipe = line.rfind('|');
    if (pipe == std::string_view::npos) return;
    std::size_t echo = std::string_view::npos;
    for (std::string_view command : {"echo ", "printf "})
      if (const std::size_t at = line.rfind(command, pipe); at != std::string_view::npos && (at == 0 || !isAlnum(line[at - 1])))
        echo = std::max(echo == std::string_view::npos ? 0 : echo, at + command.size());
    if (echo == std::string_view::npos) return;
    std::size_t k = lineStart + echo;
    while (k < lineStart + pipe && (isSpace(text[k]) || (text[k] == '-' && k + 1 < text.size() && text[k + 1] == 'n'))) k += text[k] == '-' ? 2 : 1;
    const FlagValue v = valueAt(text, k);
    if (v.length == 0 || v.from + v.length > lineStart + pipe || looksLikePlaceholder(text.substr(v.from, v.length))) return;
    out.push_back({v.from, v.length, "password"});
  });
  // openssl's "-passin pass:V", "-passout pass:V", "-pass pass:V", "-k pass:V".
  forEach(text, "pass:", [&](std::size_t pos) {
    if (pos == 0 || !isSpace(text[pos - 1]) || lineBefore(l, pos).find("-pass") == std::string_view::npos) return;
    const FlagValue v = valueAt(text, pos + 5);
    if (v.length == 0 || looksLikePlaceholder(text.substr(v.from, v.length))) return;
    out.push_back({v.from, v.length, "password"});
  });
  // "aws configure set aws_secret_access_key V" (and any key naming a secret).
  forEach(text, "configure", [&](std::size_t pos) {
    std::size_t k = pos + 9;
    if (k >= text.size() || !isSpace(text[k])) return;
    while (k < text.size() && isSpace(text[k])) ++k;
    if (text.substr(k, 3) != "set" || k + 3 >= text.size() || !isSpace(text[k + 3])) return;
    k += 3;
    while (k < text.size() && isSpace(text[k])) ++k;
    const std::size_t keyLength = runLength(text, k, keyChar);
    std::string key;
    for (char c : text.substr(k, keyLength)) key += lower(c);
    if (key.find("secret") == std::string::npos && key.find("password") == std::string::npos &&
        key.find("token") == std::string::npos) return;
    k += keyLength;
    if (k >= text.size() || !isSpace(text[k])) return;
    while (k < text.size() && isSpace(text[k])) ++k;
    const std::size_t n = runLength(text, k, valueChar);
    if (n == 0 || looksLikePlaceholder(text.substr(k, n))) return;
    out.push_back({k, n, "secret"});
  });
}

// The file name of `path`, lowered.
std::string fileNameOf(std::string_view path) {
  const auto slash = path.rfind('/');
  std::string name;
  for (char c : path.substr(slash == std::string_view::npos ? 0 : slash + 1)) name += lower(c);
  return name;
}

// netrc's "machine H login U password V" (a .netrc's lines, or one line that
// says machine or login), and a .pgpass's "host:port:db:user:V" lines.
void netrcAndPgpass(std::string_view text, std::string_view l, std::string_view path, std::vector<SecretMatch>& out) {
  const std::string name = fileNameOf(path);
  const bool netrc = name == ".netrc" || name == "_netrc";
  forEach(text, "password", [&](std::size_t pos) {
    if ((pos > 0 && !std::isspace(static_cast<unsigned char>(text[pos - 1]))) || pos + 8 >= text.size() || !isSpace(text[pos + 8]))
      return;
    const std::string_view before = lineBefore(l, pos);
    if (!netrc && (before.find("machine ") == std::string::npos || before.find("login ") == std::string::npos)) return;
    std::size_t k = pos + 8;
    while (k < text.size() && isSpace(text[k])) ++k;
    std::size_t n = runLength(text, k, valueChar);
    // In a source string ("... password V\n"), an escape ends the value; an
    // escaped backslash ("1\\n9Kq") is part of it.
    for (std::size_t e = k; e + 1 < k + n; ++e) {
      if (text[e] != '\\') continue;
      if (text[e + 1] == 'n' || text[e + 1] == 'r' || text[e + 1] == 't') {
        n = e - k;
        break;
      }
      ++e;
    }
    if (n == 0 || looksLikePlaceholder(text.substr(k, n))) return;
    out.push_back({k, n, "password"});
  });
  if (name != ".pgpass" && name != "pgpass") return;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    std::size_t colon = 0, fields = 0;
    for (std::size_t i = 0; i < line.size(); ++i)
      if (line[i] == ':' && (i == 0 || line[i - 1] != '\\') && ++fields == 4) colon = i;
    std::size_t valueEnd = line.size();
    while (valueEnd > colon && std::isspace(static_cast<unsigned char>(line[valueEnd - 1]))) --valueEnd;
    if (fields >= 4 && line.front() != '#' && valueEnd > colon + 1) out.push_back({start + colon + 1, valueEnd - colon - 1, "password"});
    start = end + 1;
  }
}

// A Kubernetes Secret's values: every "key: V" under its "data:" (base64 of the
// secret) or "stringData:" block, in a text that says "kind: Secret".
void kubernetesSecrets(std::string_view text, std::vector<SecretMatch>& out) {
  if (text.find("kind: Secret") == std::string_view::npos) return;
  std::size_t blockIndent = std::string_view::npos;  // the indentation of "data:" while inside its block
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::size_t indent = line.find_first_not_of(' ');
    if (indent != std::string_view::npos) {
      const std::string_view content = line.substr(indent);
      if (blockIndent != std::string_view::npos && indent <= blockIndent) blockIndent = std::string_view::npos;
      if (content == "data:" || content == "stringData:") {
        blockIndent = indent;
      } else if (blockIndent != std::string_view::npos && content.front() != '#') {
        const std::size_t colon = content.find(": ");
        if (colon != std::string_view::npos) {
          std::size_t v = colon + 2;
          while (v < content.size() && content[v] == ' ') ++v;
          std::string_view value = content.substr(v);
          if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
            value = value.substr(1, value.size() - 2);
            ++v;
          }
          if (value.size() >= 4 && !looksLikePlaceholder(value) && value != "|" && value != ">")
            out.push_back({start + indent + v, value.size(), "secret"});
        }
      }
    }
    start = end + 1;
  }
}

// A value that is code, not a literal: a call ("getPw()"), an index ("cfg[k]").
bool looksLikeCode(std::string_view v) { return v.find_first_of("()[]") != std::string_view::npos; }

// ODBC's braced value at `open` ("Pwd={S3cr;et}", "}}" escapes a brace): its
// inside when it looks like a password rather than a format placeholder
// ("{0}", "{password}", "{self.pw}"); {npos, 0} otherwise.
FlagValue bracedValue(std::string_view text, std::size_t open) {
  std::size_t k = open + 1;
  for (; k < text.size() && k <= open + 257 && text[k] != '\n'; ++k) {
    if (text[k] != '}') continue;
    if (k + 1 < text.size() && text[k + 1] == '}') { ++k; continue; }
    const std::string_view v = text.substr(open + 1, k - open - 1);
    const bool mixed = lettersAndDigits(v);
    const bool sign = std::any_of(v.begin(), v.end(), [](char c) {
      return !isAlnum(c) && std::string_view("_.-:[]()'\"{} ").find(c) == std::string_view::npos;
    });
    if (looksLikePlaceholder(v) || !((mixed && v.size() >= 8) || sign)) return {};
    return {open + 1, v.size(), false};
  }
  return {};
}

// Secrets in a connection string: ";Password=V;", "Pwd=V;", "; Password = V;",
// ODBC's "Pwd={V};" (ADO.NET, JDBC, ODBC), Azure's "AccountKey=V;" and
// "SharedAccessKey=V", and libpq's space-separated "host=db password=V".
void connectionStrings(std::string_view text, std::string_view l, std::vector<SecretMatch>& out) {
  if (text.find('=') == std::string_view::npos) return;
  const auto lineFrom = [&](std::size_t pos) { return lineStartNear(l, pos); };
  for (std::string_view key : {"password", "pwd", "accountkey", "sharedaccesskey"}) {
    forEach(l, key, [&](std::size_t pos) {
      if (pos > 0 && (isAlnum(text[pos - 1]) || text[pos - 1] == '_' || text[pos - 1] == '-' || text[pos - 1] == '.')) return;
      std::size_t eq = pos + key.size();
      while (eq < text.size() && isSpace(text[eq])) ++eq;
      if (eq >= text.size() || text[eq] != '=' || (eq + 1 < text.size() && text[eq + 1] == '=')) return;
      std::size_t from = eq + 1;
      while (from < text.size() && isSpace(text[from])) ++from;
      const bool spaced = eq != pos + key.size() || from != eq + 1;
      // The field before: "user=sa;password=" or "user=sa; Password =", a ';' after a field with an '='.
      // Not "cd /src;PWD=/src/build make" (a command, then the shell's PWD).
      std::size_t b = pos;
      while (b > 0 && isSpace(text[b - 1])) --b;
      const char before = b == 0 ? '\n' : text[b - 1];
      bool fieldBefore = false;
      if (before == ';') {
        const std::size_t from0 = lineFrom(b - 1);
        const std::string_view previous = l.substr(from0, b - 1 - from0);
        const std::size_t field = previous.rfind(';');
        fieldBefore = previous.substr(field == std::string_view::npos ? 0 : field + 1).find('=') != std::string_view::npos;
      }
      FlagValue v;
      if (from < text.size() && text[from] == '{') {
        v = bracedValue(text, from);
        if (v.length == 0) return;
        const std::size_t close = v.from + v.length;
        const char after = close + 1 < text.size() ? text[close + 1] : ';';
        if (!fieldBefore && !(after == ';' && (before == '"' || before == '\''))) return;
      } else {
        const std::size_t n = runLength(text, from, [](char c) {
          return c != ';' && c != '"' && c != '\'' && c != '&' && !std::isspace(static_cast<unsigned char>(c));
        });
        v = {from, n, false};
        const std::size_t end = from + n;
        // A field of a connection string: after another field, or first in a quoted string with a field after it.
        const bool endsField = end < text.size() && text[end] == ';';
        std::size_t next = end + 1;
        while (next < text.size() && isSpace(text[next])) ++next;
        const std::size_t nextKey = runLength(text, next, [](char c) { return keyChar(c) || c == ' '; });
        const bool fieldAfter = endsField && nextKey > 0 && next + nextKey < text.size() && text[next + nextKey] == '=';
        const bool semicolonField = fieldBefore || (endsField && (before == '"' || before == '\'' || fieldAfter));
        // libpq's "host=db user=app password=V dbname=x": space-separated fields, a word=word beside it.
        auto wordField = [&](std::string_view w) {
          if (const auto open = w.find_last_of("(\"'"); open != std::string_view::npos && open + 1 < w.size() &&
                                                       w.find('=') > open)
            w.remove_prefix(open + 1);  // connect("host=db password=V")
          while (!w.empty() && (w.front() == '"' || w.front() == '\'')) w.remove_prefix(1);
          while (!w.empty() && (w.back() == '"' || w.back() == '\'')) w.remove_suffix(1);
          const auto e = w.find('=');
          return e != std::string_view::npos && e > 0 && e + 1 < w.size() &&
                 std::all_of(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(e), keyChar) && !looksLikeCode(w) &&
                 w.find(',') == std::string_view::npos;
        };
        bool keywordField = false;
        if (!spaced && text.substr(from, n).find(',') == std::string_view::npos && pos > 0 && (isSpace(text[pos - 1]) || text[pos - 1] == '"' || text[pos - 1] == '\'') &&
            (end == text.size() || std::isspace(static_cast<unsigned char>(text[end])) || text[end] == '"' || text[end] == '\'')) {
          // The words beside it, if short: a field ("host=db") is, and reading a long one
          // (a line without spaces) again for each keyword in it would be quadratic.
          constexpr std::size_t kMaxFieldWord = 512;
          std::size_t p0 = pos;
          while (p0 > 0 && pos - p0 <= kMaxFieldWord && isSpace(text[p0 - 1])) --p0;
          std::size_t p1 = p0;
          while (p1 > 0 && p0 - p1 <= kMaxFieldWord && !std::isspace(static_cast<unsigned char>(text[p1 - 1]))) --p1;
          std::size_t q0 = end;
          while (q0 < text.size() && q0 - end <= kMaxFieldWord && isSpace(text[q0])) ++q0;
          const std::size_t q1 = q0 + runLength(text, q0, [](char c) { return !std::isspace(static_cast<unsigned char>(c)); });
          keywordField = (p1 < p0 && p0 - p1 <= kMaxFieldWord && wordField(text.substr(p1, p0 - p1))) ||
                         (q0 < q1 && q1 - q0 <= kMaxFieldWord && wordField(text.substr(q0, q1 - q0)));
        }
        if (spaced ? !fieldBefore : !(semicolonField || keywordField)) return;
      }
      const std::string_view value = text.substr(v.from, v.length);
      if (value.empty() || (text[v.from - 1] != '{' && value.front() == '{') || looksLikePlaceholder(value) ||
          (text[v.from - 1] != '{' && looksLikeCode(value))) return;
      out.push_back({v.from, v.length, key.starts_with("p") ? "password" : "secret"});
    });
  }
}

// A secret in a URL's query: "jdbc:mysql://db/app?user=root&password=V",
// "?access_token=V", Azure SAS "&sig=V". A name that says password takes any
// literal value; the generic ones (token, key, sig) only a long random one.
void queryParameters(std::string_view text, std::string_view l, std::vector<SecretMatch>& out) {
  for (char separator : {'?', '&'}) {
    forEach(l, std::string_view(&separator, 1), [&](std::size_t pos) {
      // In a URL: a '?' right after its path, a '&' after a '?' in the same word
      // (not C++'s `const std::string&pass=...`).
      if (pos == 0 || std::isspace(static_cast<unsigned char>(l[pos - 1]))) return;
      // The parameter first: what precedes it is read only for a secret's name
      // (a minified line's every "&&" would otherwise read back along the line).
      const std::size_t k = pos + 1;
      const std::size_t keyLength = runLength(l, k, [](char c) { return isAlnum(c) || c == '_' || c == '-'; });
      if (keyLength == 0 || k + keyLength >= text.size() || text[k + keyLength] != '=') return;
      const std::string_view key = l.substr(k, keyLength);
      const bool password = key == "password" || key == "passwd" || key == "pwd" || key == "pass";
      static constexpr std::array<std::string_view, 11> kSecretKeys{"secret", "client_secret", "api_key", "apikey", "access_token",
                                                                    "auth_token", "token", "sig", "key", "private_token",
                                                                    "refresh_token"};
      if (!password && std::find(kSecretKeys.begin(), kSecretKeys.end(), key) == kSecretKeys.end()) return;
      // Or a '&' of a form body on a curl or wget command line ("-d 'user=u&password=V'").
      if (separator == '&') {
        std::size_t w = pos;
        const std::size_t floor = lineStartNear(l, pos);
        while (w > floor && !std::isspace(static_cast<unsigned char>(l[w - 1])) && l[w - 1] != '?') --w;
        if ((w == 0 || l[w - 1] != '?') && !hasWord(lineBefore(l, pos), {"curl", "wget"})) return;
      }
      const std::size_t from = k + keyLength + 1;
      const std::size_t n = runLength(text, from, [](char c) {
        return c != '&' && c != '#' && c != '"' && c != '\'' && c != '`' && c != '<' && c != '>' && c != ';' &&
               !std::isspace(static_cast<unsigned char>(c));
      });
      const std::string_view value = text.substr(from, n);
      // A value longer than any typed secret is no parameter's (and each look at
      // it, once per "?password=" of a long line, read the rest of the line).
      if (n == 0 || n > kMaxNamedValue || looksLikePlaceholder(value) || looksLikeCode(value) ||
          (!password && !highEntropy(value)))
        return;
      out.push_back({from, n, password ? "password" : "secret"});
    });
  }
}

// An environment variable set for one command: "PGPASSWORD=V psql ...",
// "env API_TOKEN=V deploy": a secret name in capitals, then a command.
void environmentPrefixes(std::string_view text, std::vector<SecretMatch>& out) {
  forEach(text, "=", [&](std::size_t eq) {
    std::size_t start = eq;
    while (start > 0 && eq - start <= kMaxKeyName &&
           (std::isupper(static_cast<unsigned char>(text[start - 1])) ||
            std::isdigit(static_cast<unsigned char>(text[start - 1])) || text[start - 1] == '_')) --start;
    if (eq - start > kMaxKeyName) return;  // no variable's name: an encoded blob
    if (start == eq || (start > 0 && !isSpace(text[start - 1]) && text[start - 1] != '\n' && text[start - 1] != ';' &&
                        text[start - 1] != '&' && text[start - 1] != '|' && text[start - 1] != '(')) return;
    const std::string_view name = text.substr(start, eq - start);
    // "PWD" and "OLDPWD" are the shell's directories; "MYSQL_PWD" is a password.
    const bool password = name.find("PASSWORD") != std::string_view::npos || name.find("PASSWD") != std::string_view::npos ||
                          (name.ends_with("_PWD") && name != "OLD_PWD") || name.ends_with("_PASS") ||
                          name.find("PASSPHRASE") != std::string_view::npos;
    const bool secret = name.find("SECRET") != std::string_view::npos || name.ends_with("TOKEN") || name.ends_with("_KEY");
    if (!password && !secret) return;
    // PGPASSWORD='Sup3r S3cret' psql: a quoted value may hold spaces.
    const FlagValue v = valueAt(text, eq + 1);
    const std::size_t n = v.length;
    const std::size_t after = v.from + n + (v.from == eq + 1 ? 0 : 1);
    // Followed by a command on the same line (a value that ends its line is an assignment, seen apart).
    if (n == 0 || after >= text.size() || !isSpace(text[after])) return;
    std::size_t k = after;
    while (k < text.size() && isSpace(text[k])) ++k;
    if (k >= text.size() || !(std::isalpha(static_cast<unsigned char>(text[k])) || text[k] == '.' || text[k] == '/')) return;
    const std::string_view value = text.substr(v.from, n);
    if (looksLikePlaceholder(value) || (!password && !highEntropy(value))) return;
    out.push_back({v.from, n, password ? "password" : "secret"});
  });
}

// GitLab tokens (personal "glpat-", deploy "gldt-", runner "glrt-" and the
// other gl*- kinds, 20 or more after the prefix), Slack and Discord webhook
// URLs, and kubectl's "--from-literal=password=V".
void gitlabAndWebhooks(std::string_view text, std::vector<SecretMatch>& out) {
  for (std::string_view prefix : {"glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glimt-", "glagent-", "gloas-", "glsoat-", "glcbt-"}) {
    forEach(text, prefix, [&](std::size_t pos) {
      if (pos > 0 && tokenChar(text[pos - 1])) return;
      const std::size_t n = runLength(text, pos + prefix.size(), tokenChar);
      if (n >= 20) out.push_back({pos, prefix.size() + n, "gitlab-token"});
    });
  }
  for (std::string_view hook : {"hooks.slack.com/services/", "hooks.slack.com/workflows/", "hooks.slack.com/triggers/",
                                "discord.com/api/", "discordapp.com/api/"}) {
    forEach(text, hook, [&](std::size_t pos) {
      std::size_t from = pos + hook.size();
      if (hook.ends_with("/api/")) {  // "webhooks/", or a versioned "v10/webhooks/"
        if (text.compare(from, 1, "v") == 0) {
          const std::size_t digits = runLength(text, from + 1, [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
          if (digits == 0 || text.compare(from + 1 + digits, 1, "/") != 0) return;
          from += 2 + digits;
        }
        if (text.compare(from, 9, "webhooks/") != 0) return;
        from += 9;
      }
      const std::size_t n = runLength(text, from, [](char c) { return tokenChar(c) || c == '/'; });
      if (n >= 20) out.push_back({from, n, hook.starts_with("d") ? "discord-webhook" : "slack-webhook"});
    });
  }
  forEach(text, "--from-literal=", [&](std::size_t pos) {
    const std::size_t k = pos + 15;
    const std::size_t keyLength = runLength(text, k, keyChar);
    if (k + keyLength >= text.size() || text[k + keyLength] != '=') return;
    std::string key;
    for (char c : text.substr(k, keyLength)) key += lower(c);
    const bool password = key.find("pass") != std::string::npos || key.find("pwd") != std::string::npos;
    if (!password && key.find("secret") == std::string::npos && key.find("token") == std::string::npos &&
        !key.ends_with("key")) return;
    const std::size_t from = k + keyLength + 1;
    const FlagValue v = valueAt(text, from);
    if (v.length == 0 || looksLikePlaceholder(text.substr(v.from, v.length))) return;
    out.push_back({v.from, v.length, password ? "password" : "secret"});
  });
}

bool credentialChar(char c) { return isAlnum(c) || std::string_view("-._~+/=").find(c) != std::string_view::npos; }

// "Authorization: Bearer V" / "Basic V" / "token V" as a header is written (a
// header line, a curl -H, a headers map: the name, a quote, ':' or '=', the
// scheme), and a long random "Bearer V" anywhere. Prose about authorization
// ("Authorization token validation failed") is no header.
// Code that reads the key, not the key: process.env.ANTHROPIC_API_KEY,
// BuildConfig.WEATHER_API_KEY, _options.Value.ApiKey, session.refreshedToken.
// Identifiers joined by dots whose last one names a key.
bool memberPath(std::string_view value) {
  std::size_t segments = 0;
  std::string_view last;
  for (std::size_t at = 0; at <= value.size();) {
    const std::size_t dot = std::min(value.find('.', at), value.size());
    const std::string_view seg = value.substr(at, dot - at);
    // Identifiers of code have no digits here; a random key split by dots has them.
    if (seg.empty() || !std::all_of(seg.begin(), seg.end(), [](char c) {
          return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$';
        }))
      return false;
    ++segments;
    last = seg;
    at = dot + 1;
  }
  const std::string name = alnumLower(last);
  bool namesKey = false;
  for (std::string_view word : {"key", "token", "secret", "auth", "password", "credential"})
    namesKey |= name.find(word) != std::string::npos;
  return segments >= 2 && namesKey;
}

// A cookie's value as a session id is written: random (hex, base64, a UUID), not
// words joined by '_' or '-' with a number ("ROCKET_LAUNCHER_0001", "en-US-2").
bool randomCookieValue(std::string_view v) {
  if (!highEntropy(v) || memberPath(v)) return false;
  if (v.find_first_of("_-") == std::string_view::npos) return true;
  for (std::size_t at = 0; at <= v.size();) {
    const std::size_t end = std::min(v.find_first_of("_-", at), v.size());
    const std::string_view word = v.substr(at, end - at);
    const bool letters = std::all_of(word.begin(), word.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
    const bool oneCase = std::all_of(word.begin(), word.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); }) ||
                         std::all_of(word.begin(), word.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)); });
    if (word.size() >= 4 && letters && oneCase) return false;
    at = end + 1;
  }
  return true;
}

// Standard base64 decoded ("" when `v` is not base64): what an HTTP Basic credential holds.
std::string base64Decoded(std::string_view v) {
  static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned bits = 0;
  int count = 0;
  for (char c : v) {
    if (c == '=') break;
    const auto at = kAlphabet.find(c);
    if (at == std::string_view::npos) return {};
    bits = (bits << 6) | static_cast<unsigned>(at);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xFF);
    }
  }
  return out;
}

void authorizationHeaders(std::string_view text, std::string_view l, std::vector<SecretMatch>& out) {
  // The header's value, just after `pos` (a header name's end): quotes, ':' or '=', spaces.
  // Also a call's arguments after a quoted name: setHeader("Authorization", "Bearer V").
  auto headerValue = [&](std::size_t pos) {
    std::size_t k = pos;
    const bool quoted = k < l.size() && (l[k] == '"' || l[k] == '\'');
    if (quoted) ++k;
    if (quoted && k < l.size() && l[k] == ']') ++k;  // headers["X-API-Key"] = "V"
    while (k < l.size() && isSpace(l[k])) ++k;
    if (k >= l.size() || (l[k] != ':' && l[k] != '=' && !(quoted && l[k] == ','))) return std::string_view::npos;
    ++k;
    while (k < l.size() && (isSpace(l[k]) || l[k] == '"' || l[k] == '\'' || l[k] == '>')) ++k;
    return k;
  };
  // A credential is random: digits, or both cases ("required." in prose is neither);
  // a name in capitals ("ACCESS_TOKEN") is a placeholder, not a credential.
  auto credential = [&](std::size_t k, std::size_t minimum) {
    const std::size_t n = runLength(text, k, credentialChar);
    const std::string_view value = text.substr(k, n);
    if (memberPath(value)) return std::size_t{0};
    const bool named = std::all_of(value.begin(), value.end(), [](char c) {
      return std::isupper(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    });
    auto any = [&](int (*test)(int)) { return std::any_of(value.begin(), value.end(), [&](char c) { return test(static_cast<unsigned char>(c)) != 0; }); };
    const bool random = any(::isdigit) || (any(::isupper) && any(::islower));
    return n >= minimum && random && !named && !looksLikePlaceholder(value) ? n : 0;
  };
  forEach(l, "authorization", [&](std::size_t pos) {
    const std::size_t at = headerValue(pos + 13);
    if (at == std::string_view::npos) return;
    for (std::string_view scheme : {"bearer", "basic", "token"}) {
      if (l.compare(at, scheme.size(), scheme) != 0) continue;
      std::size_t k = at + scheme.size();
      if (k >= l.size() || !isSpace(l[k])) return;
      while (k < l.size() && isSpace(l[k])) ++k;
      const std::size_t n = credential(k, 8);
      if (n == 0) return;
      // Basic is base64 of "user:password". A user with no password ("dXNlcjo=" is
      // "user:") or a placeholder one ("user:changeme") is no credential; but an
      // API key sent as the user with an empty password (Stripe's, GitHub's) is.
      if (scheme == "basic") {
        const std::string pair = base64Decoded(text.substr(k, n));
        const auto colon = pair.find(':');
        if (colon != std::string::npos) {
          const std::string_view user = std::string_view(pair).substr(0, colon);
          const std::string_view password = std::string_view(pair).substr(colon + 1);
          const bool userIsAKey = !findSecrets(user).empty() || highEntropy(user);
          if (password.empty() ? !userIsAKey : looksLikePlaceholder(password) && !userIsAKey) return;
        }
        out.push_back({k, n, "basic-auth"});
        return;
      }
      out.push_back({k, n, "bearer-token"});
      return;
    }
  });
  // API key headers: "X-API-Key: V" (Anthropic, many APIs), Azure's "api-key", GitLab's "PRIVATE-TOKEN".
  for (std::string_view name : {"x-api-key", "api-key", "private-token", "x-auth-token", "x-access-token"}) {
    forEach(l, name, [&](std::size_t pos) {
      if (pos > 0 && (isAlnum(l[pos - 1]) || l[pos - 1] == '_')) return;
      const std::size_t at = headerValue(pos + name.size());
      if (at == std::string_view::npos) return;
      if (const std::size_t n = credential(at, 16)) out.push_back({at, n, "api-key-header"});
    });
  }
  // Cookies: "Cookie: sid=V; theme=dark", "Set-Cookie: SESSION=V; Path=/", a
  // headers map's 'Cookie': 'auth=V', curl's --cookie/-b 'sid=V'. A session
  // cookie is as good as the password that made it; only random values count.
  auto cookies = [&](std::size_t at) {
    for (std::size_t k = at; k < text.size() && text[k] != '\n' && text[k] != '"' && text[k] != '\'';) {
      while (k < text.size() && (isSpace(text[k]) || text[k] == ';')) ++k;
      const std::size_t name = runLength(text, k, tokenChar);
      if (name == 0 || k + name >= text.size() || text[k + name] != '=') return;
      const std::size_t v = k + name + 1;
      const std::size_t n = runLength(text, v, [](char c) { return credentialChar(c) || c == '%'; });
      if (n > 0 && randomCookieValue(text.substr(v, n))) out.push_back({v, n, "session-cookie"});
      k = v + n;
    }
  };
  forEach(l, "cookie", [&](std::size_t pos) {
    if (pos > 0 && isAlnum(l[pos - 1])) return;
    std::size_t at = headerValue(pos + 6);
    const bool flag = pos >= 2 && l.substr(pos - 2, 2) == "--" && pos + 7 < l.size() && l[pos + 6] == ' ';
    if (at == std::string_view::npos && flag) at = flagValue(text, pos - 2, 8, true).from;
    if (at != std::string_view::npos) cookies(at);
  });
  forEach(l, " -b ", [&](std::size_t pos) {
    if (!hasWord(lineBefore(l, pos), {"curl"})) return;
    if (const std::size_t at = flagValue(text, pos + 1, 2, true).from; at != std::string_view::npos) cookies(at);
  });
  forEach(l, "bearer ", [&](std::size_t pos) {
    if (pos > 0 && isAlnum(text[pos - 1])) return;
    const std::size_t k = pos + 7;
    const std::size_t n = runLength(text, k, credentialChar);
    if (n >= 20 && highEntropy(text.substr(k, n))) out.push_back({k, n, "bearer-token"});
  });
}

// ---- key bodies without their BEGIN line ------------------------------------

bool base64Char(char c) { return isAlnum(c) || c == '+' || c == '/' || c == '='; }

struct TextLine { std::size_t begin, end; };

std::vector<TextLine> splitLines(std::string_view text) {
  std::vector<TextLine> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    std::size_t end = nl;
    if (end > start && text[end - 1] == '\r') --end;
    lines.push_back({start, end});
    if (nl == text.size()) break;
    start = nl + 1;
  }
  return lines;
}

// The base64 run that makes up a line of key material, after any lead-in
// (a diff marker, a line number), bare or as a string literal of its own
// ("MIIE...\n" + in Java or JS, 'MIIE...', in a Python list); {0,0} when the
// line is something else.
TextLine base64Body(std::string_view text, TextLine line, std::size_t minimum) {
  std::size_t e = line.end;
  while (e > line.begin && isSpace(text[e - 1])) --e;
  char quote = 0;
  for (std::size_t q = e;;) {
    if (q > line.begin && std::string_view("+,;)").find(text[q - 1]) != std::string_view::npos) {
      --q;
      while (q > line.begin && isSpace(text[q - 1])) --q;
    }
    if (q == line.begin || (text[q - 1] != '"' && text[q - 1] != '\'')) break;
    quote = text[--q];
    if (q >= line.begin + 2 && text[q - 2] == '\\' && text[q - 1] == 'n') q -= 2;  // an escaped line break
    e = q;
    break;
  }
  std::size_t b = e;
  while (b > line.begin && base64Char(text[b - 1])) --b;
  std::size_t leadEnd = b;
  if (quote) {
    if (b == line.begin || text[b - 1] != quote) return {0, 0};
    leadEnd = b - 1;
  }
  // What precedes the run may only be a lead-in.
  for (std::size_t i = line.begin; i < leadEnd; ++i) {
    const char c = text[i];
    if (!(isSpace(c) || c == '+' || c == '-' || std::isdigit(static_cast<unsigned char>(c)))) return {0, 0};
  }
  if (e - b < minimum) return {0, 0};
  const std::string_view run = text.substr(b, e - b);
  const bool mixed = std::any_of(run.begin(), run.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '/'; }) &&
                     std::any_of(run.begin(), run.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); }) &&
                     std::any_of(run.begin(), run.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)); });
  return mixed ? TextLine{b, e} : TextLine{0, 0};
}

bool isKeyFileName(std::string_view path) {
  const std::string name = fileNameOf(path);
  for (std::string_view exact : {"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk"}) {
    if (name == exact) return true;
  }
  for (std::string_view ext : {".pem", ".key", ".p8", ".ppk", ".jks.b64"}) {
    if (name.size() > ext.size() && name.ends_with(ext)) return true;
  }
  return false;
}

// Lines of key material whose BEGIN line is not in the text: every base64 line
// of a key file (by name), the base64 lines just above an "-----END ... PRIVATE
// KEY-----" line, and any run of 3 or more PEM-width (64 or 70 character) base64 lines.
void keyBodies(std::string_view text, std::string_view path, std::vector<SecretMatch>& out) {
  const bool keyFile = !path.empty() && isKeyFileName(path);
  const bool hasEnd = text.find("-----END ") != std::string_view::npos;
  if (!keyFile && !hasEnd && text.size() < 3 * 64) return;
  const std::vector<TextLine> lines = splitLines(text);
  std::vector<TextLine> bodies(lines.size(), TextLine{0, 0});
  for (std::size_t i = 0; i < lines.size(); ++i) bodies[i] = base64Body(text, lines[i], 4);
  std::vector<bool> secret(lines.size(), false);
  if (keyFile) {
    for (std::size_t i = 0; i < lines.size(); ++i) secret[i] = bodies[i].end - bodies[i].begin >= 16;
  }
  if (!keyFile) {
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const std::string_view l = text.substr(lines[i].begin, lines[i].end - lines[i].begin);
      if (l.find("-----END ") != std::string_view::npos && l.find("PRIVATE KEY") != std::string_view::npos) {
        for (std::size_t j = i; j-- > 0 && bodies[j].end != 0;) secret[j] = true;
      }
    }
    for (std::size_t i = 0; i < lines.size();) {
      std::size_t j = i;
      auto pemWidth = [&](std::size_t k) {
        const std::size_t w = bodies[k].end - bodies[k].begin;
        return bodies[k].end != 0 && (w == 64 || w == 70);
      };
      while (j < lines.size() && pemWidth(j)) ++j;
      // A certificate's or a public key's body (under its BEGIN line, or above its END line) is public.
      auto publicBlock = [&](std::size_t k) {
        if (k >= lines.size()) return false;
        const std::string_view l = text.substr(lines[k].begin, lines[k].end - lines[k].begin);
        return (l.find("-----BEGIN ") != std::string_view::npos || l.find("-----END ") != std::string_view::npos) &&
               (l.find("CERTIFICATE") != std::string_view::npos || l.find("PUBLIC KEY") != std::string_view::npos);
      };
      if (j - i >= 3 && !(i > 0 && publicBlock(i - 1)) && !publicBlock(j) && !publicBlock(j + 1)) {
        for (std::size_t k = i; k < j; ++k) secret[k] = true;
        if (j < lines.size() && bodies[j].end != 0) secret[j] = true;  // the shorter last line
      }
      i = j == i ? i + 1 : j;
    }
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (secret[i] && bodies[i].end != 0) out.push_back({bodies[i].begin, bodies[i].end - bodies[i].begin, "private-key"});
  }
}

// ---- `password = "literal"` and friends -------------------------------------

bool keyChar(char c) { return isAlnum(c) || c == '_' || c == '-' || c == '.'; }

// `last`: only as the end of the name ("DB_PASS", not "DB_PASSTHROUGH");
// `whole`: only as the whole name (docker's "auth", a bare "token");
// `mixed`: only with a value of 8 or more holding letters and digits (nodemailer's
// `pass: "..."`, where `pass: "skip"` is a test's outcome).
struct Keyword {
  std::string_view word;
  std::string_view kind;
  bool needsEntropy = false;
  bool last = false;
  bool whole = false;
  bool mixed = false;
};
constexpr std::array<Keyword, 22> kKeywords{{{"auth", "secret", true, true, true}, {"token", "secret", true, true, true},
                                             {"pass", "password", false, true, true, true},
                                             {"password", "password"},     {"passwd", "password"},
                                             {"passphrase", "password"},   {"pwd", "password", false, true},
                                             {"secret", "secret"},         {"api_key", "secret"},
                                             {"apikey", "secret"},         {"access_token", "secret"},
                                             {"auth_token", "secret"},     {"private_key", "secret"},
                                             {"authtoken", "secret"},      {"_token", "secret", true},
                                             {"-token", "secret", true},   {"_pass", "password", false, true},
                                             {"accesstoken", "secret", true}, {"refreshtoken", "secret", true},
                                             {"refresh_token", "secret", true}, {"privatekey", "secret", true},
                                             {"_key", "secret", true, true}}};

// Names that hold text about a secret, not the secret ("passwordPrompt",
// "SECRET_HEADER_NAME"), judged by their last word.
bool describesSecret(std::string_view name) {
  std::string lowerName;
  for (char c : name) lowerName += lower(c);
  static constexpr std::array<std::string_view, 36> suffixes{
      "label", "prompt", "message", "msg", "hint", "text", "title", "field", "pattern", "regex", "format", "name",
      "path", "file", "url", "param", "header", "placeholder", "column", "policy", "length", "env", "var", "id", "hash",
      "encoder", "hasher", "algorithm", "backend", "arn", "version", "template", "ref", "type", "manager", "provider"};
  for (auto s : suffixes) {
    if (lowerName.size() > s.size() && lowerName.ends_with(s)) return true;
  }
  return false;
}

bool looksLikePlaceholder(std::string_view v) {
  if (v.size() < 4) return true;
  if (v.starts_with("${") || v.starts_with("{") || v.starts_with("%(") || v.starts_with("$(") || v.starts_with("<") ||
      v.starts_with("%") || v.starts_with("ENC(")) return true;
  // "$VAR", "$1": a variable; "$mtpoUWTlw8A-Q7r" in single quotes is a password that starts with '$'.
  if (v.starts_with("$") && std::all_of(v.begin() + 1, v.end(), [](char c) { return isAlnum(c) || c == '_'; }))
    return true;
  // Interpolated, not a literal: Ruby's "#{password}#{pepper}" (only at the start:
  // "#{" or "${" inside a value is two characters a generated password may hold).
  if (v.starts_with("#{")) return true;
  // A file that holds the secret (Docker's /run/secrets/db-password), not the
  // secret: lower-case words, as paths are and a random value starting with '/' is not.
  if ((v.starts_with("/") || v.starts_with("./") || v.starts_with("~/")) && v.find('/', 2) != std::string_view::npos &&
      std::all_of(v.begin(), v.end(), [](char c) {
        return std::islower(static_cast<unsigned char>(c)) || std::string_view("/._-~").find(c) != std::string_view::npos;
      }))
    return true;
  if (std::all_of(v.begin(), v.end(), [&](char c) { return c == v.front(); })) return true;  // "****", "xxxx"
  std::string l;
  for (char c : v) l += lower(c);
  static constexpr std::array<std::string_view, 16> words{"password", "passwd", "secret", "changeme", "change-me", "changeit",
                                                          "placeholder", "example", "dummy", "redacted", "todo", "none",
                                                          "null", "undefined", "true", "false"};
  for (auto w : words) if (l == w) return true;
  if (l.starts_with("[redacted")) return true;
  // "your-api-key", "my-secret-password": words, no capitals or signs ("my-3GiaLqRa!9" is a password).
  return (l.starts_with("your") || l.starts_with("my-")) && std::all_of(v.begin(), v.end(), [](char c) {
           return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' ||
                  c == '_';
         });
}

// True when only a line's lead-in precedes `keyStart` on its line: indentation,
// a diff marker, a line number ("  12 + "), a search hit's "path:12:", "export ".
// Redaction may see text that already carries such prefixes.
bool startsStatement(std::string_view text, std::size_t keyStart, bool* dockerfile = nullptr) {
  if (keyStart == 0) return true;
  std::size_t s = lineStartNear(text, keyStart);
  auto skipLeadIn = [&] {
    while (s < keyStart && (isSpace(text[s]) || text[s] == '-' || text[s] == '+' ||
                            std::isdigit(static_cast<unsigned char>(text[s])))) ++s;
  };
  skipLeadIn();
  // "path/to/.env:12:" (a search result)
  if (const auto colon = text.substr(s, keyStart - s).find(':'); colon != std::string_view::npos) {
    std::size_t d = s + colon + 1;
    const std::size_t digits = runLength(text, d, [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
    const std::string_view path = text.substr(s, colon);
    if (digits > 0 && d + digits < keyStart && text[d + digits] == ':' &&
        path.find_first_of(" \t=") == std::string_view::npos) {
      s = d + digits + 1;
      skipLeadIn();
    }
  }
  if (text.substr(s, keyStart - s) == "export ") s = keyStart;
  // A Dockerfile's "ENV KEY=V", "ENV KEY V" and "ARG KEY=V".
  if (const std::string_view lead = text.substr(s, keyStart - s); lead == "ENV " || lead == "ARG ") {
    if (dockerfile) *dockerfile = true;
    s = keyStart;
  }
  return s == keyStart;
}

// A name as environment variables are spelled: capitals, digits, '_' ("DB_PASSWORD").
bool environmentName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Bits per character: random tokens score high, words and slugs low.
double entropy(std::string_view v) {
  std::array<int, 256> counts{};
  for (char c : v) ++counts[static_cast<unsigned char>(c)];
  double h = 0;
  for (int n : counts) {
    if (n == 0) continue;
    const double p = static_cast<double>(n) / static_cast<double>(v.size());
    h -= p * std::log2(p);
  }
  return h;
}

// A value for a generic name (*_TOKEN, *_SECRET): only a long, random-looking one.
bool highEntropy(std::string_view v) {
  if (v.size() < 16) return false;
  return lettersAndDigits(v) && entropy(v) >= 3.5;
}

// A package version ("1.2.1", "^0.5.0", "~2.1", ">=1.0", "v3.0.0-rc.1"): a
// dependency named like a secret ("pbkdf2-password": "1.2.1" in package.json,
// password-hash = "0.5.0" in Cargo.toml) is no credential.
bool looksLikeVersion(std::string_view v) {
  std::size_t k = 0;
  while (k < v.size() && std::string_view("^~<>=v ").find(v[k]) != std::string_view::npos) ++k;
  // Numbers joined by dots, two to four of them ("1.2", "0.5.0", "1.2.3.4")...
  int numbers = 0;
  for (;;) {
    const std::size_t digits = runLength(v, k, [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
    if (digits == 0) return false;
    k += digits;
    ++numbers;
    if (k < v.size() && v[k] == '.' && numbers < 4) {
      ++k;
      continue;
    }
    break;
  }
  if (numbers < 2) return false;
  // ...then nothing, or a pre-release or build suffix ("-rc.1", "+build.5"): "1.2Xk9vQz7" is no version.
  if (k == v.size()) return true;
  if (v[k] != '-' && v[k] != '+') return false;
  return std::all_of(v.begin() + static_cast<std::ptrdiff_t>(k) + 1, v.end(),
                     [](char c) { return isAlnum(c) || c == '.' || c == '-' || c == '+'; }) && k + 1 < v.size();
}

// Only letters and digits, lowered: "JAVA_NET_SOCKS_PASSWORD" and
// "java.net.socks.password" read the same.
std::string alnumLower(std::string_view s) {
  std::string out;
  for (char c : s)
    if (isAlnum(c)) out += lower(c);
  return out;
}

// A value that names its setting rather than holding it: the key's own name
// (authToken = "authToken", a property key JAVA_NET_SOCKS_PASSWORD =
// "java.net.socks.password", PROP_JDBC_PASSWORD = "JDBC.Password"), or the name
// and more words (secret_key = "secret_key_base").
bool namesItsKey(std::string_view key, std::string_view value) {
  // The key's own name, without its object ("config.secret_key": "secret_key").
  if (const std::size_t dot = key.find_last_of(".>"); dot != std::string_view::npos) key = key.substr(dot + 1);
  const std::string k = alnumLower(key), v = alnumLower(value);
  if (v.size() < 4 || k.empty()) return false;
  if (v == k) return true;
  // Otherwise only a setting's name: words joined by '.', '_' or '-' ("JDBC.Password",
  // "secret_key_base"), never one word ("admin" for admin_password is a credential).
  const bool words = std::all_of(value.begin(), value.end(), [](char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
  if (!words || value.find_first_of("._-") == std::string_view::npos) return false;
  bool namesSecret = false;
  for (std::string_view word : {"password", "passwd", "secret", "token", "key", "auth", "credential"})
    namesSecret |= v.find(word) != std::string::npos;
  return namesSecret && (k.find(v) != std::string::npos || v.find(k) != std::string::npos);
}

// A value the name's keyword does not take: not random enough (*_TOKEN), or not letters and digits (pass).
bool tooWeakFor(const Keyword& keyword, std::string_view value) {
  if (keyword.needsEntropy && !highEntropy(value)) return true;
  return keyword.mixed && (value.size() < 8 || !lettersAndDigits(value));
}

// True when a flow mapping's '{' or ',' precedes `keyStart` (spaces between), with
// a '{' opened before it on its line: "{user: admin, password: V}".
bool afterFlowSeparator(std::string_view text, std::size_t keyStart) {
  std::size_t k = keyStart;
  while (k > 0 && isSpace(text[k - 1])) --k;
  if (k == 0 || (text[k - 1] != '{' && text[k - 1] != ',')) return false;
  const std::size_t lineStart = lineStartNear(text, k);
  return text.substr(lineStart, k - lineStart).find('{') != std::string_view::npos;
}

// Code's "user.password2", "cfg.db.pw1": identifiers joined by dots (an unquoted
// value in a JavaScript object), where a password with a dot has a segment that
// starts with a digit or holds a sign.
bool dottedIdentifiers(std::string_view v) {
  if (v.find('.') == std::string_view::npos) return false;
  for (std::size_t at = 0; at <= v.size();) {
    const std::size_t dot = std::min(v.find('.', at), v.size());
    const std::string_view seg = v.substr(at, dot - at);
    if (seg.empty() || std::isdigit(static_cast<unsigned char>(seg[0])) ||
        !std::all_of(seg.begin(), seg.end(), [](char c) { return isAlnum(c) || c == '_' || c == '$'; }))
      return false;
    at = dot + 1;
  }
  return true;
}

// True when a YAML block scalar's indicator ('|' or '>', then '-', '+' or a digit) ends the line at `k`.
bool blockScalarIndicator(std::string_view text, std::size_t k) {
  if (k >= text.size() || (text[k] != '|' && text[k] != '>')) return false;
  ++k;
  while (k < text.size() && (text[k] == '-' || text[k] == '+' || std::isdigit(static_cast<unsigned char>(text[k])))) ++k;
  while (k < text.size() && isSpace(text[k])) ++k;
  return k >= text.size() || text[k] == '\n' || text[k] == '\r' || text[k] == '#';
}

// Where the first line of the block scalar whose key starts at `keyStart` (its
// indicator at `indicator`) holds its text: the next line's first character past
// the key's column, when all before it is indentation (and the prompt's lead-in:
// a line number, a diff marker); text.size() when the next line is no such line.
std::size_t blockScalarLine(std::string_view text, std::size_t keyStart, std::size_t indicator) {
  const std::size_t column = keyStart - lineStartNear(text, keyStart);
  const std::size_t nl = text.find('\n', indicator);
  if (nl == std::string_view::npos) return text.size();
  const std::size_t line = nl + 1;
  for (std::size_t c = 0; c <= column; ++c) {
    const std::size_t at = line + c;
    if (at >= text.size()) return text.size();
    const char ch = text[at];
    if (!isSpace(ch) && !std::isdigit(static_cast<unsigned char>(ch)) && ch != '+' && ch != '-') return text.size();
  }
  std::size_t k = line + column + 1;
  while (k < text.size() && isSpace(text[k])) ++k;
  return k < text.size() && text[k] != '\n' && text[k] != '\r' ? k : text.size();
}

// The value assigned after a secret-looking key, if it is a literal.
// A name whose last word says it holds a setting about the secret, not the
// secret: PASSWORD_MODE, passwordHashAlgorithm, TOKEN_TTL, SECRET_BACKEND,
// PASSWORD_RESET_WITHIN (a duration: "6.hours").
bool namesASettingAboutIt(std::string_view name) {
  const std::string last = lastNameWord(name);
  for (std::string_view word : {"mode", "type", "driver", "name", "provider", "url", "uri", "id", "manager", "hash",
                                "hasher", "algorithm", "algo", "policy", "length", "min", "max", "file", "path",
                                "strategy", "scheme", "format", "field", "rounds", "cost", "ttl", "timeout", "expiry",
                                "backend", "store", "prompt", "label", "pattern", "regex", "header", "enabled",
                                "within", "after", "interval", "duration", "lifetime", "age", "period", "days", "hours",
                                "minutes", "seconds"})
    if (last == word) return true;
  return false;
}

void assignment(std::string_view text, std::size_t keyStart, std::size_t keyEnd, const Keyword& keyword,
                std::vector<SecretMatch>& out) {
  const std::string_view kind = keyword.kind;
  const std::string_view name = text.substr(keyStart, keyEnd - keyStart);
  std::size_t k = keyEnd;
  // The name quoted: "password": "...", cfg["password"] = "...", setProperty("password", "...").
  const bool quotedName = k < text.size() && keyStart > 0 && (text[k] == '"' || text[k] == '\'') && text[keyStart - 1] == text[k];
  if (k < text.size() && (text[k] == '"' || text[k] == '\'')) ++k;
  if (quotedName && k < text.size() && text[k] == ']') ++k;
  // .NET's <add key="DbPassword" value="V" />: the value is the next attribute's.
  if (quotedName && text.substr(k).starts_with(" value=")) k += 6;
  // <password>V</password>
  if (keyStart > 0 && text[keyStart - 1] == '<' && k < text.size() && text[k] == '>') {
    const std::size_t close = text.substr(0, std::min(text.size(), k + 2 + kMaxNamedValue)).find("</", k + 1);
    if (close == std::string_view::npos) return;
    const std::string_view value = text.substr(k + 1, close - k - 1);
    if (!text.substr(close + 2).starts_with(name) || value.find_first_of(" \t\n\\<>") != std::string_view::npos ||
        looksLikePlaceholder(value) || looksLikeVersion(value) || namesItsKey(name, value))
      return;
    if (tooWeakFor(keyword, value)) return;
    out.push_back({k + 1, value.size(), std::string(kind)});
    return;
  }
  bool dockerfile = false;
  const bool statement = startsStatement(text, keyStart, &dockerfile);
  // An environment variable's value in a .env, a shell script or a Dockerfile:
  // "KEY=V" with nothing around '=', may hold '.', '$', '%', ';' or ',' unquoted,
  // and spaces quoted ("correct horse battery staple").
  const bool environment = statement && environmentName(name) &&
                           ((k < text.size() && text[k] == '=') || (dockerfile && k < text.size() && text[k] == ' '));
  const std::size_t beforeOp = k;
  while (k < text.size() && isSpace(text[k])) ++k;
  std::string_view op;
  for (std::string_view candidate : {":=", "=>", "=", ":"}) {
    if (text.substr(k).starts_with(candidate)) { op = candidate; break; }
  }
  // A setter's (key, value): props.setProperty("password", "V"), map.put(...), os.environ.setdefault(...);
  // a lookup's default, the value when the setting is unset: os.environ.get("DB_PASSWORD", "V"),
  // os.getenv, ENV.fetch, getOrDefault, System.getProperty, Laravel's env('DB_PASSWORD', 'V'),
  // decouple's config('DB_PASSWORD', default='V');
  // not any call or tuple that lists a name and then a string (MovedAttribute("HTTPPasswordMgr", "urllib2")).
  bool lookup = false;
  // The call's '(' before the quoted name, also on the line above (a call split over lines).
  std::size_t paren = keyStart > 1 ? keyStart - 2 : 0;
  while (paren > 0 && keyStart - paren < 80 && (isSpace(text[paren]) || text[paren] == '\n' || text[paren] == '\r')) --paren;
  if (quotedName && keyStart > 1 && text[paren] == '(') {
    std::size_t callee = paren;
    while (callee > 0 && (isAlnum(text[callee - 1]) || text[callee - 1] == '_')) --callee;
    std::string call;
    for (char c : text.substr(callee, paren - callee)) call += lower(c);
    // A lookup's default holds the secret only under a name that is one: not a
    // setting about it (PASSWORD_MODE, passwordHashAlgorithm, PASSWORD_DRIVER).
    // django-environ's env.str("DB_PASSWORD", default="V") too.
    const bool envTyped = call == "str" && callee >= 4 && text.substr(callee - 4, 4) == "env.";
    lookup = (call == "get" || call == "getenv" || call == "fetch" || call == "getordefault" ||
              call == "getproperty" || call == "env" || call == "config" || envTyped) &&
             !namesASettingAboutIt(name);
    if (op.empty() && k < text.size() && text[k] == ',' &&
        (lookup || call.starts_with("set") || call.starts_with("put") || call == "add" || call == "append"))
      op = ",";
  }
  // The fallback after a lookup or an environment variable: os.environ.get("DB_PASSWORD") or "V",
  // System.getenv("DB_PASSWORD") ?: "V", ENV["DB_PASSWORD"] || "V", ENV.fetch("DB_PASSWORD") { "V" },
  // process.env.DB_PASSWORD || "V", import.meta.env.API_TOKEN ?? "V".
  const auto dot = name.rfind('.');
  const bool envMember = dot != std::string_view::npos && dot >= 3 && name.substr(dot - 3, 4) == "env." &&
                         !namesASettingAboutIt(name);
  const bool envIndex = quotedName && keyStart > 2 && text[keyStart - 2] == '[' &&
                        [&] {  // ENV["X"], process.env["X"], os.environ["X"]
                          std::size_t b = keyStart - 2;
                          while (b > 0 && (isAlnum(text[b - 1]) || text[b - 1] == '_')) --b;
                          std::string word;
                          for (char c : text.substr(b, keyStart - 2 - b)) word += lower(c);
                          return word == "env" || word == "environ" || word == "_env" || word == "_server";  // PHP's $_ENV
                        }() && !namesASettingAboutIt(name);
  std::size_t afterLookup = k;
  if (op.empty() && lookup && k < text.size() && text[k] == ')') ++afterLookup;
  if (op.empty() && (envMember || envIndex || afterLookup > k)) {
    while (afterLookup < text.size() && isSpace(text[afterLookup])) ++afterLookup;
    for (std::string_view fallback : {"||", "??", "?:", "or ", "{", "do "}) {
      if ((fallback == "{" || fallback == "do ") && afterLookup == k) continue;  // only a call takes a block
      if (text.substr(afterLookup).starts_with(fallback)) {
        k = afterLookup;
        op = fallback;
        break;
      }
    }
  }
  if (op.empty() && environment && dockerfile && k > beforeOp) {  // ENV KEY V
    op = " ";
    k = beforeOp;
  }
  if (op.empty()) return;
  if (op == "=" && k + 1 < text.size() && text[k + 1] == '=') return;  // comparison
  if (k > 0 && (text[k - 1] == '!' || text[k - 1] == '<' || text[k - 1] == '>')) return;
  k += op.size();
  while (k < text.size() && isSpace(text[k])) ++k;
  // A lookup's call split over lines, as black formats it: config(\n    "DB_PASSWORD",\n    default="V",\n)
  if (op == "," && lookup && k < text.size() && (text[k] == '\n' || text[k] == '\r')) {
    std::size_t next = k;
    while (next < text.size() && next - k < 80 && (isSpace(text[next]) || text[next] == '\n' || text[next] == '\r')) ++next;
    if (std::count(text.begin() + static_cast<std::ptrdiff_t>(k), text.begin() + static_cast<std::ptrdiff_t>(next), '\n') <= 1)
      k = next;
  }
  // A default given by keyword: os.getenv("DB_PASSWORD", default="V"), Kotlin's default = "V".
  if (op == "," && lookup && text.substr(k).starts_with("default")) {
    std::size_t d = k + 7;
    while (d < text.size() && isSpace(text[d])) ++d;
    if (d < text.size() && (text[d] == '=' || text[d] == ':') && (d + 1 >= text.size() || text[d + 1] != '=')) {
      k = d + 1;
      while (k < text.size() && isSpace(text[k])) ++k;
    }
  }
  if (k >= text.size()) return;
  const char q = text[k];
  if (q == '"' || q == '\'' || q == '`') {
    const auto close = text.substr(0, std::min(text.size(), k + 2 + kMaxNamedValue)).find(q, k + 1);
    if (close == std::string_view::npos) return;
    const std::string_view value = text.substr(k + 1, close - k - 1);
    // Spaces (a passphrase: "correct horse battery staple") under an environment
    // name, or in a short value with a digit: prose under a setting's name ("Enter
    // your password") has neither.
    const auto spaces = std::count(value.begin(), value.end(), ' ');
    // Not for the names a random value must confirm (token, *_KEY): a style such as Token: '#ff0000 bold'.
    const bool spacedSecret = !keyword.needsEntropy &&
                              ((statement && environmentName(name)) || (spaces <= 5 && hasDigit(value)));
    if (value.find_first_of(spacedSecret ? "\t\n\\" : " \t\n\\") != std::string_view::npos ||
        looksLikePlaceholder(value) || looksLikeVersion(value) || namesItsKey(name, value))
      return;
    if (tooWeakFor(keyword, value)) return;
    out.push_back({k + 1, value.size(), std::string(kind)});
    return;
  }
  // Mid-line, in prose or a log ("the db password=V", a commit message, a
  // description): only a password name, '=' with nothing around it, and a value
  // of letters and digits both, which code passing a variable has not.
  if (!statement && op == "=" && keyword.kind == "password" && k == keyEnd + 1) {
    const std::size_t n = runLengthUpTo(text, k, valueChar, kMaxNamedValue);
    const std::string_view value = text.substr(k, n);
    if (n >= 8 && n <= kMaxNamedValue && lettersAndDigits(value) && value.find_first_of("()[]{}<>,;$%") == std::string_view::npos &&
        !memberPath(value) && !looksLikePlaceholder(value))
      out.push_back({k, n, std::string(kind)});
    return;
  }
  // A YAML flow mapping's value: "{user: admin, password: V}", "- {name: db, password: V}".
  // A JavaScript object reads the same with a variable for V: only letters and digits both.
  if (!statement && op == ":" && afterFlowSeparator(text, keyStart)) {
    const std::size_t n = runLengthUpTo(text, k, [](char c) { return valueChar(c) && c != ',' && c != '}'; }, kMaxNamedValue);
    if (n > kMaxNamedValue) return;
    const std::string_view value = text.substr(k, n);
    std::size_t rest = k + n;
    while (rest < text.size() && isSpace(text[rest])) ++rest;
    if (rest < text.size() && (text[rest] == ',' || text[rest] == '}') && n >= 6 && lettersAndDigits(value) &&
        value.find_first_of("()[]{}<>|&?=") == std::string_view::npos && !dottedIdentifiers(value) &&
        !looksLikePlaceholder(value) && !tooWeakFor(keyword, value))
      out.push_back({k, n, std::string(kind)});
    return;
  }
  // Unquoted values only in key=value files (.env, .properties, YAML): the key
  // starts its line, and the value is one word that does not look like code.
  if (!statement || (op != "=" && op != ":" && op != " ")) return;
  // A YAML block scalar ("password: |" or ">-"): the value is the next line, indented deeper.
  if (op == ":" && blockScalarIndicator(text, k)) k = blockScalarLine(text, keyStart, k);
  if (k >= text.size()) return;
  std::size_t e = k + runLengthUpTo(text, k, [](char c) { return !std::isspace(static_cast<unsigned char>(c)); }, kMaxNamedValue);
  if (e - k > kMaxNamedValue) return;
  const std::string_view value = text.substr(k, e - k);
  std::size_t rest = e;
  while (rest < text.size() && isSpace(text[rest])) ++rest;
  if (rest < text.size() && text[rest] != '\n' && text[rest] != '\r' && text[rest] != '#') return;
  if (value.size() < 6 || value.find_first_of(environment ? "()[]{}<>`" : "()[]{}.;,<>$%") != std::string_view::npos ||
      (environment && memberPath(value)))
    return;
  if (std::all_of(value.begin(), value.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; })) return;
  if (looksLikePlaceholder(value)) return;
  if (tooWeakFor(keyword, value)) return;
  out.push_back({k, value.size(), std::string(kind)});
}

void secretAssignments(std::string_view text, std::string_view l, std::vector<SecretMatch>& out) {
  for (const auto& kw : kKeywords) {
    forEach(l, kw.word, [&](std::size_t pos) {
      // "secretary" and "passwords" are other words; "secretKey" and "SECRET_KEY" are keys.
      const std::size_t after = pos + kw.word.size();
      if (after < text.size() && std::islower(static_cast<unsigned char>(text[after]))) return;
      // A name is short: a run of name characters longer than kMaxKeyName around
      // the word is an encoded blob, and following it for each word in it would
      // read the blob once a word (quadratic).
      std::size_t start = pos, end = pos + kw.word.size();
      while (start > 0 && keyChar(text[start - 1]) && pos - start <= kMaxKeyName) --start;
      while (end < text.size() && keyChar(text[end]) && end - pos <= kMaxKeyName) ++end;
      if (pos - start > kMaxKeyName || end - pos > kMaxKeyName) return;
      if (kw.last && end != after) return;
      if (kw.whole && start != pos) return;
      if (describesSecret(text.substr(start, end - start))) return;
      assignment(text, start, end, kw, out);
    });
  }
}

}  // namespace

namespace {
// The kinds a match gets from where the value stands (a name, a header, a
// URL's userinfo) rather than from the value's own shape.
bool isContextKind(std::string_view kind) {
  return kind == "password" || kind == "secret" || kind == "bearer-token" || kind == "basic-auth" || kind == "api-key-header" ||
         kind == "session-cookie";
}
}  // namespace

std::vector<SecretMatch> findSecrets(std::string_view text, std::string_view path) {
  ++currentScan;  // the runs runLength keeps are of this text only
  std::vector<SecretMatch> all;
  // Lowered once for the detectors that search without regard to case.
  std::string lowered(text.size(), '\0');
  std::transform(text.begin(), text.end(), lowered.begin(), lower);
  awsKeys(text, all);
  privateKeys(text, all);
  encodedPrivateKeys(text, all);
  keyBodies(text, path, all);
  googleKeys(text, all);
  stripeKeys(text, all);
  npmTokens(text, all);
  serviceTokens(text, all);
  jwts(text, all);
  urlPasswords(text, all);
  npmrcCredentials(text, all);
  commandLineCredentials(text, lowered, all);
  netrcAndPgpass(text, lowered, path, all);
  kubernetesSecrets(text, all);
  gitlabAndWebhooks(text, all);
  authorizationHeaders(text, lowered, all);
  connectionStrings(text, lowered, all);
  queryParameters(text, lowered, all);
  environmentPrefixes(text, all);
  githubTokens(text, all);
  slackTokens(text, all);
  apiKeys(text, all);
  secretAssignments(text, lowered, all);
  // Text order; where matches overlap keep the earlier (then longer) one.
  // Stable: at one span the more specific detector, which runs first, names it.
  std::stable_sort(all.begin(), all.end(), [](const SecretMatch& a, const SecretMatch& b) {
    return a.offset != b.offset ? a.offset < b.offset : a.length > b.length;
  });
  std::vector<SecretMatch> out;
  for (auto& m : all) {
    if (!out.empty() && m.offset < out.back().offset + out.back().length) {
      // A token of a known shape inside a match found by its context (the
      // password of a URL, an Authorization header, curl -u): it is that
      // token, which the context's kind would have called only "a password".
      SecretMatch& kept = out.back();
      if (isContextKind(kept.kind) && !isContextKind(m.kind)) {
        kept.length = std::max(kept.offset + kept.length, m.offset + m.length) - kept.offset;
        kept.kind = std::move(m.kind);
      }
      continue;
    }
    out.push_back(std::move(m));
  }
  return out;
}

std::string lastNameWord(std::string_view name) {
  std::size_t start = name.find_last_of("_.-");
  start = start == std::string_view::npos ? 0 : start + 1;
  for (std::size_t i = name.size(); i-- > start + 1;)
    if (std::isupper(static_cast<unsigned char>(name[i])) && std::islower(static_cast<unsigned char>(name[i - 1]))) {
      start = i;
      break;
    }
  std::string last;
  for (char c : name.substr(start)) last += lower(c);
  return last;
}

std::string redactSecrets(std::string_view text, std::string_view path) {
  std::vector<review::SecretSpan> spans;
  for (auto& m : findSecrets(text, path)) spans.push_back({m.offset, m.length, std::move(m.kind)});
  return review::redactSpans(text, spans);
}

}  // namespace revline::builtin
