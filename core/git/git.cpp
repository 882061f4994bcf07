#include "core/git/git.h"

#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>

#include "core/git/config_guard.h"
#include "core/git/git_directory.h"
#include "core/git/special_files.h"
#include "core/git/text_shown_binary.h"
#include "core/process/process.h"
#include "core/support/files.h"
#include "core/support/repo_file.h"
#include "core/support/text.h"

namespace revline::git {
namespace {

namespace fs = std::filesystem;

// Settings that change the shape of `git diff` output, pinned so that the
// user's configuration cannot break the parser (flags below cover the rest).
const std::vector<std::string> kPinnedConfig = {
    "-c", "core.quotePath=true",        "-c", "diff.noprefix=false",
    "-c", "diff.mnemonicPrefix=false",  "-c", "diff.relative=false",
    "-c", "diff.suppressBlankEmpty=false", "-c", "diff.submodule=short",
    "-c", "color.ui=never",             "-c", "color.diff=never",
};

// `git diff` as revline reads it: the output the parser expects, whatever the
// user's settings, no program of the repository's (external diff, textconv).
// Three lines of context, as every reviewer's prompt and grounding expect, not
// the user's diff.context or diff.interHunkContext (GIT_DIFF_OPTS is cleared in run()).
const std::vector<std::string> kDiffCommand = {"diff",           "--no-color",       "--no-ext-diff", "--no-textconv",
                                               "--src-prefix=a/", "--dst-prefix=b/", "-M",            "--submodule=short",
                                               "-U3",             "--inter-hunk-context=0"};

struct Runner {
  const GitOptions& options;
  fs::path cwd;
  std::map<std::string, std::optional<std::string>> extraEnv;
  CancelToken cancel;  // never cancelled unless a request passes its own
  std::vector<std::string> guard;  // `-c` overrides of an untrusted repository's settings (config_guard.h)
  mutable bool filesChecked = false;  // specialFileBeforeGit, once for the calls of one diff or lookup
  // With GIT_INDEX_FILE set to a TemporaryIndex: the index it copies, which
  // git's errors name instead of the copy (the user knows the one, not the other).
  fs::path copiedIndex = {};

  // `maxOutput`: process::Options::maxOutput (0: all of stdout).
  process::Result run(const std::vector<std::string>& args, const std::string& input = "",
                      std::size_t maxOutput = 0) const {
    // A named pipe or a device where git expects a file would keep git (and the
    // save that runs it) waiting until the timeout: refused before git starts,
    // or found when git takes long (special_files.h).
    if (!filesChecked) {
      if (const std::string planted = specialFileBeforeGit(cwd); !planted.empty())
        throw GitError("git was not run: " + planted);
      filesChecked = true;
    }
    std::vector<std::string> argv{options.program};
    argv.insert(argv.end(), kPinnedConfig.begin(), kPinnedConfig.end());
    argv.insert(argv.end(), alwaysPinnedConfig().begin(), alwaysPinnedConfig().end());
    argv.insert(argv.end(), guard.begin(), guard.end());
    argv.insert(argv.end(), args.begin(), args.end());
    process::Options po;
    po.cwd = cwd;
    po.input = input;
    po.maxOutput = maxOutput;
    po.timeout = options.timeout;
    po.env = options.env;
    po.cancel = cancel;
    po.stallCheck = [dir = cwd] { return specialFileGitWaitsOn(dir); };
    po.what = "`git " + (args.empty() ? std::string() : args.front()) + "`";  // its subcommand: `git diff`
    // git asking for a user name or password (a fetch a partial clone makes, a
    // remote behind HTTP auth) can never be answered: the child has no terminal
    // of its own, and in a terminal it is stopped trying to read it until the
    // timeout. It fails at once instead, with git's "terminal prompts disabled".
    po.env["GIT_TERMINAL_PROMPT"] = "0";
    po.env["GIT_DIFF_OPTS"] = std::nullopt;  // "-u0" would take every context line from the diff
    for (const auto& [k, v] : extraEnv) po.env[k] = v;
    try {
      return process::run(argv, po);
    } catch (const process::Error& e) {
      if (e.kind() == process::Error::Kind::NotFound) {
        if (options.program == "git") {
          throw NoRepositoryError("git was not found on PATH; install git (apt-get install git)");
        }
        throw GitError(std::string(e.what()));
      }
      if (e.kind() == process::Error::Kind::Stalled) throw GitError(std::string("git was stopped: ") + e.what());
      if (e.kind() == process::Error::Kind::TimedOut) throw GitTimedOut(std::string("running git failed: ") + e.what());
      throw GitError(std::string("running git failed: ") + e.what());
    }
  }

  // Runs git and returns stdout; any non-zero exit is an error quoting git.
  std::string checked(const std::vector<std::string>& args, const std::string& input = "") const {
    const process::Result r = run(args, input);
    if (r.exitCode != 0) fail(args, r);
    return r.out;
  }

  [[noreturn]] void fail(const std::vector<std::string>& args, const process::Result& r) const {
    std::string hint = guard.empty() ? std::string() : fetchRefusedHint(r.err);
    std::string said = failure(args, r);
    const auto copy = extraEnv.find("GIT_INDEX_FILE");
    if (!copiedIndex.empty() && copy != extraEnv.end() && copy->second && said.find(*copy->second) != std::string::npos) {
      for (auto at = said.find(*copy->second); at != std::string::npos; at = said.find(*copy->second, at))
        said.replace(at, copy->second->size(), copiedIndex.string());
      // "index file smaller than expected", "bad signature", "index file corrupt".
      if (r.err.find("index file") != std::string::npos || r.err.find("bad signature") != std::string::npos)
        hint = "git cannot read the repository's index, " + copiedIndex.string() + " (`git status` fails the same "
             "way); the usual repair keeps your files and unstages everything: `rm " + copiedIndex.string() +
             " && git reset`";
    }
    throw GitError(said + (hint.empty() ? "" : "; " + hint));
  }

  // For an untrusted repository: which of its own settings name programs,
  // overridden on every later call (config_guard.h). `configFiles` are its
  // config files: while they are unchanged, the guard read before is used.
  void guardAgainstRepositoryPrograms(const std::vector<fs::path>& configFiles, std::vector<std::string>* ignored) {
    static GuardMemo memo;
    const std::string stamp = GuardMemo::stampOf(configFiles);  // before the query: a later edit reads anew
    std::optional<Guard> known = memo.find(configFiles, stamp);
    if (!known) {
      const std::vector<std::string> query = commandSettingsQuery();
      // In the C locale: in a UTF-8 one, the regex's '.' matches no byte that is
      // not UTF-8, and a driver named with one would go unseen, and run.
      // And every file git reads: GIT_CONFIG (the user's) makes `git config`, and
      // only it, read that one file instead, while the diff reads .git/config.
      Runner inC = *this;
      inC.extraEnv["LC_ALL"] = "C";
      inC.extraEnv["GIT_CONFIG"] = std::nullopt;
      const process::Result r = inC.run(query);
      if (r.exitCode != 0 && r.exitCode != 1) throw GitError(failure(query, r));  // 1: none set
      known = untrustedGuard(r.exitCode == 0 ? r.out : std::string());
      memo.store(configFiles, stamp, *known);
    }
    guard = known->args;
    if (ignored) ignored->insert(ignored->end(), known->ignored.begin(), known->ignored.end());
    extraEnv["GIT_NO_LAZY_FETCH"] = "1";  // git >= 2.45 says so itself; protocol.allow=never covers older ones
  }

