// The tools' view of the file system: the repository root and nothing else.
// Every path is resolved and canonicalised (symlinks included) and must stay
// inside the root; absolute paths, `..` escapes, NUL bytes and symlinks that
// point out are refused with a message the model can act on. Directories that
// are never useful to a review (.git, node_modules, build, target, dist,
// vendor) are skipped, and only text files up to a size cap are read.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/diff/diff.h"
#include "core/review/provider.h"
#include "core/support/glob.h"

namespace revline::tools {

struct ToolLimits {
  std::size_t maxFileBytes = 256 * 1024;  // larger files are not read
  std::size_t binaryProbeBytes = 8 * 1024;  // a NUL in this prefix marks a binary file
  std::size_t maxMatches = 50;            // search_text, find_usages
  std::size_t maxPaths = 200;             // glob
  std::int64_t maxGlobSteps = GlobMatcher::kMaxSteps;  // the work of one call's pattern over the walk
  std::size_t maxLinesPerRead = 500;      // read_file
  std::size_t maxLineChars = 400;         // search results show at most this much of a line
  std::size_t maxResultBytes = 64 * 1024; // any one tool result
  std::size_t maxWalkEntries = 100000;    // directory entries visited per listing
};

// A failure the model sees (never an exception).
struct ToolError {
  std::string message;
};

template <class T>
using Result = std::variant<T, ToolError>;

struct ResolvedPath {
  std::filesystem::path absolute;  // canonical, inside the root
  std::string relative;            // normalised, '/'-separated, as the model should write it
  // Set when the file is read from the index, not the work tree (GitHidden::indexOnly): its blob id.
  std::optional<std::string> indexBlob = std::nullopt;
};

// Directory names the tools never enter.
bool skippedDirectory(std::string_view name);

// Why a path git ignores, or git's own data, is refused ("path 'x' <why>").
inline constexpr const char* kIgnoredByGitWhy = "is ignored by git (.gitignore); the tools do not read ignored files";
inline constexpr const char* kGitDataWhy =
    "is git's own data (the repository's git directory, inside the work tree under another name than .git); the "
    "tools do not read it";

// What git keeps out of the review (Sandbox::hideWhatGitHides). Paths are
// repository-relative; a directory ends in '/'. (At namespace scope: clang
// cannot default-construct a nested class with member initializers inside an
// std::optional member of the class that encloses it.)
struct GitHidden {
  // Untracked paths the diff does not show: the ignored ones (local files a
  // checkout does not have: .env, credentials, build output), or every one
  // (--staged: a commit would not hold them; status.showUntrackedFiles=no).
  std::vector<std::string> untracked;
  std::string untrackedWhy = kIgnoredByGitWhy;  // ends their refusal: "path 'x' <why>"
  std::vector<std::string> gitData;             // the git directory and its common directory, when inside
  // Tracked files whose work-tree copy git does not look at, so the diff never
  // shows it: skip-worktree (a sparse checkout's files outside its cone, a
  // tracked config kept with local edits) and assume-unchanged. Path -> the
  // index's blob id; the tools read them as the index has them.
  std::map<std::string, std::string> indexOnly;
  // The index's submodules (gitlinks): another repository's work tree, even
  // where no `.git` says so on disk, and which git's listing of ignored files
  // never enters.
  std::vector<std::string> gitlinks;
  // The index's texts of blob ids, at most the total given of them (nullopt:
  // git could not give one, over the tools' file cap, or past the total).
  using BlobReader =
      std::function<std::map<std::string, std::optional<std::string>>(const std::vector<std::string>&, std::size_t)>;
  BlobReader readBlobs;
};

// What a Sandbox keeps of a GitHidden, for lookups.
struct HiddenPaths {
  std::set<std::string> untracked, gitData;
  std::string untrackedWhy, gitDataWhy = kGitDataWhy;
  std::map<std::string, std::string> indexOnly;
  GitHidden::BlobReader readBlobs;
  std::set<std::string> gitlinks;
};

class Sandbox {
 public:
  // `root` must exist; it is canonicalised.
  explicit Sandbox(const std::filesystem::path& root, ToolLimits limits = {});

  const std::filesystem::path& root() const { return root_; }
  const ToolLimits& limits() const { return limits_; }

  // Resolves a repository-relative path to an existing entry inside the root,
  // refusing one git ignores unless `ofTheDiff` (a file of the change under
  // review, which is never an ignored one: no need to ask git). A name quoted as
  // the diff and the tools' listings quote it is the file it names.
  Result<ResolvedPath> resolve(std::string_view path, bool ofTheDiff = false) const;

  // Checks that a glob pattern is repository-relative (no absolute path, no `..`, no NUL).
  std::optional<ToolError> checkPattern(std::string_view pattern, std::string_view what) const;

