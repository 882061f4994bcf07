// The one shape of the HTTP providers (openai, anthropic, ollama): settings
// and endpoint resolved once, one POST of the request in the provider's wire
// format, an HTTP failure turned into an actionable ProviderError, the body
// parsed back. A subclass gives only what differs: the wire format, the path,
// the headers, what to say about a 404, which rejections it can negotiate
// away (a parameter the model does not take) by sending the request again, and
// which carry the model's answer.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/providers/http_transport.h"
#include "core/providers/remote_common.h"
#include "core/review/provider.h"

namespace revline::providers {

class RemoteProvider : public review::Provider {
 public:
  std::string model() const override { return endpoint_.model; }
  bool remote() const override { return !endpoint_.base.loopback(); }
  bool metered() const override { return true; }
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken& cancel) final;
  // The key sent with each request ("" when none): redacted from what is sent (factory.cpp).
  const std::string& apiKey() const { return endpoint_.apiKey; }

  // The wire format, exposed for tests.
  virtual ojson buildRequest(const review::ModelRequest& request) const = 0;
  virtual review::ModelResponse parseResponse(const json& body) const = 0;

 protected:
  using Headers = std::vector<std::pair<std::string, std::string>>;
  // `resolve` turns the settings into the endpoint (throws ProviderError(Config)).
  RemoteProvider(RemoteSettings settings, const std::function<Endpoint(const RemoteSettings&)>& resolve);

  virtual const char* path() const = 0;   // e.g. "/chat/completions"
  virtual Headers headers() const = 0;    // the key's header and any version header
  // What to check after a 404 whose error message is `message` (a route or a model missing).
  virtual std::string notFoundHint(const std::string& message) const = 0;
  // A rejection of something the model does not support (a parameter, a limit)
  // that this provider can negotiate away: adjust what buildRequest sends from
  // now on and return true to have the same request sent again. Each adjustment
  // must be made at most once per provider, so the resending ends. The default
  // makes none.
  virtual bool adaptToRejection(const HttpResponse& response);
  // A rejection that carries the model's own answer, refused by the server's
  // check of it (Groq's 400 json_validate_failed with `failed_generation`): that
  // answer, to go through the contract checks and their retry as any broken
  // answer does. The default: none.
  virtual std::optional<review::ModelResponse> answerInRejection(const HttpResponse& response) const;

  // Said with the next answer (ModelResponse::notes): what adaptToRejection changed.
  std::vector<std::string> notes_;

  RemoteSettings settings_;
  Endpoint endpoint_;
  HttpTransport transport_;
};

}  // namespace revline::providers
