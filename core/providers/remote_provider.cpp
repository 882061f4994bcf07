#include "core/providers/remote_provider.h"

#include <utility>

namespace revline::providers {

RemoteProvider::RemoteProvider(RemoteSettings settings, const std::function<Endpoint(const RemoteSettings&)>& resolve)
    : settings_(std::move(settings)),
      endpoint_(resolve(settings_)),
      transport_(endpoint_.provider, endpoint_.base, settings_.transport) {}

bool RemoteProvider::adaptToRejection(const HttpResponse&) { return false; }

std::optional<review::ModelResponse> RemoteProvider::answerInRejection(const HttpResponse&) const { return std::nullopt; }

namespace {

// Every string of a reply with the key taken out (withoutKey): a gateway that
// echoes the request's headers into the answer would otherwise have the key
// printed in the report, or posted on a pull request.
json withoutKeyInStrings(json value, const std::string& apiKey) {
  if (apiKey.size() < 4) return value;
  std::vector<json*> pending{&value};
  while (!pending.empty()) {
    json* v = pending.back();
    pending.pop_back();
    if (v->is_string()) *v = withoutKey(v->get<std::string>(), apiKey);
    else if (v->is_structured())
      for (auto& child : *v) pending.push_back(&child);
  }
  return value;
}

}  // namespace

review::ModelResponse RemoteProvider::complete(const review::ModelRequest& request, const CancelToken& cancel) {
  const auto post = [&] {
    const std::string payload = buildRequest(request).dump(-1, ' ', false, json::error_handler_t::replace);
    return transport_.postJson(path(), headers(), payload, cancel);
  };
  const auto failed = [](const HttpResponse& r) { return r.status < 200 || r.status >= 300; };
  int unanswered = 0;  // over every post: tries sent and given up without an answer
  // "trying again" said while a reply cut short is asked for again; cleared however that ends.
  struct WaitNotice {
    const CancelToken& cancel;
    bool said = false;
    ~WaitNotice() {
      if (said) cancel.notice("");
    }
  } waiting{cancel};
  try {
    for (int cutShort = 0;; ++cutShort) {
      HttpResponse res = post();
      unanswered += res.unanswered;
      // Capability negotiation, not a retry: the rejected call was not answered, so
      // the caller sees one call (one attempt, the answer's usage only).
      while (failed(res) && adaptToRejection(res)) {
        res = post();
        unanswered += res.unanswered;
      }
      if (failed(res)) {
        if (std::optional<review::ModelResponse> answer = answerInRejection(res)) {
          answer->unanswered = unanswered;
          for (std::string& note : std::exchange(notes_, {})) answer->notes.push_back(std::move(note));
          return std::move(*answer);
        }
        throwHttpError(endpoint_, path(), res, notFoundHint(providerErrorMessage(res.body)));
      }
      // A success whose body cannot be read (HTML from a proxy, no `choices`, bytes
      // that are not UTF-8) was still answered, and maybe billed: it counts as a
      // request whose tokens are unknown in what the failure spent.
      ++unanswered;
      json body;
      try {
        body = parseJsonBody(endpoint_, path(), res);
      } catch (const ReplyCutShort&) {  // tried once more, as the transport tries a body cut below its length
        if (cutShort > 0) throw;
        cancel.notice(endpoint_.provider + ": the reply was cut short; trying again");
        waiting.said = true;
        continue;
      }
      review::ModelResponse response = parseResponse(withoutKeyInStrings(body, endpoint_.apiKey));
      response.unanswered = unanswered - 1;
      response.notes = std::exchange(notes_, {});
      response.schemaOnlyInPrompt = settings_.structuredOutput == config::StructuredOutput::Prompt;
      return response;
    }
  } catch (review::ProviderError& e) {
    e.setUnanswered(e.unanswered() + unanswered);
    // A gateway may quote the key it was given ("Received API Key = sk-...", as
    // LiteLLM does) in what the error repeats from its reply: never shown.
    std::string message = withoutKey(e.what(), endpoint_.apiKey);
    if (message == e.what()) throw;
    review::ProviderError scrubbed(e.kind(), message);
    scrubbed.setUnanswered(e.unanswered());
    throw scrubbed;
  }
}

}  // namespace revline::providers
