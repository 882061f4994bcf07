// Git's state for a client that registers no file watchers. Neovim on Linux
// (every version: its watcher is off there) and Neovim 0.7 never report a
// commit, a stash or a checkout made in a terminal, so findings stayed on
// committed lines until the next save. For them the server looks itself, as
// svelte's and rust-analyzer's servers fall back to their own watchers: the
// poller thread wakes the loop once a second, and the loop compares each
// repository's stamp (git::gitStateStamp: a few stats and HEAD's text; no git
// runs) with the one it saw last. A change is handled as the watcher's event
// for that repository's index is (file_watching.cpp): a recheck of the files
// that show findings, nothing sent. A client that watches (VS Code) watches
// only inside its folders: a linked work tree's or a submodule's git directory,
// in another repository's .git, is looked at here too.
#include <set>

#include "core/git/git_directory.h"
#include "core/git/git_state_stamp.h"
#include "lsp/paths.h"
#include "lsp/server.h"

namespace revline::lsp {
namespace fs = std::filesystem;

void Server::gitPollerLoop(std::chrono::milliseconds every) {
  std::unique_lock<std::mutex> lock(queueMu_);
  while (!stopping_) {
    if (pollCv_.wait_for(lock, every, [this] { return stopping_; })) break;
    lock.unlock();
    transport_.post([this] { pollGitState(); });  // dropped unrun if the loop has ended
    lock.lock();
  }
}

void Server::noteGitState(const fs::path& root) {
  if (!gitPoller_.joinable() || gitStamps_.count(root)) return;
  gitStamps_[root] = git::gitStateStamp(root);
}

bool Server::watchedByTheClient(const fs::path& root) const {
  if (!watchFiles_) return false;
  const fs::path gitDir = git::gitDirectory(root).lexically_normal();
  for (const auto& folder : folders_)
    if (isWithin(gitDir, folder.lexically_normal())) return true;
  return false;
}

void Server::pollGitState() {
  // The repositories reviewed in (noteGitState), and those whose findings show or a change took.
  std::set<fs::path> roots;
  for (const auto& entry : gitStamps_) roots.insert(entry.first);
  for (const auto& entry : files_)
    if (!entry.second.findings.empty()) roots.insert(entry.second.root);
  for (const auto& entry : clearedByDiffChange_) roots.insert(entry.second.root);
  for (const auto& root : roots) {
    if (watchedByTheClient(root)) continue;  // its watcher reports the change
    std::string stamp = git::gitStateStamp(root);
    auto [seen, first] = gitStamps_.try_emplace(root, stamp);
    if (first || seen->second == stamp) continue;
    seen->second = std::move(stamp);
    ++gitStateChanges_;  // a review in flight that read its diff before is checked again when it ends
    lastGitStateChange_ = std::chrono::steady_clock::now();
    recheckShownFindings(root);
  }
}

}  // namespace revline::lsp
