// Rules on the raw text of added lines, for every file type: hard-coded
// credentials and leftover merge-conflict markers.
#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <string>
#include <utility>

#include "core/builtin/rule_sets.h"
#include "core/builtin/secrets.h"
#include "core/builtin/suppressions.h"

namespace revline::builtin {
namespace {

using contract::Category;
using contract::Severity;

struct SecretRule {
  std::string_view what;
  Severity severity;
  RuleId rule;
};

SecretRule describe(const std::string& kind) {
  if (kind == "aws-access-key") return {"an AWS access key id", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "private-key") return {"a private key", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "github-token") return {"a GitHub token", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "slack-token") return {"a Slack token", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "api-key") return {"an API key", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "gitlab-token") return {"a GitLab token", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "slack-webhook") return {"a Slack webhook URL", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "discord-webhook") return {"a Discord webhook URL", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "huggingface-token") return {"a Hugging Face token", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "digitalocean-token") return {"a DigitalOcean token", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "pypi-token") return {"a PyPI token", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "shopify-token") return {"a Shopify token", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "age-secret-key") return {"an age secret key", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "twilio-key") return {"a Twilio API key", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "sendgrid-key") return {"a SendGrid API key", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "vault-token") return {"a Vault token", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "mapbox-token") return {"a Mapbox secret token", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "google-oauth-token") return {"a Google OAuth token", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "sentry-token") return {"a Sentry auth token", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "heroku-key") return {"a Heroku API key", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "telegram-bot-token") return {"a Telegram bot token", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "discord-bot-token") return {"a Discord bot token", Severity::Blocker, RuleId::HardcodedToken};
  if (kind == "aws-secret-key") return {"an AWS secret access key", Severity::Blocker, RuleId::HardcodedToken};
  // As a password, not a token format: a header written in docs is an example, as a password setting is.
  if (kind == "bearer-token") return {"a bearer token", Severity::Major, RuleId::HardcodedPassword};
  if (kind == "basic-auth") return {"HTTP Basic credentials", Severity::Major, RuleId::HardcodedPassword};
  if (kind == "api-key-header") return {"an API key header", Severity::Major, RuleId::HardcodedPassword};
  if (kind == "session-cookie") return {"a session cookie", Severity::Major, RuleId::HardcodedPassword};
  if (kind == "password") return {"a password", Severity::Major, RuleId::HardcodedPassword};
  return {"a secret", Severity::Major, RuleId::HardcodedPassword};
}

enum class Marker { None, Start, Middle, End, Base };

Marker markerOf(std::string_view s) {
  auto is = [&](char c) {
    if (s.size() < 7 || s.substr(0, 7) != std::string(7, c)) return false;
    return s.size() == 7 || s[7] == ' ' || s[7] == '\t' || s[7] == '\r';
  };
  if (is('<')) return Marker::Start;
  if (is('>')) return Marker::End;
  if (is('|')) return Marker::Base;
  if (s == "=======" || s == "=======\r") return Marker::Middle;
  return Marker::None;
}

RuleFinding conflictFinding(const ScanFile& file, int line, int endLine) {
  return makeFinding(file, line, endLine,
                     {Severity::Blocker, Category::Correctness, RuleId::MergeConflict, "Unresolved merge-conflict markers",
                      "The change still contains the <<<<<<< / ======= / >>>>>>> markers of a merge conflict: the file "
                      "no longer compiles or parses, and both sides of the conflict are present.",
                      "Resolve the conflict: keep the intended version of the lines and delete the marker lines."});
}

// A private-key header is a key only with key material after it (on the same
// line, as in "-----BEGIN ...-----\\nMIIE...", or on the next line): docs and
// parsers that name the header are not leaking a key.
bool hasKeyMaterial(const ScanFile& file, const ScanLine& l, const SecretMatch& m) {
  auto base64Run = [](std::string_view s) {
    std::size_t best = 0, run = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      if (c == '\\' && i + 1 < s.size() && s[i + 1] == 'n') { ++i; continue; }  // an escaped newline inside a literal
      const bool b64 = std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '=';
      run = b64 ? run + 1 : 0;
      best = std::max(best, run);
    }
    return best;
  };
  const std::string_view text = l.text();
  // A key's PEM text encoded as base64 (kubeconfig's client-key-data): its
  // header alone is some 44 characters; more is key material.
  if (text.substr(m.offset).starts_with("LS0tLS1CRUdJTi")) return m.length >= 64;
  const auto headerEnd = text.find("-----", std::min(text.size(), m.offset + 11));
  if (headerEnd != std::string_view::npos && base64Run(text.substr(headerEnd + 5)) >= 24) return true;
  std::optional<std::string_view> next = file.fullLine(l.number() + 1);
  if (!next)
    if (const ScanLine* shown = file.shownLine(l.number() + 1)) next = shown->text();
  return next && base64Run(*next) >= 24;
}

// `password = "SCRAM-SHA-256$" + iterations`: the literal is the start of a
// built value (a format, a prefix), not a password written in the code.
bool concatenated(const ScanLine& l, const SecretMatch& m) {
  const Tokens& t = l.tokens;
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (!t[k].isString() || m.offset < t[k].begin || m.offset >= t[k].end) continue;
    return (k + 1 < t.size() && (t[k + 1].is("+") || t[k + 1].is("%"))) ||
           (k > 0 && t[k - 1].is("+"));
  }
  return false;
}