  static std::string failure(const std::vector<std::string>& args, const process::Result& r) {
    std::string command = "git";
    for (const auto& a : args) command += " " + a;
    std::string err = r.err;
    while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
    return "`" + command + "` failed (exit code " + std::to_string(r.exitCode) + ")" +
           (err.empty() ? std::string() : ": " + err);
  }
};

std::string trimNewline(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// A private copy of the repository's index, deleted on destruction. Untracked
// files are marked intent-to-add there, so `git diff` shows them as added while
// the user's index stays byte-for-byte unchanged (cli.md: a later
// `git commit -a` must not pick them up). One `git add -N` for all files beats
// one `git diff --no-index` process per file when a change adds hundreds.
class TemporaryIndex {
 public:
  explicit TemporaryIndex(const fs::path& realIndex) {
    std::string tmpl = (fs::temp_directory_path() / "revline-index-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) {
      throw GitError("cannot create a temporary directory in " + fs::temp_directory_path().string() +
                     " for a copy of the git index: " + std::error_code(errno, std::generic_category()).message());
    }
    dir_ = tmpl;
    file_ = dir_ / "index";
    std::error_code ec;
    // No index yet (a fresh `git init`) means an empty one: git accepts a missing file.
    if (fs::exists(realIndex, ec)) {
      fs::copy_file(realIndex, file_, ec);
      if (ec) {
        cleanup();
        throw GitError("cannot copy the git index '" + realIndex.string() + "' to " + file_.string() + ": " +
                       ec.message());
      }
      // Same mtime as the real index: git trusts an entry's stat data only when the file is older
      // than the index, and re-reads "racily clean" ones. A copy made later would make a file
      // rewritten (same size) right after `git add` look unchanged.
      const auto mtime = fs::last_write_time(realIndex, ec);
      if (!ec) fs::last_write_time(file_, mtime, ec);
    }
  }
  ~TemporaryIndex() { cleanup(); }
  TemporaryIndex(const TemporaryIndex&) = delete;
  TemporaryIndex& operator=(const TemporaryIndex&) = delete;
  const fs::path& file() const { return file_; }

 private:
  void cleanup() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_, file_;
};

std::vector<std::string> splitLines(const std::string& text);

// Whether `revision` is written as a whole object id (40 hex digits, 64 in a
// SHA-256 repository), which git takes at its word without looking it up.
bool isObjectId(const std::string& revision) {
  return (revision.size() == 40 || revision.size() == 64) &&
         std::all_of(revision.begin(), revision.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
}

// Whether a submodule of .gitmodules has a work tree here (its directory holds
// a .git): one never checked out (actions/checkout's default, `submodule
// deinit`) has no uncommitted change to miss, and warning of it cries wolf.
// Asked on every save of an untrusted repository with submodules, so the file
// is read here, not by another git process: its `path = DIR` lines (a value
// in quotes unquoted). A spelling only git would read otherwise decides no
// more than whether the warning is said.
bool hasCheckedOutSubmodule(const fs::path& root) {
  const support::RepoFileRead gitmodules = support::readRepositoryFile(root, ".gitmodules");
  if (!gitmodules) return false;
  std::error_code ec;
  for (const std::string& raw : splitLines(*gitmodules.content)) {
    const std::string_view line = trimmed(raw);
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key(trimmed(line.substr(0, eq)));
    std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::tolower(c); });
    std::string_view dir = trimmed(line.substr(eq + 1));
    if (dir.size() >= 2 && dir.front() == '"' && dir.back() == '"') dir = dir.substr(1, dir.size() - 2);
    if (key == "path" && !dir.empty() && fs::exists(fs::symlink_status(root / dir / ".git", ec))) return true;
  }
  return false;
}

// `revision` names an object (a ref or an id that resolves) that git cannot read
// as a commit: the object is damaged or unreadable (an object file left empty by
// a full disk, objects the user running revline may not read, a --shared or
// --reference clone whose source is gone). Throws, with what git said: read as
// "no such commit", HEAD would be an unborn branch and the whole tree reviewed
// as added, or a base reported as a wrong name.
void throwIfUnreadable(const Runner& git, const std::string& revision, const std::string& what) {
  const process::Result named = git.run({"rev-parse", "-q", "--verify", "--end-of-options", revision});
  if (named.exitCode != 0) return;  // no such name: an unborn branch, a mistyped base
  const std::string id = trimNewline(named.out);
  const process::Result read = git.run({"cat-file", "-t", "--end-of-options", id});
  if (read.exitCode == 0 && trimNewline(read.out) != "commit" && trimNewline(read.out) != "tag") {
    throw GitError(what + " names " + id + ", a " + trimNewline(read.out) + ", not a commit; pass a commit");
  }
  std::string said;  // git's lines as one ("error: object file … is empty; fatal: …")
  bool complained = false;  // an "error:" line: an object git found but could not read
  for (const std::string& line : splitLines(read.err)) {
    if (!line.empty()) said += (said.empty() ? "" : "; ") + line;
    complained = complained || line.starts_with("error:");
  }
  // A full object id verifies by its shape alone: one this clone simply lacks
  // (CI passes the base's full id into a shallow clone) is a missing commit, not damage.
  if (!complained && isObjectId(revision)) return;
  if (said.empty()) said = "git cannot read it as a commit";
  throw GitError(what + " names commit " + id + ", which git cannot read (" + said +
                 "): the repository's objects are damaged or not readable by this user (an object file left empty, "
                 "a --shared or --reference clone whose source is gone, objects owned by another user); `git fsck` "
                 "says which, and `git fetch` or a fresh clone repairs it");
}

std::optional<std::string> headCommit(const Runner& git) {
  const process::Result r = git.run({"rev-parse", "-q", "--verify", "HEAD^{commit}"});
  if (r.exitCode != 0) {
    throwIfUnreadable(git, "HEAD", "HEAD");
    return std::nullopt;  // unborn branch: no commits yet
  }
  return trimNewline(r.out);
}

// The empty tree's id in this repository's hash format, computed rather than
// hard-coded (4b825dc6… is only the SHA-1 one). hash-object without -w writes nothing.
std::string emptyTree(const Runner& git) { return trimNewline(git.checked({"hash-object", "-t", "tree", "--stdin"})); }

// Whether the repository is a shallow clone (CI's default checkout), whose history stops short.
bool shallowClone(const Runner& git) {
  const process::Result r = git.run({"rev-parse", "--is-shallow-repository"});
  return r.exitCode == 0 && trimNewline(r.out) == "true";
}

// The commit `revision` names, or a GitError that says why it names none: a
// name git does not know (in a shallow clone, how to fetch more), or a commit
// git cannot read (throwIfUnreadable).
std::string commitOf(const Runner& git, const std::string& revision) {
  const process::Result verify = git.run({"rev-parse", "-q", "--verify", "--end-of-options", revision + "^{commit}"});
  if (verify.exitCode == 0) return trimNewline(verify.out);
  throwIfUnreadable(git, revision, "'" + revision + "'");
  if (shallowClone(git))
    throw GitError("'" + revision + "' is not a commit in this shallow clone; check the name (git branch -a), or fetch "
                   "it with more history (git fetch --unshallow; in CI, fetch-depth: 0 in GitHub's actions/checkout, "
                   "GIT_DEPTH: 0 in GitLab CI)");
  if (isObjectId(revision))
    throw GitError("'" + revision + "' is not a commit in this repository; check the id, or fetch the branch that "
                   "holds it (git fetch origin <branch>)");
  throw GitError("'" + revision + "' is not a commit in this repository; check the name (git branch -a) or fetch it");
}

std::string mergeBase(const Runner& git, const std::string& base) {
  if (base.empty()) {
    throw GitError("a base revision is needed to diff against one (for example --base origin/main)");
  }
  const auto unborn = [&] {
    return GitError("the current branch has no commits yet (a new repository, or a branch made with `git checkout "
                    "--orphan`), so it has no merge base with '" + base + "'; commit first or review without --base");
  };
  std::string baseCommit;
  try {
    baseCommit = commitOf(git, base);
  } catch (const GitError&) {
    // In a new repository `--base HEAD` names no commit, and the advice to fetch it cannot help.
    bool headUnborn = false;
    try {
      headUnborn = !headCommit(git);
    } catch (const GitError&) {  // HEAD unreadable too: the base's error is the one asked about
    }
    if (headUnborn) throw unborn();
    throw;
  }
  const auto head = headCommit(git);
  if (!head) throw unborn();  // an orphan branch: the repository has commits, the branch none
  const process::Result r = git.run({"merge-base", "--end-of-options", baseCommit, *head});
  if (r.exitCode == 1) {
    // A shallow clone (CI's default checkout) cuts history short: the fork point may be past the cut.
    if (shallowClone(git))
      throw GitError("'" + base + "' and HEAD have no common ancestor in this shallow clone: the commit they fork "
                     "from was not fetched; fetch more history (git fetch --unshallow; in CI, fetch-depth: 0 "
                     "in GitHub's actions/checkout, GIT_DEPTH: 0 in GitLab CI) and run again");
    throw GitError("'" + base + "' and HEAD have no common ancestor; pass a base on the same history");
  }
  if (r.exitCode != 0) throw GitError(Runner::failure({"merge-base", base, "HEAD"}, r));
  return trimNewline(r.out);
}

// The lines of git's output, without their newlines.
std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(trimNewline(text.substr(start, end - start)));
    start = end + 1;
  }
  return lines;
}

