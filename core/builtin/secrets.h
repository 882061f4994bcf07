// Detection of credentials in arbitrary text (source lines, prompts, diffs).
// Used by the builtin secret rule and to redact text before it leaves the machine.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace revline::builtin {

struct SecretMatch {
  std::size_t offset = 0;  // byte offset of the secret in the text
  std::size_t length = 0;  // bytes covered (the value only, for `password = "..."`)
  std::string kind;        // aws-access-key, private-key, github-token, slack-token, api-key, google-api-key,
                           // stripe-key, npm-token, jwt, gitlab-token, slack-webhook, discord-webhook,
                           // bearer-token, api-key-header, password, secret, aws-secret-key, session-cookie
                           // (and the services' token kinds of text_rules.cpp)
};

// Matches in text order, never overlapping. Cheap on text without candidates:
// every detector starts from a literal substring search. Formats: AWS key ids,
// private keys (a BEGIN block; base64 lines above an END line; runs of PEM-width
// base64 lines; every base64 line of a key file by name when `path` is given),
// GitHub, Slack, OpenAI/Anthropic "sk-", Google "AIza", Stripe, npm tokens and
// .npmrc credentials, JWTs, URL userinfo passwords and query parameters,
// GitLab tokens, Slack and Discord webhooks, credentials on a command line (as
// words or as argv list elements) and in Authorization or API-key headers,
// connection-string fields (ADO.NET, JDBC, ODBC braces, libpq keywords), and
// assignments to secret names in every spelling (KEY=value, KEY: value,
// "key": "value", key = "value", also after a diff marker, a line number or a
// search hit's "path:N:"); generic *_TOKEN names only with a long random-looking value.
// One detector: the builtin secret rule and the redaction of what is sent both use it.
std::vector<SecretMatch> findSecrets(std::string_view text, std::string_view path = {});

// The last word of a setting's name, lower-cased: after its last '_', '.' or
// '-', or from the last capital of camelCase ("PASSWORD_MODE" and
// "passwordHashMode": "mode"), which tells a setting about a secret from one.
std::string lastNameWord(std::string_view name);

// `text` with every match replaced by "[REDACTED:<kind>]", once per line it
// covers (review::redactSpans: line breaks and so line numbers are kept).
std::string redactSecrets(std::string_view text, std::string_view path = {});

}  // namespace revline::builtin
