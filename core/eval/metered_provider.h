// Wraps the provider of one eval review: counts the model requests and, for
// --record, keeps every response so the review can be written as a replay
// cassette (../shared/design/cli.md "Replay cassettes") and replayed in CI.
#pragma once
#include <memory>

#include "core/review/provider.h"
#include "core/support/json.h"

namespace revline::eval {

class MeteredProvider : public review::Provider {
 public:
  explicit MeteredProvider(std::unique_ptr<review::Provider> inner) : inner_(std::move(inner)) {}

  std::string name() const override { return inner_->name(); }
  std::string model() const override { return inner_->model(); }
  bool remote() const override { return inner_->remote(); }
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken& cancel) override;

  int requests() const { return requests_; }
  // The responses so far, as a cassette the replay provider serves back identically.
  json cassette() const;

 private:
  std::unique_ptr<review::Provider> inner_;
  int requests_ = 0;
  json interactions_ = json::array();
};

}  // namespace revline::eval
