// A save while a review of the same file runs. Cancelling that review and
// sending the same request again wastes a model call when the save changed
// nothing (:w again, "save all"), so the prober thread reads the diff again and
// only a changed diff, or changed settings, cancels the review in flight; else
// the pending review is dropped and the one in flight answers both saves. A
// changed diff with the same settings does not cancel a review whose request a
// metered model was already sent either: it is paid for, cancelling it threw
// the answer away (a save every few seconds with a slow model paid for
// requests that never answered), and its answer is kept per hunk, so the new
// review after it sends only what changed since. Until it knows, the review
// goes on. A save probed before the running review has read its diff waits for
// it to have (two didSave of one :w arrive together).
// Unknown (git failed, or the running review ended before reading its diff)
// cancels, as a save always did.
#include <algorithm>
#include <chrono>
#include <utility>

#include "lsp/review_job.h"
#include "lsp/server.h"

namespace revline::lsp {

namespace {
// How long a probed save waits for the review in flight to read its diff: a
// git that takes longer (a partial clone's fetch) is cancelled, as before.
constexpr auto kWaitForTheReviewsRead = std::chrono::seconds(2);
}  // namespace

void Server::proberLoop() {
  std::unique_lock<std::mutex> lock(queueMu_);
  while (!stopping_) {
    if (probes_.empty()) {
      // Deferred probes past their wait: settled as unknown (the review in flight is cancelled).
      auto next = std::chrono::steady_clock::time_point::max();
      const auto now = std::chrono::steady_clock::now();
      for (const auto& [key, job] : pending_) {
        if (!job->probedChange) continue;
        if (job->probedAt + kWaitForTheReviewsRead <= now) {
          const std::shared_ptr<Job> waited = job;  // settleProbe may change pending_
          waited->probedChange.reset();
          settleProbe(waited, nullptr);
          next = now;  // pending_ may have changed: look again
          break;
        }
        next = std::min(next, job->probedAt + kWaitForTheReviewsRead);
      }
      if (next == now) continue;
      if (next == std::chrono::steady_clock::time_point::max()) probeCv_.wait(lock);
      else probeCv_.wait_until(lock, next);
      continue;
    }
    const std::string key = *probes_.begin();
    probes_.erase(probes_.begin());
    const auto pending = pending_.find(key);
    if (pending == pending_.end() || !running_.count(key)) continue;  // nothing left to decide
    const std::shared_ptr<Job> job = pending->second;
    lock.unlock();
    std::shared_ptr<const std::string> change;
    try {
      change = reviews_.readChange(job->root, job->diffRequest()).source;
    } catch (const std::exception&) {
      // Cancelled (a newer save, shutdown) or git failed: not known to be the same.
    }
    lock.lock();
    settleProbe(job, change);
  }
}

void Server::settleProbe(const std::shared_ptr<Job>& job, const std::shared_ptr<const std::string>& change) {
  const auto pending = pending_.find(job->key);
  const auto running = running_.find(job->key);
  // Replaced by a newer save (probed in turn), or the review ended (the pending one runs as usual).
  if (pending == pending_.end() || pending->second != job || running == running_.end()) return;
  const Job& inFlight = *running->second;
  if (change && !inFlight.changeRead && !inFlight.cancel.cancelled()) {
    job->probedChange = change;  // settled when the review in flight has read its diff, or after a wait
    job->probedAt = std::chrono::steady_clock::now();
    return;
  }
  const bool sameSettings = inFlight.config == job->config;
  const bool same = change && inFlight.changeRead && *change == *inFlight.changeRead && sameSettings;
  if (!same && sameSettings && change && inFlight.modelAsked) {
    const std::string what = job->path ? *job->path : "the working tree of " + job->root.filename().string();
    onLoop([this, what] {
      logMessage(MessageType::Log, "revline: " + what + " saved with a change while the model answers its review: that "
                                   "review goes on (it is paid for), and the change is reviewed after it");
    });
    return;
  }
  if (!same) {
    inFlight.cancel.cancel();
    return;
  }
  pending_.erase(pending);
  const std::string what = job->path ? *job->path : "the working tree of " + job->root.filename().string();
  onLoop([this, what] {
    logMessage(MessageType::Log, "revline: " + what + " saved again without a change; the review in flight goes on");
  });
}

void Server::settleDeferredProbe(const std::string& key) {
  const auto pending = pending_.find(key);
  if (pending == pending_.end() || !pending->second->probedChange) return;
  const std::shared_ptr<Job> job = pending->second;
  settleProbe(job, std::exchange(job->probedChange, nullptr));
}

}  // namespace revline::lsp
