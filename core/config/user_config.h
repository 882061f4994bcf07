// The user's own configuration and workspace trust.
//
// A repository's `.revline.json` is written by whoever wrote the repository, so
// it may not decide where code and credentials go. The keys that do
// (`base_url`, `api_key_env`, `provider` naming a remote provider, `cassette`
// outside the repository) are read from it only when the user trusts that
// repository; trust, and the user's own defaults for any key, live in
// `$XDG_CONFIG_HOME/revline/config.json` (default ~/.config/revline/config.json):
//
//   {"trusted_repositories": ["/home/me/src/app"], "provider": "openai", "api_key_env": "OPENAI_API_KEY"}
//
// Schema: docs/revline-user.schema.json. `revline trust [PATH]` adds a repository.
#pragma once
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/support/json.h"

namespace revline::config {

struct UserConfig {
  std::filesystem::path file;                     // where it is (or would be); empty: no HOME either
  std::vector<std::filesystem::path> trusted;     // repository roots, as written
  json settings = json::object();                 // every other key: .revline.json keys, the user's defaults
  // Keys the user sets above every file (command-line flags: CI's --provider,
  // --model, --base-url): an untrusted repository's own, ignored anyway, is not
  // worth a warning that tells to trust it.
  std::set<std::string> setAbove;
};

// $XDG_CONFIG_HOME/revline/config.json, else $HOME/.config/revline/config.json; empty when neither is set.
std::filesystem::path userConfigPath();
// Why userConfigPath() is empty, for an error: which of HOME and
// XDG_CONFIG_HOME is unset and which is relative (a relative one is not used:
// it would put the user's config in the repository revline runs in).
std::string whyNoUserConfigPath();

// Reads `file` (defaults when it does not exist). Throws ConfigError for
// invalid JSON, a non-string trusted entry or an unknown key.
UserConfig loadUserConfig(const std::filesystem::path& file);
inline UserConfig loadUserConfig() { return loadUserConfig(userConfigPath()); }

// True when `root` (any spelling; compared canonically) is listed as trusted.
bool isTrusted(const UserConfig& user, const std::filesystem::path& root);

// Adds `root` (canonical) to the trusted repositories of `file`, keeping every
// other key; creates the file and its directory. Returns false when it was
// already trusted. Throws ConfigError when the existing file is invalid.
bool trustRepository(const std::filesystem::path& file, const std::filesystem::path& root);

// Removes every entry naming `root` (any spelling) from the trusted
// repositories of `file`, keeping every other key. Returns false when it was
// not trusted. Throws ConfigError when the file is invalid.
bool untrustRepository(const std::filesystem::path& file, const std::filesystem::path& root);

// The JSON Schema of the user config (shipped as docs/revline-user.schema.json).
json userConfigSchema();

}  // namespace revline::config
