#include "core/providers/redacting_provider.h"

#include "core/builtin/secrets.h"

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

}  // namespace

RedactingProvider::RedactingProvider(std::unique_ptr<review::Provider> inner, Redactor redactor)
    : inner_(std::move(inner)), redactor_(std::move(redactor)) {
  if (!redactor_) redactor_ = [](std::string_view text) { return builtin::redactSecrets(text); };
}

review::SecretFinder RedactingProvider::secretFinder() const {
  if (!inner_->remote()) return {};
  return [](std::string_view text, std::string_view path) {
    std::vector<review::SecretSpan> spans;
    for (auto& m : builtin::findSecrets(text, path)) spans.push_back({m.offset, m.length, std::move(m.kind)});
    return spans;
  };
}

review::ModelRequest RedactingProvider::redact(const review::ModelRequest& request) const {
  if (!inner_->remote()) return request;
  review::ModelRequest out = request;
  out.system = redactor_(request.system);
  for (review::Message& m : out.messages) {
    m.text = redactor_(m.text);
    for (review::ToolCall& c : m.toolCalls) c.arguments = redactJson(c.arguments, redactor_);
    for (review::ToolResult& r : m.toolResults) r.content = redactor_(r.content);
  }
  return out;
}

review::ModelResponse RedactingProvider::complete(const review::ModelRequest& request, const CancelToken& cancel) {
  if (!inner_->remote()) return inner_->complete(request, cancel);
  return inner_->complete(redact(request), cancel);
}

std::unique_ptr<review::Provider> redactIfRemote(std::unique_ptr<review::Provider> provider) {
  if (!provider || !provider->remote()) return provider;
  return std::make_unique<RedactingProvider>(std::move(provider));
}

}  // namespace revline::providers
