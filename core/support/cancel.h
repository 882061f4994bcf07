// A polled cancellation token shared between whoever starts work and the work.
// The work also tells it what it is waiting for (a retry after a model did not
// answer, a rate limit's wait), so whoever shows progress can say why a review
// takes long (the language server's $/progress, the terminal's line).
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

namespace revline {

class CancelToken {
 public:
  using NoticeListener = std::function<void(const std::string& what)>;
  CancelToken() : state_(std::make_shared<State>()) {}
  void cancel() const { state_->cancelled.store(true); }
  bool cancelled() const { return state_->cancelled.load(); }
  // Tells the listener, if any, what the work is waiting for ("" once the wait
  // is over). From any thread; one call at a time.
  void notice(const std::string& what) const {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->listener) state_->listener(what);
  }
  // Listens to notice() until listen({}) (which returns once no call of the
  // old listener is under way, so it may refer to what lives only until then).
  void listen(NoticeListener listener) const {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->listener = std::move(listener);
  }
 private:
  struct State {
    std::atomic<bool> cancelled{false};
    std::mutex mu;  // listener
    NoticeListener listener;
  };
  std::shared_ptr<State> state_;
};

// Listens to a token's notices for as long as it lives (CancelToken::listen,
// then listen({}) however the scope ends).
class NoticeListening {
 public:
  NoticeListening(const CancelToken& token, CancelToken::NoticeListener listener) : token_(token) {
    token_.listen(std::move(listener));
  }
  ~NoticeListening() { token_.listen({}); }
  NoticeListening(const NoticeListening&) = delete;
  NoticeListening& operator=(const NoticeListening&) = delete;
 private:
  const CancelToken& token_;
};

// The one way cancellation is reported, end to end: thrown by long-running
// work (the attempt loop, providers, HTTP calls and their back-off) that
// noticed its token was cancelled. Never a ProviderError: a cancelled review
// is not a failed one.
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled") {}
  explicit Cancelled(const std::string& what) : std::runtime_error(what) {}
  // Of a model call cancelled, the requests it sent that may be billed (none
  // answered), when the thrower knows: 0 while waiting out a refusal's
  // Retry-After, which no provider bills. Unset: one, in flight.
  std::optional<int> sentUnanswered;
};

}  // namespace revline