// `JDBC_SECRETS_MANAGER = "jdbc-secretsmanager"`: the setting's name ends in a
// word that is not a secret (a manager, a name, a mode), so its value is a name.
bool namesNoSecret(std::string_view line, const SecretMatch& m) {
  std::size_t k = std::min(m.offset, line.size());
  auto skip = [&](std::string_view chars) { while (k > 0 && chars.find(line[k - 1]) != std::string_view::npos) --k; };
  skip("\"'` ");
  skip("=:>");
  skip("\"'` ");
  const std::size_t end = k;
  while (k > 0 && (std::isalnum(static_cast<unsigned char>(line[k - 1])) || line[k - 1] == '_' || line[k - 1] == '-')) --k;
  const std::string_view name = line.substr(k, end - k);
  if (name.empty()) return false;
  const std::string last = lastNameWord(name);
  static constexpr std::array<std::string_view, 7> nonSecret{"manager", "name", "mode", "type", "provider", "url", "id"};
  return std::find(nonSecret.begin(), nonSecret.end(), last) != nonSecret.end();
}

// A value written to be replaced: the providers' documented examples
// (AWS's AKIAIOSFODNN7EXAMPLE), runs of x or 0 (ghp_xxxx..., Slack's
// T00000000/B00000000/XXXX...), a counting sequence, or too few distinct
// characters to be random (ghp_aaaa...). A random token of the same length
// holds none of these; the redaction still hides them (it errs the safe way).
bool placeholderValue(std::string_view value) {
  std::string low(value);
  std::transform(low.begin(), low.end(), low.begin(), [](unsigned char c) { return std::tolower(c); });
  for (std::string_view word : {"example", "xxxxx", "00000000", "placeholder", "dummy", "redacted", "changeme",
                                "0123456789", "1234567890", "abcdefghij", "yourtoken", "your_token", "tokenhere",
                                "goeshere", "yourpersonal", "yourkey", "your_key", "keyhere"})
    if (low.find(word) != std::string::npos) return true;
  // Tokens the providers' own documentation shows (GitHub's REST API docs).
  for (std::string_view documented : {"ghp_16C7e42F292c6912E7710c838347Ae178B4a"})
    if (value.find(documented) != std::string_view::npos) return true;
  std::array<bool, 256> seen{};
  std::size_t distinct = 0, alnum = 0;
  for (unsigned char c : value) {
    if (!std::isalnum(c)) continue;
    ++alnum;
    if (!seen[c]) seen[c] = true, ++distinct;
  }
  return alnum >= 16 && distinct <= 5;
}

// A localization file: its values are the interface's words in a language.
bool localizationPath(std::string_view path) {
  std::string p(path);
  std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return std::tolower(c); });
  for (std::string_view dir : {"l10n/", "i18n/", "locale/", "locales/", "translations/", "lang/", "langs/", "languages/"})
    if (p.starts_with(dir) || p.find("/" + std::string(dir)) != std::string::npos) return true;
  for (std::string_view ext : {".ftl", ".po", ".pot", ".xliff", ".xlf", ".resx", ".strings", ".arb"})
    if (p.ends_with(ext)) return true;
  // l10n.js, i18n.ts, translations.json, messages_ru.properties
  std::string stem = p.substr(p.find_last_of('/') == std::string::npos ? 0 : p.find_last_of('/') + 1);
  stem = stem.substr(0, stem.find('.'));
  for (std::string_view name : {"l10n", "i18n", "locale", "locales", "translations", "translation", "messages", "strings"})
    if (stem == name || stem.starts_with(std::string(name) + "_") || stem.starts_with(std::string(name) + "-")) return true;
  return false;
}