// The fields of git's NUL-terminated output (-z): a final field without its NUL counts too.
std::vector<std::string> splitAtNul(const std::string& text) {
  std::vector<std::string> fields;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\0', start);
    if (end == std::string::npos) end = text.size();
    fields.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return fields;
}

// `git diff --cached` during a merge says "* Unmerged path NAME" (the name
// as is, unquoted) for each conflicted file and shows nothing of it: the line
// is no diff, and the file is left out, with the reason, for the review to say.
std::string withoutUnmerged(std::string text, std::vector<LeftOut>* leftOut) {
  static const std::string kMark = "* Unmerged path ";
  if (text.rfind(kMark, 0) != 0 && text.find("\n" + kMark) == std::string::npos) return text;
  std::string kept;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    end = end == std::string::npos ? text.size() : end + 1;
    if (text.compare(start, kMark.size(), kMark) == 0) {
      std::string name = text.substr(start + kMark.size(), end - start - kMark.size());
      while (!name.empty() && (name.back() == '\n' || name.back() == '\r')) name.pop_back();
      if (leftOut)
        leftOut->push_back({name, "unmerged: its merge conflict is not resolved, and --staged shows nothing of it; "
                                  "resolve it and `git add` it, or review the work tree (without --staged)"});
    } else {
      kept.append(text, start, end - start);
    }
    start = end;
  }
  return kept;
}

// A size cap as people say it, exact: "8 MiB limit (8388608 bytes)", "1000-byte limit".
std::string sizeLimit(std::uintmax_t bytes) {
  const std::uintmax_t mib = 1024 * 1024;
  if (bytes % mib != 0) return std::to_string(bytes) + "-byte limit";
  return std::to_string(bytes / mib) + " MiB limit (" + std::to_string(bytes) + " bytes)";
}

// Whether `dir` is a linked work tree (`git worktree add`): its .git is a file
// naming a git directory under some repository's worktrees/. Adding one as a
// submodule, which the advice for a nested clone says, would be wrong.
bool linkedWorkTree(const fs::path& dir) {
  const auto target = gitFileTarget(dir / ".git");
  return target && target->lexically_normal().parent_path().filename() == "worktrees";
}

// ls-files lists an untracked embedded repository as "dir/". It is another
// repository, not files of this one, and `git add -N` fails on one without
// commits, so such entries are left out, and listed (not reviewed, but not
// part of the change either). Input and output are NUL-separated.
// Regular files over the size cap (and anything that is neither a regular
// file nor a symlink) are dropped too, and reported.
std::string untrackedFilesOnly(const std::string& list, const fs::path& root, const DiffRequest& request,
                               const std::string& gitDirInside) {
  std::string out;
  for (const std::string& name : splitAtNul(list)) {
    if (name.empty()) continue;
    if (name.back() == '/') {
      const std::string dir = name.substr(0, name.size() - 1);
      if (request.leftOut)
        request.leftOut->push_back(
            {dir,
             linkedWorkTree(root / dir)
                 ? "a linked work tree (git worktree add) inside this one: its files are its own checkout's, which a "
                   "commit here would not hold (review it there: cd " + dir + " && revline review)"
                 : "an untracked git repository inside this one: its files are that repository's, which a commit "
                   "here would not hold (review it there, or add it as a submodule)",
             false});
      continue;
    }
    // The repository's own git directory, when it sits in the work tree under
    // another name than .git (a dotfiles repository): its objects and config are never part of a change.
    if (!gitDirInside.empty() && name.compare(0, gitDirInside.size(), gitDirInside) == 0) continue;
    std::error_code ec;
    const auto status = fs::symlink_status(root / name, ec);
    std::string why;
    if (!ec && fs::is_regular_file(status)) {
      const auto size = fs::file_size(root / name, ec);
      if (!ec && size > request.maxUntrackedBytes) {
        why = "untracked, " + std::to_string(size) + " bytes, over the " + sizeLimit(request.maxUntrackedBytes) +
              " for untracked files";
      }
    } else if (!ec && !fs::is_symlink(status)) {
      why = "untracked, not a regular file";
    }
    if (!why.empty()) {
      if (request.leftOut) request.leftOut->push_back({name, why});
      continue;
    }
    out.append(name).push_back('\0');
  }
  return out;
}

// The pathspecs that mark exactly `kept` intent-to-add (untracked files, NUL-
// separated, as `git ls-files --others` listed them in `listed`): a directory
// whose every listed entry is kept is named once ("junk/"). git matches every
// file it walks against every pathspec, so 50,000 files named one by one took
// 36 s; by directory, under one. A directory holding anything left out (a file
// over the size cap, a nested repository "x/", the git directory) is not
// named; its kept files are, one by one. Only for a listing of the whole tree.
std::string collapsedPathspecs(const std::string& listed, const std::string& kept) {
  const std::vector<std::string> keptNames = splitAtNul(kept);
  const std::set<std::string> keptSet(keptNames.begin(), keptNames.end());
  std::set<std::string> tainted;  // directories ("a/", "a/b/") holding an entry left out
  for (const std::string& name : splitAtNul(listed)) {
    if (name.empty() || keptSet.count(name)) continue;
    for (auto slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 1))
      tainted.insert(name.substr(0, slash + 1));
  }
  std::string out;
  std::set<std::string> named;
  for (const std::string& name : keptNames) {
    std::string spec = name;
    if (const auto slash = name.find('/'); slash != std::string::npos) {
      for (auto at = slash; at != std::string::npos; at = name.find('/', at + 1)) {
        const std::string dir = name.substr(0, at + 1);
        if (!tainted.count(dir)) {
          spec = dir;
          break;
        }
      }
    }
    if (named.insert(spec).second) out.append(spec).push_back('\0');
  }
  return out;
}

// Where `git status` is told to list no untracked file (status.showUntrackedFiles
// "no", or false): the config's scope ("local", "global", ...), nullopt when it
// lists them. Exit code 1: not set.
std::optional<std::string> untrackedFilesHiddenBy(const Runner& git) {
  const process::Result r = git.run({"config", "--show-scope", "--get", "status.showUntrackedFiles"});
  if (r.exitCode != 0) return std::nullopt;
  const std::string line = trimNewline(r.out);
  const auto tab = line.find('\t');
  std::string v = tab == std::string::npos ? line : line.substr(tab + 1);
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!(v == "no" || v == "false" || v == "off" || v == "0")) return std::nullopt;
  return tab == std::string::npos ? std::string() : line.substr(0, tab);
}

void addPaths(std::vector<std::string>& args, const std::vector<std::string>& paths) {
  args.push_back("--");
  args.insert(args.end(), paths.begin(), paths.end());
}

// Whether `path` is matched by the literal pathspec `paths`: one of them, or inside one.
bool withinPaths(const std::string& path, const std::vector<std::string>& paths) {
  for (std::string p : paths) {
    while (!p.empty() && p.back() == '/') p.pop_back();
    if (p.empty() || p == "." || path == p || (path.size() > p.size() && path.compare(0, p.size(), p) == 0 &&
                                               path[p.size()] == '/'))
      return true;
  }
  return false;
}

// Whether the diff shows a file as added. A content line starts with ' ', '+',
// '-' or '\', so "new file mode" at a line's start is always a header.
bool showsAnAddedFile(const std::string& text) { return text.find("\nnew file mode ") != std::string::npos; }

// The old paths, outside `paths`, of files renamed into `paths`. A diff limited
// to `paths` cannot see them (the pathspec filters before rename detection), so
// such a file shows as added whole; naming its source in the pathspec lets git
// pair them again. Rename detection runs over the whole tree, like an unlimited
// diff, but reads no hunks. `diffArgs` is the diff command without its pathspec.
template <typename Diff>
std::vector<std::string> renameSourcesOutside(Diff& diff, std::vector<std::string> diffArgs,
                                              const std::vector<std::string>& paths) {
  diffArgs.insert(diffArgs.begin() + 1, {"--name-status", "-z", "--diff-filter=R"});
  addPaths(diffArgs, {});
  const std::string out = diff(diffArgs);
  // -z: "R<score>\0<old>\0<new>\0" per rename, the paths unquoted.
  const std::vector<std::string> fields = splitAtNul(out);
  std::vector<std::string> sources;
  for (std::size_t i = 0; i + 2 < fields.size(); i += 3) {
    if (fields[i].empty() || fields[i][0] != 'R') break;  // only renames were asked for
    const std::string& from = fields[i + 1];
    const std::string& to = fields[i + 2];
    if (withinPaths(to, paths) && !withinPaths(from, paths)) sources.push_back(from);
  }
  return sources;
}

