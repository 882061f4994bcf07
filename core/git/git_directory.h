// Where a work tree keeps its git data, without running git: revline's own
// per-repository state (review cache, dismissals) lives under it.
#pragma once
#include <filesystem>
#include <optional>

namespace revline::git {

// GIT_DIR when the environment sets it (as git would use it), else `<root>/.git`,
// or the directory a `.git` file points to (worktrees, submodules).
std::filesystem::path gitDirectory(const std::filesystem::path& root);

// The directory a `.git` file (`gitdir: X`) names, from the file's directory
// when relative; nullopt when `dotGit` is no such file.
std::optional<std::filesystem::path> gitFileTarget(const std::filesystem::path& dotGit);

}  // namespace revline::git
