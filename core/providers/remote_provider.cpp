#include "core/providers/remote_provider.h"

namespace revline::providers {

RemoteProvider::RemoteProvider(RemoteSettings settings, const std::function<Endpoint(const RemoteSettings&)>& resolve)
    : settings_(std::move(settings)),
      endpoint_(resolve(settings_)),
      transport_(endpoint_.provider, endpoint_.base, settings_.transport) {}

void RemoteProvider::explainFailure(const review::ProviderError&, const HttpResponse&) const {}

review::ModelResponse RemoteProvider::complete(const review::ModelRequest& request, const CancelToken& cancel) {
  const std::string payload = buildRequest(request).dump(-1, ' ', false, json::error_handler_t::replace);
  const HttpResponse res = transport_.postJson(path(), headers(), payload, cancel);
  if (res.status < 200 || res.status >= 300) {
    try {
      throwHttpError(endpoint_, path(), res, notFoundHint());
    } catch (const review::ProviderError& e) {
      explainFailure(e, res);
      throw;
    }
  }
  return parseResponse(parseJsonBody(endpoint_, path(), res));
}

}  // namespace revline::providers
