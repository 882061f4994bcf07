#include "core/providers/http_transport.h"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <cstdlib>
#include <ctime>
#include <string_view>
#include <mutex>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/providers/socket_meter.h"
#include "core/support/json.h"
#include "core/support/text.h"
#include "core/support/version.h"

namespace revline::providers {

using review::ProviderError;
using Kind = review::ProviderError::Kind;

namespace {

constexpr std::size_t kMaxResponseBytes = 32u << 20;  // a model reply is never this large
// Received before the reply's headers were read whole: an API's are a few KB,
// and what a fast server sends of its body meanwhile is held back by the
// receive window until they are read.
constexpr std::uint64_t kMaxHeaderBytes = 4u << 20;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(const std::string& s) { return std::string(trimmed(s)); }

// A JSON text that stops in the middle: it parses until its end, where the
// parser still wants more (nlohmann's error is at the byte after the last).
// A wrong endpoint's page (HTML, text, a whole JSON) is never that.
bool jsonCutShort(const std::string& body) {
  const std::size_t start = body.find_first_not_of(" \t\r\n");
  if (start == std::string::npos || (body[start] != '{' && body[start] != '[')) return false;
  // Past a reply's limits it is not read (parseJsonBody says why), cut or not.
  if (const JsonShape shape = jsonShape(body); shape.deepest > kMaxReplyNesting || shape.values > kMaxReplyValues) return false;
  try {
    const nlohmann::json whole = nlohmann::json::parse(body);
    return whole.is_discarded();  // parsed whole: not cut
  } catch (const nlohmann::json::parse_error& e) {
    return e.byte > body.size();
  }
}

std::string seconds(std::chrono::milliseconds d) {
  auto ms = d.count();
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ms) / 1000.0);
  return buf;
}

std::optional<std::string> processEnv(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (!v) return std::nullopt;
  return std::string(v);
}

// NO_PROXY: comma/space separated host names, ".suffix", "*", optional ":port"; IPs compared literally.
bool noProxyMatches(const std::string& noProxy, const BaseUrl& url) {
  std::string host = lower(url.host);
  std::string item;
  auto check = [&](std::string entry) {
    entry = lower(trim(entry));
    if (entry.empty()) return false;
    if (entry == "*") return true;
    // strip a port
    if (entry.front() != '[') {
      auto colon = entry.rfind(':');
      if (colon != std::string::npos && entry.find(':') == colon) {
        if (entry.substr(colon + 1) != std::to_string(url.port)) return false;
        entry = entry.substr(0, colon);
      }
    } else {
      auto close = entry.find(']');
      if (close != std::string::npos) entry = entry.substr(1, close - 1);
    }
    if (entry.front() == '.') entry = entry.substr(1);
    if (entry.rfind("*.", 0) == 0) entry = entry.substr(2);
    if (host == entry) return true;
    return host.size() > entry.size() && host.compare(host.size() - entry.size(), entry.size(), entry) == 0 &&
           host[host.size() - entry.size() - 1] == '.';
  };
  for (char c : noProxy) {
    if (c == ',' || c == ' ') {
      if (check(item)) return true;
      item.clear();
    } else {
      item += c;
    }
  }
  return check(item);
}

}  // namespace

// ---------------------------------------------------------------- BaseUrl

