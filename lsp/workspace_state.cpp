// Workspace state: which repository a file belongs to (and a repository that
// appears later), its layered configuration (reloaded when edited on disk) and
// its dismissed findings.
#include "lsp/server.h"

#include "core/config/user_config.h"
#include "core/git/git.h"
#include "lsp/paths.h"

namespace revline::lsp {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// The nearest of `dir` and its parents that holds a `.git` (a directory, or a
// worktree's or submodule's file); empty when none does. A few stats: what
// tells, before asking git again, that a repository appeared or went.
fs::path nearestGit(fs::path dir) {
  std::error_code ec;
  for (;;) {
    if (fs::exists(dir / ".git", ec)) return dir;
    if (!dir.has_parent_path() || dir.parent_path() == dir) return {};
    dir = dir.parent_path();
  }
}

bool gitAbove(const fs::path& dir) { return !nearestGit(dir).empty(); }

// `dir` is in a repository's own `.git` (COMMIT_EDITMSG open while `git
// commit` waits for the editor): no work tree, nothing to review, nothing to say.
bool insideGitDirectory(const fs::path& dir) {
  for (const auto& part : dir)
    if (part == ".git") return true;
  return false;
}

std::pair<fs::file_time_type, fs::file_time_type> configStamp(const fs::path& root) {
  auto stamp = [](const fs::path& file) {
    std::error_code ec;
    const auto t = file.empty() ? fs::file_time_type{} : fs::last_write_time(file, ec);
    return ec ? fs::file_time_type{} : t;
  };
  return {stamp(root / ".revline.json"), stamp(config::userConfigPath())};
}

}  // namespace

std::optional<fs::path> Server::repositoryOf(const fs::path& file) {
  std::error_code ec;
  fs::path dir = fs::is_directory(file, ec) ? file : file.parent_path();
  // A new file in folders not made yet (`:e new/dir/x.cpp`, created on :w): the
  // repository is the one of the nearest folder that exists, as it will be.
  while (dir.has_relative_path() && !fs::exists(dir, ec)) dir = dir.parent_path();
  // Known while the nearest .git is the one it was: `git init` in a folder seen
  // before, or a nested repository's `.git` removed, asks git again (editors that
  // register no file watchers say neither). "Not in a repository" beside a .git
  // git could not use is asked again each time (the user may fix it), unless git
  // took long to say so: git runs on the loop thread, and one that hung held
  // every request for its timeout each time; that is asked again after a while.
  const fs::path nearest = nearestGit(dir);
  const bool inGitDirectory = insideGitDirectory(dir);
  const auto now = options_.clock ? options_.clock() : Clock::now();
  const auto known = [&](const KnownRoot& k) {
    return k.nearestGit == nearest &&
           (k.root || nearest.empty() || (k.slow && now - k.lookedUp < kRetryRepositoryProblem));
  };
  if (auto it = rootByDir_.find(dir); it != rootByDir_.end() && known(it->second)) {
    whyNoRepository_ = it->second.whyNone;
    return it->second.root;
  }
  // Another folder of a repository seen before (the same .git): its root, when
  // the folder is in that root's work tree, and git is not asked again.
  if (!nearest.empty() && !inGitDirectory)
    if (auto it = rootByGit_.find(nearest); it != rootByGit_.end() && known(it->second) &&
                                            (!it->second.root || isWithin(dir, *it->second.root))) {
      rootByDir_[dir] = it->second;
      whyNoRepository_ = it->second.whyNone;
      return it->second.root;
    }
  std::optional<fs::path> root;
  whyNoRepository_.clear();
  const auto asked = Clock::now();
  // A shorter timeout than a review's git calls: this one holds the loop.
  git::GitOptions lookup;
  lookup.timeout = options_.repositoryLookupTimeout.value_or(kRepositoryLookupTimeout);
  std::string failure;
  bool timedOut = false;
  try {
    root = canonicalPath(git::findRepositoryRoot(dir, lookup));
  } catch (const git::GitTimedOut& e) {
    failure = e.what();
    timedOut = true;
  } catch (const std::exception& e) {
    failure = e.what();
  }
  if (!failure.empty()) logMessage(MessageType::Log, dir.string() + ": " + failure);
  if (timedOut && !nearest.empty() && !inGitDirectory) {
    // git is slow here (a stalled mount), not refusing: the folder holding the
    // nearest .git is what git answers but for rare setups (core.worktree), and
    // the review's own git, on a worker, as long as it takes (cancellable),
    // says so if not. Else a repository whose git answers in 20 s was never
    // reviewed, and the loop was held again every 30 s.
    root = canonicalPath(nearest);
    if (repositoryProblemsShown_.insert("slow lookup " + root->string()).second)
      showMessage(MessageType::Warning,
                  "revline: git took longer than " + std::to_string(lookup.timeout.count()) +
                      " ms to say which repository " + dir.string() + " is in (a slow or stalled file system?); "
                      "taken to be " + root->string() + ", the folder holding the nearest .git. Its reviews wait "
                      "for git as long as it takes (up to 120 s a call), and a review's progress can be cancelled.");
  } else if (!failure.empty()) {
    // git's reason, unless it is the plain one (no .git above): git missing, a refused owner, a bare repository.
    if (failure.find("is not inside a git repository") == std::string::npos) whyNoRepository_ = failure;
    // Under a `.git` git cannot use (a named pipe for its config, another
    // user's repository, a work tree named elsewhere), nothing is reviewed:
    // the user hears why, once, rather than finding out from the silence.
    if (gitAbove(dir) && !inGitDirectory && repositoryProblemsShown_.insert(failure).second)
      showMessage(MessageType::Warning, "revline: nothing here is reviewed: " + failure);
  }
  const bool slow = !root && Clock::now() - asked >= std::min<Clock::duration>(lookup.timeout, std::chrono::seconds(1));
  rootByDir_[dir] = {root, nearest, whyNoRepository_, now, slow};
  // Shared by the .git only when git used that .git (its folder is the root), or
  // said nothing: past an unusable one (an empty `.git`), git answers the outer
  // repository, which a `git init` there would change.
  if (!nearest.empty() && !inGitDirectory && (!root || *root == canonicalPath(nearest)))
    rootByGit_[nearest] = rootByDir_[dir];
  return root;
}

