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
#include <string>
#include <vector>

namespace revline::git {

// `-c` arguments for every git call, trusted or not: no revline command needs
// hooks, signature checks (they run gpg.program) or a bare repository found
// by walking up from a work-tree directory.
const std::vector<std::string>& alwaysPinnedConfig();

// The `git config` arguments whose output untrustedOverrides reads: the
// settings above, from every configuration file with the file's scope.
std::vector<std::string> commandSettingsQuery();

// `-c` arguments that neutralize, for an untrusted repository, the settings of
// `listing` (the output of commandSettingsQuery) that come from the
// repository's own files (scope local or worktree, includes counted): filter
// drivers get no command, core.fsmonitor is off, and no transport may run
// (a missing object is an error, not a fetch). The user's global and system
// settings (git-lfs installed globally, say) are kept. Each setting neutralized
// is appended to `ignored` (its key).
std::vector<std::string> untrustedOverrides(const std::string& listing, std::vector<std::string>* ignored);

// The warning for the settings untrustedOverrides switched off in the
// repository at `root`: what they are, what it changes and how to allow them.
std::string ignoredSettingsNotice(const std::filesystem::path& root, const std::vector<std::string>& ignored);

// The git error to show when an untrusted repository's diff needed a fetch
// (a partial clone missing an object), with how to allow it; empty otherwise.
std::string fetchRefusedHint(const std::string& gitError);

}  // namespace revline::git
