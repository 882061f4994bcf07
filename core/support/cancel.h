// A polled cancellation token shared between whoever starts work and the work.
#pragma once
#include <atomic>
#include <memory>
#include <stdexcept>

namespace revline {

class CancelToken {
 public:
  CancelToken() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
  void cancel() const { flag_->store(true); }
  bool cancelled() const { return flag_->load(); }
 private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

// Thrown by long-running work that noticed its token was cancelled.
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled") {}
};

}  // namespace revline
