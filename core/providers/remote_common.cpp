#include "core/providers/remote_common.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "core/contract/schema.h"

namespace revline::providers {

using review::ProviderError;
using Kind = review::ProviderError::Kind;

namespace {

// The first invalid UTF-8 byte's offset, or npos.
std::size_t invalidUtf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || (n == 2 && c < 0xC2) || i + n > s.size()) return i;
    for (std::size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return i;
    }
    i += n;
  }
  return std::string_view::npos;
}

// At most `n` bytes of a reply for a message: control characters and bytes that
// are not UTF-8 are shown as \xNN, never written raw to a terminal.
std::string cut(const std::string& s, std::size_t n) {
  std::string t;
  const std::string_view view(s.data(), std::min(s.size(), n));
  for (std::size_t i = 0; i < view.size();) {
    const auto c = static_cast<unsigned char>(view[i]);
    if (c == '\n' || c == '\r' || c == '\t') {
      t += ' ';
      ++i;
      continue;
    }
    const std::size_t bad = invalidUtf8(view.substr(i, c < 0x80 ? 1 : std::min<std::size_t>(4, view.size() - i)));
    if (c < 0x20 || c == 0x7f || (c >= 0x80 && bad == 0)) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      t += buf;
      ++i;
      continue;
    }
    const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : 4;
    t.append(view.substr(i, len));
    i += len;
  }
  return s.size() <= n ? t : t + "...";
}

std::string statusText(int status) {
  switch (status) {
    case 408: return "request timeout";
    case 409: return "conflict";
    case 429: return "too many requests";
    case 500: return "internal server error";
    case 502: return "bad gateway";
    case 503: return "service unavailable";
    case 504: return "gateway timeout";
    case 529: return "overloaded";
    default: return "";
  }
}

}  // namespace

RemoteSettings remoteSettings(const config::Config& config) {
  RemoteSettings s;
  s.model = config.model;
  s.baseUrl = config.baseUrl;
  s.apiKeyEnv = config.apiKeyEnv;
  s.structuredOutput = config.structuredOutput;
  s.transport.connectTimeout = config.connectTimeout;
  s.transport.readTimeout = config.readTimeout;
  return s;
}

Endpoint resolveEndpoint(const std::string& provider, const RemoteSettings& settings, const std::string& defaultBaseUrl,
                         const std::string& defaultModel, const std::string& defaultKeyEnv, bool keyRequired) {
  Endpoint e;
  e.provider = provider;
  e.base = BaseUrl::parse(settings.baseUrl.empty() ? defaultBaseUrl : settings.baseUrl);
  e.model = settings.model.empty() ? defaultModel : settings.model;
  e.apiKeyEnv = settings.apiKeyEnv.empty() ? defaultKeyEnv : settings.apiKeyEnv;
  std::optional<std::string> key;
  if (!e.apiKeyEnv.empty()) {
    if (settings.getenv) {
      key = settings.getenv(e.apiKeyEnv);
    } else if (const char* v = std::getenv(e.apiKeyEnv.c_str())) {
      key = std::string(v);
    }
  }
  if (key) {
    auto b = key->find_first_not_of(" \t\r\n");
    auto end = key->find_last_not_of(" \t\r\n");
    e.apiKey = b == std::string::npos ? "" : key->substr(b, end - b + 1);
    // A header cannot hold a line break: the key would not be sent, and the
    // server's 401 would read as a key it rejected.
    if (const auto brk = e.apiKey.find_first_of("\r\n"); brk != std::string::npos)
      throw ProviderError(Kind::Config, provider + ": the value of " + e.apiKeyEnv + " holds a line break after its first " +
                                            std::to_string(brk) + " characters, which no API key has: set it to the key "
                                            "alone (a file read into it whole, or two keys pasted, would do this)");
  }
  if (e.apiKey.empty() && keyRequired && !e.base.loopback()) {
    throw ProviderError(Kind::Config,
                        provider + ": no API key for " + e.base.str() + ": set the environment variable " +
                            e.apiKeyEnv + " (or name another variable with --api-key-env, or \"api_key_env\" in your user "
                            "config or a trusted repository's .revline.json: an untrusted repository's is ignored); a "
                            "loopback base URL such as http://127.0.0.1:8080/v1 needs no key");
  }
  return e;
}