bool isLoopbackHost(const std::string& rawHost) {
  std::string host = lower(rawHost);
  if (!host.empty() && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  // Not "*.localhost": a name that only resolvers may map to loopback is remote
  // until proven otherwise (its text would leave the machine unredacted).
  if (host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1") return true;
  // 127.0.0.0/8, written as a dotted quad
  int parts = 0;
  std::size_t pos = 0;
  int first = -1;
  while (pos <= host.size()) {
    auto dot = host.find('.', pos);
    std::string part = host.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
    if (part.empty() || part.size() > 3 || !std::all_of(part.begin(), part.end(), ::isdigit)) return false;
    int v = std::stoi(part);
    if (v > 255) return false;
    if (parts == 0) first = v;
    ++parts;
    if (dot == std::string::npos) break;
    pos = dot + 1;
  }
  return parts == 4 && first == 127;
}

std::string withoutCredentials(const std::string& url) {
  std::string shown = url;
  const auto sep = shown.find("://");
  const std::size_t from = sep == std::string::npos ? 0 : sep + 3;
  // Up to the last '@': a password typed with a '/' or '#' in it (unencoded) still ends there.
  if (const auto at = shown.rfind('@'); at != std::string::npos && at >= from) shown.replace(from, at - from, "***");
  if (const auto rest = shown.find_first_of("?#", from); rest != std::string::npos)
    shown.replace(rest + 1, std::string::npos, "...");
  return shown;
}

std::string azureOpenAiHint(const std::string& url) {
  const std::string u = lower(url);
  const auto sep = u.find("://");
  const std::string rest = sep == std::string::npos ? u : u.substr(sep + 3);
  std::string host = rest.substr(0, rest.find_first_of("/?#"));
  if (const auto at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
  if (const auto colon = host.find(':'); colon != std::string::npos) host.resize(colon);
  bool azure = u.find("/openai/deployments/") != std::string::npos;
  for (const char* domain : {".openai.azure.com", ".cognitiveservices.azure.com", ".services.ai.azure.com"})
    azure |= host.ends_with(domain);
  if (!azure) return "";
  return "for Azure OpenAI, use its v1 API: base_url https://RESOURCE.openai.azure.com/openai/v1 (no api-version, no "
         "deployments path), your deployment's name as the model, and the resource's key in the variable api_key_env "
         "names (see docs/PROVIDERS.md, \"Azure OpenAI\")";
}

BaseUrl BaseUrl::parse(const std::string& url) {
  auto bad = [&](const std::string& why) {
    const std::string azure = azureOpenAiHint(url);
    return ProviderError(Kind::Config, "invalid base URL \"" + withoutCredentials(url) + "\": " + why +
                                           (azure.empty() ? " (expected http(s)://host[:port][/path], e.g. https://api.openai.com/v1)"
                                                          : "; " + azure));
  };
  BaseUrl u;
  auto sep = url.find("://");
  if (sep == std::string::npos) throw bad("no scheme");
  u.scheme = lower(url.substr(0, sep));
  if (u.scheme != "http" && u.scheme != "https") throw bad("the scheme must be http or https");
  std::string rest = url.substr(sep + 3);
  auto slash = rest.find_first_of("/?#");
  std::string authority = rest.substr(0, slash);
  std::string path = slash == std::string::npos ? "" : rest.substr(slash);
  if (path.find_first_of("?#") != std::string::npos) throw bad("query strings and fragments are not supported");
  if (authority.find('@') != std::string::npos) throw bad("credentials in the URL are not supported; use the API key variable");
  std::string portText;
  if (!authority.empty() && authority.front() == '[') {
    auto close = authority.find(']');
    if (close == std::string::npos) throw bad("unterminated IPv6 literal");
    u.host = authority.substr(1, close - 1);
    std::string after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') throw bad("unexpected text after the host");
      portText = after.substr(1);
    }
  } else {
    auto colon = authority.rfind(':');
    if (colon != std::string::npos) {
      u.host = authority.substr(0, colon);
      portText = authority.substr(colon + 1);
    } else {
      u.host = authority;
    }
  }
  if (u.host.empty()) throw bad("no host");
  if (!portText.empty()) {
    if (portText.size() > 5 || !std::all_of(portText.begin(), portText.end(), ::isdigit)) throw bad("bad port");
    u.port = std::stoi(portText);
    if (u.port < 1 || u.port > 65535) throw bad("bad port");
  } else {
    u.port = u.scheme == "https" ? 443 : 80;
  }
  while (!path.empty() && path.back() == '/') path.pop_back();
  u.basePath = path;
  return u;
}

std::string BaseUrl::origin() const {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  bool defaultPort = (scheme == "https" && port == 443) || (scheme == "http" && port == 80);
  return scheme + "://" + h + (defaultPort ? "" : ":" + std::to_string(port));
}

std::string BaseUrl::str() const { return origin() + basePath; }

bool BaseUrl::loopback() const { return isLoopbackHost(host); }

// ---------------------------------------------------------------- helpers

void sleepCancellable(std::chrono::milliseconds duration, const CancelToken& cancel) {
  auto until = std::chrono::steady_clock::now() + duration;
  while (!cancel.cancelled()) {
    auto now = std::chrono::steady_clock::now();
    if (now >= until) return;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(until - now, std::chrono::milliseconds(20)));
  }
}

std::string HttpResponse::header(const std::string& lowerName) const {
  auto it = headers.find(lowerName);
  return it == headers.end() ? std::string() : it->second;
}

namespace {

// Clamped before any conversion: "retry-after: 1e30" must not overflow into a negative wait.
std::chrono::milliseconds clampedWait(double ms) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::min(ms, static_cast<double>(kMaxRetryAfter.count()))));
}

// A Go-style duration at the start of `text` ("900ms", "5.289s", "6m0s",
// "1h2m3s"), in milliseconds; nullopt when none is there.
std::optional<double> durationMs(std::string_view text) {
  double total = 0;
  bool any = false;
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {  // "900ms." ends at the full stop
    const std::size_t start = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
    const std::string number(text.substr(start, i - start));
    char* end = nullptr;
    const double v = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size()) return std::nullopt;
    if (text.substr(i, 2) == "ms") total += v, i += 2;
    else if (i < text.size() && text[i] == 's') total += v * 1000, ++i;
    else if (i < text.size() && text[i] == 'm') total += v * 60000, ++i;
    else if (i < text.size() && text[i] == 'h') total += v * 3600000, ++i;
    else return std::nullopt;
    any = true;
  }
  return any ? std::optional<double>(total) : std::nullopt;
}

