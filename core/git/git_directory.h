// Where a work tree keeps its git data, without running git: revline's own
// per-repository state (review cache, dismissals) lives under it.
#pragma once
#include <filesystem>

namespace revline::git {

// GIT_DIR when the environment sets it (as git would use it), else `<root>/.git`,
// or the directory a `.git` file points to (worktrees, submodules).
std::filesystem::path gitDirectory(const std::filesystem::path& root);

}  // namespace revline::git