Endpoint withoutTrailingV1(Endpoint e) {
  if (e.base.basePath.ends_with("/v1")) e.base.basePath.resize(e.base.basePath.size() - 3);
  return e;
}

namespace {

// An error body, unwrapped: Google's OpenAI-compatible endpoint (Gemini) sends
// its error object as the only element of an array, `[{"error": {...}}]`.
json errorBody(const std::string& body) {
  json j = parseReplyJson(body);
  if (j.is_array() && !j.empty() && j[0].is_object()) return j[0];
  return j;
}

}  // namespace

namespace {
// The text of an HTML page's <title>, spaces collapsed; "" when the body has none.
std::string htmlTitle(const std::string& body) {
  std::string lower = body.substr(0, 4096);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto open = lower.find("<title");
  if (open == std::string::npos || lower.find("<html") == std::string::npos) return "";
  const auto start = lower.find('>', open);
  const auto end = start == std::string::npos ? start : lower.find("</title", start);
  if (end == std::string::npos) return "";
  std::string title;
  for (std::size_t i = start + 1; i < end; ++i) {
    const char c = body[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      if (!title.empty() && title.back() != ' ') title += ' ';
    } else {
      title += c;
    }
  }
  while (!title.empty() && title.back() == ' ') title.pop_back();
  return title;
}
}  // namespace

std::string providerErrorMessage(const std::string& body) {
  json j = errorBody(body);
  if (!j.is_discarded()) {
    if (j.is_object()) {
      if (j.contains("error")) {
        const json& err = j["error"];
        if (err.is_string()) return err.get<std::string>();
        if (err.is_object() && err.contains("message") && err["message"].is_string()) {
          // A gateway's words for its upstream's failure (OpenRouter's metadata.raw) say what happened.
          const json* raw = err.contains("metadata") && err["metadata"].is_object() && err["metadata"].contains("raw")
                                ? &err["metadata"]["raw"]
                                : nullptr;
          return err["message"].get<std::string>() +
                 (raw && raw->is_string() && !raw->get<std::string>().empty() ? " (" + cut(raw->get<std::string>(), 300) + ")"
                                                                                : "");
        }
      }
      if (j.contains("message") && j["message"].is_string()) return j["message"].get<std::string>();
      if (j.contains("detail") && j["detail"].is_string()) return j["detail"].get<std::string>();
    }
  }
  std::string t = body;
  auto b = t.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "(empty body)";
  // A proxy's or load balancer's HTML page ("<html><head><title>502 Bad
  // Gateway</title>..."): its title says it, the markup around it is noise.
  if (const std::string title = htmlTitle(t); !title.empty()) return "an HTML page titled \"" + cut(title, 200) + "\"";
  return cut(t.substr(b), 300);
}

std::string providerErrorCode(const std::string& body) {
  json j = errorBody(body);
  if (j.is_discarded() || !j.is_object() || !j.contains("error") || !j["error"].is_object()) return "";
  const json& e = j["error"];
  for (const char* k : {"code", "type"}) {
    if (e.contains(k) && e[k].is_string()) {
      std::string v = e[k].get<std::string>();
      if (!v.empty()) return v;
    }
  }
  return "";
}

std::string lowered(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

namespace {

// A request refused for the account's tokens-per-minute limit, larger than any
// one request may be (Groq's free tier: 413, OpenAI: 429, "Request too large
// for model ... on tokens per minute (TPM): Limit 6000, Requested 14810"):
// waiting does not help, a smaller request does.
bool overTokensPerMinute(const std::string& message) {
  const std::string lower = lowered(message);
  return lower.find("request too large") != std::string::npos &&
         (lower.find("tokens per minute") != std::string::npos || lower.find("(tpm)") != std::string::npos);
}

}  // namespace

bool refusesRequestedParameters(const std::string& body) {
  const std::string lower = lowered(providerErrorMessage(body));
  return lower.find("no endpoints found") != std::string::npos && lower.find("parameters") != std::string::npos;
}

bool overContextWindow(const std::string& code, const std::string& message) {
  if (code == "context_length_exceeded") return true;
  const std::string lower = lowered(message);
  for (const char* words : {"context length", "context window", "context_length", "prompt is too long",
                            "maximum context", "available context size", "too many tokens", "maximum prompt length",
                            "input token count", "maximum number of tokens", "tokens + `max_new_tokens`"})
    if (lower.find(words) != std::string::npos) return true;
  return false;
}

namespace {

// A URL without its "user:password@" (a redirect's Location is shown in the error).
std::string withoutUserinfo(std::string url) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const auto hostEnd = std::min(url.find_first_of("/?#", scheme + 3), url.size());
  if (const auto at = url.rfind('@', hostEnd); at != std::string::npos && at > scheme)
    url.replace(scheme + 3, at + 1 - (scheme + 3), "[credentials removed]@");
  return url;
}

// "20 s", or "an hour or more" for a wait retryAfter capped (Retry-After: 86400).
std::string waitAsked(std::chrono::milliseconds wait) {
  return wait >= kMaxRetryAfter ? "an hour or more" : std::to_string(wait.count() / 1000) + " s";
}

}  // namespace

