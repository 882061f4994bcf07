// The HTTP transport shared by the remote providers: one JSON POST with
// transport-level retries (connection errors, timeouts, 408/409/429/5xx with
// exponential backoff, jitter and retry-after), proxies from the environment,
// and prompt cancellation. It knows nothing about any provider's wire format;
// the providers turn its responses into ModelResponse or ProviderError.
//
// Transport retries are separate from the contract retries of the attempt loop:
// a 429 or a 503 never counts as a model answer.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/review/provider.h"
#include "core/support/cancel.h"

namespace revline::providers {

// A parsed base URL: "https://api.openai.com/v1" -> {https, api.openai.com, 443, "/v1"}.
struct BaseUrl {
  std::string scheme;    // "http" or "https"
  std::string host;      // without brackets for IPv6 literals
  int port = 0;
  std::string basePath;  // no trailing slash; "" for the root

  // Throws review::ProviderError(Kind::Config) naming `url` when it is not http(s)://host[:port][/path].
  static BaseUrl parse(const std::string& url);
  std::string origin() const;  // "https://api.openai.com" (port only when not the scheme's default)
  std::string str() const;     // origin() + basePath
  bool loopback() const;       // localhost, 127.0.0.0/8, ::1
};

// For a URL of Azure OpenAI (a host under openai.azure.com, cognitiveservices.azure.com
// or services.ai.azure.com, or an /openai/deployments/ path): how revline reaches it,
// through Azure's v1 API; "" for any other URL.
std::string azureOpenAiHint(const std::string& url);

// True for localhost, 127.0.0.0/8 and ::1 (the only hosts revline treats as local).
bool isLoopbackHost(const std::string& host);

// Sleeps for `duration` unless `cancel` fires first (then returns early).
using SleepFn = std::function<void(std::chrono::milliseconds duration, const CancelToken& cancel)>;
void sleepCancellable(std::chrono::milliseconds duration, const CancelToken& cancel);

// The longest wait a retry-after header is read as (1 hour): larger values,
// however written, are clamped to it (and, above maxRetryAfter, reported, not waited for).
inline constexpr std::chrono::milliseconds kMaxRetryAfter{std::chrono::hours(1)};

struct TransportOptions {
  std::chrono::milliseconds connectTimeout{std::chrono::seconds(10)};
  std::chrono::milliseconds readTimeout{std::chrono::seconds(120)};  // the whole reply, from connect to last byte
  int maxRetries = 2;                                        // retries after the first try
  std::chrono::milliseconds initialBackoff{500};             // doubled per retry
  std::chrono::milliseconds maxBackoff{std::chrono::seconds(8)};
  std::chrono::milliseconds maxRetryAfter{std::chrono::seconds(60)};  // a longer retry-after is not waited for
  SleepFn sleep;                                             // empty: sleepCancellable (tests inject a recorder)
  std::function<double()> random;                            // [0,1) for the jitter; empty: a seeded PRNG
  // Proxy environment: empty function reads the process environment (HTTPS_PROXY, NO_PROXY, ...).
  std::function<std::optional<std::string>(const std::string& name)> getenv;
};

struct HttpResponse {
  int status = 0;
  std::multimap<std::string, std::string> headers;  // names lower-cased
  std::string body;
  int retries = 0;     // transport retries spent on this call
  int unanswered = 0;  // of its tries, those sent and given up without an answer (ModelResponse::unanswered)
  std::string header(const std::string& lowerName) const;
};

// The delay a response asks for through retry-after-ms / retry-after (seconds or an
// HTTP date), or in a Google error body's RetryInfo ("retryDelay": "39s"), if any.
// `now` is injectable for tests.
std::optional<std::chrono::milliseconds> retryAfter(
    const HttpResponse& response,
    std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

// A failure the server's own words say waiting does not fix, though its status
// (500, 429) says "try again": llama.cpp answers 500 for a request over its
// context, for `tools` without --jinja and for json_schema on older builds;
// Ollama 500 for a model larger than the memory; Anthropic 429 for a spend limit.
enum class LastingFailure { None, OverContext, NoTools, NoSchema, OutOfMemory, SpendLimit };
LastingFailure lastingFailure(int status, const std::string& body);

// A server still loading its model (llama.cpp's 503 "Loading model", with no
// Retry-After): waited for, every few seconds up to read_timeout_ms in all.
bool modelLoading(int status, const std::string& body);

// True when the status is worth another try (408, 409, 429 except insufficient_quota and
// "Request too large", 5xx), and the body names no LastingFailure.
bool retryableStatus(int status, const std::string& body);

// The HTTP status a body that is an error object names (`{"error": {"code": 502,
// ...}}`, 400 to 599), as a gateway sends it with a 200 when its upstream failed
// after the reply had begun; 0 for any other body.
int embeddedErrorStatus(const std::string& body);

// A reply whose choice failed (OpenRouter, once its upstream had begun:
// `"choices": [{"finish_reason": "error", "error": {"code": 502, "message":
// ...}}]`): that status (502 when the error names none) and the error as an
// error body (`{"error": {...}}`), read then as any error reply; nullopt for any
// other body.
struct ChoiceError {
  int status = 0;
  std::string body;
};
std::optional<ChoiceError> errorInAChoice(const std::string& body);

// `url` as an error may repeat it: no user:password (or token) before the host,
// no query (`?api-key=...`).
std::string withoutCredentials(const std::string& url);

class HttpTransport {
 public:
  // `providerName` only labels error messages ("openai: cannot connect to ...").
  HttpTransport(std::string providerName, BaseUrl base, TransportOptions options = {});
  ~HttpTransport();

  // POSTs `body` (JSON) to base.basePath + path. Returns the last response for any HTTP
  // status once retries are exhausted or the status is not retryable (the caller maps
  // statuses to errors). Throws ProviderError: Network / Timeout after the retries,
  // Cancelled when `cancel` fires (also during a backoff sleep).
  HttpResponse postJson(const std::string& path, const std::vector<std::pair<std::string, std::string>>& headers,
                        const std::string& body, const CancelToken& cancel);

  const BaseUrl& base() const { return base_; }
  // The proxy in use ("" for none), for diagnostics and tests.
  std::string proxy() const;

 private:
  struct Attempt;
  // With a proxy to an https base URL: asks the proxy for the tunnel first, on
  // a connection of its own, and throws ProviderError when it refuses. The
  // system's cpp-httplib (0.11) deadlocks on a refusal that closes the
  // connection (its CONNECT takes a lock its send holds): no timeout or
  // cancellation could end the call.
  void checkProxyTunnel(const CancelToken& cancel) const;
  Attempt sendOnce(const std::string& path, const std::vector<std::pair<std::string, std::string>>& headers,
                   const std::string& body, const CancelToken& cancel);
  std::chrono::milliseconds backoff(int retry);

  std::string providerName_;
  BaseUrl base_;
  TransportOptions options_;
  std::optional<BaseUrl> proxy_;
  std::optional<std::pair<std::string, std::string>> proxyAuth_;
  std::function<double()> random_;
};

}  // namespace revline::providers
