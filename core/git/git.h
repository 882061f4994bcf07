// The git adapter: finds the repository and produces the raw `git diff` text
// that core/diff parses. It never writes to the user's index or work tree.
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/support/cancel.h"

namespace revline::git {

// git is missing, the directory is not a repository, a revision does not
// exist, or a git command failed; what() says which and how to fix it.
class GitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// There is no repository to read from here: git is not installed, or the
// directory is in no work tree (not in a repository, in a bare one, in a git
// directory). A patch read from stdin is reviewed without one; other GitErrors
// (another user's checkout, damaged objects) must not be passed over, or the
// repository's settings would be silently dropped.
class NoRepositoryError : public GitError {
 public:
  using GitError::GitError;
};

// git did not finish within GitOptions::timeout and was killed: slow or hung
// (a stalled network mount), not a refusal.
class GitTimedOut : public GitError {
 public:
  using GitError::GitError;
};

// How git is run. The defaults are what revline uses; tests point PATH at an
// empty directory (env) or name another program to exercise failures.
struct GitOptions {
  std::string program = "git";  // looked up on PATH (as overridden in env, if it is)
  std::map<std::string, std::optional<std::string>> env;  // added to every git call; nullopt removes
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};  // per git call
};

// The top-level directory of the work tree containing `start` (a directory or
// a file), as git prints it (`git rev-parse --show-toplevel`).
std::filesystem::path findRepositoryRoot(const std::filesystem::path& start, const GitOptions& git = {});

// GIT_DIR and GIT_WORK_TREE, when the environment sets them to relative paths,
// made absolute against the current directory, as git resolves them: revline
// runs git from the work tree's top, where the same relative path would name
// another repository (or none). Called once, before any git runs.
void anchorRelativeGitEnvironment();

// The documented cap for an untracked file shown as added: 8 MiB.
inline constexpr std::uintmax_t kMaxUntrackedFileBytes = 8 * 1024 * 1024;

// A file of the change that the diff does not show, and why: an untracked file
// over the size cap or not a regular file, an unmerged path (`--staged` during
// a merge). Not reviewed, and not by choice: a review must say so.
struct LeftOut {
  std::string path;    // repository-relative
  std::string reason;  // e.g. "untracked, 9961472 bytes, over the 8 MiB limit (8388608 bytes) for untracked files"
  // Part of the change, so no approval without it; false for what a commit of
  // the work tree would not hold as files (an untracked repository inside this one).
  bool partOfTheChange = true;
};

// How many files' renames git looks for by content (`-l`; git's own default is
// 1,000): a directory of 2,000 files moved with a word changed in each showed as
// 4,000 files deleted and added, 2 million lines instead of 165,000. Its cost
// grows with the square (3,000 moved files: some seconds).
inline constexpr int kRenameLimit = 3000;

struct DiffRequest {
  enum class Mode {
    WorkingTree,  // the work tree against HEAD (`git diff HEAD`)
    Staged,       // the index against HEAD (`git diff --cached`)
    Base,         // the work tree against `git merge-base <base> HEAD`: what a pull request from
                  // this branch into <base> would change, plus uncommitted edits, without the
                  // commits <base> gained since the branch forked
  };
  Mode mode = Mode::WorkingTree;
  std::string base;                // Base mode: a branch, tag or commit
  // Repository-relative files or directories (literal, no globs); empty: all. A
  // file renamed into them from outside shows as the rename, as without paths.
  std::vector<std::string> paths;
  bool includeUntracked = true;    // WorkingTree and Base: untracked, not-ignored files show as added
  // Untracked files over this size are left out (git would read them whole to
  // show them as added: a 2 GB sparse file is 2 GB of work); symlinks always
  // count (git shows only the link's target). Each one left out, and each
  // unmerged path of a Staged diff, is appended to `leftOut`, when given.
  std::uintmax_t maxUntrackedBytes = kMaxUntrackedFileBytes;
  std::vector<LeftOut>* leftOut = nullptr;
  // The user trusts the repository (`revline trust`): the programs its own git
  // configuration names (filter drivers, core.fsmonitor, a partial clone's
  // fetch) run as git runs them. Otherwise they are switched off for this diff
  // (config_guard.h) and each one is appended to `ignoredSettings`, when given.
  bool trustRepositoryConfig = false;
  std::vector<std::string>* ignoredSettings = nullptr;
  // What git said of the diff that a review must pass on, when given: that its
  // rename detection gave up (more renamed files than renameLimit), so moved
  // files show as deleted and added.
  std::vector<std::string>* notices = nullptr;
  int renameLimit = kRenameLimit;
  // The review that asked for the diff: once cancelled, the git call running is
  // killed and diffText throws Cancelled (support/cancel.h).
  CancelToken cancel;
};

