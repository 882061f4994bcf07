// A polled cancellation token shared between whoever starts work and the work.
#pragma once
#include <atomic>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace revline {

class CancelToken {
 public:
  CancelToken() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
  void cancel() const { flag_->store(true); }
  bool cancelled() const { return flag_->load(); }
 private:
  std::shared_ptr<std::atomic<bool>> flag_;
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
