// The base of a provider that wraps another to watch its calls (meter, count,
// record): everything but complete() is the inner provider's, so a wrapper
// never changes the name, the model, whether text leaves the machine, or how
// secrets are found (runReview redacts at the source through secretFinder()).
#pragma once
#include <memory>
#include <string>
#include <utility>

#include "core/review/provider.h"

namespace revline::review {

class DelegatingProvider : public Provider {
 public:
  explicit DelegatingProvider(std::unique_ptr<Provider> inner) : inner_(std::move(inner)) {}
  std::string name() const override { return inner_->name(); }
  std::string model() const override { return inner_->model(); }
  bool remote() const override { return inner_->remote(); }
  bool metered() const override { return inner_->metered(); }
  SecretFinder secretFinder() const override { return inner_->secretFinder(); }
  bool appliesSuppressions() const override { return inner_->appliesSuppressions(); }
  ModelResponse complete(const ModelRequest& request, const CancelToken& cancel) override {
    return inner_->complete(request, cancel);
  }

 protected:
  std::unique_ptr<Provider> inner_;
};

}  // namespace revline::review
