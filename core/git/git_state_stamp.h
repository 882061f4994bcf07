// What git's state in a work tree looks like on disk, read without running git:
// for a language server whose client watches no files (Neovim on Linux, whose
// file watcher is off there in every version), which must notice a commit, a
// stash, a checkout or a reset made in a terminal by looking itself.
#pragma once
#include <filesystem>
#include <string>

namespace revline::git {

// The index's and the checked-out branch's ref's (or packed-refs') modification
// time, size and inode, and HEAD's text. Two equal stamps: git's index and HEAD
// did not change between them (no commit, stage, stash, checkout or reset). A few
// stats and one read of HEAD (at most 256 bytes, a regular file only: a planted
// FIFO is never waited on). Empty when `root` has no git directory.
std::string gitStateStamp(const std::filesystem::path& root);

}  // namespace revline::git
