// Which files of a diff go to the reviewer: the include/exclude settings, and
// the default exclusions (lock files, minified and generated files, dist/ and
// vendor/ directories) that are never worth a model's tokens. Every file left
// out is listed with its reason, for the report's coverage.filesSkipped.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/diff/diff.h"
#include "core/review/pipeline.h"

namespace revline::config {

struct Selection {
  diff::Diff diff;                               // the files to review
  std::vector<review::SkippedFile> skipped;      // the others, in diff order, with reasons
};

// Why `file`'s change cannot be read as text: git shows it as binary (a NUL in
// its first 8,000 bytes), or a line it shows holds a NUL; nullopt otherwise.
std::optional<std::string> binaryContent(const diff::FileDiff& file);

// Why a file is left out by default ("lock file", "minified file", ...), or nullopt.
// Judged from the path and the lines the diff shows (a "generated ... do not
// edit" or "@generated" marker within the first 5 lines of the new file).
std::optional<std::string> defaultExclusion(const diff::FileDiff& file);

// Why a file of the change that the diff could not show (an untracked file
// over the size cap, git::LeftOut) is left out by choice anyway: the include
// and exclude settings, or a default exclusion its path decides (a lock file,
// node_modules/, a source map); nullopt when it is meant to be reviewed.
std::optional<std::string> excludedByItsPath(const std::string& path, const Config& config);

// Applies include/exclude and the default exclusions. A file matched by an
// `include` glob is reviewed even when a default exclusion applies to it; an
// `exclude` glob always wins. `linguist`: the paths the repository's
// .gitattributes marks linguist-generated or -vendored (git::linguistMarks),
// left out by default as GitHub's diff collapses them. `newSideIsWorkTree`: the
// change's new side is the work tree (not --staged's index, not a patch), which
// decides how a moved submodule is reviewed where it is.
Selection selectFiles(diff::Diff diff, const Config& config, const std::map<std::string, std::string>& linguist = {},
                      bool newSideIsWorkTree = true);

}  // namespace revline::config
