#include "core/git/config_guard.h"

#include <sys/stat.h>

#include <cctype>
#include <map>
#include <set>

#include "core/git/git.h"

namespace revline::git {
namespace {

bool startsWith(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }
bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool isBoolean(std::string value) {
  for (char& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* b : {"", "true", "false", "yes", "no", "on", "off", "1", "0"})
    if (value == b) return true;
  return false;
}

void pin(std::vector<std::string>& args, const std::string& key, const std::string& value) {
  args.push_back("-c");
  args.push_back(key + "=" + value);
}

}  // namespace

const std::vector<std::string>& alwaysPinnedConfig() {
  static const std::vector<std::string> pinned = {
      // No hook runs (post-index-change fires on the private index revline writes).
      "-c", "core.hooksPath=/dev/null",
      // `git log` would run gpg.program to check signatures.
      "-c", "log.showSignature=false",
      // A bare repository committed inside a work tree (its own config and all)
      // is used only when named, never found by walking up from a directory.
      "-c", "safe.bareRepository=explicit",
  };
  return pinned;
}

std::vector<std::string> commandSettingsQuery() {
  return {"config", "--show-scope", "-z", "--get-regexp",
          // `filter\..*\.`: a driver may have an empty name (`[filter ""]`, used by `filter=` with no name).
          "^(core\\.fsmonitor|filter\\..*\\.(clean|smudge|process)|protocol\\..+|include(if\\..+)?\\.path)$"};
}

Guard untrustedGuard(const std::string& listing) {
  // Off whatever file sets it: a submodule's own config is not in `listing`,
  // and the override reaches the git that diffs the submodule.
  Guard guard;
  pin(guard.args, "core.fsmonitor", "false");
  pin(guard.args, "protocol.allow", "never");
  std::set<std::string> seen, drivers;
  // The user's own values (system, global): a repository setting one of them
  // (`git lfs install --local`, which actions/checkout runs) has the user's run.
  std::map<std::string, std::string> usersOwn;
  // -z: "<scope>\0<key>\n<value>\0" per setting, "<scope>\0<key>\0" for one without a value.
  struct Setting {
    std::string scope, key, value;
  };
  std::vector<Setting> settings;
  std::map<std::string, std::set<std::string>> repositorysValues;  // every value the repository gives a key
  std::size_t at = 0;
  while (at < listing.size()) {
    const std::size_t scopeEnd = listing.find('\0', at);
    if (scopeEnd == std::string::npos) break;
    const std::string scope = listing.substr(at, scopeEnd - at);
    std::size_t entryEnd = listing.find('\0', scopeEnd + 1);
    if (entryEnd == std::string::npos) entryEnd = listing.size();
    const std::string entry = listing.substr(scopeEnd + 1, entryEnd - scopeEnd - 1);
    at = entryEnd + 1;
    const std::size_t newline = entry.find('\n');
    Setting setting{scope, entry.substr(0, newline),
                    newline == std::string::npos ? std::string() : entry.substr(newline + 1)};
    if (scope == "system" || scope == "global" || scope == "command") usersOwn[setting.key] = setting.value;
    if (scope == "local" || scope == "worktree") repositorysValues[setting.key].insert(setting.value);
    settings.push_back(std::move(setting));
  }
  for (const auto& [scope, key, value] : settings) {
    if ((scope != "local" && scope != "worktree") || !seen.insert(key).second) continue;
    if (startsWith(key, "include")) {
      guard.includes = true;
      continue;
    }
    // `-c` ends the key at its first '=': a driver named "x=y" could not be
    // switched off that way, so such a repository is refused, not half-guarded.
    if (key.find('=') != std::string::npos) {
      throw GitError("this repository's git config sets \"" + key +
                     "\", a program git would run that revline cannot switch off; remove it from .git/config, or "
                     "run `revline trust` if you trust this repository");
    }
    if (key == "core.fsmonitor") {
      // Pinned off above; named only when it is a program (true/false choose git's own daemon or none).
      if (isBoolean(value)) continue;
    } else if (startsWith(key, "filter.")) {
      const auto own = usersOwn.find(key);
      if (own != usersOwn.end()) {
        // The program the user runs anyway (every value the repository gives is the user's): nothing to guard.
        if (repositorysValues[key] == std::set<std::string>{own->second}) continue;
        pin(guard.args, key, own->second);  // the user's, not the repository's
      } else {
        pin(guard.args, key, "");
        // A driver marked required makes git fail without its program: not required then.
        const std::string driver = key.substr(0, key.rfind('.'));
        if (drivers.insert(driver).second) pin(guard.args, driver + ".required", "false");
      }
    } else if (startsWith(key, "protocol.") && endsWith(key, ".allow")) {
      pin(guard.args, key, "never");
    } else {
      continue;  // protocol.version and the like run nothing
    }
    guard.ignored.push_back(key);
  }
  return guard;
}

std::string GuardMemo::stampOf(const std::vector<std::filesystem::path>& files) {
  std::string stamp;
  for (const auto& file : files) {
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) {
      stamp += "-;";  // absent (config.worktree usually is)
      continue;
    }
    stamp += std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
             std::to_string(st.st_mtim.tv_nsec) + ":" + std::to_string(st.st_ino) + ";";
  }
  return stamp;
}