void throwHttpError(const Endpoint& endpoint, const std::string& path, const HttpResponse& res,
                    const std::string& hint404) {
  const std::string url = endpoint.base.str() + path;
  const int status = res.status;
  // The key a gateway quotes is replaced before the message is cut: cut first, a
  // key across the cut would keep its first part (RemoteProvider replaces the rest).
  const std::string message = cut(withoutKey(providerErrorMessage(res.body), endpoint.apiKey), 500);
  const std::string code = providerErrorCode(res.body);
  const std::string p = endpoint.provider;
  const std::string retried =
      res.retries > 0 ? " after " + std::to_string(res.retries) + (res.retries == 1 ? " retry" : " retries") : "";
  const std::string http = "HTTP " + std::to_string(status);
  const LastingFailure lasting = lastingFailure(status, res.body);
  const std::string windowFix =
      "; the request was more than the model's context window holds: set max_input_tokens (or --max-input-tokens N) "
      "below that window, and revline splits the change into requests that fit";
  const std::string toolsFix = "; the server or model does not take tool calls: set max_tool_calls to 0 (or "
                               "--max-tool-calls 0) to review without repository tools";

  // A 403 for what the request holds or where it comes from, not for the key
  // (OpenRouter's moderation and guardrails, OpenAI's unsupported region): a
  // user told "the key was rejected" rotated a key that works.
  if (status == 403) {
    const std::string lower = lowered(message + " " + code);
    const bool region = lower.find("unsupported_country") != std::string::npos ||
                        (lower.find("country") != std::string::npos && lower.find("region") != std::string::npos);
    bool content = false;
    for (const char* words : {"input was flagged", "content was flagged", "prompt was flagged", "moderation", "guardrail",
                              "content policy", "content management policy"})
      content |= lower.find(words) != std::string::npos;
    if (region)
      throw ProviderError(Kind::BadRequest, p + " refused the request (" + http + " from " + url + "): " + message +
                                                "; the provider does not serve the country or region the request came "
                                                "from (not the API key): use another provider or an endpoint that does");
    if (content)
      throw ProviderError(Kind::BadRequest,
                          p + " refused the request (" + http + " from " + url + "): " + message +
                              "; the provider's moderation or guardrail flagged what the request holds (the diff under "
                              "review, the prompt), not the API key: review this change with another model or provider");
  }
  // Gemini answers a bad key with 400 API_KEY_INVALID ("API key not valid").
  const bool keyRejected = status == 400 && (lowered(message).find("api key not valid") != std::string::npos ||
                                             res.body.find("API_KEY_INVALID") != std::string::npos);
  if (status == 401 || status == 403 || keyRejected) {
    std::string what = endpoint.apiKey.empty()
                           ? "no API key was sent: set the environment variable " + endpoint.apiKeyEnv
                           : "the API key in " + endpoint.apiKeyEnv + " was rejected: check that it is valid" +
                                 (status == 403 ? " and allowed to use model \"" + endpoint.model + "\"" : "");
    throw ProviderError(Kind::Auth, p + ": " + what + " (" + http + " from " + url + ": " + message + ")");
  }
  if (status == 404) {
    // OpenRouter: "No endpoints found that support tool use" (the model exists, without tools).
    const std::string lower = lowered(message);
    if (lower.find("tool use") != std::string::npos || lower.find("support tool") != std::string::npos)
      throw ProviderError(Kind::BadRequest, p + " rejected the request (" + http + " from " + url + "): " + message + toolsFix);
    // ... "that can handle the requested parameters": the model exists, no provider
    // of it takes all the request asks (sent again without the schema already).
    if (refusesRequestedParameters(res.body))
      throw ProviderError(Kind::BadRequest,
                          p + " rejected the request (" + http + " from " + url + "): " + message +
                              "; no provider of model \"" + endpoint.model +
                              "\" takes every parameter revline sends: set max_tool_calls to 0 (or --max-tool-calls 0) "
                              "to review without repository tools, or choose another model (and if your OpenRouter "
                              "settings require providers to take all parameters, that setting)");
    throw ProviderError(Kind::NotFound, p + ": model \"" + endpoint.model + "\" or endpoint " + url +
                                            " not found (" + http + ": " + message +
                                            "); check model and base_url (--model, --base-url)" + (hint404.empty() ? "" : "; " + hint404));
  }
  if (lasting == LastingFailure::SpendLimit) {
    throw ProviderError(Kind::Quota, p + ": the account's spend limit is reached (" + http + " from " + url + ": " +
                                         message + "); raise the limit in the provider's console, or wait for the "
                                         "next billing period. Not retried: waiting minutes does not help");
  }
  if (status == 429 && (code == "insufficient_quota" || res.body.find("insufficient_quota") != std::string::npos)) {
    throw ProviderError(Kind::Quota, p + ": the account has no quota left (insufficient_quota: " + message +
                                         "); add credit or raise the limit in the provider's billing settings. "
                                         "Not retried: waiting does not help");
  }
  if ((status == 429 || status == 413) && overTokensPerMinute(message)) {
    throw ProviderError(Kind::BadRequest, p + " rejected the request (" + http + " from " + url + "): " + message +
                                              "; one request is larger than the account's tokens-per-minute limit: set "
                                              "max_input_tokens (or --max-input-tokens N) well below that limit, and "
                                              "revline splits the change into requests that fit");
  }
  if (status == 429) {
    std::string wait;
    if (auto ra = retryAfter(res)) wait = "; the provider asks to wait " + waitAsked(*ra);
    throw ProviderError(Kind::RateLimited, p + ": rate limited (" + http + retried + ": " + message + ")" + wait +
                                               "; try again later or lower the request rate");
  }
  if (status == 402) {
    throw ProviderError(Kind::Quota, p + ": payment required (" + http + " from " + url + ": " + message +
                                         "): the account behind " + endpoint.apiKeyEnv +
                                         " has no credit or balance left; add some in the provider's billing settings. "
                                         "Not retried: waiting does not help");
  }
  if (status == 400 || status == 413 || status == 422) {
    const bool overWindow = overContextWindow(code, message);
    // "... is 128000 tokens." followed by "; the request was ...": the provider's full stop goes.
    const std::string said = overWindow && message.size() > 1 && message.back() == '.' ? message.substr(0, message.size() - 1)
                                                                                        : message;
    // A server or model without tool calling (vLLM without --enable-auto-tool-choice, an Ollama
    // model "does not support tools", DeepSeek's reasoner "does not support Function Calling"):
    // the review runs without repository tools.
    const std::string lower = lowered(message);
    const bool noTools = !overWindow &&
                         (lower.find("tool") != std::string::npos || lower.find("function call") != std::string::npos) &&
                         (lower.find("support") != std::string::npos || lower.find("enable") != std::string::npos ||
                          lower.find("not allowed") != std::string::npos);
    throw ProviderError(Kind::BadRequest, p + " rejected the request (" + http + " from " + url + "): " + said +
                                              (overWindow ? windowFix : noTools ? toolsFix : ""));
  }
  if (lasting != LastingFailure::None) {  // a 5xx the server's words say is no passing failure: not retried
    std::string fix;
    switch (lasting) {
      case LastingFailure::OverContext: fix = windowFix; break;
      case LastingFailure::NoTools: fix = toolsFix; break;
      case LastingFailure::NoSchema:
        fix = "; the server takes no json_schema output: set \"structured_output\": \"prompt\" (the schema goes in "
              "the prompt)";
        break;
      case LastingFailure::OutOfMemory:
        fix = "; the server could not run model \"" + endpoint.model +
              "\" with this request's context (out of memory, or its runner stopped, most often for the same "
              "reason): lower max_input_tokens (or --max-input-tokens N; the context revline asks for follows it), "
              "or choose a smaller model";
        break;
      default: break;
    }
    const std::string said = !message.empty() && message.back() == '.' ? message.substr(0, message.size() - 1) : message;
    throw ProviderError(Kind::BadRequest, p + " failed the request (" + http + " from " + url + "): " + said + fix +
                                              ". Not retried: the server's answer says waiting does not help");
  }
  if (status >= 600)  // no HTTP status: not a server error to wait out
    throw ProviderError(Kind::Protocol, p + ": " + url + " answered with status " + std::to_string(status) +
                                            ", which HTTP has none of (statuses end at 599): this is no API server, or "
                                            "a broken proxy is in between; is the base URL right? " + message);
  if (status >= 500 || status == 408 || status == 409) {
    std::string label = statusText(status);
    // A wait asked for longer than revline waits out (over 60 s) is said, as for a 429.
    std::string wait;
    if (auto ra = retryAfter(res)) wait = "; the server asks to wait " + waitAsked(*ra);
    if (modelLoading(status, res.body) && !retryAfter(res))  // polled (HttpTransport::postJson); else the wait asked is said
      wait += "; the server was still loading the model after revline waited read_timeout_ms for it";
    throw ProviderError(Kind::Server, p + ": server error " + http + (label.empty() ? "" : " (" + label + ")") +
                                          retried + " from " + url + ": " + message + wait + "; try again later");
  }
  if (status >= 300 && status < 400) {
    // Redirects are not followed (the key would go with the request): where it pointed is the fix.
    const auto location = res.headers.find("location");
    throw ProviderError(Kind::Protocol,
                        p + ": " + url + " answered " + http + ", a redirect" +
                            (location != res.headers.end() ? " to " + cut(withoutUserinfo(location->second), 300) : "") +
                            ", which revline does not follow (the API key would go with it): set base_url to the "
                            "endpoint itself (http:// to https://, a trailing path)");
  }
  throw ProviderError(Kind::Protocol, p + ": unexpected " + http + " from " + url + ": " + message);
}

