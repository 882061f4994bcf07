// The parsed form of git's unified diff output: files -> hunks -> lines, with
// old and new line numbers. Pure data plus pure functions; no I/O.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace revline::diff {

enum class LineKind { Context, Added, Removed };

struct Line {
  LineKind kind;
  int oldLine = 0;         // 0 for an added line
  int newLine = 0;         // 0 for a removed line
  std::string_view text;   // without the leading ' ', '+', '-' and without the line ending
  bool noNewlineAtEnd = false;  // followed by "\ No newline at end of file"
  bool crlf = false;  // the line ended in "\r\n"; the '\r' is not part of text
};

struct Hunk {
  int oldStart = 0, oldCount = 0, newStart = 0, newCount = 0;
  std::string_view section;  // function context after the second "@@", may be empty
  std::vector<Line> lines;
  // The index of the hunk of git's diff this one was cut from (a notebook's
  // source runs, notebook.h keepOnlyLines); -1: it is git's own. What git showed
  // as one edit stays one for the builtin's "already there" check.
  int origin = -1;
};

enum class FileStatus { Added, Deleted, Modified, Renamed, Copied, Binary, Mode };
std::string_view toString(FileStatus);

struct FileDiff {
  std::optional<std::string> oldPath;  // nullopt when the file is added
  std::optional<std::string> newPath;  // nullopt when the file is deleted
  FileStatus status = FileStatus::Modified;
  std::optional<std::string> oldMode, newMode;
  std::optional<int> similarity;  // "similarity index N%" for renames and copies
  bool binary = false;
  // The new side's blob id from "index OLD..NEW" (as written: often abbreviated);
  // nullopt when the header has none or it is all zeros (not known to git).
  std::optional<std::string> newBlob;
  std::optional<std::string> oldBlob;  // the same for the old side
  std::vector<Hunk> hunks;

  // newPath, or oldPath for a deleted file.
  const std::string& path() const;
  // True when newLine is an added or context line of some hunk (a RIGHT-side line).
  bool isRightSideLine(int newLine) const;
  // The new-file text of a RIGHT-side line, or nullopt when the diff does not show it.
  std::optional<std::string_view> newLineText(int newLine) const;
};

// The whole new text of a change's files when the new side is not the work
// tree: a --staged review's is the index, a patch's the blobs its index lines
// name. Keyed by new path; nullopt: not known (only the hunks show the file).
using NewVersions = std::map<std::string, std::optional<std::string>>;

struct Diff {
  // The raw diff text that every string_view above points into; shared so the
  // Diff can be copied and moved freely.
  std::shared_ptr<const std::string> source;
  std::vector<FileDiff> files;
  // Null: the work tree is the new side, read from there (a working-tree or
  // --base diff). Otherwise what is read as a file of the change instead of the
  // work tree's copy, which may differ (unstaged edits); a file absent from it
  // is the same in the work tree.
  std::shared_ptr<const NewVersions> newVersions;
  // --staged: the index is the new side of the whole repository, so
  // newVersions also holds the files outside the change whose work-tree copy
  // has unstaged edits, and an untracked file is not part of it.
  bool newSideIsIndex = false;

  // A Diff for some of this one's files (a chunk, the hunks left to send): the
  // same source text and new side, no files yet.
  Diff withoutFiles() const {
    Diff part;
    part.source = source;
    part.newVersions = newVersions;
    part.newSideIsIndex = newSideIsIndex;
    return part;
  }

  // The file whose new path (or old path, if deleted) equals `path` after
  // normalisation (leading "./" and "a/"-style prefixes dropped); nullptr if none.
  const FileDiff* findFile(std::string_view path) const;
};

// Diff::findFile for many lookups in one diff (a finding, a skipped file each):
// the files by normalised path, built once, where findFile compares every
// file's path on each call (16,000 skipped files took 4.6 s). Points into the
// diff: valid while its files are unchanged.
class FileIndex {
 public:
  explicit FileIndex(const Diff& diff);
  // What diff.findFile(path) returns.
  const FileDiff* find(std::string_view path) const;

 private:
  std::unordered_map<std::string, const FileDiff*> byNewPath_;
  std::unordered_map<std::string, const FileDiff*> byDeletedPath_;  // sections without a new side
};

// Thrown for input that is not a well-formed git diff. `inputLine` is 1-based.
class ParseError : public std::runtime_error {
 public:
  ParseError(int inputLine, const std::string& what);
  int inputLine() const { return inputLine_; }
 private:
  int inputLine_;
};

// Parses the output of `git diff` (any of the formats listed in the docs).
Diff parse(std::string text);

// Throws ParseError when a file has two sections of `diff` (two with its new
// path, or two deleting it): patches one after another (`git log -p`, `git
// format-patch --stdout`), whose line numbers are of different versions of the
// file, so no finding can be placed on them by path and line. (A type change,
// deleted then added, is one deletion and one addition: allowed.) The review
// path calls it; `revline diff --numstat` counts such input as git apply does.
void requireOneSectionPerFile(const Diff& diff);

// Repository-relative form of a path as a finding may spell it: drops leading
// "./" segments. (Dropping a single-letter "a/"-style prefix needs the diff to
// know whether the remainder names a file: Diff::findFile does that.)
std::string normalizePath(std::string_view path);

// A path as git prints it in headers and `--numstat` (core.quotePath=true):
// unchanged when plain, else C-quoted with \t \n \" \\ ... and octal bytes >= 0x80.
std::string quotePath(std::string_view path);

// A path as a JSON string can hold it: as is when it is UTF-8, else C-quoted
// (quotePath: ASCII, each byte itself, as git prints it). Diff::findFile reads it.
std::string jsonPath(std::string_view path);

}  // namespace revline::diff
