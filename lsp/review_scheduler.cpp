// The review scheduler: debounced jobs per file or workspace, the worker thread
// that runs them through the review session (core/session), cancellation, and
// publishing the results; failures shown once (again after a minute).
#include "lsp/server.h"

#include <algorithm>
#include <chrono>

#include "core/contract/enums.h"
#include "core/review/pipeline.h"
#include "core/review/policy.h"
#include "core/reports/usage_report.h"
#include "lsp/review_job.h"

namespace revline::lsp {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// Counts model calls for revline/stats; otherwise transparent.
class CountingProvider : public review::Provider {
 public:
  CountingProvider(std::unique_ptr<review::Provider> inner, std::function<void()> onCall)
      : inner_(std::move(inner)), onCall_(std::move(onCall)) {}
  std::string name() const override { return inner_->name(); }
  std::string model() const override { return inner_->model(); }
  bool remote() const override { return inner_->remote(); }
  review::SecretFinder secretFinder() const override { return inner_->secretFinder(); }
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken& cancel) override {
    onCall_();
    return inner_->complete(request, cancel);
  }

 private:
  std::unique_ptr<review::Provider> inner_;
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
    case K::Config: return "";  // the message already says how to fix it
    default: return " Check the provider settings (\"provider\", \"model\", \"base_url\") in .revline.json or the editor settings.";
  }
}

}  // namespace

void Server::scheduleReview(const fs::path& file, bool immediate, std::optional<ReplyOnce> reply, const json& requestId,
                            bool cacheOnly) {
  auto job = std::make_shared<Job>();
  job->cacheOnly = cacheOnly;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto root = repositoryOf(file);
    if (!root) {
      if (reply) (*reply)(LspError(ErrorCode::RequestFailed, file.string() + " is not in a git repository"));
      return;
    }
    job->root = *root;
    job->path = file.lexically_relative(*root).generic_string();
    job->key = "file:" + file.string();
    job->due = Clock::now() + std::chrono::milliseconds(immediate ? 0 : debounceFor(configFor(*root)));
  }
  job->reply = std::move(reply);
  if (job->reply) job->requestKey = requestId.dump();
  enqueue(std::move(job));
}

void Server::scheduleWorkspaceReview(const fs::path& root, bool immediate, std::optional<ReplyOnce> reply,
                                     const json& requestId, bool cacheOnly) {
  auto job = std::make_shared<Job>();
  job->cacheOnly = cacheOnly;
  job->root = root;
  job->key = "workspace:" + root.string();
  {
    std::lock_guard<std::mutex> lock(mu_);
    job->due = Clock::now() + std::chrono::milliseconds(immediate ? 0 : debounceFor(configFor(root)));
  }
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
    runJob(*job);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  // A cached-review lookup never displaces a real review of the same file.
  if (job->cacheOnly && (pending_.count(job->key) || running_.count(job->key))) return;
  if (auto it = pending_.find(job->key); it != pending_.end()) {
    if (it->second->reply) (*it->second->reply)(LspError(ErrorCode::RequestCancelled, "superseded by a newer review"));
    pending_.erase(it);
  }
  if (auto it = running_.find(job->key); it != running_.end()) it->second->cancel.cancel();
  pending_[job->key] = std::move(job);
  workCv_.notify_all();
}

void Server::workerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    if (pending_.empty()) {
      workCv_.wait(lock);
      continue;
    }
    auto next = std::min_element(pending_.begin(), pending_.end(),
                                 [](const auto& a, const auto& b) { return a.second->due < b.second->due; });
    // A job waits for its debounce, and for the previous review of the same key to stop.
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
    runJob(*job);
    lock.lock();
    if (auto it = running_.find(job->key); it != running_.end() && it->second == job) running_.erase(it);
  }
}

