// Ollama's native chat API: `POST {base_url}/api/chat` with stream:false.
//
// Structured output (native): `format` = the contract schema. A format constraint
// leaves no room for tool calls, so while repository tools can be called the schema
// travels in the system prompt only, and `format` is added once the tool budget is
// spent (the final answer), with `think: false` (a thinking model would put
// its whole output in message.thinking; a model without thinking that refuses
// the field is sent the request again without it). Prompt mode never sends `format`.
// Context window: `options.num_ctx` is sized from the request's max_input_tokens and
// the answer's cap, RemoteSettings::maxOutputTokens (Ollama would otherwise cut a
// long prompt from the front).
// Token counts come from prompt_eval_count / eval_count.
#pragma once
#include <mutex>
#include <set>
#include <string>

#include "core/config/config.h"
#include "core/providers/http_transport.h"
#include "core/providers/remote_common.h"
#include "core/providers/remote_provider.h"
#include "core/review/provider.h"

namespace revline::providers {

class OllamaProvider : public RemoteProvider {
 public:
  static constexpr const char* kDefaultBaseUrl = "http://127.0.0.1:11434";
  static constexpr const char* kDefaultModel = "qwen2.5-coder:7b";
  // Ollama needs no key; one is sent as a bearer token when this variable is set
  // (for an Ollama behind an authenticating proxy).
  static constexpr const char* kDefaultKeyEnv = "OLLAMA_API_KEY";

  // Throws ProviderError(Config) for a bad base URL. No key is ever required.
  explicit OllamaProvider(RemoteSettings settings);
  explicit OllamaProvider(const config::Config& config) : OllamaProvider(remoteSettings(config)) {}

  std::string name() const override { return "ollama"; }

  // The wire format, exposed for tests.
  ojson buildRequest(const review::ModelRequest& request) const override;
  review::ModelResponse parseResponse(const json& body) const override;

 private:
  const char* path() const override;
  Headers headers() const override;
  std::string notFoundHint(const std::string& message) const override;
  bool adaptToRejection(const HttpResponse& response) override;

  // `think: false` goes with `format` until the model refuses it (a model without
  // thinking, on a recent Ollama); models that refused it, by "<base url>\0<model>".
  bool thinkingOff_ = true;
  static inline std::mutex negotiatedMu_;
  static inline std::set<std::string> withoutThinking_;
  // Servers (by base URL) that refused a JSON schema in `format`: Ollama before
  // 0.5 takes only "json" there. Their requests carry the schema in the prompt alone.
  static inline std::set<std::string> noSchemaFormat_;
};

}  // namespace revline::providers
