// The review scheduler: debounced jobs per file or workspace, the worker thread
// that runs them through the review session (core/session), cancellation, and
// publishing the results; failures shown once (again after a minute).
#include "lsp/server.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>

#include "core/contract/enums.h"
#include "core/git/config_guard.h"
#include "core/review/pipeline.h"
#include "core/review/policy.h"
#include "core/reports/coverage_text.h"
#include "core/reports/json_report.h"
#include "core/reports/usage_report.h"
#include "core/review/delegating_provider.h"
#include "core/session/spend_meter.h"
#include "lsp/diff_fingerprint.h"
#include "lsp/review_job.h"

namespace revline::lsp {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// A review's memory is freed on the loop thread, much of it allocated on the
// workers': glibc keeps what each thread's arena freed for that arena, so a
// server that ran five workspace reviews of a large change held 0.4 GB while
// idle (git's v2.40..v2.48: 9 MB at start). Handed back after each review, by
// whichever of the loop and the worker lets go of the review's data last (the
// outcome is shared by both; trimmed before the last one freed it, the memory
// stayed until the next review: 33 or 61 MB idle by the threads' timing).
void returnFreedMemory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

// Counts model calls for revline/stats; otherwise transparent.
class CountingProvider : public review::DelegatingProvider {
 public:
  CountingProvider(std::unique_ptr<review::Provider> inner, std::function<void()> onCall)
      : DelegatingProvider(std::move(inner)), onCall_(std::move(onCall)) {}
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken& cancel) override {
    onCall_();
    return inner_->complete(request, cancel);
  }

 private:
  std::function<void()> onCall_;
};

std::string failureHint(const review::ProviderError& e) {
  using K = review::ProviderError::Kind;
  switch (e.kind()) {
    case K::Auth: return " Check the API key: the variable named by \"api_key_env\" must hold a valid key, in the environment the editor started revline from.";
    case K::Network:
    case K::Timeout: return " Check that the endpoint (\"base_url\") is reachable and running.";
    case K::NotFound: return " Check \"model\" and \"base_url\" in .revline.json or the editor settings.";
    case K::Quota:
    case K::RateLimited: return " The provider refused for quota or rate limits; try again later or change \"model\".";
    case K::Server: return " The provider failed on its side (not a settings problem); the next save tries again.";
    default: return " Check the provider settings (\"provider\", \"model\", \"base_url\") in .revline.json or the editor settings.";
  }
}

// `text` ended as a sentence, so another can follow it.
std::string asSentence(std::string text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.pop_back();
  if (!text.empty() && text.back() != '.' && text.back() != '!' && text.back() != '?') text += '.';
  return text;
}

// The failure as one message: the provider's words (ended as a sentence), then
// what to do. Settings that cannot work (a budget too small for the prompt, a
// bad base URL, no key) are the user's to fix, not the provider's failure.
std::string failureMessage(const review::ProviderError& e) {
  if (e.kind() == review::ProviderError::Kind::Config)
    return "revline: the review settings cannot work: " + asSentence(e.what()) +
           " Settings come from the editor's revline settings, the repository's .revline.json and the user config "
           "($XDG_CONFIG_HOME/revline/config.json); the editor's settings win.";
  return "revline: the review provider failed: " + asSentence(e.what()) + failureHint(e);
}

// The files of `coverage` left out by a limit (`overLimit`) or by choice, the
// first three named with why ("a.txt: lock file; b.txt: ...; and 4 more"); "" for none.
std::string leftOutNamed(const review::Coverage& coverage, bool overLimit) {
  constexpr std::size_t kNamed = 3;
  std::vector<const review::SkippedFile*> parts;
  for (const auto& s : coverage.filesSkipped)
    if (s.overLimit == overLimit && (overLimit || !s.partial)) parts.push_back(&s);
  std::string named;
  for (std::size_t i = 0; i < parts.size() && i < kNamed; ++i)
    named += (i == 0 ? "" : "; ") + reports::skippedFileText(*parts[i]);
  if (parts.size() > kNamed) named += "; and " + std::to_string(parts.size() - kNamed) + " more";
  return named;
}

// The editor's warning when part of the change was not reviewed (a request limit,
// a file the diff cannot show), or "": what and why, the first few parts named.
std::string notReviewedWarning(const review::Coverage& coverage) {
  const std::string parts = leftOutNamed(coverage, /*overLimit=*/true);
  if (parts.empty()) return "";
  return "revline: part of the change was not reviewed, so a line without a diagnostic is not known to be fine: " +
         reports::coverageSentence(coverage) + "; left out: " + parts;
}

}  // namespace

void Server::scheduleReview(const fs::path& file, bool immediate, std::optional<ReplyOnce> reply, const json& requestId,
                            bool cacheOnly) {
  auto root = repositoryOf(file);
  if (!root) {
    if (reply) (*reply)(LspError(ErrorCode::RequestFailed, notReviewable(file)));
    return;
  }
  auto job = std::make_shared<Job>();
  job->cacheOnly = cacheOnly;
  job->fullReview = immediate && !cacheOnly;  // a command, not a save
  job->root = *root;
  job->path = file.lexically_relative(*root).generic_string();
  job->key = "file:" + file.string();
  job->config = configFor(*root);
  if (auto e = configErrors_.find(*root); e != configErrors_.end()) job->configError = e->second;
  job->reportProgress = clientProgress_;
  job->opensBefore = opens_;
  noteGitState(job->root);
  job->gitStateBefore = gitStateChanges_;
  job->shownFiles = filesShownIn(job->root);
  job->due = Clock::now() + std::chrono::milliseconds(immediate ? 0 : debounceFor(job->config));
  job->reply = std::move(reply);
  if (job->reply) job->requestKey = requestId.dump();
  enqueue(std::move(job));
}

