// Anthropic's Messages API: `POST {base_url}/v1/messages` with x-api-key and
// anthropic-version headers.
//
// Structured output (native): a tool named submit_review whose input_schema is
// the contract. With no repository tools offered, tool_choice forces it; with
// repository tools offered, tool_choice is {"type":"any"} so the model either
// explores or submits. The submit_review input, dumped as JSON, is the reply text.
// Prompt mode: no forced tool; the schema travels in the system prompt.
//
// Negotiated per endpoint and model, for the process's life: temperature 0 is
// sent (determinism) until the model rejects any temperature (Opus 4.7 and
// later), and max_tokens is lowered to the model's own cap when it rejects 8192
// (Claude 3 Haiku/Opus: 4096). Each costs one rejected call, once: the provider
// of a later review (the server makes one a save) starts adjusted.
#pragma once
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "core/config/config.h"
#include "core/providers/http_transport.h"
#include "core/providers/remote_common.h"
#include "core/providers/remote_provider.h"
#include "core/review/provider.h"

namespace revline::providers {

class AnthropicProvider : public RemoteProvider {
 public:
  static constexpr const char* kDefaultBaseUrl = "https://api.anthropic.com";
  static constexpr const char* kDefaultModel = "claude-sonnet-4-5";
  static constexpr const char* kDefaultKeyEnv = "ANTHROPIC_API_KEY";
  static constexpr const char* kApiVersion = "2023-06-01";

  // Throws ProviderError(Config) for a bad base URL or a missing key (non-loopback base URL).
  explicit AnthropicProvider(RemoteSettings settings);
  explicit AnthropicProvider(const config::Config& config) : AnthropicProvider(remoteSettings(config)) {}

  std::string name() const override { return "anthropic"; }

  // The wire format, exposed for tests.
  ojson buildRequest(const review::ModelRequest& request) const override;
  review::ModelResponse parseResponse(const json& body) const override;

 private:
  const char* path() const override;
  Headers headers() const override;
  std::string notFoundHint(const std::string& message) const override;
  bool adaptToRejection(const HttpResponse& response) override;

  // What the model accepts, as negotiated so far (by any provider of this
  // endpoint and model in the process). Later requests neither fail again nor
  // change the prefix the prompt cache holds.
  struct Accepted {
    bool temperature = true;
    std::optional<int> outputCap;  // the model's max_tokens limit, once it named one below ours
  };
  Accepted accepted_;
  void remember() const;  // accepted_, for the providers made after this one
  // By "<base url>\0<model>": what each provider starts from.
  static inline std::mutex negotiatedMu_;
  static inline std::map<std::string, Accepted> negotiated_;
};

}  // namespace revline::providers