  // Reads a regular text file: refused when not a regular file, larger than the cap
  // (`maxBytes`, or the tools' maxFileBytes when 0), or binary (a NUL in the first 8 KB).
  Result<std::string> readText(const ResolvedPath& path, std::size_t maxBytes = 0) const;

  // Every candidate file (repository-relative, sorted): regular files and symlinks to
  // regular files inside the root; skipped directories and directory symlinks are not
  // entered. `truncated` is set when the walk stopped at maxWalkEntries.
  const std::vector<std::string>& files(bool* truncated = nullptr) const;

  // Reads a listed file for searching: nullopt when binary, too large or unreadable.
  // `fromIndex`: its text when already read from the index (indexOnlyTexts).
  std::optional<std::string> readForSearch(const std::string& relative,
                                           std::optional<std::string>* fromIndex = nullptr) const;

  // The index's texts of those of `relatives` read from the index rather than
  // the work tree (GitHidden::indexOnly), in one ask of git, at most `maxTotalBytes`
  // of them; the others (and any past the total) are absent.
  std::map<std::string, std::optional<std::string>> indexOnlyTexts(const std::vector<std::string>& relatives,
                                                                   std::size_t maxTotalBytes) const;

  // From now on, every file's text has what `finder` finds replaced by
  // "[REDACTED:<kind>]" as soon as it is read (before numbering or "path:N:").
  void redactWith(review::SecretFinder finder) { redact_ = std::move(finder); }

  // What git keeps out of the review (GitHidden, below the class), asked for at
  // the first path resolved or listed (once: a review's requests share the
  // lister), refused and left out of listings as the diff leaves it out.
  using GitHidden = tools::GitHidden;
  using GitHiddenLister = std::function<GitHidden()>;
  void hideWhatGitHides(GitHiddenLister lister) { hiddenLister_ = std::move(lister); }

  // When the change's new side is not the work tree (diff::Diff::newVersions):
  // a file it holds is read as it says (readText, readForSearch), not from the
  // work tree, whose copy may hold edits the change does not, and is found
  // (resolve, files) whatever the work tree has at its path (nothing, a symlink
  // out of the repository); a symlink leads to its target as the new side has
  // it; one it says is not known is refused. Null: the work tree is the new side.
  void readNewSideFrom(std::shared_ptr<const diff::NewVersions> versions) { newVersions_ = std::move(versions); }

  // The files of the change under review (repository-relative): this
  // repository's own, read and listed even inside a directory that also holds
  // a `.git` entry (a clone whose files the repository tracks as well).
  void changeHolds(std::set<std::string> paths) { changeFiles_ = std::move(paths); }

 private:
  // resolve() of a name as it is, never unquoted.
  Result<ResolvedPath> resolveName(std::string_view path, bool ofTheDiff) const;
  bool inside(const std::filesystem::path& canonical) const;
  // Why `relative` (a file, or a directory when it ends in '/') is hidden by
  // git (hideWhatGitHides), itself or a directory holding it; null when not.
  const std::string* hiddenWhy(const std::string& relative) const;
  // What hideWhatGitHides's lister said, asked at the first use; null without a lister.
  const HiddenPaths* gitView() const;
  // The index's blob id of `relative` when the tools read it from the index (GitHidden::indexOnly).
  const std::string* indexOnlyBlob(const std::string& relative) const;
  // The directory of `relative` (not the root) that holds a `.git` entry: the
  // work tree of another repository (a submodule, a nested clone), whose files
  // the diff does not show and whose .gitignore this repository's git never
  // reads; nullopt when none.
  std::optional<std::string> otherRepositoryHolding(const std::string& relative) const;

  std::filesystem::path root_;
  ToolLimits limits_;
  mutable std::optional<std::vector<std::string>> files_;
  mutable bool filesTruncated_ = false;
  review::SecretFinder redact_;
  GitHiddenLister hiddenLister_;
  mutable std::optional<HiddenPaths> hidden_;  // what hiddenLister_ said, once asked
  std::shared_ptr<const diff::NewVersions> newVersions_;
  std::set<std::string> changeFiles_;
  // The checks and redaction of every read, on text read from the work tree or git.
  Result<std::string> finishRead(std::string data, const std::string& relative) const;
  // The refusal of a file over maxFileBytes (its size when known).
  ToolError tooLarge(const std::string& relative, std::optional<std::uintmax_t> bytes, std::size_t cap) const;
};

// The model's glob: the one glob engine (support/glob.h, as the settings use
// it), for one tool call's walk. A pattern without '/' is matched against the
// file name only; a leading "./" is the root.
GlobMatcher toolGlob(std::string_view pattern, std::int64_t maxSteps = GlobMatcher::kMaxSteps);

}  // namespace revline::tools
