#include "core/config/user_config.h"

#include <cstdlib>
#include <fstream>
#include <system_error>

#include "core/config/config.h"
#include "core/support/files.h"
#include "core/support/repo_file.h"

namespace revline::config {

namespace fs = std::filesystem;

namespace {

constexpr const char* kTrustedKey = "trusted_repositories";

fs::path canonicalOrNormal(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : c;
}

// The file's JSON object, or an empty object when it does not exist.
json readObject(const fs::path& file) {
  std::error_code ec;
  if (file.empty() || !fs::exists(file, ec)) return json::object();
  // Bounded like any file revline did not write: no FIFO, device or huge file.
  support::RepoFileRead read = support::readRegularFile(fs::canonical(file, ec), file.string());
  if (!read) throw ConfigError(file.string() + ": " + read.skipped->why + "; the user configuration must be a JSON file");
  json parsed = json::parse(*read.content, nullptr, false);
  if (parsed.is_discarded()) {
    throw ConfigError(file.string() + ": invalid JSON; fix or remove the file (it holds revline's trusted repositories)");
  }
  if (!parsed.is_object()) throw ConfigError(file.string() + ": expected a JSON object at the top level");
  return parsed;
}

}  // namespace

fs::path userConfigPath() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg && fs::path(xdg).is_absolute()) {
    return fs::path(xdg) / "revline" / "config.json";
  }
  // Absolute only, as XDG_CONFIG_HOME: a relative HOME would put the user's config
  // and secret key in the directory revline runs in, the repository.
  if (const char* home = std::getenv("HOME"); home && *home && fs::path(home).is_absolute())
    return fs::path(home) / ".config" / "revline" / "config.json";
  return {};
}

std::string whyNoUserConfigPath() {
  auto state = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    if (!v || !*v) return std::string(name) + " is unset";
    return std::string(name) + " is relative (\"" + v + "\"), and a relative one is not used";
  };
  return state("XDG_CONFIG_HOME") + "; " + state("HOME") + ": set HOME (or XDG_CONFIG_HOME) to an absolute path";
}

UserConfig loadUserConfig(const fs::path& file) {
  UserConfig user;
  user.file = file;
  json object = readObject(file);
  if (object.contains(kTrustedKey)) {
    const json& list = object[kTrustedKey];
    if (!list.is_array()) {
      throw ConfigError(file.string() + ": key \"" + kTrustedKey + "\": expected an array of repository paths");
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_string() || list[i].get<std::string>().empty()) {
        throw ConfigError(file.string() + ": key \"" + kTrustedKey + "[" + std::to_string(i) +
                          "]\": expected a repository path (a non-empty string)");
      }
      // Relative, it would be read from wherever revline runs: "." would trust every repository.
      if (!fs::path(list[i].get<std::string>()).is_absolute()) {
        throw ConfigError(file.string() + ": key \"" + kTrustedKey + "[" + std::to_string(i) + "]\": expected an absolute " +
                          "path, got \"" + list[i].get<std::string>() + "\" (a relative one would name another "
                          "repository from each directory revline runs in): edit the file to make it absolute or remove it "
                          "(`revline trust PATH` writes an absolute path)");
      }
      user.trusted.emplace_back(list[i].get<std::string>());
    }
    object.erase(kTrustedKey);
  }
  static const Config defaults;
  (void)applyJson(defaults, object, file.string());  // every other key is a .revline.json key: checked now
  user.settings = std::move(object);
  return user;
}

bool isTrusted(const UserConfig& user, const fs::path& root) {
  const fs::path wanted = canonicalOrNormal(root);
  for (const auto& t : user.trusted) {
    if (canonicalOrNormal(t) == wanted) return true;
  }
  return false;
}

bool trustRepository(const fs::path& file, const fs::path& root) {
  if (file.empty()) {
    throw ConfigError("cannot find the user configuration: " + whyNoUserConfigPath());
  }
  // Locked from the read to the rename: two `revline trust` at once both land.
  const FileLock lock(file);
  json object = readObject(file);
  UserConfig current = loadUserConfig(file);  // validates before anything is rewritten
  const fs::path canonical = canonicalOrNormal(root);
  if (isTrusted(current, canonical)) return false;
  if (!object.contains(kTrustedKey)) object[kTrustedKey] = json::array();
  object[kTrustedKey].push_back(canonical.string());
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (ec) throw ConfigError("cannot create " + file.parent_path().string() + ": " + ec.message());
  // Written to a temporary of its own and renamed over the file: a crash never
  // leaves half a config, and two `revline trust` at once never share a temporary.
  if (!writeFileAtomically(file, object.dump(2) + "\n")) throw ConfigError("cannot write " + file.string());
  return true;
}

bool untrustRepository(const fs::path& file, const fs::path& root) {
  if (file.empty()) {
    throw ConfigError("cannot find the user configuration: " + whyNoUserConfigPath());
  }
  const FileLock lock(file);
  json object = readObject(file);
  (void)loadUserConfig(file);  // validates before anything is rewritten
  if (!object.contains(kTrustedKey)) return false;
  const fs::path wanted = canonicalOrNormal(root);
  json kept = json::array();
  for (const json& entry : object[kTrustedKey])
    if (canonicalOrNormal(entry.get<std::string>()) != wanted) kept.push_back(entry);  // every spelling of it goes
  if (kept.size() == object[kTrustedKey].size()) return false;
  object[kTrustedKey] = std::move(kept);
  if (!writeFileAtomically(file, object.dump(2) + "\n")) throw ConfigError("cannot write " + file.string());
  return true;
}

json userConfigSchema() {
  json schema = configSchema();
  schema["title"] = "revline user configuration";
  schema["description"] =
      "The user's own revline configuration ($XDG_CONFIG_HOME/revline/config.json, default "
      "~/.config/revline/config.json): the repositories whose .revline.json may choose where code and credentials "
      "are sent, and defaults for any .revline.json key (applied before the repository's file).";
  schema["properties"][kTrustedKey] = {
      {"description",
       "Absolute paths of repository roots the user trusts: their .revline.json may set base_url, api_key_env, "
       "model, the provider and a cassette, and raise what a review spends; their own "
       "git config may name programs for git to run (filter drivers, core.fsmonitor). `revline trust [PATH]` adds one."},
      {"type", "array"},
      {"items", {{"type", "string"}, {"minLength", 1}}},
      {"default", json::array()}};
  return schema;
}

}  // namespace revline::config