// The file a `git diff` stopped at because it is no longer a file git can
// read ("error: NAME: unsupported file type": a tracked file replaced by a
// named pipe, a socket or a device), or "".
std::string unsupportedFile(const std::string& gitError) {
  static const std::string kBefore = "error: ", kAfter = ": unsupported file type";
  for (const std::string& line : splitLines(gitError)) {
    if (line.rfind(kBefore, 0) == 0 && line.size() > kBefore.size() + kAfter.size() &&
        line.compare(line.size() - kAfter.size(), kAfter.size(), kAfter) == 0)
      return line.substr(kBefore.size(), line.size() - kBefore.size() - kAfter.size());
  }
  return {};
}

// The `git diff` calls of one diffText. Each such file stops the whole diff, so
// it is left out (reported once, in request.leftOut) and the diff taken again
// without it: the literal paths become `:(literal)` pathspecs beside an
// `:(exclude,literal)` one for each file left out. `args` end with "--" and paths.
struct DiffCalls {
  Runner& git;
  const DiffRequest& request;
  std::vector<std::string> excluded;

  std::string operator()(const std::vector<std::string>& args) {
    constexpr std::size_t kMaxLeftOut = 50;  // more than that is no stray file: git's error stands
    int rereads = 0;
    for (;;) {
      std::vector<std::string> call = args;
      if (!excluded.empty()) {
        for (auto it = std::find(call.begin(), call.end(), "--"); it != call.end() && ++it != call.end();)
          *it = ":(literal)" + *it;
        for (const auto& path : excluded) call.push_back(":(exclude,literal)" + path);
      }
      const process::Result r = git.run(call);
      if (r.exitCode == 0) {
        // "warning: exhaustive rename detection was skipped due to too many files."
        if (request.notices && r.err.find("rename detection was skipped") != std::string::npos)
          request.notices->push_back(
              "git did not look for renamed files: more than " + std::to_string(request.renameLimit) +
              " files were added and deleted, past its limit, so each moved file shows as deleted and added whole; "
              "review the moves apart from the edits (commit the `git mv` first, then review the edits with --base)");
        return r.out;
      }
      // git reads a file through a memory map: one truncated meanwhile (an editor
      // writing it in place, a second save right after the first) kills git with
      // SIGBUS. The file is being rewritten, not unreadable: read it again.
      if (r.exitCode == 128 + SIGBUS && rereads < 3 && !request.cancel.cancelled()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20 << rereads++));
        continue;
      }
      const std::string file = unsupportedFile(r.err);
      if (file.empty() || excluded.size() >= kMaxLeftOut ||
          std::find(excluded.begin(), excluded.end(), file) != excluded.end())
        git.fail(call, r);
      excluded.push_back(file);
      git.extraEnv["GIT_LITERAL_PATHSPECS"] = std::nullopt;  // `:(literal)` says it per path now, beside the excludes
      if (request.leftOut) {
        std::error_code ec;
        const std::string kind = specialFileKind(fs::symlink_status(git.cwd / file, ec).type());
        request.leftOut->push_back(
            {file, "tracked, but now " + (kind.empty() ? "not a regular file" : kind) + ", which git cannot diff"});
      }
    }
  }
};

}  // namespace

namespace {
// Whether git's calls see `name` set: in the options' environment, else revline's own.
bool environmentSets(const GitOptions& options, const char* name) {
  const auto set = options.env.find(name);
  return set != options.env.end() ? set->second.has_value() : std::getenv(name) != nullptr;
}
}  // namespace

namespace {
// The text of a small regular file of a git directory (`gitdir`), or "" for one
// missing, large or not a regular file (a named pipe would keep revline waiting).
std::string smallFileText(const fs::path& file) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(file, ec);
  if (ec) return "";
  return support::readRegularFile(canonical, file.string(), 4096).content.value_or("");
}

// The path a git directory's file or config names, from that directory when relative.
fs::path namedFrom(const fs::path& dir, const std::string& text) {
  const fs::path named(trimNewline(text));
  if (named.empty()) return {};
  std::error_code ec;
  return fs::weakly_canonical(named.is_relative() ? dir / named : named, ec);
}

// A `.git` file (`gitdir: X`) or symlink naming git data outside the work tree
// that does not name the work tree back: a directory handed over (an archive, a
// shared folder) can name any repository on the user's disk, whose history would
// be diffed and sent and whose git directory revline would write its caches into
// (through its git directory, or a `commondir` of one the directory brings).
// Refused until the directory is trusted (`git init --separate-git-dir` names
// one so). Accepted: a linked work tree, whose git directory is one of the
// shared repository's `worktrees/` and names this `.git` back; and a submodule,
// whose git directory is its own data and whose core.worktree names this work tree.
void refuseForeignGitDirectory(const Runner& git, const fs::path& root, const fs::path& gitDir,
                               const fs::path& commonDir) {
  std::error_code ec;
  const fs::path dotGit = root / ".git";
  if (fs::is_directory(fs::symlink_status(dotGit, ec))) return;  // the repository's own
  const fs::path canonicalRoot = fs::weakly_canonical(root, ec);
  const fs::path named = fs::weakly_canonical(gitDir, ec);
  const fs::path common = fs::weakly_canonical(commonDir, ec);
  const auto inside = [&](const fs::path& p) { return support::insideRoot(canonicalRoot, p); };
  if (inside(named) && inside(common)) return;  // the directory's own data
  if (common != named && named.parent_path() == common / "worktrees" &&
      namedFrom(named, smallFileText(named / "gitdir")) == fs::weakly_canonical(dotGit, ec))
    return;
  if (common == named) {
    const process::Result worktree = git.run({"config", "--file", (named / "config").string(), "--get", "core.worktree"});
    if (worktree.exitCode == 0 && namedFrom(named, worktree.out) == canonicalRoot) return;
  }
  throw GitError(dotGit.string() + " names the git directory " + named.string() +
                 (common != named ? " (sharing " + common.string() + ")" : "") + ", outside " + root.string() +
                 ", which does not name it back as a linked work tree's or a submodule's does: a directory handed "
                 "over can name any repository on this disk this way, so until you trust it revline reads no other "
                 "repository's history for it; if it is yours (`git init --separate-git-dir`), run `revline trust " +
                 root.string() + "`");
}
}  // namespace