void Server::scheduleWorkspaceReview(const fs::path& root, bool immediate, std::optional<ReplyOnce> reply,
                                     const json& requestId, bool cacheOnly) {
  auto job = std::make_shared<Job>();
  job->cacheOnly = cacheOnly;
  job->fullReview = immediate && !cacheOnly;  // a command, not a save
  job->root = root;
  job->key = "workspace:" + root.string();
  job->config = configFor(root);
  if (auto e = configErrors_.find(root); e != configErrors_.end()) job->configError = e->second;
  job->reportProgress = clientProgress_;
  job->opensBefore = opens_;
  noteGitState(job->root);
  job->gitStateBefore = gitStateChanges_;
  job->shownFiles = filesShownIn(job->root);
  job->due = Clock::now() + std::chrono::milliseconds(immediate ? 0 : debounceFor(job->config));
  job->reply = std::move(reply);
  if (job->reply) job->requestKey = requestId.dump();
  enqueue(std::move(job));
}

void Server::enqueue(std::shared_ptr<Job> job) {
  if (!job->requestKey.empty()) {
    std::lock_guard<std::mutex> lock(inflightMu_);
    inflight_[job->requestKey] = job->cancel;
  }
  if (options_.sync) {
    runJob(job);
    return;
  }
  std::shared_ptr<Job> superseded;
  {
    std::lock_guard<std::mutex> lock(queueMu_);
    // A cached-review lookup never displaces a real review of the same file (whose
    // outcome will be published), unless that one has delivered already. Behind a
    // running one it waits (a reopen during a review, after `git stash`: the diff
    // may be another one by now), without stopping it.
    const auto running = running_.find(job->key);
    if (job->cacheOnly && pending_.count(job->key)) return;
    if (job->cacheOnly && running != running_.end() && !running->second->delivered) {
      pending_[job->key] = std::move(job);
      workCv_.notify_all();
      return;
    }
    if (auto it = pending_.find(job->key); it != pending_.end()) {
      superseded = std::move(it->second);
      superseded->cancel.cancel();  // stops a probe of it
      pending_.erase(it);
    }
    if (auto it = running_.find(job->key); it != running_.end()) {
      // A save (not a command, which asks for a fresh review) while a review of the
      // same file runs: the prober tells whether it changed the diff. Else stop it now.
      const bool plainSave = !job->cacheOnly && !job->fullReview && !job->reply && !job->recheckOnly;
      if (plainSave && !it->second->cacheOnly) {
        probes_.insert(job->key);
        probeCv_.notify_all();
      } else if (!it->second->delivered) {  // a delivered outcome is published as it is
        it->second->cancel.cancel();
      }
    }
    // Every worker busy, none with this job's repository: another repository's
    // slow reviews (a hung git, a model that does not answer) must not hold it
    // up, so one more worker starts, up to kMaxWorkers. (Three slow saves in one
    // repository held a fourth repository's review for their whole 40 s.)
    const Job& added = *job;
    if (!added.cacheOnly && running_.size() >= workers_.size() && workers_.size() < kMaxWorkers &&
        std::none_of(running_.begin(), running_.end(), [&](const auto& e) { return e.second->root == added.root; }))
      workers_.emplace_back([this] { workerLoop(); });
    pending_[job->key] = std::move(job);
    workCv_.notify_all();
  }
  if (superseded && superseded->reply)
    (*superseded->reply)(LspError(stoppedCode(superseded->requestKey), "superseded by a newer review"));
}

bool Server::conflicts(const Job& job) const {
  // A workspace review and a recheck read (and publish) every file of their
  // repository with findings: nothing else of that repository runs beside them.
  auto wholeRepository = [](const Job& j) { return j.key.starts_with("workspace:") || j.key.starts_with("recheck:"); };
  const bool running = std::any_of(running_.begin(), running_.end(), [&](const auto& entry) {
    const Job& other = *entry.second;
    return other.key == job.key || ((wholeRepository(job) || wholeRepository(other)) && other.root == job.root);
  });
  // Nor does a review due after a pending one of the whole repository: saves
  // made meanwhile wait behind it (else a save every few seconds kept a
  // "Review workspace" from starting, and a recheck after a commit from running).
  return running || std::any_of(pending_.begin(), pending_.end(), [&](const auto& entry) {
           const Job& other = *entry.second;
           // Due first, and of two due at once the one whose key sorts first: never two waiting on each other.
           return &other != &job && wholeRepository(other) && other.root == job.root &&
                  (other.due < job.due || (other.due == job.due && other.key < job.key));
         });
}

void Server::workerLoop() {
  std::unique_lock<std::mutex> lock(queueMu_);
  while (!stopping_) {
    // The job due first of those that may run beside the running ones: a job
    // waits for its debounce, and for the previous review of its file (or
    // repository, conflicts()) to stop; a job finishing wakes the waiting workers.
    auto next = pending_.end();
    for (auto it = pending_.begin(); it != pending_.end(); ++it)
      if (!conflicts(*it->second) && (next == pending_.end() || it->second->due < next->second->due)) next = it;
    if (next == pending_.end()) {
      workCv_.wait(lock);
      continue;
    }
    if (next->second->due > Clock::now()) {
      // A copy: wait_until reads its deadline after waking, and by then enqueue()
      // may have replaced (freed) this job.
      const Clock::time_point due = next->second->due;
      workCv_.wait_until(lock, due);
      continue;
    }
    std::shared_ptr<Job> job = next->second;
    pending_.erase(next);
    running_[job->key] = job;
    lock.unlock();
    runJob(job);
    lock.lock();
    if (auto it = running_.find(job->key); it != running_.end() && it->second == job) running_.erase(it);
    workCv_.notify_all();  // a job it held back may run now
    job.reset();
    lock.unlock();
    returnFreedMemory();  // the review's data the loop let go of first (returnFreedMemory())
    lock.lock();
  }
}

