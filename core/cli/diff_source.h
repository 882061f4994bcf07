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
#include "core/git/git.h"

namespace revline::cli {

struct DiffSource {
  std::optional<std::filesystem::path> root;  // the repository, when there is one
  diff::Diff diff;
  std::vector<git::LeftOut> leftOut;  // files of the change the diff does not show, with why
  // The repository's own git settings that name programs, not run (it is untrusted): a warning.
  std::vector<std::string> ignoredGitSettings;
  // What else to warn of (standard input that holds no diff), without the command's prefix.
  std::vector<std::string> notices;
};

// --stdin reads a patch from `in`; otherwise git is asked from the current
// directory. Rejects --staged together with --base. The repository's own git
// settings not run and an empty standard input (warningsOf) and the files the
// diff does not show (`leftOut`) are for the command to report.
DiffSource readDiff(const ParsedArgs& args, std::istream& in, std::ostream& err, const std::string& command);

// The warnings of reading the diff: `notices`, then that the repository's own
// git settings were not run (when any were named).
std::vector<std::string> warningsOf(const DiffSource& source);

}  // namespace revline::cli