void anchorRelativeGitEnvironment() {
  for (const char* name : {"GIT_DIR", "GIT_WORK_TREE"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0' || fs::path(value).is_absolute()) continue;
    std::error_code ec;
    const fs::path here = fs::current_path(ec);
    if (ec) continue;  // no current directory: git cannot resolve it either, and says so
    ::setenv(name, (here / value).string().c_str(), 1);
  }
}

fs::path findRepositoryRoot(const fs::path& start, const GitOptions& options) {
  std::error_code ec;
  if (!fs::exists(start, ec)) {
    throw GitError("'" + start.string() + "' does not exist; run revline from a git work tree");
  }
  const fs::path dir = fs::is_directory(start, ec) ? start : start.parent_path();
  const Runner git{options, dir.empty() ? fs::path(".") : dir, {}, {}, {}};
  const process::Result r = git.run({"rev-parse", "--show-toplevel"});
  if (r.exitCode != 0) {
    if (r.err.find("not a git repository") != std::string::npos) {
      throw NoRepositoryError("'" + start.string() +
                     "' is not inside a git repository; run revline from a git work tree or `git init`");
    }
    // No work tree here: a repository's git directory, or a bare repository (which
    // git refuses here as "cannot use bare repository", under the safe.bareRepository
    // revline sets, or as "must be run in a work tree").
    const fs::path absolute = fs::absolute(dir.empty() ? fs::path(".") : dir, ec);
    for (fs::path d = absolute; !d.empty() && d.has_relative_path(); d = d.parent_path())
      if (d.filename() == ".git")
        throw NoRepositoryError("'" + start.string() + "' is inside the git directory of " + d.parent_path().string() +
                       ", not its work tree; run revline from " + d.parent_path().string() + " (or below it)");
    if (r.err.find("bare repository") != std::string::npos || r.err.find("in a work tree") != std::string::npos)
      throw NoRepositoryError("'" + start.string() + "' is in a bare repository: it has no work tree, so there is no change "
                     "to review; run revline in a clone with a work tree (`git clone " + start.string() + "`)");
    // safe.directory: the repository belongs to another user (a CI container's
    // checkout, a mounted volume); git's own advice says how to trust it.
    if (const auto at = r.err.find("dubious ownership in repository at "); at != std::string::npos) {
      const auto adviceStart = std::min(r.err.find('\n', at), r.err.size());
      std::string advice;  // "To add an exception for this directory, call: git config --global --add safe.directory D"
      for (const std::string& line : splitLines(r.err.substr(adviceStart)))
        if (const auto text = line.find_first_not_of(" \t"); text != std::string::npos)
          advice += (advice.empty() ? "" : " ") + line.substr(text);
      if (!advice.empty()) advice[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(advice[0])));
      throw GitError("git refuses to read the repository of '" + start.string() +
                     "': it is owned by another user than the one running revline (git's safe.directory check)" +
                     (advice.empty() ? std::string() : "; " + advice) + " (or run revline as the repository's owner)");
    }
    throw GitError("'" + start.string() + "' is not inside a git work tree: " + trimNewline(r.err));
  }
  const fs::path top(trimNewline(r.out));
  // A work tree that does not hold the directory it was found from was named
  // by the repository's own config (core.worktree): its files are not this
  // directory's, and revline reads and sends only what is under `start`'s tree.
  const fs::path from = fs::weakly_canonical(dir.empty() ? fs::current_path() : dir, ec);
  const fs::path canonicalTop = fs::weakly_canonical(top, ec);
  const auto rel = from.lexically_relative(canonicalTop);
  // Or that holds it from above: the `.git` nearest `start` is below the work
  // tree git names (core.worktree set to a parent: $HOME, /). Not when the
  // environment names the git directory or work tree (a dotfiles alias).
  bool namedAbove = false;
  if (!rel.empty() && *rel.begin() != ".." && !environmentSets(options, "GIT_DIR") &&
      !environmentSets(options, "GIT_WORK_TREE"))
    for (fs::path d = from; d != canonicalTop && d.has_relative_path(); d = d.parent_path())
      if (fs::is_regular_file(fs::symlink_status(d / ".git", ec)) ||
          fs::exists(fs::symlink_status(d / ".git" / "HEAD", ec))) {  // a repository's, not a stray empty `.git`
        namedAbove = true;
        break;
      }
  if (rel.empty() || *rel.begin() == ".." || namedAbove) {
    // Exported by the user's shell (a dotfiles setup), not the repository's config.
    if (environmentSets(options, "GIT_WORK_TREE"))
      throw GitError("git's work tree here is " + top.string() + ", set by GIT_WORK_TREE in the environment, and it "
                     "does not hold '" + start.string() + "': run revline from inside " + top.string() +
                     ", or unset GIT_WORK_TREE (and GIT_DIR)");
    // The config file that says so: .git/config, or a bare repository's own (a dotfiles repository).
    const process::Result common = git.run({"rev-parse", "--path-format=absolute", "--git-common-dir"});
    const std::string configFile =
        common.exitCode == 0 ? (fs::path(trimNewline(common.out)) / "config").string() : "the repository's .git/config";
    if (namedAbove)
      throw GitError("the repository of '" + start.string() + "' names its work tree elsewhere (" + top.string() +
                     ", core.worktree in its git config): a directory above the repository, whose other files are "
                     "not the repository's to review; remove core.worktree from " + configFile);
    // From inside that work tree, git finds the repository only when told where it is.
    const process::Result gitDir = git.run({"rev-parse", "--absolute-git-dir"});
    const std::string runThere =
        gitDir.exitCode == 0 ? "`cd " + top.string() + " && GIT_DIR=" + trimNewline(gitDir.out) + " revline review`"
                             : "revline from inside " + top.string() + " with GIT_DIR naming this repository";
    throw GitError("the repository of '" + start.string() + "' names its work tree elsewhere (" + top.string() +
                   ", core.worktree in its git config); revline reviews only a work tree that holds the directory "
                   "it is run from: run " + runThere + ", or remove core.worktree from " +
                   configFile);
  }
  return top;
}