void Server::runJob(Job& job) {
  auto finish = [&](ReplyValue value) {
    if (job.reply) (*job.reply)(std::move(value));
    job.reply.reset();
  };
  if (job.cancel.cancelled()) {
    if (job.cacheOnly) return;
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.reviewsCancelled;
    finish(LspError(ErrorCode::RequestCancelled, "review cancelled"));
    return;
  }
  config::Config config;
  std::string progressToken;
  const std::string what = job.path ? *job.path : "working tree of " + job.root.filename().string();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!job.cacheOnly) ++stats_.reviewsStarted;
    config = configFor(job.root);
    if (clientProgress_ && !job.cacheOnly) {
      progressToken = "revline-review-" + std::to_string(++nextProgress_);
      progress_.create(progressToken, "revline-" + std::to_string(++nextOutgoingId_),
                       json{{"kind", "begin"}, {"title", "revline review"}, {"message", what}, {"cancellable", false}});
    }
  }
  auto progress = [&](const json& value) {
    if (progressToken.empty()) return;
    if (value["kind"] == "end") progress_.end(progressToken, value["message"].get<std::string>());
    else progress_.report(progressToken, value);
  };
  std::string endMessage = "done";
  try {
    git::DiffRequest request;
    request.mode = git::DiffRequest::Mode::WorkingTree;
    request.includeUntracked = true;
    if (job.path) request.paths = {*job.path};
    std::vector<std::string> skippedUntracked;  // too large or not a regular file: reported, not read
    diff::Diff parsed = reviews_.readChange(job.root, request, &skippedUntracked);
    for (const auto& s : skippedUntracked) {
      std::lock_guard<std::mutex> lock(mu_);
      logMessage(MessageType::Log, "revline: " + s);
    }
    if (job.cancel.cancelled()) throw Cancelled();
    // The session selects the files (settings and default exclusions) and answers from cache when it can.
    session::ReviewRequest reviewRequest{std::move(parsed), job.root, config, {}};
    std::optional<session::ReviewResult> result;
    if (job.cacheOnly) {
      result = reviews_.cached(std::move(reviewRequest));
      if (!result || result->reviewed.files.empty()) return;  // not reviewed yet, or nothing changed: the next save does it
    } else {
      progress(json{{"kind", "report"}, {"message", "reviewing " + what}});
      result = reviews_.review(std::move(reviewRequest), job.cancel, [this](std::unique_ptr<review::Provider> p) {
        return std::make_unique<CountingProvider>(std::move(p), [this] {
          std::lock_guard<std::mutex> lock(mu_);
          ++stats_.providerCalls;
        });
      });
    }
    if (result->fromCache) {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.cacheHits;
    } else if (!job.cacheOnly) {  // the session's running totals (revline/stats, the progress text)
      std::lock_guard<std::mutex> lock(mu_);
      stats_.usage += result->outcome.usage;
      if (auto c = review::costOf(result->outcome.usage, result->outcome.prices)) {
        if (!stats_.cost) stats_.cost = review::Cost{};
        stats_.cost->input += c->input;
        stats_.cost->output += c->output;
      }
    }
    const diff::Diff& selected = result->reviewed;
    const std::vector<review::PublishedFinding>& findings = result->outcome.findings;
    if (job.cancel.cancelled()) throw Cancelled();

    // Publish: every reviewed file gets its findings (or none, which clears it).
    std::lock_guard<std::mutex> lock(mu_);
    std::set<std::string> reviewed;
    std::map<std::string, std::vector<PlacedFinding>> byUri;
    for (const auto& f : selected.files) {
      if (!f.newPath) continue;  // deleted: nothing to show it on
      reviewed.insert(uriFor(job.root / *f.newPath));
    }
    if (job.path) reviewed.insert(uriFor(job.root / *job.path));
    for (const auto& pf : findings) {
      const std::string uri = uriFor(job.root / diff::normalizePath(pf.finding.file));
      PlacedFinding placed = place(pf, selected.findFile(pf.finding.file));
      bool alive = true;
      if (auto e = editsSinceSave_.find(uri); e != editsSinceSave_.end())
        for (const auto& edit : e->second) alive = alive && moveLines(placed.firstLine, placed.lastLine, edit);
      if (alive) byUri[uri].push_back(std::move(placed));
      reviewed.insert(uri);
    }
    if (!job.path) {  // workspace: files of this repository that left the diff are cleared
      for (const auto& [uri, state] : files_)
        if (state.root == job.root) reviewed.insert(uri);
    }
    for (const auto& uri : reviewed) {
      FileState& state = files_[uri];
      state.root = job.root;
      state.findings = std::move(byUri[uri]);
      publish(uri);
    }
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
    const std::string verdict(contract::toString(review::decideVerdict(shown, config.review.policy, result->evidence)));
    endMessage = std::to_string(shown.size()) + (shown.size() == 1 ? " finding" : " findings") + ", verdict " + verdict;
    if (dismissedCount) endMessage += " (" + std::to_string(dismissedCount) + " dismissed)";
    if (const std::string spent = reports::usageSentence(result->outcome.usage, result->outcome.prices); !spent.empty())
      endMessage += "; " + spent + " (session: " + reports::usageSentence(stats_.usage, stats_.cost) + ")";
    finish(json{{"findings", shown.size()}, {"dismissed", dismissedCount}, {"verdict", verdict}});
  } catch (const Cancelled&) {
    if (job.cacheOnly) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.reviewsCancelled;
    }
    endMessage = "cancelled";
    finish(LspError(ErrorCode::RequestCancelled, "review cancelled"));
  } catch (const review::ProviderError& e) {
    if (job.cacheOnly) {  // e.g. a missing API key: the save says so
      std::lock_guard<std::mutex> lock(mu_);
      logMessage(MessageType::Log, std::string("cached review lookup: ") + e.what());
      return;
    }
    if (job.cancel.cancelled()) {  // the call failed because the review was cancelled
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.reviewsCancelled;
      endMessage = "cancelled";
      finish(LspError(ErrorCode::RequestCancelled, "review cancelled"));
    } else {
      const std::string message = std::string("revline: the review provider failed: ") + e.what() + failureHint(e);
      reportFailure(message);
      endMessage = "failed";
      finish(LspError(ErrorCode::RequestFailed, message));
    }
  } catch (const std::exception& e) {
    if (job.cacheOnly) {
      std::lock_guard<std::mutex> lock(mu_);
      logMessage(MessageType::Log, std::string("cached review lookup: ") + e.what());
      return;
    }
    const std::string message = std::string("revline: review of ") + what + " failed: " + e.what();
    reportFailure(message);
    endMessage = "failed";
    finish(LspError(ErrorCode::RequestFailed, message));
  }
  progress(json{{"kind", "end"}, {"message", endMessage}});
}

void Server::reportFailure(const std::string& message) {
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.providerFailures;
  logMessage(MessageType::Error, message);
  // A new failure is shown at once; the same one again after a minute (a
  // provider that stays down must not go quiet while old diagnostics stay).
  const auto now = options_.clock ? options_.clock() : Clock::now();
  if (message != lastFailureShown_ || now - lastFailureShownAt_ >= std::chrono::minutes(1)) {
    showMessage(MessageType::Error, message + (message == lastFailureShown_ ? " (still failing; the diagnostics shown are from the last successful review)" : ""));
    lastFailureShown_ = message;
    lastFailureShownAt_ = now;
  }
}

// ---------------------------------------------------------------- state helpers

int Server::debounceFor(const config::Config& c) const {
  if (c.debounceSet) return c.debounceMs;
  // A local review costs milliseconds: wait only long enough to coalesce a
  // "save all"; a remote model call is worth waiting a few hundred ms for.
  return (c.provider == "builtin" || c.provider == "replay") ? 5 : 300;
}

}  // namespace revline::lsp
