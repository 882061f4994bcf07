#include "core/session/spend_meter.h"

#include <utility>

#include "core/review/delegating_provider.h"
#include "core/support/cancel.h"

namespace revline::session {
namespace {

class SpendMeteringProvider : public review::DelegatingProvider {
 public:
  SpendMeteringProvider(std::unique_ptr<review::Provider> inner, SpendMeter& meter)
      : DelegatingProvider(std::move(inner)), meter_(meter) {}
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken& cancel) override {
    const bool sent = !cancel.cancelled();  // else the provider stops before sending
    review::ModelResponse response;
    try {
      response = inner_->complete(request, cancel);
    } catch (const Cancelled& c) {
      // Cancelled while the model was answering: sent, so maybe billed; no answer said how many
      // tokens, so the totals are low (said, as for an answer without counts). Cancelled while
      // waiting to try again after a refusal (429): what the provider refused is not billed.
      const int maybeBilled = c.sentUnanswered.value_or(1);
      if (sent && maybeBilled > 0)
        meter_.add(review::Usage{.requests = maybeBilled, .unreportedRequests = inner_->metered() ? maybeBilled : 0});
      throw;
    } catch (const review::ProviderError& e) {
      // Tries sent and given up on (no reply in time): as a cancelled one, maybe billed, counts unknown.
      if (e.unanswered() > 0) meter_.add(review::Usage{.requests = e.unanswered(), .unreportedRequests = e.unanswered()});
      throw;
    }
    review::Usage used = response.usage;
    used.requests = 1 + response.unanswered;
    used.unreportedRequests = (inner_->metered() && response.countsMissing() ? 1 : 0) + response.unanswered;
    meter_.add(used);
    return response;
  }

 private:
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
    return std::make_unique<SpendMeteringProvider>(std::move(inner), meter);
  };
}

}  // namespace revline::session