void Server::onLoop(std::function<void()> task) {
  if (options_.sync) task();
  else transport_.post(std::move(task));
}

void Server::count(int ServerStats::*counter) {
  std::lock_guard<std::mutex> lock(statsMu_);
  ++(stats_.*counter);
}

void Server::addToSessionTotals(const review::Usage& usage, const review::Prices& prices,
                                const session::SpendMeter* meter) {
  std::lock_guard<std::mutex> lock(statsMu_);
  inFlight_.erase(meter);
  stats_.add(usage, prices);
}

void Server::runJob(const std::shared_ptr<Job>& job) {
  auto outcome = std::make_shared<JobOutcome>();
  // What this review's model calls consumed, for the session's totals when it
  // ends without an outcome to take them from (failed, cancelled: still paid for).
  session::SpendMeter spent;
  bool settled = false;  // the outcome's usage (which also counts tool calls) was added instead
  if (!job->cacheOnly) {
    std::lock_guard<std::mutex> lock(statsMu_);
    inFlight_[&spent] = job->config.review.prices;
  }
  auto deliver = [&] {
    if (const review::Usage u = spent.total(); !settled && u.requests > 0) {
      addToSessionTotals(u, job->config.review.prices, &spent);
      outcome->spentBeforeEnd = u;
    }
    {
      std::lock_guard<std::mutex> lock(statsMu_);
      inFlight_.erase(&spent);  // `spent` goes with this call
    }
    for (const auto& [uri, rel] : job->shownFiles) {  // deleted or renamed away since they were reviewed
      std::error_code ec;
      if (!fs::exists(fs::symlink_status(job->root / rel, ec))) outcome->goneUris.push_back(uri);
    }
    job->delivered = true;
    onLoop([this, job = std::shared_ptr<Job>(job), outcome]() mutable {
      applyOutcome(*job, *outcome);
      // A folder removed while the review ran: its closed files' findings do not stay.
      if (!removedFolders_.empty()) forgetRemovedFolders(removedFolders_);
      outcome.reset();
      job.reset();
      returnFreedMemory();
    });
  };
  if (job->cancel.cancelled()) {
    outcome->kind = JobOutcome::Kind::Cancelled;
    return deliver();
  }
  if (job->recheckOnly) {
    try {
      readShownDiffs(*job, *outcome);
      outcome->kind = JobOutcome::Kind::Reviewed;
    } catch (const Cancelled&) {  // a newer recheck of the repository reads it again
      outcome->kind = JobOutcome::Kind::Cancelled;
    }
    return deliver();
  }
  const std::string what = reviewName(*job);
  if (!job->cacheOnly) count(&ServerStats::reviewsStarted);
  if (job->reportProgress && !job->cacheOnly) {
    {
      std::lock_guard<std::mutex> lock(queueMu_);  // the loop looks it up for a cancel from the editor
      job->progressToken = "revline-review-" + std::to_string(++nextProgress_);
    }
    // Cancellable: the editor's progress shows a cancel button, which stops the
    // review where it is (no further model request of a long review is paid for).
    progress_.create(job->progressToken, "revline-" + std::to_string(++nextOutgoingId_),
                     json{{"kind", "begin"}, {"title", "revline review"}, {"message", what}, {"cancellable", true}});
  }
  try {
    if (!job->configError.empty()) {
      if (job->cacheOnly) {  // an open: nothing to show, and the save says why
        outcome->kind = JobOutcome::Kind::NothingCached;
        return deliver();
      }
      throw review::ProviderError(review::ProviderError::Kind::Config, job->configError);
    }
    // A slow git (a stalled network mount, a huge repository) is said in the
    // progress while it runs ("reviewing a.py: waiting for `git diff` (7 s so
    // far)"), not one unchanging "reviewing a.py"; the session listens to the
    // model's waits the same way once the change is read.
    // What git or a model request waits for, and "" once the wait is over (the plain message again).
    const auto reportWaiting = [this, job, what](const std::string& waiting) {
      progress_.report(job->progressToken,
                       json{{"kind", "report"}, {"message", "reviewing " + what + (waiting.empty() ? "" : ": " + waiting)}});
    };
    std::optional<NoticeListening> gitWaits;
    if (!job->progressToken.empty()) gitWaits.emplace(job->cancel, reportWaiting);
    std::vector<git::LeftOut> leftOut;  // too large, not a regular file: reported, not read
    git::DiffRequest diffRequest = job->diffRequest();
    diffRequest.ignoredSettings = &outcome->ignoredGitSettings;
    diff::Diff parsed = reviews_.readChange(job->root, std::move(diffRequest), &leftOut);
    // A saved file the change does not hold because git ignores it (a log, build
    // output), or because the index hides its edits from git (skip-worktree,
    // assume-unchanged: a tracked settings file kept with local edits), is said
    // to be not reviewed, not approved in silence.
    if (job->path && parsed.files.empty() && leftOut.empty() && !job->cacheOnly) {
      if (git::ignoredByGit(job->root, *job->path)) {
        outcome->notInChange = "is ignored by git";
        outcome->logs.push_back("revline: " + *job->path + " is ignored by git (.gitignore, info/exclude or "
                                "core.excludesFile): not part of the change, not reviewed");
      } else {
        std::vector<std::string> submodules;
        const auto flagged = git::flaggedIndexBlobs(job->root, {}, &submodules);
        const auto holder = std::find_if(submodules.begin(), submodules.end(), [&](const std::string& dir) {
          return job->path->size() > dir.size() && job->path->starts_with(dir) && (*job->path)[dir.size()] == '/';
        });
        if (flagged.count(*job->path)) {
          outcome->notInChange = "is marked skip-worktree or assume-unchanged in git's index";
          outcome->logs.push_back("revline: " + *job->path + " is marked skip-worktree or assume-unchanged in git's "
                                  "index, which hides its edits from git: not part of the change, not reviewed (`git "
                                  "update-index --no-skip-worktree " + *job->path +
                                  "`, or --no-assume-unchanged, to review them)");
        } else if (holder != submodules.end()) {
          // A submodule's directory that holds no checkout (never initialised,
          // `submodule deinit`): its files are another repository's, and git
          // shows none of them here.
          outcome->notInChange = "is inside the submodule " + *holder + ", which is not checked out";
          outcome->logs.push_back("revline: " + *job->path + " is inside " + *holder + ", a submodule that is not "
                                  "checked out (no .git there), so this repository's git sees no file in it: not part "
                                  "of the change, not reviewed (`git submodule update --init " + *holder +
                                  "` checks it out; its files are then reviewed in its own repository)");
        }
      }
    }
    for (const auto& s : leftOut) {
      const review::SkippedFile listed = session::notReviewed(s);
      outcome->logs.push_back("revline: " + listed.path + ": " + listed.reason);
    }
    {
      std::lock_guard<std::mutex> lock(queueMu_);  // a save meanwhile is compared with it (the prober)
      job->changeRead = parsed.source;
      settleDeferredProbe(job->key);
    }
    outcome->diffFingerprints = fileDiffFingerprints(parsed);
    readShownDiffs(*job, *outcome);
    gitWaits.reset();
    if (job->cancel.cancelled()) throw Cancelled();
    // The session selects the files (settings and default exclusions) and answers from cache when it can.
    session::ReviewRequest reviewRequest{std::move(parsed), job->root, job->config, {}};
    reviewRequest.leftOut = std::move(leftOut);
    reviewRequest.fullReview = job->fullReview;
    // "Review this file now" cut short by a limit leaves the diagnostics of what it did not reach.
    reviewRequest.keepEarlierWhereNotReached = true;
    // A split review that fails partway: what its answered requests found is shown (they were paid for).
    reviewRequest.answeredBeforeFailure = [outcome](session::ReviewResult partial) { outcome->result = std::move(partial); };
    if (job->cacheOnly) {
      outcome->result = reviews_.cached(std::move(reviewRequest));
      if (!outcome->result || outcome->result->reviewed.files.empty()) {  // not reviewed yet, or nothing changed
        outcome->kind = JobOutcome::Kind::NothingCached;
        return deliver();
      }
    } else {
      if (!job->progressToken.empty()) {
        progress_.report(job->progressToken, json{{"kind", "report"}, {"message", "reviewing " + what}});
        // A review split into several requests reports each one done, and any
        // request what it waits for (a retry, a rate limit), so a slow or failing
        // model is not one unchanging "reviewing" (ProgressReporter is thread-safe).
        // A wait is said after the count, and the count comes back when it is over
        // (the sink is called one call at a time: ReviewService).
        auto count = std::make_shared<std::optional<session::ReviewProgress>>();
        reviewRequest.progress = [this, job, what, reportWaiting, count](const session::ReviewProgress& p) {
          if (p.waiting && !*count) return reportWaiting(*p.waiting);
          if (!p.waiting) {
            if (p.total < 2) return;
            *count = p;
          }
          const session::ReviewProgress& c = **count;
          const std::string waiting = p.waiting && !p.waiting->empty() ? "; " + *p.waiting : "";
          progress_.report(job->progressToken,
                           json{{"kind", "report"}, {"percentage", 100 * c.done / c.total},
                                {"message", "reviewing " + what + ": " + std::to_string(c.done) + " of " +
                                                std::to_string(c.total) + " requests done, " +
                                                reports::tokensSoFar(c.usage) + waiting}});
        };
      }
      const session::ProviderWrapper meter = session::meteredBy(spent);
      outcome->result = reviews_.review(std::move(reviewRequest), job->cancel,
                                        [this, &meter, job](std::unique_ptr<review::Provider> p) {
                                          const bool metered = p->metered();
                                          return std::make_unique<CountingProvider>(meter(std::move(p)), [this, job, metered] {
                                            if (metered) job->modelAsked = true;
                                            count(&ServerStats::providerCalls);
                                          });
                                        });
    }
    if (outcome->result->fromCache) {
      count(&ServerStats::cacheHits);
    } else if (!job->cacheOnly) {  // the session's running totals (revline/stats, the progress text)
      addToSessionTotals(outcome->result->outcome.usage, outcome->result->outcome.prices, &spent);
      settled = true;
    }
    if (job->cancel.cancelled()) throw Cancelled();
    readFilesOfFindings(*job, *outcome);
    outcome->kind = JobOutcome::Kind::Reviewed;
  } catch (const Cancelled&) {
    outcome->kind = JobOutcome::Kind::Cancelled;
    // What its answered requests found is shown when the user cancelled it: read as a failure's is.
    if (outcome->result && !job->cacheOnly) readFilesOfFindings(*job, *outcome);
  } catch (const review::ProviderError& e) {
    if (job->cancel.cancelled()) {  // the call failed because the review was cancelled
      outcome->kind = JobOutcome::Kind::Cancelled;
      if (outcome->result && !job->cacheOnly) readFilesOfFindings(*job, *outcome);
    } else {
      outcome->kind = JobOutcome::Kind::Failed;
      outcome->providerFailure = e.kind() != review::ProviderError::Kind::Config;  // settings that cannot work are not
      outcome->failure = job->cacheOnly ? std::string("cached review lookup: ") + e.what()  // e.g. a missing API key: the save says so
                                        : failureMessage(e);
      if (outcome->result) readFilesOfFindings(*job, *outcome);  // answered before it failed: shown
    }
  } catch (const std::exception& e) {
    outcome->kind = JobOutcome::Kind::Failed;
    outcome->failure = job->cacheOnly ? std::string("cached review lookup: ") + e.what()
                                      : std::string("revline: review of ") + what + " failed: " + e.what();
    if (outcome->result && !job->cacheOnly) readFilesOfFindings(*job, *outcome);
  }
  deliver();
}