std::string Server::notReviewable(const fs::path& path) const {
  if (whyNoRepository_.empty()) return path.string() + " is not in a git repository";
  return path.string() + " cannot be reviewed: " + whyNoRepository_;
}

config::Config Server::configFor(const fs::path& root) {
  const auto stamp = configStamp(root);
  if (auto it = configs_.find(root); it != configs_.end()) {
    if (configStamps_[root] == stamp) return it->second;  // else edited on disk (git pull, another editor)
  }
  configStamps_[root] = stamp;
  config::Config c;
  try {
    std::vector<std::string> notices;  // an untrusted repository's routing keys, ignored
    c = config::loadForRepository(root, &notices);
    for (const auto& n : notices) showMessage(MessageType::Warning, "revline: " + n);
    lastReadConfigs_[root] = c;
    configErrors_.erase(root);
  } catch (const std::exception& e) {
    // A file being edited (a missing comma, a misspelt key) must not swap the
    // model for the defaults' offline reviewer, clearing the model's diagnostics
    // and approving: the settings read before stay, or, with none, nothing is
    // reviewed until the file is fixed (as `revline review` refuses to run).
    if (auto last = lastReadConfigs_.find(root); last != lastReadConfigs_.end()) {
      c = last->second;
      showMessage(MessageType::Error, std::string("revline: ") + e.what() +
                                          " (the settings read before stay in use until the file is fixed)");
    } else {
      configErrors_[root] = e.what();  // each review fails saying so (once a minute), as settings that cannot work
    }
  }
  if (!clientSettings_.empty()) {
    const config::Config fromFiles = c;
    try {
      c = config::applyJson(fromFiles, clientSettings_, "the editor settings (initializationOptions / didChangeConfiguration)");
      lastGoodClientSettings_ = clientSettings_;
    } catch (const std::exception& e) {
      // As for the file: a misspelt key or a bad value in the editor's settings
      // must not drop the provider, model and base URL they also hold (the
      // offline reviewer would clear the model's diagnostics and approve). The
      // editor settings sent before stay; with none, nothing is reviewed.
      bool kept = false;
      if (lastGoodClientSettings_) {
        try {
          c = config::applyJson(fromFiles, *lastGoodClientSettings_, "the editor settings sent before");
          kept = true;
        } catch (const std::exception&) {  // they no longer fit the file's settings: as with none
        }
      }
      if (kept) {
        showMessage(MessageType::Error, std::string("revline: ") + e.what() +
                                            " (the editor settings sent before stay in use until these are fixed)");
      } else {
        configErrors_[root] = std::string(e.what()) + "; nothing is reviewed until the editor settings are fixed";
      }
    }
  }
  configs_[root] = c;
  return c;
}

DismissedFindings& Server::dismissedFor(const fs::path& root) {
  auto& slot = dismissed_[root];
  if (!slot) slot = std::make_unique<DismissedFindings>(root);
  else slot->refresh();  // another server on this repository may have changed it
  return *slot;
}

}  // namespace revline::lsp
