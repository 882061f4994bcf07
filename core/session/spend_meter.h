// What a review's model calls consumed, counted as they are answered, so it is
// known even when the review then fails or is cancelled (a failed review is
// still paid for): the server adds it to its session totals, the CLI prints it.
// A call cancelled while the model was answering counts as a request with no
// tokens: it was sent, and no answer said what it used.
#pragma once
#include <memory>
#include <mutex>

#include "core/review/provider.h"
#include "core/session/review_service.h"

namespace revline::session {

// Thread-safe: the requests of a split review run in parallel.
class SpendMeter {
 public:
  void add(const review::Usage& usage);
  review::Usage total() const;  // requests and tokens; tool calls are the outcome's to count

 private:
  mutable std::mutex mu_;
  review::Usage usage_;
};

// A ProviderWrapper that adds every answered call's usage (and one request) to
// `meter`, which must outlive the review.
ProviderWrapper meteredBy(SpendMeter& meter);

}  // namespace revline::session
