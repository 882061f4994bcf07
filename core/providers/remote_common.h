// What the remote providers (openai, anthropic, ollama) share: their settings,
// the API key lookup, the mapping of HTTP failures to actionable ProviderErrors,
// and the format instructions used when the schema travels in the prompt.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/config/config.h"
#include "core/providers/http_transport.h"
#include "core/review/provider.h"

namespace revline::providers {

struct RemoteSettings {
  std::string model;      // empty: the provider's default model
  std::string baseUrl;    // empty: the provider's default base URL
  std::string apiKeyEnv;  // empty: the provider's default variable
  config::StructuredOutput structuredOutput = config::StructuredOutput::Native;
  int maxOutputTokens = 8192;  // Anthropic requires one; others leave the server default
  TransportOptions transport;  // timeouts, retries, injectable sleep/random/env
  // Reads the API key variable; empty: the process environment (tests inject one).
  std::function<std::optional<std::string>(const std::string& name)> getenv;
};

// The settings a configuration asks for (model, base URL, key variable, structured
// output mode, connect/read timeouts).
RemoteSettings remoteSettings(const config::Config& config);

// Resolved once per provider: the base URL, the model and the key.
struct Endpoint {
  std::string provider;   // "openai", ...
  BaseUrl base;
  std::string model;
  std::string apiKeyEnv;  // the variable named in messages
  std::string apiKey;     // "" when none is needed (loopback) or set
};

// Throws ProviderError(Config) for a bad base URL, or a missing key when the base
// URL is not loopback (the message names the variable and how to set it).
Endpoint resolveEndpoint(const std::string& provider, const RemoteSettings& settings, const std::string& defaultBaseUrl,
                         const std::string& defaultModel, const std::string& defaultKeyEnv, bool keyRequired = true);

// `e` with a trailing "/v1" removed from its base path (for APIs whose paths
// are not under the OpenAI-style /v1 a user may have copied).
Endpoint withoutTrailingV1(Endpoint e);

// A token count from a provider's usage object: a whole number from 0 to 10^12;
// anything else (absent, negative, fractional, 1e300) is 0, so that summing the
// counts of a review can neither overflow nor go negative. A count present but
// not such a number sets `*unreadable` (the reply's figures are then low).
std::int64_t tokenCount(const json& usage, const char* key, bool* unreadable = nullptr);

// The string `object[key]`; "" when `object` is no object or the field is absent
// or of another type (a reply's `"name": null` is no crash, and names nothing).
std::string stringField(const json& object, const char* key);

// The provider's own error text from an error body: OpenAI/Anthropic/llama.cpp
// {"error":{"message"}}, Ollama {"error":"..."}, vLLM {"message"}; else the body, cut.
std::string providerErrorMessage(const std::string& body);

// The error's error.code, else error.type, where the provider gives one
// ("insufficient_quota", "invalid_request_error"); else "".
std::string providerErrorCode(const std::string& body);

// `text` in ASCII lower case (provider messages are matched without regard to case).
std::string lowered(std::string text);

// A refusal for size: OpenAI's code (context_length_exceeded), or the words of
// OpenAI, Anthropic, vLLM, llama.cpp, xAI ("maximum prompt length"), Gemini
// ("The input token count (N) exceeds the maximum number of tokens allowed")
// and Hugging Face TGI ("`inputs` tokens + `max_new_tokens` must be <= N").
bool overContextWindow(const std::string& code, const std::string& message);

// OpenRouter's 404 "No endpoints found that can handle the requested
// parameters": the model exists, but none of its providers takes every
// parameter of the request (json_schema output, tools, or a setting that
// requires providers to take them all).
bool refusesRequestedParameters(const std::string& body);

// Turns a non-2xx response into the ProviderError the user sees. `path` is the
// endpoint path ("/chat/completions"); `hint404` is appended to a 404 message.
[[noreturn]] void throwHttpError(const Endpoint& endpoint, const std::string& path, const HttpResponse& response,
                                 const std::string& hint404 = "");

// Parses a 2xx body as JSON, or throws ProviderError(Protocol) naming the URL.
// `text` with every occurrence of `apiKey`, and every piece of it of
// kKeyPieceChars or more (an excerpt cut inside it), replaced by
// "[REDACTED:api-key]": a gateway may quote the key it was given ("Received API
// Key = sk-..."), and an error quotes the start of a reply body.
inline constexpr std::size_t kKeyPieceChars = 12;
std::string withoutKey(std::string text, const std::string& apiKey);

// A tool call's arguments sent as JSON text: the value, or the text itself (a
// JSON string, which the executor reports to the model) when it is not JSON or
// nests deeper than any tool's arguments (jsonNesting: such a value would
// overflow the stack when copied or printed).
json toolArguments(const std::string& text);

// A reply whose JSON object ends before it is closed, its HTTP framing whole
// (the server, or a proxy in between, cut it short): what a body shorter than
// its Content-Length is, which the transport tries again; the provider does too.
class ReplyCutShort : public review::ProviderError {
 public:
  explicit ReplyCutShort(const std::string& message) : ProviderError(Kind::Protocol, message) {}
};

json parseJsonBody(const Endpoint& endpoint, const std::string& path, const HttpResponse& response);

using ojson = nlohmann::ordered_json;

// A tool call's arguments as the wire carries them in a later request: the
// text the model sent when it was not JSON, else the value written out.
std::string argumentsText(const json& arguments);

// A tool's result as the model reads it: its content, or "ERROR: " and the
// executor's reason when the call was refused.
std::string toolResultText(const review::ToolResult& result);

// Tools in the OpenAI function-calling shape (also what Ollama's /api/chat takes):
// [{"type": "function", "function": {name, description, parameters}}].
ojson functionTools(const std::vector<review::ToolSpec>& tools);

// The finish of an answer from how it ended, in this order: the refusal it
// holds (out.refusal), a content filter that stopped it (`filterSaid`, the
// field and value that say so; empty: none), cut off at the output limit
// (`cutOff`), tool calls, done. Refused, filtered or cut off, its tool calls
// go: a cut-off call has cut-off arguments.
void settleFinish(review::ModelResponse& out, bool cutOff, const std::string& filterSaid);

// The name of the forced tool / json_schema that carries the review.
inline constexpr const char* kReportName = "submit_review";

}  // namespace revline::providers