// When a rate limit a 429 names without retry-after resets: the error's own
// "Please try again in 5.289s" (OpenAI, Groq, Azure), else the reset header of
// the limit spent (remaining 0): OpenAI's and Groq's x-ratelimit-reset-tokens
// / -requests ("6m0s"), Anthropic's anthropic-ratelimit-*-reset (an RFC 3339
// time). Without it the backoff's second or two ran out every try before the
// limit reset, and the review failed with "try again later".
std::optional<std::chrono::milliseconds> rateLimitReset(const HttpResponse& response,
                                                        std::chrono::system_clock::time_point now) {
  if (response.body.size() <= 65536) {
    const std::string said = lower(response.body);
    if (const auto at = said.find("try again in "); at != std::string::npos)
      if (auto ms = durationMs(std::string_view(said).substr(at + 13))) return clampedWait(*ms);
  }
  std::optional<double> latest;  // the last of the spent limits to reset
  auto spent = [&](const std::string& remaining) {
    const std::string v = trim(response.header(remaining));
    return v == "0";
  };
  for (const char* limit : {"requests", "tokens"})
    if (spent(std::string("x-ratelimit-remaining-") + limit))
      if (auto ms = durationMs(trim(response.header(std::string("x-ratelimit-reset-") + limit))))
        latest = std::max(latest.value_or(0), *ms);
  for (const char* limit : {"requests", "tokens", "input-tokens", "output-tokens"}) {
    const std::string prefix = std::string("anthropic-ratelimit-") + limit;
    if (!spent(prefix + "-remaining")) continue;
    const std::string when = trim(response.header(prefix + "-reset"));
    std::tm tm{};
    const char* end = strptime(when.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
    if (!end) continue;
    const std::time_t at = timegm(&tm);
    if (at == static_cast<std::time_t>(-1)) continue;
    const double waitMs = std::difftime(at, std::chrono::system_clock::to_time_t(now)) * 1000;
    latest = std::max(latest.value_or(0), std::max(waitMs, 0.0));
  }
  if (latest) return clampedWait(*latest);
  return std::nullopt;
}

}  // namespace

std::optional<std::chrono::milliseconds> retryAfter(const HttpResponse& response,
                                                    std::chrono::system_clock::time_point now) {
  const auto clamp = clampedWait;
  std::string ms = trim(response.header("retry-after-ms"));
  if (!ms.empty()) {
    char* end = nullptr;
    double v = std::strtod(ms.c_str(), &end);
    if (end && *end == '\0' && v >= 0) return clamp(v);
  }
  std::string ra = trim(response.header("retry-after"));
  if (ra.empty()) {
    // Google's APIs (Gemini) send no header: the wait is a google.rpc.RetryInfo
    // in the error body, {"error": {"details": [{"retryDelay": "39s"}]}}, the
    // object alone or wrapped in an array.
    const auto retryDelay = [&]() -> std::optional<std::chrono::milliseconds> {
      if (response.body.size() > 65536 || response.body.find("\"retryDelay\"") == std::string::npos) return std::nullopt;
      nlohmann::json j = parseReplyJson(response.body);
      if (j.is_array() && !j.empty()) j = j[0];
      if (!j.is_object() || !j.contains("error") || !j["error"].is_object()) return std::nullopt;
      const nlohmann::json& details = j["error"].contains("details") ? j["error"]["details"] : nlohmann::json();
      if (!details.is_array()) return std::nullopt;
      for (const nlohmann::json& d : details) {
        if (!d.is_object() || !d.contains("retryDelay") || !d["retryDelay"].is_string()) continue;
        const std::string delay = trim(d["retryDelay"].get<std::string>());
        char* end = nullptr;
        const double v = std::strtod(delay.c_str(), &end);
        if (end && std::string_view(end) == "s" && end != delay.c_str() && v >= 0) return clamp(v * 1000);
      }
      return std::nullopt;
    };
    if (auto asked = retryDelay()) return asked;
    if (response.status == 429) return rateLimitReset(response, now);
    return std::nullopt;
  }
  if (std::all_of(ra.begin(), ra.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; })) {
    char* end = nullptr;
    double v = std::strtod(ra.c_str(), &end);
    if (end && *end == '\0' && v >= 0) return clamp(v * 1000);
    return std::nullopt;
  }
  // HTTP date (IMF-fixdate): "Wed, 21 Oct 2015 07:28:00 GMT"
  std::tm tm{};
  const char* end = strptime(ra.c_str(), "%a, %d %b %Y %H:%M:%S", &tm);
  if (!end) return std::nullopt;
  std::time_t when = timegm(&tm);
  if (when == static_cast<std::time_t>(-1)) return std::nullopt;
  // In seconds first: a date in year 9999 overflows the clock's nanoseconds.
  const std::time_t base = std::chrono::system_clock::to_time_t(now);
  const auto fraction = std::chrono::duration_cast<std::chrono::milliseconds>(now - std::chrono::system_clock::from_time_t(base));
  const double waitMs = std::difftime(when, base) * 1000 - static_cast<double>(fraction.count());
  if (waitMs <= 0) return std::chrono::milliseconds(0);
  return clamp(waitMs);
}