namespace {
// A side of a file as git holds it: `spec` is "COMMIT:path", or ":0:path" for
// the index. Its size, and of its content only the head git judges text by.
SideContent blobSideOf(const Runner& git, const std::string& spec) {
  const process::Result size = git.run({"cat-file", "-s", spec});
  const std::string digits = trimNewline(size.out);
  if (size.exitCode != 0 || digits.empty() || digits.size() > 19 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return {};  // not there (added, deleted, a submodule's commit)
  const std::uintmax_t bytes = std::stoull(digits);
  const process::Result head = git.run({"cat-file", "blob", spec}, "", kGitBinaryProbe);
  // A head that fills the limit has its pipe closed: git then ends on SIGPIPE.
  if (head.exitCode != 0 && head.out.size() < std::min<std::uintmax_t>(bytes, kGitBinaryProbe)) return {};
  return blobSide(bytes, head.out);
}

// Where a diff's two sides are read, to judge the files it shows as binary.
struct DiffSides {
  SideProbe newSide;  // the work tree, or the index
  SideProbe oldSide;  // the commit diffed against
};

DiffSides sidesOf(const Runner& git, const fs::path& root, bool staged, const std::string& against) {
  DiffSides sides;
  if (staged)
    sides.newSide = [&git](const std::string& path) { return blobSideOf(git, ":0:" + path); };
  else
    sides.newSide = [root](const std::string& path) { return workTreeSide(root, path); };
  sides.oldSide = [&git, against](const std::string& path) { return blobSideOf(git, against + ":" + path); };
  return sides;
}

// `text`, made by `git <made>`, with the text files it shows as binary diffed
// again by `git <unlimited> --text -- PATHS`, and those too large for that taken
// out and appended to `leftOut` (text_shown_binary.h).
std::string diffAgainAsText(DiffCalls& diff, const std::vector<std::string>& made,
                            const std::vector<std::string>& unlimited, const DiffSides& sides, std::string text,
                            std::vector<LeftOut>* leftOut) {
  std::vector<std::string> numstat = made;
  numstat.insert(numstat.begin() + 1, {"--numstat", "-z"});
  const std::vector<ShownBinary> binary = filesShownBinary(diff(numstat), sides.newSide, sides.oldSide);
  std::vector<std::string> textFiles;
  std::vector<std::size_t> tooLarge;
  for (std::size_t i = 0; i < binary.size(); ++i) {
    if (binary[i].action == ShownBinary::Action::AsText)
      textFiles.insert(textFiles.end(), binary[i].paths.begin(), binary[i].paths.end());
    if (binary[i].action == ShownBinary::Action::LeftOut) tooLarge.push_back(i);
  }
  // Too large to diff again: out of the diff, and said not reviewed (never "reviewed, 0 lines").
  if (!tooLarge.empty() && withoutBinarySections(text, tooLarge, binary.size()) && leftOut)
    for (std::size_t i : tooLarge)
      leftOut->push_back(
          {binary[i].paths.back(), "text that a .gitattributes shows as binary (`-diff`, `binary`), " +
                                       std::to_string(binary[i].size) + " bytes: over the " +
                                       sizeLimit(kMaxTextShownBinaryBytes) + " a file (or the " +
                                       sizeLimit(kMaxTextShownBinaryTotal) +
                                       " for all such files) up to which revline diffs them again as text"});
  if (!textFiles.empty()) {
    std::vector<std::string> asText = unlimited;
    asText.insert(asText.begin() + 1, "--text");
    addPaths(asText, textFiles);
    text = withTextSections(text, diff(asText));
  }
  return text;
}
}  // namespace

std::string diffText(const fs::path& root, const DiffRequest& request, const GitOptions& options) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    throw GitError("'" + root.string() + "' is not a directory; pass the repository's top-level directory");
  }
  // Paths are repository paths, not patterns: a file named `*.c` means itself.
  Runner git{options, root, {{"GIT_LITERAL_PATHSPECS", "1"}}, request.cancel, {}};

  // `git rev-parse --git-path` follows linked work trees and GIT_INDEX_FILE.
  // Nothing runs a program of the repository's config before the guard is set.
  // The common directory too (a linked work tree's shared one), for the guard
  // against a git directory named from outside: no second git call on a save.
  std::vector<std::string> gitPaths{"rev-parse",  "--git-path", "index",           "--git-path",
                                    "config",     "--git-path", "config.worktree", "--absolute-git-dir",
                                    "--path-format=absolute", "--git-common-dir"};
  // And HEAD from the same process: the server runs this on every save.
  if (request.mode != DiffRequest::Mode::Base) gitPaths.insert(gitPaths.end(), {"-q", "--verify", "HEAD^{commit}"});
  const process::Result r = git.run(gitPaths);
  const std::vector<std::string> printed = splitLines(r.out);
  if (printed.size() < 5) throw GitError(Runner::failure(gitPaths, r));
  if (!request.trustRepositoryConfig && !environmentSets(options, "GIT_DIR"))
    refuseForeignGitDirectory(git, root, printed[3], printed[4]);
  std::string against;
  if (request.mode == DiffRequest::Mode::Base) {
    against = mergeBase(git, request.base);
  } else if (r.exitCode == 0 && printed.size() > 5) {
    against = printed[5];
  } else {
    throwIfUnreadable(git, "HEAD", "HEAD");  // else HEAD is unborn (no commits yet): the paths were still printed
  }
  auto absolute = [&](const fs::path& p) { return p.is_relative() ? root / p : p; };
  fs::path realIndex = absolute(printed[0]);
  if (!request.trustRepositoryConfig)
    git.guardAgainstRepositoryPrograms({absolute(printed[1]), absolute(printed[2])}, request.ignoredSettings);
  if (against.empty()) against = emptyTree(git);
  // Every command below uses the copy: even a read-only `git diff` may rewrite
  // the index it is given to refresh stat information.
  const TemporaryIndex index(realIndex);
  git.extraEnv["GIT_INDEX_FILE"] = index.file().string();
  git.copiedIndex = realIndex;

  if (request.includeUntracked && request.mode != DiffRequest::Mode::Staged) {
    std::vector<std::string> lsArgs{"ls-files", "--others", "--exclude-standard", "-z"};
    addPaths(lsArgs, request.paths);
    // The git directory as a work-tree path prefix ("dotfiles/"), when it is inside the work tree.
    std::string gitDirInside;
    std::error_code wec;
    const fs::path rel = fs::weakly_canonical(printed[3], wec).lexically_relative(fs::weakly_canonical(root, wec));
    if (!wec && !rel.empty() && *rel.begin() != ".." && rel != ".") gitDirInside = rel.generic_string() + "/";
    const std::size_t leftBefore = request.leftOut ? request.leftOut->size() : 0;
    const std::string listed = git.checked(lsArgs);
    const std::string untracked = untrackedFilesOnly(listed, root, request, gitDirInside);
    const bool anyLeftOut = request.leftOut && request.leftOut->size() > leftBefore;
    // As `git status` shows them: none when status.showUntrackedFiles says no (a
    // dotfiles repository whose work tree is $HOME), not even as left out; but a
    // diff of named paths (the file the editor saved) shows what it names. Asked
    // only when there are some: a save with none makes no extra git call.
    std::optional<std::string> hiddenBy;
    if ((!untracked.empty() || anyLeftOut) && request.paths.empty() && (hiddenBy = untrackedFilesHiddenBy(git))) {
      if (request.leftOut) request.leftOut->resize(leftBefore);
      // Said, with how many, where the user's own config hides them (some set it
      // for speed): a new file's every line went behind "No changes to review". Not
      // where the repository's does (a dotfiles repository over $HOME: every file
      // there, on every review).
      const std::size_t hidden = static_cast<std::size_t>(std::count(untracked.begin(), untracked.end(), '\0'));
      if (request.notices && hidden > 0 && *hiddenBy != "local" && *hiddenBy != "worktree")
        request.notices->push_back(
            std::to_string(hidden) + (hidden == 1 ? " untracked file is" : " untracked files are") +
            " not part of this review: status.showUntrackedFiles is `no` in your " + *hiddenBy +
            " git config, so git status lists none; `git add -N FILE` takes a new file in (or `git -c "
            "status.showUntrackedFiles=normal status` shows which)");
    } else if (!untracked.empty()) {
      git.checked({"add", "--intent-to-add", "--pathspec-from-file=-", "--pathspec-file-nul"},
                  request.paths.empty() ? collapsedPathspecs(listed, untracked) : untracked);
    }
  }

  std::vector<std::string> diffArgs = kDiffCommand;
  diffArgs.push_back("-l" + std::to_string(request.renameLimit));
  if (request.mode == DiffRequest::Mode::Staged) diffArgs.push_back("--cached");
  // A submodule's own config is out of the guard's sight (its filter drivers
  // would run to tell whether it is dirty): an untrusted repository's
  // submodules show only the commit they are at, never "-dirty".
  if (!request.trustRepositoryConfig) {
    diffArgs.push_back("--ignore-submodules=dirty");
    // What changed inside them is not seen: said, for a diff of the whole work
    // tree. A diff of named files (the editor's save of one) names no submodule:
    // the warning on every first save of a session was noise.
    if (request.ignoredSettings && request.paths.empty() && hasCheckedOutSubmodule(root))
      request.ignoredSettings->push_back(kSubmoduleWorkTrees);
  }
  diffArgs.push_back(against);
  const std::vector<std::string> unlimited = diffArgs;
  std::vector<std::string> limited = diffArgs;
  addPaths(limited, request.paths);
  DiffCalls diff{git, request, {}};
  std::string text = diff(limited);
  const std::vector<std::string>* made = &limited;  // the call whose output `text` is
  // A file renamed into the paths shows as added until its source is in the
  // pathspec too. Looked for only when something is added: a save of a file
  // that is merely modified stays one git diff.
  if (!request.paths.empty() && showsAnAddedFile(text)) {
    const std::vector<std::string> sources = renameSourcesOutside(diff, diffArgs, request.paths);
    if (!sources.empty()) {
      std::vector<std::string> paths = request.paths;
      paths.insert(paths.end(), sources.begin(), sources.end());
      addPaths(diffArgs, paths);
      text = diff(diffArgs);
      made = &diffArgs;
    }
  }
  if (request.mode == DiffRequest::Mode::Staged) text = withoutUnmerged(std::move(text), request.leftOut);
  // Text files a .gitattributes shows as binary (`-diff`, `binary`), which no
  // review would read a line of: diffed again with --text (text_shown_binary.h).
  // Two more git calls, only when some file shows as binary.
  if (showsABinaryFile(text))
    text = diffAgainAsText(diff, *made, unlimited, sidesOf(git, root, request.mode == DiffRequest::Mode::Staged, against),
                           std::move(text), request.leftOut);
  return text;
}

namespace {
// `git ls-files -z --others --directory` with `filter` (which untracked paths).
// Lists the work tree, nothing more: core.fsmonitor (the one program a listing
// could start) is off whatever the repository says.
std::vector<std::string> untrackedListing(const fs::path& root, const GitOptions& options,
                                          std::vector<std::string> filter) {
  const Runner git{options, root, {}, {}, {"-c", "core.fsmonitor=false"}};
  std::vector<std::string> args{"ls-files", "-z", "--others", "--directory"};
  args.insert(args.end(), filter.begin(), filter.end());
  std::vector<std::string> paths;
  for (std::string& p : splitAtNul(git.checked(args)))
    if (!p.empty()) paths.push_back(std::move(p));
  return paths;
}
}  // namespace

std::vector<std::string> ignoredUntracked(const fs::path& root, const GitOptions& options) {
  return untrackedListing(root, options, {"--ignored", "--exclude-standard"});
}

bool ignoredByGit(const fs::path& root, const std::string& path, const GitOptions& options) {
  const Runner git{options, root, {}, {}, {"-c", "core.fsmonitor=false"}};  // it reads the index: no hook
  try {
    // Not --no-index: a tracked file matching a pattern is not ignored (git diffs it).
    return git.run({"check-ignore", "-q", "--", path}).exitCode == 0;  // 1: not ignored
  } catch (const std::exception&) {
    return false;
  }
}