std::string withoutKey(std::string text, const std::string& apiKey) {
  if (apiKey.size() < 4) return text;  // none, or too short to tell from other text
  // Any run of 12 or more of the key's characters in a row is a piece of it: a
  // quoted reply cut short ("…sk-proj-A1b2C3d4…A1b2C3d...") keeps most of a key
  // that straddles the cut, and a piece that long is in no other text.
  const std::size_t piece = std::min<std::size_t>(kKeyPieceChars, apiKey.size());
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t longest = 0;
    for (std::size_t j = apiKey.find(text[i]); j != std::string::npos; j = apiKey.find(text[i], j + 1)) {
      std::size_t n = 0;
      while (i + n < text.size() && j + n < apiKey.size() && text[i + n] == apiKey[j + n]) ++n;
      longest = std::max(longest, n);
    }
    if (longest >= piece) {
      out += "[REDACTED:api-key]";
      i += longest;
    } else {
      out += text[i++];
    }
  }
  return out;
}

json toolArguments(const std::string& text) {
  if (jsonNesting(text) > review::kMaxToolArgumentNesting) return json(text);
  json parsed = json::parse(text.empty() ? "{}" : text, nullptr, false);
  return parsed.is_discarded() ? json(text) : std::move(parsed);
}

json parseJsonBody(const Endpoint& endpoint, const std::string& path, const HttpResponse& res) {
  if (const std::size_t bad = invalidUtf8(res.body); bad != std::string_view::npos) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(res.body[bad]));
    throw ProviderError(Kind::Protocol, endpoint.provider + ": the reply from " + endpoint.base.str() + path +
                                            " is not valid UTF-8 (byte " + byte + " at offset " + std::to_string(bad) +
                                            ": " + cut(res.body.substr(bad > 40 ? bad - 40 : 0), 80) +
                                            "); the server, or a proxy in between, sent bytes that are not JSON text");
  }
  // A reply is a few levels deep (choices, message, tool_calls, function, arguments and theirs).
  const JsonShape shape = jsonShape(res.body);
  if (shape.deepest > kMaxReplyNesting)
    throw ProviderError(Kind::Protocol, endpoint.provider + ": the reply from " + endpoint.base.str() + path +
                                            " nests JSON " + std::to_string(shape.deepest) + " levels deep; revline reads at most " +
                                            std::to_string(kMaxReplyNesting) + ", and no model reply is near that");
  if (shape.values > kMaxReplyValues)
    throw ProviderError(Kind::Protocol, endpoint.provider + ": the reply from " + endpoint.base.str() + path +
                                            " holds " + std::to_string(shape.values) + " JSON values and keys; revline reads at most " +
                                            std::to_string(kMaxReplyValues) + " (held in memory they take some 100 bytes "
                                            "each), and no model reply is near that");
  json j = json::parse(res.body, nullptr, false);
  // A server that streams though `stream: false` was sent (server-sent events, or Ollama's lines of JSON).
  const std::size_t first = res.body.find_first_not_of(" \t\r\n");
  const bool streamed = first != std::string::npos && (res.body.compare(first, 5, "data:") == 0 ||
                                                       res.body.compare(first, 6, "event:") == 0 ||
                                                       (j.is_discarded() && res.body[first] == '{' &&
                                                        res.body.find("}\n{", first) != std::string::npos));
  if (streamed)
    throw ProviderError(Kind::Protocol, endpoint.provider + ": the reply from " + endpoint.base.str() + path +
                                            " was streamed (" + cut(res.body, 120) + ") though revline asked for one "
                                            "JSON reply (\"stream\": false); a server or proxy that always streams is "
                                            "not supported: turn streaming off there, or point base_url past it");
  // A JSON object that ends before it is closed: cut short on the way (the
  // server, or a proxy in between), not a URL that answers something else.
  if (j.is_discarded() && first != std::string::npos && res.body[first] == '{') {
    try {
      [[maybe_unused]] const json again = json::parse(res.body);  // for where it stopped
    } catch (const json::parse_error& e) {
      if (e.byte > res.body.size())  // nlohmann says the end of input as one past the last byte
        throw ReplyCutShort(endpoint.provider + ": the reply from " + endpoint.base.str() + path +
                                                " ends before its JSON does (" + std::to_string(res.body.size()) +
                                                " bytes, ending \"" + cut(res.body.substr(res.body.size() > 60 ? res.body.size() - 60 : 0), 60) +
                                                "\"): the server, or a proxy in between, cut the reply short");
    }
  }
  if (j.is_discarded() || !j.is_object()) {
    throw ProviderError(Kind::Protocol, endpoint.provider + ": the reply from " + endpoint.base.str() + path +
                                            " is not a JSON object (" + cut(res.body, 200) +
                                            "); is the base URL right?");
  }
  return j;
}