// In a tuple assignment (`user, password = "x", ""`) the names and values pair
// by position: whether the value in the password name's place is a literal
// worth a finding; nullopt when the line is no such assignment.
std::optional<bool> tupleValueIsLiteral(std::string_view line, std::size_t eq) {
  const std::string_view targets = line.substr(0, eq);
  if (targets.find(',') == std::string_view::npos ||
      !std::all_of(targets.begin(), targets.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ',' || c == ' ' || c == '\t';
      }))
    return std::nullopt;  // names only before the '=': not a call's keyword argument (connect(host, password="V", ...))
  std::size_t position = 0, index = 0;
  std::optional<std::size_t> named;
  for (std::size_t at = 0; at <= targets.size(); ++at) {
    if (at < targets.size() && targets[at] != ',') continue;
    std::string name(targets.substr(position, at - position));
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    for (std::string_view w : {"pass", "pwd", "secret", "token", "key"})
      if (!named && name.find(w) != std::string::npos) named = index;
    ++index;
    position = at + 1;
  }
  if (!named) return false;
  // The values: quoted literals or other expressions, split at top-level commas.
  std::size_t k = eq + 1, value = 0;
  while (k < line.size()) {
    while (k < line.size() && (line[k] == ' ' || line[k] == '\t')) ++k;
    if (k >= line.size()) break;
    const char q = line[k];
    std::size_t end = k;
    bool literal = false;
    if (q == '"' || q == '\'') {
      end = line.find(q, k + 1);
      if (end == std::string_view::npos) return false;
      literal = end > k + 1;  // "" is no password
      ++end;
    } else {
      while (end < line.size() && line[end] != ',') ++end;
    }
    if (value == *named) return literal;
    while (end < line.size() && line[end] != ',') ++end;
    k = end + 1;
    ++value;
  }
  return false;
}

// A value under a password's name that is no credential, as seen on real
// history (pdf.js, sqlmap, redash, cJSON): a label in a translation file
// ("Пароль", "حسنًا"), a numeric constant (0x00000001), a file path
// ("/tmp/jwtRS256.key"), an SQL expression, a command run for the value
// (`pwgen -1s 32`), a regex read as a URL's password, or a tuple assignment
// whose password place holds no literal (`user, password = "merovingian", ""`).
// A host reserved for examples (RFC 2606): example.com/.net/.org and the
// .example, .test and .invalid domains, at the start of `hostAndRest`.
bool exampleHost(std::string_view hostAndRest) {
  std::string host;
  for (char c : hostAndRest.substr(0, std::min<std::size_t>(hostAndRest.size(), 256))) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') break;
    host += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (std::string_view domain : {"example.com", "example.net", "example.org"})
    if (host == domain || host.ends_with("." + std::string(domain))) return true;
  return host.ends_with(".example") || host.ends_with(".test") || host.ends_with(".invalid");
}

