// Any OpenAI-compatible `POST {base_url}/chat/completions` endpoint: OpenAI,
// Ollama's /v1, llama.cpp's server, vLLM, LM Studio, OpenRouter.
//
// A model OpenAI serves only through its Responses API (o1-pro, o3-pro, the
// codex models) is sent there instead, once the server says so: the same
// review, in that API's wire format (openai_responses.h), remembered per
// process, base URL and model.
//
// Structured output: `native` sends response_format json_schema with strict:true;
// `prompt` (for servers without json_schema) appends the schema and format
// instructions to the system prompt. A server that refuses json_schema output
// (Gemini 2.x with tools, DeepSeek) is negotiated down to `prompt`, once per
// process and model, with a warning. Either way the reply text goes through the
// same reply parser in the attempt loop.
#pragma once
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "core/config/config.h"
#include "core/providers/http_transport.h"
#include "core/providers/remote_common.h"
#include "core/providers/remote_provider.h"
#include "core/review/provider.h"

namespace revline::providers {

class OpenAiProvider : public RemoteProvider {
 public:
  static constexpr const char* kDefaultBaseUrl = "https://api.openai.com/v1";
  static constexpr const char* kDefaultModel = "gpt-4.1-mini";
  static constexpr const char* kDefaultKeyEnv = "OPENAI_API_KEY";

  // Throws ProviderError(Config) for a bad base URL or a missing key (non-loopback base URL).
  explicit OpenAiProvider(RemoteSettings settings);
  explicit OpenAiProvider(const config::Config& config) : OpenAiProvider(remoteSettings(config)) {}

  std::string name() const override { return "openai"; }

  // The wire format, exposed for tests.
  ojson buildRequest(const review::ModelRequest& request) const override;
  review::ModelResponse parseResponse(const json& body) const override;

 private:
  const char* path() const override;
  Headers headers() const override;
  std::string notFoundHint(const std::string& message) const override;
  bool adaptToRejection(const HttpResponse& response) override;
  std::optional<review::ModelResponse> answerInRejection(const HttpResponse& response) const override;

  // Servers that refused json_schema output (Gemini 2.x with tools, DeepSeek), by
  // "<base url>\0<model>": later providers of the process start in prompt mode.
  static inline std::mutex promptModeMu_;
  static inline std::set<std::string> promptMode_;
  // Models served only through the Responses API, likewise (under promptModeMu_).
  static inline std::set<std::string> responsesOnly_;
  // Responses endpoints that refused the reasoning sent back (under promptModeMu_).
  static inline std::set<std::string> noReasoningEcho_;
  bool responses_ = false;      // this provider speaks the Responses API
  bool reasoningEcho_ = true;   // ...and sends a tool round's reasoning back
};

}  // namespace revline::providers
