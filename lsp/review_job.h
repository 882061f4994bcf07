// A scheduled review (private to the server's files): what the worker runs,
// keyed so a newer save of the same file replaces or cancels it.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/config/config.h"
#include "core/git/git.h"
#include "core/session/review_service.h"
#include "core/support/cancel.h"
#include "lsp/jsonrpc.h"
#include "lsp/server.h"

namespace revline::lsp {

// Made on the loop thread; the worker reads only the snapshot fields, which
// never change once the job is queued.
struct Server::Job {
  // Snapshot.
  std::string key;
  std::filesystem::path root;
  std::optional<std::string> path;  // repository-relative; nullopt: the whole working tree
  config::Config config;            // the effective configuration when the review was asked for
  std::string configError;          // non-empty: the config files cannot be read, and were never: no review
  bool reportProgress = false;      // the client takes $/progress
  bool cacheOnly = false;           // publish a cached review or nothing; never call the provider
  bool fullReview = false;          // asked for ("review this file now"): the whole change goes to the model
  bool recheckOnly = false;         // no review: the diff now of shownFiles, to drop findings it no longer holds
  std::chrono::steady_clock::time_point due;
  std::uint64_t opensBefore = 0;    // Server::opens_ when queued: a document opened later may read otherwise
  std::uint64_t gitStateBefore = 0; // Server::gitStateChanges_ when queued
  CancelToken cancel;
  // The files of this repository that have findings shown, (uri, repository-relative
  // path): the worker tells which of them no longer exist (deleted, renamed away).
  std::vector<std::pair<std::string, std::string>> shownFiles;
  // Of a recheck: the files whose findings a change took (clearedByDiffChange_), repository-relative,
  // read on disk too (JobOutcome::shownLines): an open one is looked up again only when it reads as its file.
  std::vector<std::string> clearedFiles;
  // Under queueMu_: the change the worker read (the git diff text), which a save
  // arriving meanwhile is compared with (lsp/change_probe.cpp).
  std::shared_ptr<const std::string> changeRead;
  // Under queueMu_: for a save probed before the review in flight had read its
  // diff, what the probe read; settled once that review has (settleDeferredProbe).
  std::shared_ptr<const std::string> probedChange;
  std::chrono::steady_clock::time_point probedAt;
  // Loop thread only: the request waiting for the result, if any.
  std::optional<ReplyOnce> reply;
  std::string requestKey;  // id.dump() of that request
  std::string progressToken;  // set by the worker when it starts, under queueMu_ (ProgressReporter is thread-safe)
  // Loop thread only: the user cancelled it from the editor's progress (window/workDoneProgress/cancel).
  bool cancelledInEditor = false;
  // Set by the worker when its outcome is posted to the loop, before it leaves
  // running_: a lookup arriving after that (a reopen) is no longer answered by it.
  std::atomic<bool> delivered{false};
  // Set by the worker when a metered model has been sent a request of this
  // review: a save with a change then lets it finish (it is paid for, and its
  // answer is kept per hunk), and the new change is reviewed after it.
  std::atomic<bool> modelAsked{false};

  // The git diff this job reviews: the working tree with untracked files, of its path or all of it.
  git::DiffRequest diffRequest() const {
    git::DiffRequest request;
    request.mode = git::DiffRequest::Mode::WorkingTree;
    request.includeUntracked = true;
    request.cancel = cancel;  // a newer save kills the git call still running
    request.trustRepositoryConfig = config.repositoryTrusted;
    if (path) request.paths = {*path};
    return request;
  }
};

// What the worker found, for the loop thread to apply.
struct Server::JobOutcome {
  enum class Kind { Reviewed, NothingCached, Cancelled, Failed } kind = Kind::Failed;
  std::optional<session::ReviewResult> result;
  // The reviewed files that have findings, as read by the worker (repository-relative path -> lines).
  std::map<std::string, std::vector<std::string>> fileLines;
  // Each file of the change as read: the digest of its diff (lsp/diff_fingerprint.h).
  std::map<std::string, std::string> diffFingerprints;
  std::vector<std::string> goneUris;  // of the job's shownFiles, those that no longer exist
  // Files the review's findings are on that no longer exist after it (deleted or
  // renamed away while the model answered): their findings are not shown.
  std::vector<std::string> goneFilesOfFindings;
  // Of a file's review: the diff now of the job's other shownFiles (of a recheck: all of them; none read: unknown).
  std::optional<diff::Diff> shownChange;
  // Those files as read on disk after it: an open buffer is judged only when it reads as its file.
  std::map<std::string, std::vector<std::string>> shownLines;
  std::vector<std::string> logs;  // for window/logMessage
  // The file asked about is not in the change, and why ("is ignored by git"); empty otherwise.
  std::string notInChange;
  // Settings of the repository's own git config that name programs, not run (untrusted): warned of once.
  std::vector<std::string> ignoredGitSettings;
  std::string failure;            // Failed: the message shown to the user
  bool providerFailure = false;   // Failed: the provider failed (counted in revline/stats), not its settings
  // Cancelled or Failed: what its model calls spent before (added to the session's totals, and said).
  review::Usage spentBeforeEnd;
};

}  // namespace revline::lsp
