#include "core/eval/metered_provider.h"

namespace revline::eval {

review::ModelResponse MeteredProvider::complete(const review::ModelRequest& request, const CancelToken& cancel) {
  ++recording_.requests;
  review::ModelResponse response = inner_->complete(request, cancel);
  json turn = json::object();
  if (!response.toolCalls.empty()) {
    json calls = json::array();
    for (const auto& c : response.toolCalls) calls.push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
    turn["toolCalls"] = std::move(calls);
    if (!response.text.empty()) turn["reply"] = response.text;
  } else if (response.refusal) {
    turn["refusal"] = *response.refusal;
    if (!response.text.empty()) turn["reply"] = response.text;
  } else {
    turn["reply"] = response.text;
    turn["finishReason"] = response.finish == review::FinishReason::Length ? "length" : "stop";
  }
  turn["usage"] = {{"inputTokens", response.usage.inputTokens}, {"outputTokens", response.usage.outputTokens}};
  // Cache figures only when the provider reported any, so older cassettes and new ones read the same.
  if (response.usage.cachedInputTokens) turn["usage"]["cachedInputTokens"] = response.usage.cachedInputTokens;
  if (response.usage.cacheWriteTokens) turn["usage"]["cacheWriteTokens"] = response.usage.cacheWriteTokens;
  recording_.interactions.push_back(std::move(turn));
  return response;
}

}  // namespace revline::eval
