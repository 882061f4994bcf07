// What a repository's own git configuration may make revline's git calls run.
//
// `.git/config` is not cloned, but a repository handed over as a directory (an
// archive, a shared folder, a container volume, a bare repository committed
// inside another) brings its own, and some of its settings are programs that
// a plain `git diff` runs: core.fsmonitor (on every index refresh), filter
// drivers (to clean work-tree files), hooks (post-index-change), the transport
// of a partial clone fetching a missing object. The language server runs git on
// every save, so opening such a folder would run them. Unless the user trusts
// the repository (`revline trust`), those settings are overridden on git's
// command line, which wins over every configuration file and is passed on to
// the git processes git itself starts (submodules).
#pragma once
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace revline::git {

// `-c` arguments for every git call, trusted or not: no revline command needs
// hooks, signature checks (they run gpg.program) or a bare repository found
// by walking up from a work-tree directory.
const std::vector<std::string>& alwaysPinnedConfig();

// The `git config` arguments whose output untrustedGuard reads: the settings
// above and the includes, from every configuration file with the file's scope.
std::vector<std::string> commandSettingsQuery();

// What an untrusted repository's git calls are given.
struct Guard {
  // `-c` arguments: core.fsmonitor off and no transport (a missing object is an
  // error, not a fetch) whatever file says otherwise; and the settings of the
  // repository's own files (scope local or worktree, includes counted) that
  // name programs neutralized: filter drivers get no command (and are not
  // required, or git would fail without one).
  std::vector<std::string> args;
  std::vector<std::string> ignored;  // the keys of the repository's own files neutralized
  bool includes = false;             // its files include others (which a stamp of them would not cover)
};

// The guard for `listing` (the output of commandSettingsQuery). The user's
// global and system settings (git-lfs installed globally, say) are kept.
Guard untrustedGuard(const std::string& listing);

// The guards already read, by the repository's config files: the server reads
// the diff on every save, and a guard holds while those files are unchanged
// (same size, modification time and inode; one that includes others is not kept).
// Thread-safe.
class GuardMemo {
 public:
  // The files' stamp, taken before the query whose guard store() keeps.
  static std::string stampOf(const std::vector<std::filesystem::path>& files);
  std::optional<Guard> find(const std::vector<std::filesystem::path>& files, const std::string& stamp) const;
  void store(const std::vector<std::filesystem::path>& files, const std::string& stamp, const Guard& guard);

 private:
  static std::string keyOf(const std::vector<std::filesystem::path>& files);
  mutable std::mutex mu_;
  std::map<std::string, std::pair<std::string, Guard>> byFiles_;  // key -> (stamp, guard)
};

// In `ignored`: an untrusted repository with submodules, whose work trees
// were not looked into (`--ignore-submodules=dirty`).
inline constexpr const char* kSubmoduleWorkTrees = "submodule work trees";

// The warning for the settings untrustedGuard switched off in the
// repository at `root`: what they are, what it changes and how to allow them.
std::string ignoredSettingsNotice(const std::filesystem::path& root, const std::vector<std::string>& ignored);

// The git error to show when an untrusted repository's diff needed a fetch
// (a partial clone missing an object), with how to allow it; empty otherwise.
std::string fetchRefusedHint(const std::string& gitError);

}  // namespace revline::git
