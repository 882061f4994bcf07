// Wraps the provider of one eval review: counts the model requests and, for
// --record, keeps every response so the review can be written as a replay
// cassette (../shared/design/cli.md "Replay cassettes") and replayed in CI.
#pragma once
#include <memory>

#include "core/review/delegating_provider.h"
#include "core/support/json.h"

namespace revline::eval {

// What one review sent and got; owned by the caller, so it outlives the
// provider (which the review session destroys when the review ends).
struct Recording {
  int requests = 0;
  json interactions = json::array();
  // The responses, as a cassette the replay provider serves back identically.
  json cassette() const { return {{"interactions", interactions}}; }
};

class MeteredProvider : public review::DelegatingProvider {
 public:
  MeteredProvider(std::unique_ptr<review::Provider> inner, Recording& recording)
      : DelegatingProvider(std::move(inner)), recording_(recording) {}
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken& cancel) override;

 private:
  Recording& recording_;
};

}  // namespace revline::eval