// Worker: the diff now of the other files of the repository whose findings are
// shown (a file's review, or all of them for a recheck after git's index or HEAD
// changed; a workspace review reads them all anyway). A commit, a
// checkout or a stash since their review left those findings on lines that are
// no part of any change; applyOutcome drops them (one git call, only when some are shown).
void Server::readShownDiffs(const Job& job, JobOutcome& outcome) {
  if (!job.recheckOnly && (!job.path || job.cacheOnly)) return;
  for (const std::string& rel : job.clearedFiles)
    if (auto lines = readRepositoryLines(job.root, rel)) outcome.shownLines[rel] = std::move(*lines);
  git::DiffRequest others = job.diffRequest();
  others.paths.clear();
  for (const auto& [uri, rel] : job.shownFiles)
    if (rel != job.path) others.paths.push_back(rel);
  if (others.paths.empty()) return;
  try {
    outcome.shownChange = reviews_.readChange(job.root, others);
    for (const std::string& rel : others.paths)
      if (auto lines = readRepositoryLines(job.root, rel)) outcome.shownLines[rel] = std::move(*lines);
  } catch (const Cancelled&) {
    throw;
  } catch (const std::exception& e) {  // not known: those findings stay
    outcome.logs.push_back(std::string("revline: the diff of the other files with findings could not be read: ") + e.what());
  }
}