int embeddedErrorStatus(const std::string& body) {
  const std::size_t start = body.find_first_not_of(" \t\r\n");
  // Only a body that is an error object from its first key: a reply's content never is.
  if (start == std::string::npos || body.compare(start, 1, "{") != 0) return 0;
  const std::size_t key = body.find_first_not_of(" \t\r\n", start + 1);
  if (key == std::string::npos || body.compare(key, 7, "\"error\"") != 0) return 0;
  const nlohmann::json j = parseReplyJson(body);
  if (!j.is_object() || !j.contains("error") || !j["error"].is_object()) return 0;
  const nlohmann::json& code = j["error"].contains("code") ? j["error"]["code"] : nlohmann::json();
  const int status = code.is_number_integer() ? code.get<int>()
                     : code.is_string() && code.get<std::string>().size() == 3 ? std::atoi(code.get<std::string>().c_str())
                                                                              : 0;
  return status >= 400 && status <= 599 ? status : 0;
}

std::optional<ChoiceError> errorInAChoice(const std::string& body) {
  if (body.find("\"error\"") == std::string::npos) return std::nullopt;  // no key or value "error": no parse
  const nlohmann::json j = parseReplyJson(body);
  if (!j.is_object() || !j.contains("choices") || !j["choices"].is_array() || j["choices"].size() != 1) return std::nullopt;
  const nlohmann::json& choice = j["choices"][0];
  if (!choice.is_object() || choice.value("finish_reason", nlohmann::json()) != "error" || !choice.contains("error") ||
      !choice["error"].is_object())
    return std::nullopt;
  const nlohmann::json& error = choice["error"];
  const nlohmann::json code = error.contains("code") ? error["code"] : nlohmann::json();
  const int named = code.is_number_integer() ? code.get<int>() : 0;
  return ChoiceError{named >= 400 && named <= 599 ? named : 502,
                     nlohmann::json{{"error", error}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

namespace {
// The error's own message (`error.message`, an `error` string, `message`) and
// type, lower-cased; empty for a body that is no JSON error.
std::pair<std::string, std::string> errorWords(const std::string& body) {
  const nlohmann::json j = parseReplyJson(body);
  if (!j.is_object()) return {};
  auto text = [](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : std::string(); };
  std::string message, type;
  if (j.contains("error") && j["error"].is_object()) {
    const nlohmann::json& e = j["error"];
    if (e.contains("message")) message = text(e["message"]);
    if (e.contains("type")) type = text(e["type"]);
  } else if (j.contains("error")) {
    message = text(j["error"]);
  } else if (j.contains("message")) {
    message = text(j["message"]);
  }
  for (std::string* w : {&message, &type})
    for (char& c : *w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return {message, type};
}
}  // namespace

LastingFailure lastingFailure(int status, const std::string& body) {
  if (status != 429 && (status < 500 || status > 599)) return LastingFailure::None;
  const std::pair<std::string, std::string> words = errorWords(body);
  const std::string& message = words.first;  // not a structured binding: a lambda below reads it
  const std::string& type = words.second;
  if (status == 429)
    return body.find("enforced_spend_limit_reached") != std::string::npos ? LastingFailure::SpendLimit
                                                                            : LastingFailure::None;
  // How the server's message begins: its failure, not text it quotes (llama.cpp's
  // "Failed to parse input at pos N: ..." carries the model's own output).
  auto begins = [&](std::initializer_list<const char*> phrases) {
    return std::any_of(phrases.begin(), phrases.end(), [&](const char* w) { return message.rfind(w, 0) == 0; });
  };
  if (type == "exceed_context_size_error" ||
      begins({"context size has been exceeded", "the request exceeds the available context size"}))
    return LastingFailure::OverContext;
  if (begins({"tools param requires --jinja", "unsupported param: tools"})) return LastingFailure::NoTools;
  if (begins({"response_format type must be"})) return LastingFailure::NoSchema;
  if (begins({"model requires more system memory", "llama runner process has terminated"}))
    return LastingFailure::OutOfMemory;
  return LastingFailure::None;
}

bool modelLoading(int status, const std::string& body) {
  return status == 503 && errorWords(body).first.rfind("loading model", 0) == 0;
}

bool retryableStatus(int status, const std::string& body) {
  if (lastingFailure(status, body) != LastingFailure::None) return false;
  // Not a rate: no quota left, or one request larger than the per-minute limit
  // (OpenAI's 429 "Request too large for gpt-4o ... on tokens per minute").
  if (status == 429)
    return body.find("insufficient_quota") == std::string::npos && body.find("Request too large") == std::string::npos;
  return status == 408 || status == 409 || (status >= 500 && status <= 599);
}

// ---------------------------------------------------------------- HttpTransport

struct HttpTransport::Attempt {
  bool ok = false;
  HttpResponse response;
  httplib::Error error = httplib::Error::Success;
  bool timedOut = false;
  bool tooLarge = false;
  bool headersTooLarge = false;  // more than kMaxHeaderBytes came before the headers ended
  bool deadline = false;  // the whole reply took longer than readTimeout
};

HttpTransport::HttpTransport(std::string providerName, BaseUrl base, TransportOptions options)
    : providerName_(std::move(providerName)), base_(std::move(base)), options_(std::move(options)) {
  if (!options_.sleep) options_.sleep = sleepCancellable;
  if (!options_.getenv) options_.getenv = processEnv;
  if (options_.random) {
    random_ = options_.random;
  } else {
    // One engine per thread: a provider may serve reviews on several workers at once.
    random_ = [] {
      thread_local std::mt19937_64 engine{std::random_device{}()};
      return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
    };
  }

  // Proxies: never for loopback (a proxy cannot reach this machine's localhost).
  if (!base_.loopback()) {
    auto env = [&](std::initializer_list<const char*> names) -> std::string {
      for (const char* n : names) {
        auto v = options_.getenv(n);
        if (v && !trim(*v).empty()) return trim(*v);
      }
      return "";
    };
    std::string proxyUrl = base_.scheme == "https" ? env({"HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"})
                                                   : env({"http_proxy", "HTTP_PROXY", "ALL_PROXY", "all_proxy"});
    std::string noProxy = env({"NO_PROXY", "no_proxy"});
    if (!proxyUrl.empty() && !noProxyMatches(noProxy, base_)) {
      if (proxyUrl.find("://") == std::string::npos) proxyUrl = "http://" + proxyUrl;
      std::string scheme = lower(proxyUrl.substr(0, proxyUrl.find("://")));
      const std::string shown = withoutCredentials(proxyUrl);
      if (scheme == "https") {
        // TLS to the proxy itself; spoken to in plain text, it fails as if the server had dropped the request.
        throw ProviderError(Kind::Config, "the proxy \"" + shown + "\" is an https:// proxy (TLS to the proxy itself), "
                                              "which revline does not support: use the proxy's http:// address (the "
                                              "tunnel through it to the API is still TLS)");
      }
      if (scheme != "http") {
        throw ProviderError(Kind::Config, "the proxy \"" + shown + "\" uses the scheme " + scheme +
                                              ", which revline does not support: use an http:// proxy in HTTPS_PROXY");
      }
      // user:password@host:port
      std::string rest = proxyUrl.substr(proxyUrl.find("://") + 3);
      auto at = rest.find('@');
      if (at != std::string::npos && at < rest.find('/')) {
        std::string cred = rest.substr(0, at);
        auto colon = cred.find(':');
        proxyAuth_ = {httplib::detail::decode_url(cred.substr(0, colon), false),
                      colon == std::string::npos ? "" : httplib::detail::decode_url(cred.substr(colon + 1), false)};
        rest = rest.substr(at + 1);
      }
      try {
        proxy_ = BaseUrl::parse("http://" + rest);
      } catch (const ProviderError&) {
        throw ProviderError(Kind::Config, "the proxy setting \"" + shown + "\" is not a valid http://host:port URL");
      }
      if (rest.find(':') == std::string::npos) proxy_->port = 80;
    }
  }
}

HttpTransport::~HttpTransport() = default;

std::string HttpTransport::proxy() const { return proxy_ ? proxy_->origin() : ""; }

std::chrono::milliseconds HttpTransport::backoff(int retry) {
  double base = static_cast<double>(options_.initialBackoff.count()) * static_cast<double>(1LL << std::min(retry, 20));
  base = std::min(base, static_cast<double>(options_.maxBackoff.count()));
  // +-25% jitter, still within the cap
  double jittered = base * (0.75 + 0.5 * random_());
  jittered = std::min(jittered, static_cast<double>(options_.maxBackoff.count()));
  return std::chrono::milliseconds(static_cast<std::int64_t>(jittered));
}

void HttpTransport::checkProxyTunnel(const CancelToken& cancel) const {
  if (!proxy_ || base_.scheme != "https") return;
  httplib::Client probe(proxy_->origin());
  probe.set_connection_timeout(options_.connectTimeout);
  probe.set_read_timeout(options_.connectTimeout);
  probe.set_write_timeout(options_.connectTimeout);
  probe.set_keep_alive(false);
  httplib::Request req;
  req.method = "CONNECT";
  req.path = base_.host + ":" + std::to_string(base_.port);
  req.set_header("Host", req.path);
  if (proxyAuth_) {
    const auto header = httplib::make_basic_authentication_header(proxyAuth_->first, proxyAuth_->second, true);
    req.set_header(header.first, header.second);
  }
  // httplib reads no body of a CONNECT reply: a tunnel's 2xx ends at its headers.
  req.progress = [&](uint64_t, uint64_t) { return !cancel.cancelled(); };
  httplib::Response res;
  httplib::Error error = httplib::Error::Success;
  probe.send(req, res, error);
  if (cancel.cancelled()) throw Cancelled("the request was cancelled");
  // Not reached, or no answer: the request itself then fails as a connection error would.
  const int status = res.status;
  if (status <= 0 || (status >= 200 && status < 300)) return;
  const std::string target = base_.host + ":" + std::to_string(base_.port);
  const std::string what = "the proxy " + proxy_->origin() + " refused to open a tunnel to " + target + ": HTTP " +
                           std::to_string(status) + (res.reason.empty() ? "" : " " + res.reason);
  if (status == 407)
    throw ProviderError(Kind::Config, what + "; the proxy asks for credentials: give them in the proxy variable "
                                             "(HTTPS_PROXY=http://user:password@host:port)" +
                                             (proxyAuth_ ? ", the ones there were refused" : ""));
  if (status == 403)
    throw ProviderError(Kind::Config, what + "; the proxy does not allow " + target +
                                             ": ask its administrator, or list the host in NO_PROXY if it is reachable without it");
  throw ProviderError(Kind::Network, what);
}

HttpTransport::Attempt HttpTransport::sendOnce(const std::string& path,
                                               const std::vector<std::pair<std::string, std::string>>& headers,
                                               const std::string& body, const CancelToken& cancel) {
  checkProxyTunnel(cancel);
  Attempt attempt;
  httplib::Client client(base_.origin());
  client.set_connection_timeout(options_.connectTimeout);
  client.set_read_timeout(options_.readTimeout);
  client.set_write_timeout(std::max(options_.connectTimeout, std::chrono::milliseconds(std::chrono::seconds(30))));
  client.set_keep_alive(false);
  client.set_follow_location(false);
  if (base_.scheme == "https") client.enable_server_certificate_verification(true);
  if (proxy_) {
    client.set_proxy(proxy_->host, proxy_->port);
    if (proxyAuth_) client.set_proxy_basic_auth(proxyAuth_->first, proxyAuth_->second);
  }

  httplib::Request req;
  req.method = "POST";
  req.path = base_.basePath + path;
  req.set_header("Content-Type", "application/json");
  req.set_header("Accept", "application/json");
  req.set_header("User-Agent", std::string("revline/") + kVersion);
  for (const auto& [k, v] : headers) req.set_header(k, v);
  req.body = body;
  std::string received;
  // read_timeout_ms bounds the whole reply, not only the gap between two bytes:
  // a server that trickles one byte a second is stopped at the deadline.
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + options_.readTimeout;
  std::atomic<bool> pastDeadline{false};
  std::atomic<bool> receiving{false};  // the reply has started: its status and headers came
  std::atomic<int> socket{-1};  // the connection's, for what it received before the headers ended
  client.set_socket_options([&](int s) { socket = s; });
  req.response_handler = [&](const httplib::Response&) {
    receiving = true;
    return !cancel.cancelled();
  };
  req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
    if (cancel.cancelled()) return false;
    receiving = true;
    if (std::chrono::steady_clock::now() > deadline) {
      pastDeadline = true;
      return false;
    }
    if (received.size() + n > kMaxResponseBytes) {
      attempt.tooLarge = true;
      return false;
    }
    received.append(data, n);
    return true;
  };
  req.progress = [&](uint64_t, uint64_t) { return !cancel.cancelled(); };

  // A watcher stops the client when the token fires, so a call blocked waiting for
  // the server's first byte ends promptly too (the callbacks only run on data).
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  std::thread watcher([&] {
    std::unique_lock lock(mu);
    while (!finished) {
      if (cancel.cancelled()) {
        client.stop();
        return;
      }
      if (std::chrono::steady_clock::now() > deadline) {
        pastDeadline = true;
        client.stop();
        return;
      }
      // cpp-httplib reads headers without a bound: an endless one is stopped here.
      if (!receiving) {
        const auto got = bytesReceived(socket);
        if (got && *got > kMaxHeaderBytes && !receiving) {
          attempt.headersTooLarge = true;
          client.stop();
          return;
        }
      }
      cv.wait_for(lock, std::chrono::milliseconds(20));
    }
  });

  httplib::Response res;
  httplib::Error error = httplib::Error::Success;
  bool ok = client.send(req, res, error);
  auto elapsed = std::chrono::steady_clock::now() - started;
  {
    std::lock_guard lock(mu);
    finished = true;
  }
  cv.notify_all();
  watcher.join();

  if (attempt.headersTooLarge) return attempt;
  if (pastDeadline) {
    // Nothing arrived at all: the ordinary "no reply" timeout (retried);
    // a reply that kept arriving too slowly: the deadline (not retried).
    if (receiving) {
      attempt.deadline = true;
    } else {
      attempt.error = httplib::Error::Read;
      attempt.timedOut = true;
    }
    return attempt;
  }
  // A reply with neither Content-Length nor chunked encoding ends where the
  // connection closes: cut short, it still reads as complete. A JSON body that
  // stops mid-value was cut off, as a chunked reply cut short is (retried),
  // not a wrong endpoint's answer.
  const bool closeDelimited =
      !res.has_header("Content-Length") && lower(res.get_header_value("Transfer-Encoding")).find("chunked") == std::string::npos;
  // (Only a 2xx: an error status says more than its cut body; an empty body
  // framed so is a reply that ended before it began.)
  if (ok && closeDelimited && res.status >= 200 && res.status < 300 &&
      (jsonCutShort(received) || received.find_first_not_of(" \t\r\n") == std::string::npos)) {
    ok = false;
    error = httplib::Error::Read;
  }
  if (ok) {
    attempt.ok = true;
    attempt.response.status = res.status;
    for (const auto& [k, v] : res.headers) attempt.response.headers.emplace(lower(k), v);
    attempt.response.body = std::move(received);
    // A gateway (OpenRouter) that had sent 200 before its upstream failed says
    // the real status in the body: {"error": {"code": 502, ...}}. Read as that
    // status: retried as such, and reported as such.
    if (res.status >= 200 && res.status < 300) {
      if (const int embedded = embeddedErrorStatus(attempt.response.body)) {
        attempt.response.status = embedded;
      } else if (auto failed = errorInAChoice(attempt.response.body)) {
        attempt.response.status = failed->status;
        attempt.response.body = std::move(failed->body);
      }
    }
    return attempt;
  }
  attempt.error = error;
  attempt.timedOut = error == httplib::Error::ConnectionTimeout ||
                     (error == httplib::Error::Read && elapsed + std::chrono::milliseconds(50) >= options_.readTimeout);
  // The socket's own read timeout, a moment before the watcher's: of a reply
  // that had started, that is the deadline too.
  if (attempt.timedOut && receiving && error == httplib::Error::Read) attempt.deadline = true;
  return attempt;
}

HttpResponse HttpTransport::postJson(const std::string& path,
                                     const std::vector<std::pair<std::string, std::string>>& headers,
                                     const std::string& body, const CancelToken& cancel) {
  const std::string url = base_.str() + path;
  auto cancelled = [&] { return Cancelled(providerName_ + ": the request to " + url + " was cancelled"); };
  int unanswered = 0;  // tries sent and given up without an answer: each may be billed
  // A model loads for tens of seconds: polled, not given up after a second of backoff.
  constexpr std::chrono::milliseconds kLoadingPoll{5000};
  std::chrono::milliseconds loadingWaited{0};
  auto failure = [&](Kind kind, const std::string& message) {
    ProviderError error(kind, message);
    error.setUnanswered(unanswered);
    return error;
  };
  for (int retry = 0;; ++retry) {
    if (cancel.cancelled()) {
      // Nothing in flight: only the tries given up without an answer may be billed.
      Cancelled between = cancelled();
      between.sentUnanswered = unanswered;
      throw between;
    }
    Attempt attempt = sendOnce(path, headers, body, cancel);
    if (cancel.cancelled()) throw cancelled();
    std::chrono::milliseconds delay{0};
    if (attempt.ok) {
      HttpResponse& res = attempt.response;
      res.retries = retry;
      res.unanswered = unanswered;
      if (modelLoading(res.status, res.body) && !retryAfter(res) && loadingWaited + kLoadingPoll <= options_.readTimeout) {
        loadingWaited += kLoadingPoll;
        delay = kLoadingPoll;
        --retry;  // a load waited for is no failed try
        cancel.notice(providerName_ + ": the server is loading the model; waiting (" + seconds(loadingWaited) + " so far)");
      } else {
        if (!retryableStatus(res.status, res.body) || retry >= options_.maxRetries) {
          if (retry > 0 || loadingWaited.count() > 0) cancel.notice("");  // the wait is over
          return std::move(res);
        }
        auto asked = retryAfter(res);
        if (asked && *asked > options_.maxRetryAfter) return std::move(res);  // the caller says how long was asked
        delay = asked ? *asked : backoff(retry);
        cancel.notice(providerName_ + ": the server answered " + std::to_string(res.status) +
                      (asked ? " and asked to wait " + seconds(delay) : "") + "; trying again" +
                      (asked ? "" : " in " + seconds(delay)) + " (try " + std::to_string(retry + 2) + " of " +
                      std::to_string(options_.maxRetries + 1) + ")");
      }
    } else {
      // Sent, and the server reached: a reply that never came in time, came cut, or too large.
      if (attempt.deadline || attempt.tooLarge || attempt.headersTooLarge || attempt.error == httplib::Error::Read)
        ++unanswered;
      if (attempt.deadline) {
        // Not retried: the time the user allowed for this reply is spent.
        throw failure(Kind::Timeout, providerName_ + ": the reply from " + url + " did not arrive in full within " +
                                               seconds(options_.readTimeout) +
                                               " (read_timeout_ms bounds the whole reply); the server is too slow or "
                                               "sending it a little at a time: raise read_timeout_ms if the model is just slow");
      }
      if (attempt.headersTooLarge) {
        throw failure(Kind::Protocol, providerName_ + ": the reply from " + url + " sent more than " +
                                                std::to_string(kMaxHeaderBytes >> 20) +
                                                " MiB before its headers ended (an API's are a few KB); is the base "
                                                "URL right?");
      }
      if (attempt.tooLarge) {
        throw failure(Kind::Protocol, providerName_ + ": the reply from " + url + " is larger than " +
                                                std::to_string(kMaxResponseBytes >> 20) + " MiB; is the base URL right?");
      }
      const auto e = attempt.error;
      const bool retryable = e == httplib::Error::Connection || e == httplib::Error::ConnectionTimeout ||
                             e == httplib::Error::Read || e == httplib::Error::Write ||
                             e == httplib::Error::Unknown || e == httplib::Error::SSLConnection;
      if (!retryable || retry >= options_.maxRetries) {
        std::string tries = retry == 0 ? "" : " (after " + std::to_string(retry + 1) + " tries)";
        if (attempt.timedOut) {
          bool connect = e == httplib::Error::ConnectionTimeout;
          throw failure(
              Kind::Timeout,
              providerName_ + ": " + (connect ? "could not connect to " : "no reply from ") + url + " within " +
                  seconds(connect ? options_.connectTimeout : options_.readTimeout) + tries + "; " +
                  (connect ? "check the base URL, the network and HTTPS_PROXY"
                           : "the server took the request and sent nothing back: a model that is just slow needs a higher "
                             "read_timeout_ms setting (user config, .revline.json, or the editor settings, which win); "
                             "a server that never answers (stuck, or a proxy that swallows the request) needs looking at, "
                             "and a lower read_timeout_ms ends each try sooner"));
        }
        std::string what = httplib::to_string(e);
        std::string hint;
        switch (e) {
          case httplib::Error::Connection:
            what = "could not connect (refused, or the host name did not resolve)";
            hint = "is the server running, and is the base URL right? (proxy: " +
                   (proxy_ ? proxy_->origin() : std::string("none")) + ")";
            break;
          case httplib::Error::SSLServerVerification:
            hint = "the server's TLS certificate was not trusted; check the system CA certificates or the proxy";
            break;
          case httplib::Error::SSLConnection:
            hint = "the TLS handshake failed; is the scheme right (https vs http)?";
            break;
          case httplib::Error::Read:
          case httplib::Error::Write:
            // The server was reached: the address is right, the connection did not last.
            what = e == httplib::Error::Read ? "the connection closed before the reply was complete"
                                             : "the connection closed while the request was sent";
            hint = "the server (or a proxy between) dropped it: overloaded, restarting, or limiting request size";
            break;
          default:
            hint = "check the base URL and the network";
        }
        // A connection the server dropped after it was made is the server's failure, not an unreachable endpoint.
        const bool dropped = e == httplib::Error::Read || e == httplib::Error::Write;
        throw failure(dropped ? Kind::Server : Kind::Network,
                            providerName_ + ": request to " + url + " failed: " + what + tries + "; " + hint);
      }
      delay = backoff(retry);
      cancel.notice(providerName_ + ": " +
                    (attempt.timedOut ? (e == httplib::Error::ConnectionTimeout ? "could not connect within " + seconds(options_.connectTimeout)
                                                                                 : "no reply within " + seconds(options_.readTimeout))
                     : e == httplib::Error::Connection ? std::string("could not connect")
                                                       : std::string("the connection failed")) +
                    "; trying again in " + seconds(delay) + " (try " + std::to_string(retry + 2) + " of " +
                    std::to_string(options_.maxRetries + 1) + ")");
    }
    options_.sleep(delay, cancel);
  }
}

}  // namespace revline::providers
