// A save while a review of the same file runs. Cancelling that review and
// sending the same request again wastes a model call when the save changed
// nothing (:w again, "save all"), so the prober thread reads the diff again and
// only a changed diff, or changed settings, cancels the review in flight; else
// the pending review is dropped and the one in flight answers both saves. Until
// it knows, the review goes on. Unknown (the running review has not read its
// diff yet, or git failed) cancels, as a save always did.
#include <utility>

#include "lsp/review_job.h"
#include "lsp/server.h"

namespace revline::lsp {

void Server::proberLoop() {
  std::unique_lock<std::mutex> lock(queueMu_);
  while (!stopping_) {
    if (probes_.empty()) {
      probeCv_.wait(lock);
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
  const bool same = change && inFlight.changeRead && *change == *inFlight.changeRead && inFlight.config == job->config;
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

}  // namespace revline::lsp