// The files findings are shown on, read by the worker so the loop thread does no file I/O to measure their ranges.
void Server::readFilesOfFindings(const Job& job, JobOutcome& outcome) {
  for (const auto& pf : outcome.result->outcome.findings) {
    const std::string rel = diff::normalizePath(pf.finding.file);
    if (outcome.fileLines.count(rel) || std::count(outcome.goneFilesOfFindings.begin(), outcome.goneFilesOfFindings.end(), rel))
      continue;
    if (auto lines = readRepositoryLines(job.root, rel)) {
      outcome.fileLines[rel] = std::move(*lines);
    } else if (std::error_code ec; !fs::exists(fs::symlink_status(job.root / rel, ec))) {
      outcome.goneFilesOfFindings.push_back(rel);
    }
  }
}

bool Server::reopenedSince(const std::string& uri, std::uint64_t opensBefore) const {
  const auto it = openedAt_.find(uri);
  return it != openedAt_.end() && it->second > opensBefore && documents_.get(uri) != nullptr;
}

namespace {
// Whether `lines` read, at the finding's (moved) first line, as the reviewed diff's new side did at its line.
bool readsAsReviewed(const std::vector<std::string>& lines, const PlacedFinding& f, const diff::FileDiff& reviewed) {
  const auto then = reviewed.newLineText(static_cast<int>(std::max<std::int64_t>(1, f.published.finding.line)));
  if (!then) return true;  // not on a line of the diff: nothing to compare
  if (f.firstLine >= static_cast<int>(lines.size())) return false;
  std::string_view now = lines[static_cast<std::size_t>(f.firstLine)];
  if (!now.empty() && now.back() == '\r') now.remove_suffix(1);
  // A UTF-8 byte-order mark: git has it on line 1, an editor keeps it out of the buffer.
  std::string_view was = *then;
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (f.firstLine == 0 && was.substr(0, kBom.size()) == kBom) was.remove_prefix(kBom.size());
  if (f.firstLine == 0 && now.substr(0, kBom.size()) == kBom) now.remove_prefix(kBom.size());
  return now == was;
}
}  // namespace

