#include "core/session/spend_meter.h"

#include <utility>

namespace revline::session {
namespace {

class MeteredProvider : public review::Provider {
 public:
  MeteredProvider(std::unique_ptr<review::Provider> inner, SpendMeter& meter)
      : inner_(std::move(inner)), meter_(meter) {}
  std::string name() const override { return inner_->name(); }
  std::string model() const override { return inner_->model(); }
  bool remote() const override { return inner_->remote(); }
  review::SecretFinder secretFinder() const override { return inner_->secretFinder(); }
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken& cancel) override {
    review::ModelResponse response = inner_->complete(request, cancel);
    review::Usage used = response.usage;
    used.requests = 1;
    meter_.add(used);
    return response;
  }

 private:
  std::unique_ptr<review::Provider> inner_;
  SpendMeter& meter_;
};

}  // namespace

void SpendMeter::add(const review::Usage& usage) {
  std::lock_guard<std::mutex> lock(mu_);
  usage_ += usage;
}

review::Usage SpendMeter::total() const {
  std::lock_guard<std::mutex> lock(mu_);
  return usage_;
}

ProviderWrapper meteredBy(SpendMeter& meter) {
  return [&meter](std::unique_ptr<review::Provider> inner) -> std::unique_ptr<review::Provider> {
    return std::make_unique<MeteredProvider>(std::move(inner), meter);
  };
}

}  // namespace revline::session
