// What a file's findings were computed on: its part of the change, as the model
// reads it (lines and numbers), reduced to a digest. Findings are shown only
// while the file's diff is still that one (a reopen after `git stash` is not).
#pragma once
#include <map>
#include <string>

#include "core/diff/diff.h"

namespace revline::lsp {

// Repository-relative path (normalized) -> digest of that file's diff. A file
// not in the map has no diff (the empty digest stands for it).
std::map<std::string, std::string> fileDiffFingerprints(const diff::Diff& change);

}  // namespace revline::lsp