std::string GuardMemo::keyOf(const std::vector<std::filesystem::path>& files) {
  std::string key;
  for (const auto& file : files) key += file.string() + '\0';
  return key;
}

std::optional<Guard> GuardMemo::find(const std::vector<std::filesystem::path>& files, const std::string& stamp) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = byFiles_.find(keyOf(files));
  if (it == byFiles_.end() || it->second.first != stamp) return std::nullopt;
  return it->second.second;
}

void GuardMemo::store(const std::vector<std::filesystem::path>& files, const std::string& stamp, const Guard& guard) {
  if (guard.includes) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (byFiles_.size() >= 64) byFiles_.clear();  // a server sees a few repositories; bounded all the same
  byFiles_[keyOf(files)] = {stamp, guard};
}

std::string ignoredSettingsNotice(const std::filesystem::path& root, const std::vector<std::string>& ignored) {
  std::string keys;
  bool filters = false;
  bool submodules = false;
  for (const std::string& key : ignored) {
    if (key == kSubmoduleWorkTrees) {
      submodules = true;
      continue;
    }
    keys += (keys.empty() ? "" : ", ") + key;
    filters = filters || startsWith(key, "filter.");
  }
  std::string notice = root.string() + ": ";
  if (!keys.empty()) {
    notice += "the repository's own git config names programs for git to run (" + keys +
              "); revline did not let them run" +
              (filters ? ", so files under a filter driver are diffed as git stores them" : "");
  }
  if (submodules) {
    notice += std::string(keys.empty() ? "" : "; ") +
              "revline did not look into its submodules' work trees (their own git config is out of sight), so "
              "changes not committed inside a submodule are not part of this review (a review run inside the "
              "submodule sees them)";
  }
  return notice + ". If you trust this repository, run `revline trust " + root.string() + "`";
}

std::string fetchRefusedHint(const std::string& gitError) {
  // Newer gits stop at GIT_NO_LAZY_FETCH, older ones at protocol.allow=never.
  const bool lazyFetchOff = gitError.find("lazy fetching disabled") != std::string::npos;
  const bool transportOff = gitError.find("transport '") != std::string::npos &&
                            gitError.find("not allowed") != std::string::npos;
  if (!lazyFetchOff && !transportOff) return "";
  return "git needed to fetch a missing object (a partial clone, made with --filter), and revline lets no untrusted "
         "repository make git fetch; fetch the objects with your own git first (`git diff BASE... > /dev/null` does: the merge base's files, which the review reads, not BASE's tip), "
         "clone without --filter (in CI, drop `filter:` from actions/checkout), or run `revline trust` in this "
         "repository if you trust it";
}

}  // namespace revline::git