bool notACredential(std::string_view path, std::string_view line, const SecretMatch& m) {
  const std::string_view v = line.substr(std::min(m.offset, line.size()), m.length);
  const auto has = [&](auto pred) { return std::any_of(v.begin(), v.end(), pred); };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  const char before = m.offset > 0 && m.offset <= line.size() ? line[m.offset - 1] : ' ';
  const bool quoted = before == '"' || before == '\'' || before == '`';
  // A URL's password at a host reserved for examples (postgres://app:pw@db.example.com): documentation's.
  if (m.offset + m.length < line.size() && line[m.offset + m.length] == '@' &&
      exampleHost(line.substr(m.offset + m.length + 1)))
    return true;
  // Words of another script, no digit, in a translation file.
  if (localizationPath(path) && has([](char c) { return static_cast<unsigned char>(c) >= 0x80; }) && !has(digit)) return true;
  // A number written as code (a flag, a size), not a quoted value.
  if (!quoted && !v.empty() &&
      (std::all_of(v.begin(), v.end(), digit) ||
       (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X') &&
        std::all_of(v.begin() + 2, v.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }))))
    return true;
  // A path to a file: "/etc/ssl/private/Server.key", "./certs/Dev.pem", "~/.ssh/id_rsa.pub", "C:\\keys\\a.pfx".
  const bool rooted = v.starts_with("/") || v.starts_with("./") || v.starts_with("../") || v.starts_with("~/") ||
                      (v.size() > 2 && std::isalpha(static_cast<unsigned char>(v[0])) && v[1] == ':' && (v[2] == '\\' || v[2] == '/'));
  if (rooted && v.find(' ') == std::string_view::npos) {
    const std::string_view name = v.substr(v.find_last_of("/\\") + 1);
    const auto dot = name.rfind('.');
    if (dot != std::string_view::npos && dot > 0 && name.size() - dot - 1 >= 1 && name.size() - dot - 1 <= 5 &&
        std::all_of(name.begin() + static_cast<std::ptrdiff_t>(dot) + 1, name.end(),
                    [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }))
      return true;
  }
  // An expression: "(SELECT name FROM users WHERE id=2)", a regex's "[^@\\s/]*".
  if ((v.starts_with("(") && v.find(' ') != std::string_view::npos) || v.find("[^") != std::string_view::npos ||
      v.find("\\s") != std::string_view::npos || v.find("\\d") != std::string_view::npos)
    return true;
  std::string upper(v);
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  if (upper.starts_with("SELECT ") || upper.find(" FROM ") != std::string::npos) return true;
  // `pwgen -1s 32` in backticks: a command, run for the value.
  if (before == '`' && v.find(' ') != std::string_view::npos) return true;
  // The names of a tuple assignment start the line, and are few: looked for only there
  // (read back along a long line for each of its secrets, it was quadratic).
  constexpr std::size_t kMostTargets = 256;
  if (const std::size_t eq = line.substr(0, std::min(m.offset, kMostTargets)).rfind('='); eq != std::string_view::npos)
    if (const auto literal = tupleValueIsLiteral(line, eq)) return !*literal;
  return false;
}

}  // namespace

void checkSecrets(const ScanFile& file, Findings& out) {
  // Documentation shows example settings ("password: 'mypass'"); only
  // token-shaped secrets count there.
  const bool prose = isProseFile(file.path);
  for (const auto& hunk : file.hunks) {
    for (const auto& l : hunk.lines) {
      if (!l.added()) continue;
      const auto matches = findSecrets(l.text());
      if (matches.empty()) continue;
      // A password setting named in a comment ("-- SET password_encryption =
      // 'scram-sha-256'") is prose, not a credential; a token-shaped secret
      // (a key id, a private key) leaks from a comment just the same.
      LineComments comments(l.text(), l.tokens, file.lang);
      const auto real = std::find_if(matches.begin(), matches.end(), [&](const SecretMatch& m) {
        if (m.kind == "private-key") return hasKeyMaterial(file, l, m);
        if (placeholderValue(l.text().substr(m.offset, m.length))) return false;
        if (describe(m.kind).rule == RuleId::HardcodedPassword &&
            (prose || concatenated(l, m) || namesNoSecret(l.text(), m) || notACredential(file.path, l.text(), m)))
          return false;
        return describe(m.kind).rule != RuleId::HardcodedPassword || !comments.contains(m.offset);
      });
      if (real == matches.end()) continue;
      const SecretRule r = describe(real->kind);
      const std::string exposure =
          " to the repository. Anyone with read access to the code or its history can use it, and it stays in "
          "the history after the line is removed.";
      // A notebook line that is not a code cell's source: most often an output
      // a run saved (a printed config), else a markdown cell or the metadata.
      // Loading it from the environment does not help there.
      if (file.notebook && !l.cellCode)
        out.push_back(makeFinding(
            file, l.number(), l.number(),
            {r.severity, Category::Security, r.rule,
             "Credential saved in the notebook: " + std::string(r.what) + " outside its code cells",
             "This line of the notebook's JSON (a saved output, a markdown cell or the metadata) adds " +
                 std::string(r.what) + exposure,
             "Remove it; if a cell printed it, clear that output (Jupyter: Clear All Outputs; nbstripout strips "
             "outputs on commit) and print no credential. Revoke/rotate this one since it has been exposed."}));
      else
        out.push_back(makeFinding(
            file, l.number(), l.number(),
            {r.severity, Category::Security, r.rule, "Hard-coded credential: " + std::string(r.what) + " in the source",
             "This line adds " + std::string(r.what) + exposure,
             "Load it from the environment or a secret manager instead, and revoke/rotate this one since it has been "
             "exposed."}));
    }
  }
}