void Server::applyOutcome(Job& job, JobOutcome& outcome) {
  for (const auto& line : outcome.logs) logMessage(MessageType::Log, line);
  if (auto& shown = ignoredGitSettingsShown_[job.root]; !outcome.ignoredGitSettings.empty() &&
                                                          shown != outcome.ignoredGitSettings) {
    shown = outcome.ignoredGitSettings;
    showMessage(MessageType::Warning, "revline: " + git::ignoredSettingsNotice(job.root, shown));
  }
  std::set<std::string> gone(outcome.goneUris.begin(), outcome.goneUris.end());
  // A file deleted or renamed away while its review ran: none of its findings is
  // shown (they were, on a file that no longer exists, until the next review).
  for (const auto& rel : outcome.goneFilesOfFindings) gone.insert(uriFor(job.root / rel));
  for (const auto& uri : gone) {
    const auto it = files_.find(uri);
    const std::optional<ClearedFile> was =
        job.recheckOnly && it != files_.end() ? std::optional(ClearedFile{it->second.root, it->second.path}) : std::nullopt;
    forgetFile(uri);
    if (was) clearedByDiffChange_[uri] = *was;  // `git stash -u` took it away: `git stash pop` may bring it back
  }
  if (outcome.shownChange) keepFindingsStillInChange(job, *outcome.shownChange, outcome.shownLines, gone);
  if (job.recheckOnly) {
    if (outcome.kind == JobOutcome::Kind::Reviewed) restoreClearedFindings(job.root, outcome.shownLines);
    return;
  }
  auto finish = [&](ReplyValue value, const std::string& progressEnd) {
    if (job.reply) (*job.reply)(std::move(value));
    job.reply.reset();
    if (!job.progressToken.empty()) progress_.end(job.progressToken, progressEnd);
  };
  // Publish: every reviewed file gets its findings (or none, which clears it).
  auto publishFindingsOf = [&](const session::ReviewResult& result) {
    const diff::Diff& selected = result.reviewed;
    const std::vector<review::PublishedFinding>& findings = result.outcome.findings;
    std::map<std::string, std::string> reviewed;  // uri -> repository-relative path
    std::map<std::string, std::vector<PlacedFinding>> byUri;
    auto addReviewed = [&](const std::string& rel) {
      const std::string uri = uriFor(job.root / rel);
      if (!gone.count(uri)) reviewed.emplace(uri, rel);
      return uri;
    };
    for (const auto& f : selected.files) {
      if (!f.newPath) continue;  // deleted: nothing to show it on
      addReviewed(diff::normalizePath(*f.newPath));
    }
    if (job.path) addReviewed(*job.path);
    const diff::FileIndex selectedFiles(selected);
    std::map<std::string, std::vector<std::string>> openLines;  // by uri, split once
    auto linesOfOpen = [&](const std::string& uri) -> const std::vector<std::string>& {
      auto it = openLines.find(uri);
      if (it == openLines.end()) it = openLines.emplace(uri, documentLines(documents_.get(uri)->text())).first;
      return it->second;
    };
    std::map<std::string, bool> asRead;  // by uri: the open buffer reads as the file the worker read
    auto bufferIsWhatWasRead = [&](const std::string& uri, const std::string& rel) {
      auto it = asRead.find(uri);
      if (it != asRead.end()) return it->second;
      return asRead.emplace(uri, openBufferReadsAs(uri, rel, outcome.fileLines)).first->second;
    };
    for (const auto& pf : findings) {
      const std::string rel = diff::normalizePath(pf.finding.file);
      const std::string uri = addReviewed(rel);
      const diff::FileDiff* fileDiff = selectedFiles.find(pf.finding.file);
      PlacedFinding placed = place(pf, fileDiff);
      bool alive = true;
      bool editedOn = false;  // an edit since the save touched its lines: they need not read as reviewed
      // The edits since the save move a finding only where the buffer is not the
      // text the review read: an editor's reload after `git stash pop` is an edit
      // since the save, and the file on disk already holds it.
      if (auto e = editsSinceSave_.find(uri); e != editsSinceSave_.end() && !bufferIsWhatWasRead(uri, rel))
        for (const auto& edit : e->second) {
          editedOn = editedOn || (alive && edit.start.line <= placed.lastLine && edit.end.line >= placed.firstLine);
          alive = alive && moveLines(placed.firstLine, placed.lastLine, edit);
        }
      // The review read the file on disk; an open document may hold other text with
      // no edit recorded: opened unsaved (VS Code's hot exit restores a dirty buffer,
      // and a restart shows the cached review), or reloaded after `git stash` or a
      // checkout as a close and an open. A finding is kept only where the document
      // still reads as the reviewed line (before, it went on the disk's line number,
      // over unrelated code).
      if (alive && fileDiff && documents_.get(uri) && (!editedOn || reopenedSince(uri, job.opensBefore)))
        alive = readsAsReviewed(linesOfOpen(uri), placed, *fileDiff);
      // A file not open, rewritten on disk while the review ran (`git stash` during the model's answer):
      // read after the review (fileLines), it no longer holds the reviewed line there.
      if (alive && fileDiff && !documents_.get(uri))
        if (const auto read = outcome.fileLines.find(rel); read != outcome.fileLines.end())
          alive = readsAsReviewed(read->second, placed, *fileDiff);
      if (alive) byUri[uri].push_back(std::move(placed));
      auto lines = outcome.fileLines.find(rel);
      if (lines != outcome.fileLines.end() && reviewed.count(uri)) {  // once per file
        files_[uri].reviewedLines = std::move(lines->second);
        outcome.fileLines.erase(lines);
      }
    }
    if (!job.path) {  // workspace: files of this repository that left the diff are cleared
      for (const auto& [uri, state] : files_)
        if (state.root == job.root) reviewed.emplace(uri, state.path);
    }
    // A folder removed while the review ran: its closed files get none of it (they
    // were published, then cleared at once). Asked only then: it looks up every
    // folder's repository, and this runs at every review's end.
    const auto leftWithRemovedFolder = removedFolders_.empty() ? nullptr : leftOnlyIn(removedFolders_);
    for (const auto& [uri, rel] : reviewed) {
      if (leftWithRemovedFolder && !documents_.get(uri) && leftWithRemovedFolder(job.root, rel)) {
        if (files_.count(uri)) forgetFile(uri);
        continue;
      }
      FileState& state = files_[uri];
      state.root = job.root;
      state.path = rel;
      const auto digest = outcome.diffFingerprints.find(rel);
      state.reviewedDiff = digest != outcome.diffFingerprints.end() ? digest->second : "";
      state.findings = std::move(byUri[uri]);
      publish(uri, /*unlessNothingToClear=*/!job.path);  // a workspace review: thousands of clean files
    }
  };
  using Kind = JobOutcome::Kind;
  if (job.cacheOnly && outcome.kind != Kind::Reviewed) {
    // No review of this diff: findings of another one are not shown on it (a reopen after
    // `git stash`). Or the lookup failed (logged, not shown: the next save says it).
    if (outcome.kind == Kind::NothingCached) {
      dropStaleFindings(job, outcome.diffFingerprints);
      // Findings still held for this diff (a review cut short or failed partway,
      // which the review cache does not keep) are shown again: the client
      // dropped them with the buffer.
      const std::string opened = job.path ? uriFor(job.root / *job.path) : "";
      for (const auto& [uri, state] : files_)
        if (state.root == job.root && (!job.path || uri == opened) && !state.findings.empty()) publish(uri);
    }
    if (outcome.kind == Kind::Failed) logMessage(MessageType::Log, outcome.failure);
    return;
  }
  // What a review's model calls spent, and the session's total: said at its end, however it ends.
  // The session's total is said at every end, also of a review that spent nothing (one that
  // failed before its first request, a builtin review after a model's).
  auto withSession = [&](const std::string& spent) -> std::string {
    std::lock_guard<std::mutex> lock(statsMu_);
    const std::string session = stats_.sentence();  // "" while the session has spent nothing
    if (spent.empty()) return session.empty() ? "" : "; session: " + session;
    return "; " + spent + (session.empty() ? "" : " (session: " + session + ")");
  };
  auto spentClause = [&](const review::Usage& usage) {
    return withSession(reports::usageSentence(usage, job.config.review.prices));
  };
  auto cancelled = [&](const review::Usage& spent) {
    count(&ServerStats::reviewsCancelled);
    // Stopped by the editor's cancel (its progress's button, revline.cancelReviews): the
    // command waiting for it was cancelled as the user asked, not superseded by a newer review.
    finish(job.cancelledInEditor ? cancelledFromEditor() : LspError(stoppedCode(job.requestKey), "review cancelled"),
           std::string(job.cancelledInEditor ? "cancelled from the editor" : "cancelled") + spentClause(spent));
  };
  // Stopped: by the user (the editor's cancel, a command's $/cancelRequest), what the
  // answered requests of a split review found (or the whole review, done when the
  // cancel came) was paid for, and is shown as a failure's is; a review a newer one
  // superseded leaves that to the newer one.
  auto stopped = [&](const review::Usage& spent) {
    const bool byUser = job.cancelledInEditor ||
                        (!job.requestKey.empty() && stoppedCode(job.requestKey) == ErrorCode::RequestCancelled);
    if (byUser && outcome.result) publishFindingsOf(*outcome.result);
    cancelled(spent);
  };
  if (outcome.kind == Kind::Cancelled) return stopped(outcome.spentBeforeEnd);
  if (outcome.kind == Kind::Failed) {
    // A split review that failed partway: what its answered requests found replaces the last review's.
    if (outcome.result) publishFindingsOf(*outcome.result);
    const bool staleShown = std::any_of(files_.begin(), files_.end(), [&](const auto& entry) {
      return entry.second.root == job.root && !entry.second.findings.empty();
    });
    const std::string told =
        reportFailure(outcome.failure, outcome.result ? Shown::AnsweredBeforeFailure : staleShown ? Shown::LastReview : Shown::None,
                      outcome.providerFailure, job.reply.has_value());
    // Each client shows a command's error as "revline: <command> failed: <message>": the
    // message does not name revline again. The progress end says the reason too, not only
    // "failed": a client may show it over the message (Emacs's echo area).
    const auto unprefixed = [](std::string text) { return text.rfind("revline: ", 0) == 0 ? text.substr(9) : text; };
    std::string reason = unprefixed(outcome.failure);
    if (!reason.empty() && reason.back() == '.') reason.pop_back();  // then "; spent ..."
    return finish(LspError(ErrorCode::RequestFailed, unprefixed(told)),
                  "failed: " + reason + spentClause(outcome.spentBeforeEnd));
  }
  // A newer save arrived while this result was on its way (or the editor's cancel).
  if (job.cancel.cancelled()) return stopped(outcome.result ? outcome.result->outcome.usage : review::Usage{});
  const session::ReviewResult& result = *outcome.result;
  for (const auto& w : result.outcome.warnings) logMessage(MessageType::Warning, "revline: " + w);
  const std::vector<review::PublishedFinding>& findings = result.outcome.findings;
  publishFindingsOf(result);
  // git's index or HEAD changed since this review was asked for (a commit while
  // the model answered): what it published is checked against the diff now.
  if (gitStateChanges_ != job.gitStateBefore) recheckShownFindings(job.root);
  if (job.cacheOnly) return;
  lastFailureShown_.clear();
  // Dismissed findings are counted apart; the verdict is policy's, over the others.
  std::vector<review::PublishedFinding> shown;
  std::size_t dismissedCount = 0;
  DismissedFindings& dismissed = dismissedFor(job.root);
  for (const auto& f : findings) {
    if (dismissed.contains(f.id)) ++dismissedCount;
    else shown.push_back(f);
  }
  // No false approval here either: the review's evidence (unplaced blocking findings) still counts.
  const std::string verdict(contract::toString(review::decideVerdict(shown, job.config.review.policy, result.evidence)));
  std::string endMessage = std::to_string(shown.size()) + (shown.size() == 1 ? " finding" : " findings") + ", verdict " + verdict;
  if (!outcome.notInChange.empty()) endMessage = "not reviewed: " + *job.path + " " + outcome.notInChange;
  // The saved file itself left out by the selection (minified, a lock file,
  // vendored, generated, an exclude glob): said as such, not "verdict APPROVE".
  // Part of it left out by choice (a notebook's outputs) is named after the
  // verdict, as a workspace review names it.
  if (job.path && outcome.notInChange.empty())
    for (const auto& s : result.outcome.coverage.filesSkipped) {
      if (s.path != *job.path) continue;
      if (!s.partial) {
        endMessage = "not reviewed: " + reports::skippedFileText(s);
        logMessage(MessageType::Log, "revline: " + reports::skippedFileText(s));
        break;
      }
      if (!s.overLimit) endMessage += "; left out: " + reports::skippedFileText(s);
    }
  // Of the working tree: the files left out by choice are named after the verdict
  // (a lock file alone changed: "0 findings, verdict APPROVE; left out: ...").
  if (!job.path)
    if (const std::string chosen = leftOutNamed(result.outcome.coverage, /*overLimit=*/false); !chosen.empty())
      endMessage += "; left out: " + chosen;
  if (dismissedCount) endMessage += " (" + std::to_string(dismissedCount) + " dismissed)";
  // The cap is said where the count is, and once shown while it holds: an
  // unmarked line past it must not read as clean.
  std::string capHeld;  // the cap, while it holds: a count that changes from save to save is not shown again
  if (const std::size_t over = result.outcome.findingsOverCap; over > 0 && outcome.notInChange.empty()) {
    capHeld = std::to_string(job.config.review.policy.maxFindings);
    endMessage += "; " + std::to_string(over) + " more not shown, past the max_findings cap of " + capHeld;
    if (overCapShown_[job.root] != capHeld)
      showMessage(MessageType::Warning, "revline: " + std::to_string(over) + (over == 1 ? " finding" : " findings") +
                                            " not shown, past the max_findings cap of " + capHeld +
                                            " (the most severe and most confident are shown; raise "
                                            "policy.max_findings to see more)");
  }
  overCapShown_[job.root] = capHeld;
  // A model's review answered from the cache says so too ("0 model requests: nothing was sent, ..."), with the session's total.
  endMessage += withSession(reports::spentSentence(result.outcome));
  // What was not reviewed is said in the editor as in every report: an absent
  // diagnostic on a part the model never saw must not read as "looked fine".
  const review::Coverage& coverage = result.outcome.coverage;
  const std::string notReviewed = notReviewedWarning(coverage);
  if (!notReviewed.empty()) endMessage += "; " + reports::coverageSentence(coverage);
  if (std::string& shownBefore = notReviewedShown_[job.root]; notReviewed != shownBefore) {
    if (!notReviewed.empty()) showMessage(MessageType::Warning, notReviewed);
    shownBefore = notReviewed;
  }
  finish(json{{"findings", shown.size()},
              {"dismissed", dismissedCount},
              {"verdict", verdict},
              {"coverage", reports::coverageJson(coverage)}},
         endMessage);
}

