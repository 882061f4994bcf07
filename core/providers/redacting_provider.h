// A Provider decorator that removes secrets from everything sent to a remote
// model: the system prompt, user turns (the diff, feedback), assistant turns
// resent as history, tool-call arguments and tool results. Each secret found by
// the builtin reviewer's secret rules (core/builtin/secrets.h) becomes
// "[REDACTED:<kind>]", and so is the API key the provider sends (a repository
// that holds it, a CI log pasted in, must not show it to the model). A provider
// whose base URL is loopback is passed through untouched: the text does not
// leave the machine.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/review/provider.h"

namespace revline::providers {

class RedactingProvider : public review::Provider {
 public:
  using Redactor = std::function<std::string(std::string_view)>;

  // `redactor` defaults to builtin::redactSecrets; `apiKey` is the key `inner`
  // sends (redacted too, and any 12 characters of it in a row, when it reads as
  // random: 20 characters or more of mixed kinds, as every real key is).
  explicit RedactingProvider(std::unique_ptr<review::Provider> inner, Redactor redactor = {}, std::string apiKey = {});

  std::string name() const override { return inner_->name(); }
  std::string model() const override { return inner_->model(); }
  bool remote() const override { return inner_->remote(); }
  bool metered() const override { return inner_->metered(); }
  bool appliesSuppressions() const override { return inner_->appliesSuppressions(); }
  // builtin::findSecrets, for redaction at the source (runReview).
  review::SecretFinder secretFinder() const override;
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken& cancel) override;

  // The request as it would leave the machine (identity when the inner provider is local).
  review::ModelRequest redact(const review::ModelRequest& request) const;
  review::Provider& inner() { return *inner_; }

 private:
  std::string redacted(std::string_view text) const;

  std::unique_ptr<review::Provider> inner_;
  Redactor redactor_;
  std::string apiKey_;
};

// Wraps `provider` in a RedactingProvider when it is remote; returns it unchanged otherwise.
std::unique_ptr<review::Provider> redactIfRemote(std::unique_ptr<review::Provider> provider, std::string apiKey = {});

}  // namespace revline::providers