// The unified diff of `root` (a work tree's top level) as `git diff` prints it,
// in a fixed format whatever the user's git configuration says: no colour, no
// external diff or textconv, `a/` `b/` prefixes, C-quoted unusual paths,
// rename detection (-M), short submodule lines. A repository without commits
// diffs against the empty tree, so everything shows as added. No hook runs, and
// unless request.trustRepositoryConfig, nothing the repository's own git config
// names as a program (config_guard.h).
std::string diffText(const std::filesystem::path& root, const DiffRequest& request, const GitOptions& git = {});

// `diffText`, a diff made elsewhere of HEAD in `root` against its merge base
// with `base` (revline pr: `gh pr diff` of the pull request checked out there),
// with the text files it shows as binary (a .gitattributes `-diff`, `binary`)
// diffed again here as diffText does (text_shown_binary.h); those too large for
// that are taken out and appended to `leftOut`. Unchanged when no file shows as
// binary (no git call).
std::string withTextOfFilesShownBinary(const std::filesystem::path& root, const std::string& base,
                                       std::string diffText, std::vector<LeftOut>* leftOut,
                                       const GitOptions& git = {});

// The untracked files git ignores in the work tree at `root`, repository-
// relative; a wholly ignored directory is one entry ending in '/'
// (`git ls-files --others --ignored --exclude-standard --directory`).
std::vector<std::string> ignoredUntracked(const std::filesystem::path& root, const GitOptions& git = {});

// Whether git ignores the repository-relative `path` (.gitignore, info/exclude,
// core.excludesFile): `git check-ignore`. False when git cannot say.
bool ignoredByGit(const std::filesystem::path& root, const std::string& path, const GitOptions& git = {});

// Of `paths` (repository-relative), those the repository's attributes mark as
// GitHub's linguist reads them, `linguist-generated` or `linguist-vendored`
// (set or true): path -> "generated" or "vendored". `git check-attr`, run only
// when a `.gitattributes` on the way to one of the paths, or the repository's
// info/attributes, names a linguist attribute (most repositories: no git run).
// `fromIndex`: the attributes files as the index has them (`--staged`: what
// the commit will hold, not unstaged edits of them). Empty when git cannot say.
std::map<std::string, std::string> linguistMarks(const std::filesystem::path& root, const std::vector<std::string>& paths,
                                                 bool fromIndex = false, const GitOptions& git = {});

// Every untracked file and directory, ignored or not, listed as
// ignoredUntracked lists them: what a commit of the index leaves out.
std::vector<std::string> allUntracked(const std::filesystem::path& root, const GitOptions& git = {});

// Whether untracked files count as part of the change, as `git status` lists
// them: not when status.showUntrackedFiles is "no" (a dotfiles repository whose
// work tree is $HOME).
bool untrackedFilesShown(const std::filesystem::path& root, const GitOptions& git = {});

// The repository's git directory and common directory, repository-relative and
// ending in '/', when they are inside the work tree (`.git`, or another name: a
// dotfiles repository's `.cfg` under $HOME); none when outside.
std::vector<std::string> gitDataInside(const std::filesystem::path& root, const GitOptions& git = {});