std::string Server::reportFailure(const std::string& message, Shown shown, bool providerFailed, bool toldInReply) {
  if (providerFailed) count(&ServerStats::providerFailures);
  logMessage(MessageType::Error, message);
  // What the diagnostics shown are, after "The" (a sentence) or "the" (in parentheses).
  const std::string what = shown == Shown::AnsweredBeforeFailure
                               ? "diagnostics shown are from the requests answered before the failure, and from "
                                 "earlier reviews for the rest where there was one"
                               : "diagnostics shown are from earlier reviews";
  const std::string told = shown != Shown::None ? asSentence(message) + " The " + what + "." : message;
  // A new failure is shown at once; the same one again after a minute (a
  // provider that stays down must not go quiet while old diagnostics stay).
  // One a command asked for is shown by its client, always: the user is waiting for it.
  const auto now = options_.clock ? options_.clock() : Clock::now();
  const bool again = message == lastFailureShown_;
  const bool due = !again || now - lastFailureShownAt_ >= std::chrono::minutes(1);
  // Still failing: "the diagnostics shown are ..." only while some are shown.
  const std::string still = shown != Shown::None ? " (still failing; the " + what + ")" : " (still failing)";
  if (due && !toldInReply) showMessage(MessageType::Error, again ? message + still : told);
  if (due || toldInReply) {
    lastFailureShown_ = message;
    lastFailureShownAt_ = now;
  }
  return told;
}

// ---------------------------------------------------------------- state helpers

int Server::debounceFor(const config::Config& c) const {
  if (c.debounceSet) return c.debounceMs;
  // A remote model call is worth waiting a few hundred ms for. A local review
  // costs milliseconds: reviewing the whole work tree, wait only long enough to
  // coalesce a "save all" (its saves are one job); a file's review has nothing
  // to coalesce (each file is its own job, and a second save of the file while
  // it runs is settled by the prober), so it starts at once.
  if (c.provider != "builtin" && c.provider != "replay") return 300;
  return c.reviewScope == "workspace" ? 5 : 0;
}

}  // namespace revline::lsp
