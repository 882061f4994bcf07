// When shown findings go, other than by a review of their file: the file was
// deleted or renamed away (a watcher's event, its buffer closed, a later review
// that finds it gone), or it is reopened with a diff other than the one they
// were computed on (after `git stash`, a checkout, an edit by another tool).
// Its diagnostics are then cleared and its state dropped, so no later edit
// brings them back on lines they are not about. Or another file's review finds
// its diff changed, or git's index or HEAD changed (a commit, a stash, a checkout
// in a terminal): only the findings whose line the change still adds stay. Or
// its workspace folder was removed.
#include <algorithm>
#include <chrono>
#include <set>
#include <system_error>

#include "core/support/repo_file.h"
#include "lsp/diff_fingerprint.h"
#include "lsp/review_job.h"
#include "lsp/server.h"

namespace revline::lsp {
namespace fs = std::filesystem;

namespace {
constexpr std::size_t kMaxClearedKept = 1000;
}  // namespace

void Server::forgetFile(const std::string& uri) {
  files_.erase(uri);
  clearedByDiffChange_.erase(uri);
  publish(uri);  // nothing left: an empty list
}

// A folder gone from the workspace takes the findings of its files with it
// (a multi-root client keeps one server for all folders): those of its files,
// and of its repository's, that no folder left holds, except open documents,
// whose buffers the user still has.
std::function<bool(const fs::path& root, const std::string& rel)> Server::leftOnlyIn(
    const std::vector<fs::path>& removed) {
  std::vector<fs::path> removedRoots, keptRoots;
  for (const auto& f : removed)
    if (auto r = repositoryOf(f)) removedRoots.push_back(*r);
  for (const auto& f : folders_)
    if (auto r = repositoryOf(f)) keptRoots.push_back(*r);
  return [removed, removedRoots = std::move(removedRoots), keptRoots = std::move(keptRoots), folders = folders_](
             const fs::path& root, const std::string& rel) {
    const fs::path file = root / rel;
    const auto inFolder = [&](const fs::path& dir) { return file == dir || support::insideRoot(dir, file); };
    const auto ofRoot = [&](const fs::path& r) { return r == root; };
    const bool wasHeld = std::any_of(removed.begin(), removed.end(), inFolder) ||
                         std::any_of(removedRoots.begin(), removedRoots.end(), ofRoot);
    const bool stillHeld = std::any_of(folders.begin(), folders.end(), inFolder) ||
                           std::any_of(keptRoots.begin(), keptRoots.end(), ofRoot);
    return wasHeld && !stillHeld;
  };
}

void Server::forgetRemovedFolders(const std::vector<fs::path>& removed) {
  if (removed.empty()) return;
  const auto left = leftOnlyIn(removed);
  std::vector<std::string> gone;
  for (const auto& [uri, state] : files_)
    if (!documents_.get(uri) && left(state.root, state.path)) gone.push_back(uri);
  for (const auto& uri : gone) forgetFile(uri);
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
  for (const auto& uri : stale) {
    // One whose findings a change took (a reload after `git stash`) stays noted:
    // `git stash pop` may bring its reviewed diff back.
    const auto cleared = clearedByDiffChange_.find(uri);
    const std::optional<ClearedFile> was = cleared != clearedByDiffChange_.end() ? std::optional(cleared->second) : std::nullopt;
    forgetFile(uri);
    if (was) clearedByDiffChange_[uri] = *was;
  }
}

void Server::keepFindingsStillInChange(const Job& job, const diff::Diff& change,
                                       const std::map<std::string, std::vector<std::string>>& diskLines,
                                       const std::set<std::string>& gone) {
  const std::map<std::string, std::string> now = fileDiffFingerprints(change);
  const diff::FileIndex files(change);
  for (const auto& [uri, rel] : job.shownFiles) {
    if (rel == job.path || gone.count(uri)) continue;
    const auto it = files_.find(uri);
    if (it == files_.end() || it->second.root != job.root || it->second.path != rel || it->second.findings.empty()) continue;
    FileState& state = it->second;
    // An open buffer's lines are the diff's only when it reads as the file on disk
    // (unsaved edits, or not yet reloaded after git rewrote the file: its findings
    // are placed on its own text, and stay).
    if (documents_.get(uri) && !openBufferReadsAs(uri, rel, diskLines)) continue;
    const auto digest = now.find(rel);
    const std::string current = digest != now.end() ? digest->second : "";
    if (state.reviewedDiff == current) continue;
    const diff::FileDiff* file = files.find(rel);
    // The line it was reviewed on (its reviewed number: edits since moved it, a
    // reload after `git pull` as the pull did), still added where it is now; or,
    // moved by the change (a pull brought lines above it, into a closed file or a
    // buffer not yet told), the one added line that reads as it did: it goes there.
    // Nowhere, or on more than one line (a `}`): it goes.
    enum class Now { Kept, Moved, Gone };
    auto placeNow = [&](PlacedFinding& f) {
      const std::int64_t reviewed = f.published.finding.line - 1;
      if (!file || !state.reviewedLines || reviewed < 0 || reviewed >= static_cast<std::int64_t>(state.reviewedLines->size()))
        return Now::Gone;
      std::string_view then = (*state.reviewedLines)[static_cast<std::size_t>(reviewed)];
      if (!then.empty() && then.back() == '\r') then.remove_suffix(1);
      std::int64_t only = -1;
      int readingSo = 0;
      for (const auto& hunk : file->hunks)
        for (const auto& l : hunk.lines) {
          if (l.kind != diff::LineKind::Added || l.text != then) continue;
          if (l.newLine == f.firstLine + 1) return Now::Kept;
          only = l.newLine - 1;
          ++readingSo;
        }
      if (readingSo != 1) return Now::Gone;
      const int delta = static_cast<int>(only) - f.firstLine;
      f.firstLine += delta;
      f.lastLine += delta;
      return Now::Moved;
    };
    bool moved = false, dropped = false;
    std::vector<PlacedFinding> kept;
    for (PlacedFinding& f : state.findings) {
      const Now placed = placeNow(f);
      moved = moved || placed == Now::Moved;
      dropped = dropped || placed == Now::Gone;
      if (placed != Now::Gone) kept.push_back(std::move(f));
    }
    state.findings = std::move(kept);
    state.reviewedDiff = current;
    if (dropped) noteCleared(uri, job.root, rel);
    if (dropped || moved) publish(uri);
  }
}

bool Server::openBufferReadsAs(const std::string& uri, const std::string& rel,
                               const std::map<std::string, std::vector<std::string>>& diskLines) const {
  const Document* doc = documents_.get(uri);
  const auto disk = diskLines.find(rel);
  return doc && disk != diskLines.end() && documentLines(doc->text()) == disk->second;
}

void Server::noteCleared(const std::string& uri, const fs::path& root, const std::string& rel) {
  if (clearedByDiffChange_.size() >= kMaxClearedKept) clearedByDiffChange_.clear();  // bounded; the next save shows them
  clearedByDiffChange_[uri] = ClearedFile{root, rel};
}

void Server::recheckShownFindings(const fs::path& root) {
  auto job = std::make_shared<Job>();
  job->recheckOnly = true;
  job->root = root;
  job->key = "recheck:" + root.string();
  job->config = configFor(root);  // whether git may run the repository's programs
  job->shownFiles = filesShownIn(root);  // an open buffer is judged as it reads then (keepFindingsStillInChange)
  for (const auto& [uri, cleared] : clearedByDiffChange_)
    if (cleared.root == root && documents_.get(uri)) job->clearedFiles.push_back(cleared.path);
  const bool anyCleared = std::any_of(clearedByDiffChange_.begin(), clearedByDiffChange_.end(),
                                      [&](const auto& entry) { return entry.second.root == root; });
  if (job->shownFiles.empty() && !anyCleared) return;
  // git writes the index and HEAD in several steps (a checkout, a commit's ref
  // then its index): read once they are done.
  constexpr auto kGitSettles = std::chrono::milliseconds(300);
  job->due = std::chrono::steady_clock::now() + kGitSettles;
  job->opensBefore = opens_;
  enqueue(std::move(job));
}

void Server::restoreClearedFindings(const fs::path& root, const std::map<std::string, std::vector<std::string>>& diskLines) {
  std::vector<std::string> done;
  std::set<fs::path> lookups;
  for (const auto& [uri, cleared] : clearedByDiffChange_) {
    if (cleared.root != root) continue;
    const auto state = files_.find(uri);
    if (state != files_.end() && !state->second.findings.empty()) {  // shows some again
      done.push_back(uri);
      continue;
    }
    // A buffer that does not read as its file (unsaved edits): its next save reviews it.
    if (documents_.get(uri) && !openBufferReadsAs(uri, cleared.path, diskLines)) continue;
    lookups.insert(cleared.root / cleared.path);  // also one a stash took away whole (`git stash -u`)
  }
  for (const auto& uri : done) clearedByDiffChange_.erase(uri);
  const std::string scope = configFor(root).reviewScope;
  for (const auto& file : lookups) showLastReview(file, root, scope);
}

std::vector<std::pair<std::string, std::string>> Server::filesShownIn(const fs::path& root) const {
  std::vector<std::pair<std::string, std::string>> shown;
  for (const auto& [uri, state] : files_)
    if (state.root == root && !state.path.empty() && !state.findings.empty()) shown.emplace_back(uri, state.path);
  return shown;
}

}  // namespace revline::lsp
