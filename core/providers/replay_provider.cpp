#include "core/providers/replay_provider.h"

#include "core/support/files.h"

namespace revline::providers {
namespace {

using review::ProviderError;

[[noreturn]] void fail(const std::string& origin, const std::string& what) {
  throw ProviderError(ProviderError::Kind::Config, "cassette " + origin + ": " + what);
}

review::ModelResponse readInteraction(const json& item, const std::string& where, const std::string& origin) {
  if (!item.is_object()) fail(origin, where + ": expected an object with \"reply\" or \"toolCalls\"");
  review::ModelResponse r;
  for (const auto& [key, value] : item.items()) {
    if (key == "reply") {
      if (!value.is_string()) fail(origin, where + ".reply: expected a string (the raw text of the model's answer)");
      r.text = value.get<std::string>();
    } else if (key == "finishReason") {
      const std::string v = value.is_string() ? value.get<std::string>() : "";
      if (v == "stop") r.finish = review::FinishReason::Stop;
      else if (v == "length") r.finish = review::FinishReason::Length;
      else fail(origin, where + ".finishReason: expected \"stop\" or \"length\", got " + value.dump());
    } else if (key == "refusal") {
      if (!value.is_string()) fail(origin, where + ".refusal: expected a string");
      r.refusal = value.get<std::string>();
      r.finish = review::FinishReason::Refusal;
    } else if (key == "usage") {
      if (!value.is_object()) fail(origin, where + ".usage: expected {\"inputTokens\": N, \"outputTokens\": N}");
      r.usage.inputTokens = value.value("inputTokens", 0);
      r.usage.outputTokens = value.value("outputTokens", 0);
      r.usage.cachedInputTokens = value.value("cachedInputTokens", 0);
      r.usage.cacheWriteTokens = value.value("cacheWriteTokens", 0);
    } else if (key == "toolCalls") {
      if (!value.is_array()) fail(origin, where + ".toolCalls: expected an array");
      for (std::size_t i = 0; i < value.size(); ++i) {
        const json& c = value[i];
        const std::string at = where + ".toolCalls[" + std::to_string(i) + "]";
        if (!c.is_object() || !c.contains("name") || !c["name"].is_string())
          fail(origin, at + ": expected {\"name\": TOOL, \"arguments\": {...}}");
        review::ToolCall call;
        call.id = c.value("id", "call_" + std::to_string(i + 1));
        call.name = c["name"].get<std::string>();
        call.arguments = c.value("arguments", json::object());
        r.toolCalls.push_back(std::move(call));
      }
      r.finish = review::FinishReason::ToolCalls;
    } else {
      fail(origin, where + ": unknown key \"" + key + "\" (expected reply, finishReason, refusal, usage, toolCalls)");
    }
  }
  if (!item.contains("reply") && !item.contains("toolCalls") && !item.contains("refusal"))
    fail(origin, where + ": needs \"reply\", \"toolCalls\" or \"refusal\"");
  return r;
}

}  // namespace

ReplayProvider ReplayProvider::fromJson(const json& cassette, const std::string& origin) {
  if (!cassette.is_object() || !cassette.contains("interactions") || !cassette["interactions"].is_array())
    fail(origin, "expected {\"interactions\": [...]}");
  ReplayProvider p;
  p.origin_ = origin;
  const json& items = cassette["interactions"];
  for (std::size_t i = 0; i < items.size(); ++i)
    p.interactions_.push_back(readInteraction(items[i], "interactions[" + std::to_string(i) + "]", origin));
  return p;
}

ReplayProvider ReplayProvider::fromFile(const std::filesystem::path& cassette) {
  const std::optional<std::string> text = readWholeFile(cassette);
  if (!text) {
    throw ProviderError(ProviderError::Kind::Config,
                        "cannot read cassette " + cassette.string() + ": no such file or not readable");
  }
  json doc;
  try {
    doc = json::parse(*text);
  } catch (const json::parse_error& e) {
    fail(cassette.string(), std::string("not valid JSON: ") + e.what());
  }
  return fromJson(doc, cassette.string());
}

review::ModelResponse ReplayProvider::complete(const review::ModelRequest& request, const CancelToken& cancel) {
  if (cancel.cancelled()) throw Cancelled("review cancelled");
  requests_.push_back(request);
  if (next_ >= interactions_.size()) {
    throw ProviderError(ProviderError::Kind::Protocol,
                        "cassette " + origin_ + " has no interaction left for model call " +
                            std::to_string(next_ + 1) + " (it holds " + std::to_string(interactions_.size()) + ")");
  }
  return interactions_[next_++];
}

}  // namespace revline::providers