// The regular files whose work-tree copy differs from the index's (unstaged
// edits: `git diff-files`), or is gone (deleted, not staged), repository-relative,
// each with the index's blob id. Symlinks, submodules and unmerged paths are left out.
std::map<std::string, std::string> unstagedIndexBlobs(const std::filesystem::path& root, const GitOptions& git = {});

// The regular files the index marks skip-worktree or assume-unchanged, whose
// work-tree copies git does not look at (a sparse checkout's, a tracked config
// kept with local edits), each with the index's blob id. `gitlinks`, when
// given, gets the index's submodule entries (mode 160000): directories whose
// files are another repository's, whatever the work tree holds there.
std::map<std::string, std::string> flaggedIndexBlobs(const std::filesystem::path& root, const GitOptions& git = {},
                                                     std::vector<std::string>* gitlinks = nullptr);

// The paths added with `git add --intent-to-add` (in the index without content:
// a commit of the index leaves them out).
std::vector<std::string> intentToAdd(const std::filesystem::path& root, const GitOptions& git = {});

// The text of each blob `ids` names (full or abbreviated, as a diff's index
// lines write them), from the object store of the repository at `root`:
// nullopt for one that is missing, ambiguous, not a blob, or over `maxBytes`,
// or once the texts read (in the order asked) would pass `maxTotalBytes`.
// Nothing is fetched (a partial clone's missing blob stays missing, on git >= 2.45).
std::map<std::string, std::optional<std::string>> blobTexts(const std::filesystem::path& root,
                                                            const std::vector<std::string>& ids, std::size_t maxBytes,
                                                            const GitOptions& git = {},
                                                            std::size_t maxTotalBytes = SIZE_MAX);

// The blob id git would give each of the work tree's files `paths` as they are
// (`git hash-object --no-filters`), by path; a path that is not a regular file
// (or not there) has none.
std::map<std::string, std::string> workTreeBlobIds(const std::filesystem::path& root,
                                                   const std::vector<std::string>& paths, const GitOptions& git = {});

// The blob id of `content` (`git hash-object --no-filters --stdin`); "" when git fails.
std::string blobIdOf(const std::filesystem::path& root, const std::string& content, const GitOptions& git = {});

// A commit under review: its subject and body, trimmed (what the author says
// the change is for: untrusted text), and the paths it changed, renames as the
// old and the new path (none for a merge or an empty commit).
struct Commit {
  std::string message;
  std::vector<std::string> paths;
};

// Each commit in `merge-base(base, HEAD)..HEAD`, oldest first, at most
// `maxCommits` (the newest ones when there are more).
std::vector<Commit> commitsSince(const std::filesystem::path& root, const std::string& base,
                                 std::size_t maxCommits = 50, const GitOptions& git = {});

// A file as the commit `revision` names has it (a pull request's base branch):
// Absent when that commit has no such path, NotRegular for a link, a directory or
// a submodule, TooLarge past `maxBytes` (text left empty), else File with its
// bytes as stored (`git cat-file blob`: no filter of the repository's runs).
// Throws GitError when `revision` names no commit.
struct FileAtRevision {
  enum class Kind { Absent, File, NotRegular, TooLarge } kind = Kind::Absent;
  std::string text;
};
FileAtRevision fileAtRevision(const std::filesystem::path& root, const std::string& revision, const std::string& path,
                              std::uintmax_t maxBytes, const GitOptions& git = {});

// Whether HEAD is the merge commit GitHub makes of a pull request
// (refs/pull/N/merge, what actions/checkout checks out for pull_request
// events): two parents, subject "Merge <sha> into <sha>". An author's own merge
// of the base branch is not one. False when git cannot say (no commit yet).
bool headIsPullRequestMerge(const std::filesystem::path& root, const GitOptions& git = {});

}  // namespace revline::git
