// Where a command's diff comes from: git (working tree, --staged, --base REF)
// or standard input (--stdin).
#pragma once
#include <filesystem>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/cli/args.h"
#include "core/diff/diff.h"

namespace revline::cli {

struct DiffSource {
  std::optional<std::filesystem::path> root;  // the repository, when there is one
  diff::Diff diff;
  std::vector<std::string> skipped;  // untracked files left out (too large, not regular), "path: why"
  // The repository's own git settings that name programs, not run (it is untrusted): a warning.
  std::vector<std::string> ignoredGitSettings;
};

// --stdin reads a patch from `in`; otherwise git is asked from the current
// directory. Rejects --staged together with --base. What git was not asked to
// show (untracked files left out, the repository's own git settings not run)
// is warned of on `err` as "<command>: warning: ...", whatever is printed next.
DiffSource readDiff(const ParsedArgs& args, std::istream& in, std::ostream& err, const std::string& command);

}  // namespace revline::cli