std::map<std::string, std::string> linguistMarks(const fs::path& root, const std::vector<std::string>& paths,
                                                 bool fromIndex, const GitOptions& options) {
  std::map<std::string, std::string> marks;
  if (paths.empty()) return marks;
  // Whether any attributes file that applies names a linguist attribute: the
  // root's and each changed file's directories' .gitattributes, and info/attributes.
  // Work-tree files are read confined to it (no symlink out, no FIFO). From
  // the index (--staged), the work tree's copies say nothing: git is asked.
  auto namedOnTheWay = [&] {
    std::set<std::string> files{".gitattributes"};
    for (const std::string& path : paths)
      for (fs::path dir = fs::path(path).parent_path(); !dir.empty(); dir = dir.parent_path())
        if (!files.insert((dir / ".gitattributes").generic_string()).second) break;  // its parents are in already
    auto names = [](const std::optional<std::string>& text) { return text && text->find("linguist-") != std::string::npos; };
    return names(readWholeFile(gitDirectory(root) / "info" / "attributes", std::size_t{1} << 20)) ||
           std::any_of(files.begin(), files.end(),
                       [&](const std::string& f) { return names(support::readRepositoryFile(root, f).content); });
  };
  if (!fromIndex && !namedOnTheWay()) return marks;
  const Runner git{options, root, {}, {}, {}};
  std::string input;
  for (const std::string& path : paths) input += path + '\0';
  try {
    std::vector<std::string> args{"check-attr", "-z", "--stdin"};
    if (fromIndex) args.push_back("--cached");
    args.insert(args.end(), {"linguist-generated", "linguist-vendored"});
    const process::Result r = git.run(args, input);
    if (r.exitCode != 0) return marks;
    // -z: PATH NUL ATTRIBUTE NUL VALUE NUL, per path and attribute.
    std::vector<std::string> fields;
    for (std::size_t start = 0, nul; (nul = r.out.find('\0', start)) != std::string::npos; start = nul + 1)
      fields.push_back(r.out.substr(start, nul - start));
    for (std::size_t i = 0; i + 2 < fields.size(); i += 3)
      if (fields[i + 2] == "set" || fields[i + 2] == "true")
        marks.emplace(fields[i], fields[i + 1] == "linguist-generated" ? "generated" : "vendored");
  } catch (const std::exception&) {
    return {};
  }
  return marks;
}

std::vector<std::string> allUntracked(const fs::path& root, const GitOptions& options) {
  return untrackedListing(root, options, {});
}

bool untrackedFilesShown(const fs::path& root, const GitOptions& options) {
  return !untrackedFilesHiddenBy(Runner{options, root, {}, {}, {}});
}

std::vector<std::string> gitDataInside(const fs::path& root, const GitOptions& options) {
  const Runner git{options, root, {}, {}, {}};
  const std::vector<std::string> printed =
      splitLines(git.checked({"rev-parse", "--absolute-git-dir", "--path-format=absolute", "--git-common-dir"}));
  std::vector<std::string> inside;
  std::error_code ec;
  const fs::path top = fs::weakly_canonical(root, ec);
  for (const std::string& dir : printed) {
    const fs::path rel = fs::weakly_canonical(dir, ec).lexically_relative(top);
    if (ec || rel.empty() || rel == "." || *rel.begin() == "..") continue;
    const std::string relative = rel.generic_string() + "/";
    if (std::find(inside.begin(), inside.end(), relative) == inside.end()) inside.push_back(relative);
  }
  return inside;
}

namespace {
// A Runner for a call that compares the work tree with the index: git hashes a
// "racily clean" file (stat data matching an index written no later than it,
// which a repository handed over can arrange) through its clean filter. The
// repository's own programs are switched off, as for an untrusted diff, whatever
// the trust: what such a call tells is read from the index, never a filter's output.
Runner comparingRunner(const GitOptions& options, const fs::path& root) {
  Runner git{options, root, {}, {}, {"-c", "core.fsmonitor=false"}};
  const std::vector<std::string> configs =
      splitLines(git.checked({"rev-parse", "--git-path", "config", "--git-path", "config.worktree"}));
  std::vector<fs::path> files;
  for (const std::string& c : configs) files.push_back(fs::path(c).is_relative() ? root / c : fs::path(c));
  git.guardAgainstRepositoryPrograms(files, nullptr);
  return git;
}
}  // namespace

std::map<std::string, std::string> unstagedIndexBlobs(const fs::path& root, const GitOptions& options) {
  const Runner git = comparingRunner(options, root);
  std::map<std::string, std::string> blobs;
  // -z: ":<old mode> <new mode> <index id> <work-tree id> <status>" NUL "<path>" NUL.
  const std::vector<std::string> fields =
      splitAtNul(git.checked({"diff-files", "-z", "--raw", "--no-abbrev", "--ignore-submodules"}));
  for (std::size_t i = 0; i + 1 < fields.size(); i += 2) {
    std::istringstream meta(fields[i]);
    std::string indexMode, workTreeMode, id, workTreeId, status;
    meta >> indexMode >> workTreeMode >> id >> workTreeId >> status;
    if (indexMode != ":100644" && indexMode != ":100755") continue;  // regular files in the index
    if (status != "M" && status != "T" && status != "D") continue;    // not unmerged
    if (id.empty() || id.find_first_not_of('0') == std::string::npos) continue;
    blobs[fields[i + 1]] = id;
  }
  return blobs;
}

std::map<std::string, std::string> flaggedIndexBlobs(const fs::path& root, const GitOptions& options,
                                                     std::vector<std::string>* gitlinks) {
  const Runner git{options, root, {}, {}, {"-c", "core.fsmonitor=false"}};
  std::map<std::string, std::string> blobs;
  // -v -s -z: "<tag> <mode> <id> <stage>\t<path>" NUL; tag S: skip-worktree, lower case: assume-unchanged.
  for (const std::string& entry : splitAtNul(git.checked({"ls-files", "-v", "-s", "-z"}))) {
    const std::size_t tab = entry.find('\t');
    if (tab == std::string::npos || entry.empty()) continue;
    const char tag = entry[0];
    std::istringstream meta(entry.substr(1, tab - 1));
    std::string mode, id, stage;
    meta >> mode >> id >> stage;
    if (mode == "160000" && gitlinks) gitlinks->push_back(entry.substr(tab + 1));
    if (tag != 'S' && !std::islower(static_cast<unsigned char>(tag))) continue;
    if ((mode != "100644" && mode != "100755") || stage != "0") continue;  // regular files, merged
    blobs[entry.substr(tab + 1)] = id;
  }
  return blobs;
}

std::vector<std::string> intentToAdd(const fs::path& root, const GitOptions& options) {
  const Runner git = comparingRunner(options, root);
  // An intent-to-add entry is "added" between the index (nothing) and the work tree.
  const std::vector<std::string> fields =
      splitAtNul(git.checked({"diff-files", "-z", "--raw", "--no-abbrev", "--ignore-submodules", "--diff-filter=A"}));
  std::vector<std::string> paths;
  for (std::size_t i = 0; i + 1 < fields.size(); i += 2) paths.push_back(fields[i + 1]);
  return paths;
}

