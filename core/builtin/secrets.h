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
  std::string kind;        // aws-access-key, private-key, github-token, slack-token, api-key, password, secret
};

// Matches in text order, never overlapping. Cheap on text without candidates:
// every detector starts from a literal substring search.
std::vector<SecretMatch> findSecrets(std::string_view text);

// `text` with every match replaced by "[REDACTED:<kind>]".
std::string redactSecrets(std::string_view text);

}  // namespace revline::builtin
