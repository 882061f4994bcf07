// Anthropic's Messages API: `POST {base_url}/v1/messages` with x-api-key and
// anthropic-version headers.
//
// Structured output (native): a tool named submit_review whose input_schema is
// the contract. With no repository tools offered, tool_choice forces it; with
// repository tools offered, tool_choice is {"type":"any"} so the model either
// explores or submits. The submit_review input, dumped as JSON, is the reply text.
// Prompt mode: no forced tool; the schema travels in the system prompt.
#pragma once
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
  std::string notFoundHint() const override;
};

}  // namespace revline::providers