std::map<std::string, std::optional<std::string>> blobTexts(const fs::path& root, const std::vector<std::string>& ids,
                                                            std::size_t maxBytes, const GitOptions& options,
                                                            std::size_t maxTotalBytes) {
  std::map<std::string, std::optional<std::string>> texts;
  std::string names;
  for (const std::string& id : ids) {
    if (texts.count(id)) continue;
    texts[id] = std::nullopt;
    // An id is hex: anything else (a newline, "HEAD:path") would name something else.
    if (!id.empty() && id.find_first_not_of("0123456789abcdef") == std::string::npos) names += id + "\n";
  }
  if (names.empty()) return texts;
  // No fetch: a partial clone's blob it does not have is not known (git then
  // fails the whole call, and every text stays unknown: the hunks are judged alone).
  const Runner git{options, root, {{"GIT_NO_LAZY_FETCH", "1"}}, {}, {"-c", "protocol.allow=never"}};
  // Sizes first ("<oid> blob <size>", or "<name> missing"/"ambiguous"): a huge blob is never read.
  std::vector<std::pair<std::string, std::string>> wanted;  // (name asked, full oid)
  std::string fullIds;
  std::size_t total = 0;  // of the texts to read, under maxTotalBytes
  {
    const std::vector<std::string> asked = splitLines(names);
    const process::Result checked = git.run({"cat-file", "--batch-check"}, names);
    if (checked.exitCode != 0) return texts;
    const std::vector<std::string> answers = splitLines(checked.out);
    for (std::size_t i = 0; i < asked.size() && i < answers.size(); ++i) {
      const std::string& a = answers[i];
      const std::size_t sp1 = a.find(' '), sp2 = a.find(' ', sp1 + 1);
      if (sp1 == std::string::npos || sp2 == std::string::npos || a.compare(sp1 + 1, sp2 - sp1 - 1, "blob") != 0)
        continue;
      const std::string size = a.substr(sp2 + 1);
      if (size.empty() || size.size() > 18 || size.find_first_not_of("0123456789") != std::string::npos) continue;
      const std::size_t bytes = std::stoull(size);
      if (bytes > maxBytes || bytes > maxTotalBytes - total) continue;
      total += bytes;
      wanted.emplace_back(asked[i], a.substr(0, sp1));
      fullIds += a.substr(0, sp1) + "\n";
    }
  }
  if (wanted.empty()) return texts;
  // Then the contents: "<oid> blob <size>\n<bytes>\n" each, in the order asked.
  const process::Result batch = git.run({"cat-file", "--batch"}, fullIds);
  if (batch.exitCode != 0) return texts;
  const std::string& out = batch.out;
  std::size_t at = 0;
  for (const auto& [name, oid] : wanted) {
    const std::size_t eol = out.find('\n', at);
    if (eol == std::string::npos) break;
    const std::string header = out.substr(at, eol - at);
    const std::size_t sp = header.rfind(' ');
    if (header.rfind(oid + " blob ", 0) != 0 || sp == std::string::npos) break;
    const std::size_t size = std::stoull(header.substr(sp + 1));
    if (eol + 1 + size > out.size()) break;
    texts[name] = out.substr(eol + 1, size);
    at = eol + 1 + size + 1;
  }
  return texts;
}

std::map<std::string, std::string> workTreeBlobIds(const fs::path& root, const std::vector<std::string>& paths,
                                                   const GitOptions& options) {
  std::map<std::string, std::string> ids;
  std::vector<std::string> regular;
  std::string input;
  for (const std::string& p : paths) {
    std::error_code ec;
    // Regular files only: git would wait forever on a named pipe, and follow a symlink out.
    if (p.empty() || p.find('\n') != std::string::npos || !fs::is_regular_file(fs::symlink_status(root / p, ec)))
      continue;
    regular.push_back(p);
    input += p + "\n";
  }
  if (regular.empty()) return ids;
  const Runner git{options, root, {}, {}, {}};
  const process::Result r = git.run({"hash-object", "--no-filters", "--stdin-paths"}, input);
  if (r.exitCode != 0) return ids;  // none known: the hunks are judged alone
  const std::vector<std::string> out = splitLines(r.out);
  for (std::size_t i = 0; i < regular.size() && i < out.size(); ++i) ids[regular[i]] = out[i];
  return ids;
}

std::string blobIdOf(const fs::path& root, const std::string& content, const GitOptions& options) {
  const Runner git{options, root, {}, {}, {}};
  const process::Result r = git.run({"hash-object", "--no-filters", "--stdin"}, content);
  return r.exitCode == 0 ? trimNewline(r.out) : std::string();
}

std::vector<Commit> commitsSince(const fs::path& root, const std::string& base, std::size_t maxCommits,
                                 const GitOptions& options) {
  const Runner git{options, root, {}, {}, {}};
  const std::string from = mergeBase(git, base);
  // With -z each commit prints "\0<id>\0<message>\0", then "\n" and its paths,
  // each followed by NUL. Split at NULs: an empty field starts a commit (a
  // path is never empty; a message may be, and comes after the id), so no
  // path or message can pass for a commit, whatever bytes it holds.
  const std::string out = git.checked({"log", "--no-color", "--reverse", "-z", "--no-renames", "--name-only",
                                       "--format=%x00%H%x00%B", "--max-count=" + std::to_string(maxCommits),
                                       from + "..HEAD", "--"});
  enum class Next { Start, Id, Message, FirstPath, Path } next = Next::Start;
  std::vector<Commit> commits;
  for (std::string& field : splitAtNul(out)) {
    if (next == Next::Id) {
      next = Next::Message;
    } else if (next == Next::Message) {
      const auto first = field.find_first_not_of(" \t\r\n");
      if (first != std::string::npos) commits.back().message = field.substr(first, field.find_last_not_of(" \t\r\n") - first + 1);
      next = Next::FirstPath;
    } else if (field.empty()) {
      commits.emplace_back();
      next = Next::Id;
    } else if (next != Next::Start) {
      if (next == Next::FirstPath && field.front() == '\n') field.erase(0, 1);  // the line between message and paths
      next = Next::Path;
      if (!field.empty()) commits.back().paths.push_back(std::move(field));
    }
  }
  std::erase_if(commits, [](const Commit& c) { return c.message.empty(); });
  return commits;
}

FileAtRevision fileAtRevision(const fs::path& root, const std::string& revision, const std::string& path,
                              std::uintmax_t maxBytes, const GitOptions& options) {
  const Runner git{options, root, {{"GIT_LITERAL_PATHSPECS", "1"}}, {}, {}};
  // "<mode> <type> <id>\t<path>\0", or nothing when the commit has no such path.
  const std::string entry = git.checked({"ls-tree", "-z", "--full-tree", commitOf(git, revision), "--", path});
  FileAtRevision out;
  if (entry.empty()) return out;
  const auto space = entry.find(' '), tab = entry.find('\t');
  const std::string mode = entry.substr(0, space);
  if (space == std::string::npos || tab == std::string::npos || (mode != "100644" && mode != "100755")) {
    out.kind = FileAtRevision::Kind::NotRegular;
    return out;
  }
  const std::string id = entry.substr(entry.rfind(' ', tab) + 1, tab - entry.rfind(' ', tab) - 1);
  if (std::stoull(trimNewline(git.checked({"cat-file", "-s", id}))) > maxBytes) {
    out.kind = FileAtRevision::Kind::TooLarge;
    return out;
  }
  out.kind = FileAtRevision::Kind::File;
  out.text = git.checked({"cat-file", "blob", id});
  return out;
}

std::string withTextOfFilesShownBinary(const fs::path& root, const std::string& base, std::string diffText,
                                       std::vector<LeftOut>* leftOut, const GitOptions& options) {
  if (!showsABinaryFile(diffText)) return diffText;
  Runner git = comparingRunner(options, root);  // the repository's own programs off
  git.extraEnv["GIT_LITERAL_PATHSPECS"] = "1";
  std::vector<std::string> args = kDiffCommand;
  const std::string from = mergeBase(git, base);
  args.insert(args.end(), {"-l" + std::to_string(kRenameLimit), from, "HEAD"});
  DiffRequest request;
  DiffCalls diff{git, request, {}};
  // The checkout is HEAD: its work tree is the new side.
  return diffAgainAsText(diff, args, args, sidesOf(git, root, false, from), std::move(diffText), leftOut);
}

bool headIsPullRequestMerge(const fs::path& root, const GitOptions& options) {
  const Runner git{options, root, {}, {}, {}};
  const process::Result r = git.run({"log", "--no-color", "--max-count=1", "--format=%P%x00%s", "HEAD", "--"});
  if (r.exitCode != 0) return false;
  const std::string out = trimNewline(r.out);
  const auto nul = out.find('\0');
  if (nul == std::string::npos) return false;
  const std::string parents = out.substr(0, nul), subject = out.substr(nul + 1);
  // GitHub's test merge: "Merge <head sha> into <base sha>" (an author's own merge of main says otherwise).
  auto sha = [](std::string_view s) {
    return (s.size() == 40 || s.size() == 64) &&
           std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
  };
  const auto into = subject.find(" into ");
  return std::count(parents.begin(), parents.end(), ' ') >= 1 && subject.starts_with("Merge ") &&
         into != std::string::npos && sha(std::string_view(subject).substr(6, into - 6)) &&
         sha(std::string_view(subject).substr(into + 6));
}

}  // namespace revline::git
