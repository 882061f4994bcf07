#include "core/providers/redacting_provider.h"

#include <algorithm>

#include "core/builtin/secrets.h"
#include "core/providers/remote_common.h"

namespace revline::providers {

namespace {

// Redacts every string inside a JSON value (keys stay: they are names the model chose).
json redactJson(const json& value, const RedactingProvider::Redactor& redact) {
  if (value.is_string()) return redact(value.get_ref<const std::string&>());
  if (value.is_array()) {
    json out = json::array();
    for (const auto& v : value) out.push_back(redactJson(v, redact));
    return out;
  }
  if (value.is_object()) {
    json out = json::object();
    for (auto it = value.begin(); it != value.end(); ++it) out[it.key()] = redactJson(it.value(), redact);
    return out;
  }
  return value;
}

constexpr std::size_t kMinKeyChars = 20;  // shorter: a test's or a local server's stand-in, found in other text

// A key that reads as random (20 characters or more, of two kinds of letters
// and digits at least, no space): every provider's real key; not a word or a
// host ("authorization", "localhost:8080") that a gateway was given, which is
// found in ordinary code.
bool randomLooking(std::string_view key) {
  if (key.size() < kMinKeyChars || key.find_first_of(" \t\n") != std::string_view::npos) return false;
  const bool upper = std::any_of(key.begin(), key.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
  const bool lower = std::any_of(key.begin(), key.end(), [](char c) { return c >= 'a' && c <= 'z'; });
  const bool digit = std::any_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
  return int(upper) + int(lower) + int(digit) >= 2;
}

// Where `key` occurs in `text` (none when it does not read as random).
std::vector<std::size_t> occurrences(std::string_view text, std::string_view key) {
  std::vector<std::size_t> at;
  if (!randomLooking(key)) return at;
  for (std::size_t i = text.find(key); i != std::string_view::npos; i = text.find(key, i + key.size())) at.push_back(i);
  return at;
}

}  // namespace

RedactingProvider::RedactingProvider(std::unique_ptr<review::Provider> inner, Redactor redactor, std::string apiKey)
    : inner_(std::move(inner)), redactor_(std::move(redactor)), apiKey_(std::move(apiKey)) {
  if (!redactor_) redactor_ = [](std::string_view text) { return builtin::redactSecrets(text); };
}

std::string RedactingProvider::redacted(std::string_view text) const {
  std::string out = redactor_(text);
  // The key whole, and any run of 12 or more of its characters (a piece cut
  // from a log line), as an error reply quoting it is scrubbed.
  return randomLooking(apiKey_) ? withoutKey(std::move(out), apiKey_) : out;
}

review::SecretFinder RedactingProvider::secretFinder() const {
  if (!inner_->remote()) return {};
  return [key = apiKey_](std::string_view text, std::string_view path) {
    std::vector<review::SecretSpan> spans;
    for (auto& m : builtin::findSecrets(text, path)) spans.push_back({m.offset, m.length, std::move(m.kind)});
    // The key where no secret the detector found covers it; spans stay in text order, apart.
    for (std::size_t at : occurrences(text, key)) {
      const bool covered = std::any_of(spans.begin(), spans.end(), [&](const review::SecretSpan& s) {
        return at < s.offset + s.length && s.offset < at + key.size();
      });
      if (!covered) spans.push_back({at, key.size(), "api-key"});
    }
    std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
    return spans;
  };
}

review::ModelRequest RedactingProvider::redact(const review::ModelRequest& request) const {
  if (!inner_->remote()) return request;
  review::ModelRequest out = request;
  const Redactor redact = [this](std::string_view text) { return redacted(text); };
  out.system = redact(request.system);
  for (review::Message& m : out.messages) {
    m.text = redact(m.text);
    for (review::ToolCall& c : m.toolCalls) c.arguments = redactJson(c.arguments, redact);
    for (review::ToolResult& r : m.toolResults) r.content = redact(r.content);
  }
  return out;
}

review::ModelResponse RedactingProvider::complete(const review::ModelRequest& request, const CancelToken& cancel) {
  if (!inner_->remote()) return inner_->complete(request, cancel);
  return inner_->complete(redact(request), cancel);
}

std::unique_ptr<review::Provider> redactIfRemote(std::unique_ptr<review::Provider> provider, std::string apiKey) {
  if (!provider || !provider->remote()) return provider;
  return std::make_unique<RedactingProvider>(std::move(provider), RedactingProvider::Redactor{}, std::move(apiKey));
}

}  // namespace revline::providers
