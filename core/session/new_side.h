// A change whose new side is not the work tree (`revline review --staged`: the
// index; `--stdin`: a patch): the whole new text of its files, from git, so
// that nothing reads a work-tree copy that holds edits the change does not
// (an unstaged fix that would let a staged bug through a pre-commit hook).
#pragma once
#include <filesystem>
#include <memory>

#include "core/diff/diff.h"

namespace revline::session {

// Per file of `change` with lines to show: the text of the blob its index line
// names when the repository at `root` has it (a staged file, a patch of
// commits); nothing (the work tree is it) when the work-tree file hashes to
// that blob; else nullopt, only its hunks are known (a patch without index
// lines, or of another repository). Each text under `maxBytes`.
std::shared_ptr<diff::NewVersions> newVersionsFromGit(const std::filesystem::path& root, const diff::Diff& change,
                                                      std::size_t maxBytes);

// --staged: adds to `versions` each file outside `change` whose work-tree copy
// has unstaged edits (or is gone), with the index's text (what the commit will
// hold; those git is told not to look at, skip-worktree and assume-unchanged,
// are the tools' GitHidden::indexOnly, read when asked for): nullopt
// for one over `maxBytes`, or once `maxTotalBytes` of such texts are read.
void addIndexVersionsOfUnstaged(const std::filesystem::path& root, const diff::Diff& change,
                                diff::NewVersions& versions, std::size_t maxBytes, std::size_t maxTotalBytes);

}  // namespace revline::session
