// When shown findings go, other than by a review of their file: the file was
// deleted or renamed away (a watcher's event, its buffer closed, a later review
// that finds it gone), or it is reopened with a diff other than the one they
// were computed on (after `git stash`, a checkout, an edit by another tool).
// Its diagnostics are then cleared and its state dropped, so no later edit
// brings them back on lines they are not about.
#include <system_error>

#include "lsp/review_job.h"
#include "lsp/server.h"

namespace revline::lsp {
namespace fs = std::filesystem;

void Server::forgetFile(const std::string& uri) {
  files_.erase(uri);
  publish(uri);  // nothing left: an empty list
}

bool Server::forgetIfGone(const std::string& uri) {
  std::string folder = uri;
  while (!folder.empty() && folder.back() == '/') folder.pop_back();
  folder += '/';
  std::vector<std::string> gone;
  for (const auto& [u, state] : files_) {
    if (u != uri && u.rfind(folder, 0) != 0) continue;  // the uri itself, or a file in it (a deleted folder)
    std::error_code ec;
    // Still there (an atomic save reports a delete, then a create): kept.
    if (!fs::exists(fs::symlink_status(state.root / state.path, ec))) gone.push_back(u);
  }
  for (const auto& u : gone) forgetFile(u);
  return !gone.empty();
}

void Server::dropStaleFindings(const Job& job, const std::map<std::string, std::string>& current) {
  const std::string opened = job.path ? uriFor(job.root / *job.path) : "";
  std::vector<std::string> stale;
  for (const auto& [uri, state] : files_) {
    if (state.root != job.root || (job.path && uri != opened)) continue;
    const auto now = current.find(state.path);
    if (state.reviewedDiff != (now != current.end() ? now->second : "")) stale.push_back(uri);
  }
  for (const auto& uri : stale) forgetFile(uri);
}

std::vector<std::pair<std::string, std::string>> Server::filesShownIn(const fs::path& root) const {
  std::vector<std::pair<std::string, std::string>> shown;
  for (const auto& [uri, state] : files_)
    if (state.root == root && !state.path.empty()) shown.emplace_back(uri, state.path);
  return shown;
}

}  // namespace revline::lsp