namespace {

// Files whose code writes text blocks as heredocs (<<EOF ... EOF).
bool usesHeredocs(std::string_view path) {
  const auto slash = path.find_last_of('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (name == "Dockerfile" || name.starts_with("Dockerfile.") || name.ends_with(".Dockerfile")) return true;
  const auto dot = name.find_last_of('.');
  if (dot == std::string_view::npos) return false;
  const std::string_view ext = name.substr(dot + 1);
  for (std::string_view e : {"sh", "bash", "zsh", "ksh", "bats", "rb", "pl", "php"})
    if (ext == e) return true;
  return false;
}

// The terminator a line's heredoc opener names (cat <<'EOF', <<-EOS, <<~SQL,
// PHP's <<<EOT), or "" when it opens none.
std::string heredocTerminator(std::string_view line) {
  for (auto at = line.find("<<"); at != std::string_view::npos; at = line.find("<<", at + 2)) {
    std::size_t k = at + 2;
    if (k < line.size() && line[k] == '<') ++k;
    if (k < line.size() && (line[k] == '-' || line[k] == '~')) ++k;
    while (k < line.size() && line[k] == ' ') ++k;
    const char quote = k < line.size() && (line[k] == '\'' || line[k] == '"') ? line[k] : 0;
    if (quote) ++k;
    const std::size_t start = k;
    if (k >= line.size() || !(std::isalpha(static_cast<unsigned char>(line[k])) || line[k] == '_')) continue;
    while (k < line.size() && (std::isalnum(static_cast<unsigned char>(line[k])) || line[k] == '_')) ++k;
    return std::string(line.substr(start, k - start));
  }
  return {};
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The bodies (first, last line) of the blocks that quote text: a Markdown
// fence or an AsciiDoc delimited block in prose, a heredoc in a shell-like
// file; only those closed again.
std::vector<std::pair<int, int>> quotedBlocks(const ScanFile& file) {
  const bool fences = isProseFile(file.path), heredocs = usesHeredocs(file.path);
  // AsciiDoc's delimited blocks (git's Documentation/*.txt, *.adoc): a listing
  // (----), literal (....), passthrough (++++) or comment (////) block opens
  // with a line of four or more of one of those characters and closes with the
  // same line; git-merge.txt shows a diff3 conflict in one. An opener follows a
  // blank line, an attribute list ([source,c]) or a block title (.Example); a
  // line of dashes under a title's text underlines a heading (OPTIONS\n-------).
  const bool asciidoc = isAsciiDocFile(file.path);
  auto delimiter = [](std::string_view t) {
    return t.size() >= 4 && std::string_view("-.+/").find(t[0]) != std::string_view::npos &&
           t.find_first_not_of(t[0]) == std::string_view::npos;
  };
  std::vector<std::pair<int, int>> out;
  if (!fences && !heredocs) return out;
  std::vector<std::pair<int, std::string_view>> lines;  // the whole new file, else each hunk's new side
  auto scan = [&] {
    std::optional<int> open;
    std::string closer;  // a fence's run of ` or ~, an AsciiDoc block's line, or a heredoc's word
    bool fence = false;  // closed by a run of its character at least as long; the others by the same line
    std::optional<std::string_view> before;  // the line above, when the scan has it
    for (const auto& [n, text] : lines) {
      const std::string_view t = trimmed(text);
      const std::optional<std::string_view> above = std::exchange(before, t);
      const bool startsABlock = !above || above->empty() || above->starts_with('[') ||
                                (above->size() > 1 && (*above)[0] == '.' && (*above)[1] != '.' && (*above)[1] != ' ');
      if (!open) {
        fence = fences && (t.starts_with("```") || t.starts_with("~~~"));
        if (fence) {
          closer = std::string(t.substr(0, t.find_first_not_of(t[0])));
          open = n;
        } else if (asciidoc && delimiter(t) && startsABlock) {
          closer = std::string(t);
          open = n;
        } else if (heredocs) {
          closer = heredocTerminator(text);
          if (!closer.empty()) open = n;
        }
      } else if (fence ? t.starts_with(closer) && t.find_first_not_of(closer[0]) == std::string_view::npos
                       : t == closer) {
        if (n - 1 >= *open + 1) out.emplace_back(*open + 1, n - 1);
        open.reset();
      }
    }
    lines.clear();
  };
  if (file.fullText) {
    for (int n = 1; n <= static_cast<int>(file.lineStarts.size()); ++n) lines.emplace_back(n, *file.fullLine(n));
    scan();
  } else {
    for (const auto& hunk : file.hunks) {
      for (const auto& l : hunk.lines)
        if (l.line->kind != diff::LineKind::Removed) lines.emplace_back(l.number(), l.text());
      scan();
    }
  }
  return out;
}

// Whether new-file line n is inside a string literal or comment that began
// on a line above (a docstring or template holding a test's conflict text):
// the lexer gives such a line no token, or a string's at its start (a marker
// line starts with < = or >, never with a quote); in code a marker is punctuation.
bool insideStringLiteral(const ScanFile& file, int n) {
  const Tokens* tokens = nullptr;
  if (file.fullLine(n)) tokens = &file.fullTokens[static_cast<std::size_t>(n) - 1];
  else if (const ScanLine* l = file.shownLine(n)) tokens = &l->tokens;
  if (!tokens || file.lang == Language::Other) return false;  // no lexer for its strings and comments
  return tokens->empty() || (tokens->front().isString() && tokens->front().begin == 0);
}

}  // namespace

void checkConflictMarkers(const ScanFile& file, Findings& out) {
  const bool prose = isProseFile(file.path);
  // A "=======" with no <<<<<<< or >>>>>>> added anywhere in the file is no
  // conflict's: it underlines a heading in a docstring or a comment (RST,
  // Markdown), which a blocker on "Testing\n=======" called one.
  bool otherMarkers = false;
  for (const auto& hunk : file.hunks)
    for (const auto& l : hunk.lines)
      if (l.added()) {
        const Marker m = markerOf(l.text());
        otherMarkers = otherMarkers || m == Marker::Start || m == Marker::End || m == Marker::Base;
      }
  // Markers quoted as text (a doc's fenced example, a test's heredoc or
  // string literal holding a conflict to resolve) are no conflict of the file,
  // where examples live: prose, tests, fixtures, docs. In shipping code a
  // conflict inside a docstring or a heredoc that writes a config is a real one.
  // The blocks are read only once a conflict is found (a save of a doc page
  // without one need not scan it for fences).
  const bool examplesLiveHere = prose || isNonShippingPath(file.path);
  std::optional<std::vector<std::pair<int, int>>> quoted;
  auto report = [&](int first, int last) {
    if (!quoted) quoted = examplesLiveHere ? quotedBlocks(file) : std::vector<std::pair<int, int>>{};
    const bool inBlock = std::any_of(quoted->begin(), quoted->end(), [&](const auto& q) { return q.first <= first && last <= q.second; });
    const bool inString = examplesLiveHere && insideStringLiteral(file, first) && insideStringLiteral(file, last);
    if (!inBlock && !inString) out.push_back(conflictFinding(file, first, last));
  };
  for (const auto& hunk : file.hunks) {
    int open = 0;  // line of an unclosed <<<<<<< in this hunk, 0 for none
    for (const auto& l : hunk.lines) {
      if (!l.added()) continue;
      switch (markerOf(l.text())) {
        case Marker::Start:
          if (open) report(open, open);
          open = l.number();
          break;
        case Marker::End:
          report(open ? open : l.number(), l.number());
          open = 0;
          break;
        case Marker::Middle:
          // In prose "=======" underlines a heading; only a conflict block makes it a marker there.
          // Without its <<<<<<< in this hunk it opens the block its >>>>>>> closes.
          if (!open && !prose && otherMarkers) open = l.number();
          break;
        case Marker::Base:
        case Marker::None:
          break;
      }
    }
    if (open) report(open, open);
  }
}

}  // namespace revline::builtin
