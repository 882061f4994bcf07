// Text files that git shows as "Binary files ... differ".
//
// A .gitattributes `binary` or `-diff` (or a diff driver with `binary = true`)
// makes git print no line of a file, though the file is text: its change would
// reach no review, and the report would still count it as reviewed. Any
// repository can say so of any path (`*.py -diff`), so it could hide a change
// that way. Such files are diffed again with --text (diffText does the git
// calls); these are the pure parts.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace revline::git {

// True when `diff` (git diff output) has a section that shows a file as binary.
bool showsABinaryFile(const std::string& diff);

// Of the files `numstatZ` (`git diff --numstat -z`) counts as binary, those
// whose new side in the work tree `root` reads as text: a regular file (not a
// symlink) of at most kMaxTextShownBinaryBytes, with no NUL byte in its first
// 8000 bytes (git's own test, without the attributes), up to
// kMaxTextShownBinaryTotal in all. Each as the paths a pathspec needs (a
// rename's source too, so -M pairs them again).
inline constexpr std::uintmax_t kMaxTextShownBinaryBytes = 8 * 1024 * 1024;
inline constexpr std::uintmax_t kMaxTextShownBinaryTotal = 64 * 1024 * 1024;
std::vector<std::string> textFilesShownBinary(const std::string& numstatZ, const std::filesystem::path& root);

// `diff` with each section that shows a file as binary replaced by the section
// of `textDiff` (the same diff of those files, with --text) under the same
// `diff --git` line, where that one shows hunks and no NUL byte (content that
// is binary after all, on either side, stays as git showed it).
std::string withTextSections(const std::string& diff, const std::string& textDiff);

}  // namespace revline::git