std::string argumentsText(const json& arguments) {
  return arguments.is_string() ? arguments.get<std::string>()
                               : arguments.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string toolResultText(const review::ToolResult& result) {
  return result.ok ? result.content : "ERROR: " + result.content;
}

void settleFinish(review::ModelResponse& out, bool cutOff, const std::string& filterSaid) {
  using review::FinishReason;
  if (out.refusal) {
    out.finish = FinishReason::Refusal;
  } else if (!filterSaid.empty()) {
    out.finish = FinishReason::Refusal;
    out.refusal = "the provider's content filter stopped the answer (" + filterSaid + ")";
  } else if (cutOff) {
    out.finish = FinishReason::Length;
  } else {
    out.finish = out.toolCalls.empty() ? FinishReason::Stop : FinishReason::ToolCalls;
    return;
  }
  out.toolCalls.clear();
}

ojson functionTools(const std::vector<review::ToolSpec>& tools) {
  ojson out = ojson::array();
  for (const review::ToolSpec& t : tools) {
    out.push_back({{"type", "function"},
                   {"function", {{"name", t.name}, {"description", t.description}, {"parameters", ojson(t.inputSchema)}}}});
  }
  return out;
}

std::int64_t tokenCount(const json& usage, const char* key, bool* unreadable) {
  if (!usage.is_object()) return 0;
  const auto it = usage.find(key);
  if (it == usage.end() || it->is_null()) return 0;
  constexpr double kMax = 1e12;  // far above any context window
  const double d = it->is_number() ? it->get<double>() : -1;
  if (!(d >= 0 && d <= kMax) || std::trunc(d) != d) {
    if (unreadable) *unreadable = true;
    return 0;
  }
  return static_cast<std::int64_t>(d);
}

std::string stringField(const json& object, const char* key) {
  if (!object.is_object()) return "";
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace revline::providers
