// Text files that git shows as "Binary files ... differ".
//
// A .gitattributes `binary` or `-diff` (or a diff driver with `binary = true`)
// makes git print no line of a file, though the file is text: its change would
// reach no review, and the report would still count it as reviewed. Any
// repository can say so of any path (`*.py -diff`), so it could hide a change
// that way. Such files are diffed again with --text; one too large for that is
// taken out of the diff and said not reviewed (diffText does the git calls;
// these are the pure parts).
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string_view>
#include <string>
#include <vector>

namespace revline::git {

// True when `diff` (git diff output) has a section that shows a file as binary.
bool showsABinaryFile(const std::string& diff);

// As for an untracked file shown as added (git.h kMaxUntrackedFileBytes): git reads it whole.
inline constexpr std::uintmax_t kMaxTextShownBinaryBytes = 8 * 1024 * 1024;   // a file diffed again as text
inline constexpr std::uintmax_t kMaxTextShownBinaryTotal = 64 * 1024 * 1024;  // all of them in one diff

// What one side of a file holds, as git judges text: `binary` when its first
// 8000 bytes hold a NUL (git's own test); absent when there is no such file
// (deleted, not yet added) or it is no regular file (a symlink).
struct SideContent {
  bool present = false;
  bool binary = false;
  std::uintmax_t size = 0;
};
// Reads a side of the file at a repository path.
using SideProbe = std::function<SideContent(const std::string& path)>;

// The side in the work tree `root`: a regular file, not a symlink.
SideContent workTreeSide(const std::filesystem::path& root, const std::string& path);
// The side of a blob whose size is `size` and whose head (at least its first
// 8000 bytes, or all of it) is `head`.
SideContent blobSide(std::uintmax_t size, std::string_view head);
inline constexpr std::size_t kGitBinaryProbe = 8000;  // git looks for a NUL in this many first bytes

// A file `git diff --numstat -z` counts as binary, in its order, and what is
// done with it.
struct ShownBinary {
  std::vector<std::string> paths;  // as a pathspec needs them: a rename's source, then its destination
  enum class Action {
    Keep,     // binary content, or no side of text to read
    AsText,   // diffed again with --text
    LeftOut,  // text, but over the caps above: not reviewed, and said so
  } action = Action::Keep;
  std::uintmax_t size = 0;  // of the side judged
};

// The binary entries of `numstatZ`, each judged by its new side (`newSide`:
// the work tree, or the index of a --staged diff), or by its old side
// (`oldSide`, at the commit diffed against) when it was deleted: a deleted
// text file's lines are shown too.
std::vector<ShownBinary> filesShownBinary(const std::string& numstatZ, const SideProbe& newSide,
                                          const SideProbe& oldSide);

// `diff` without its binary sections whose place among them (0-based, in diff
// order, which --numstat keeps) is in `drop`; unchanged, and false, when the
// sections and `expected` (how many entries filesShownBinary gave) disagree.
bool withoutBinarySections(std::string& diff, const std::vector<std::size_t>& drop, std::size_t expected);

// `diff` with each section that shows a file as binary replaced by the section
// of `textDiff` (the same diff of those files, with --text) under the same
// `diff --git` line, where that one shows hunks (a NUL in them is then skipped
// downstream as binary content, as git's own text diff of such a file is).
std::string withTextSections(const std::string& diff, const std::string& textDiff);

}  // namespace revline::git
