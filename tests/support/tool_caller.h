// A fake model for tests of what the model's tools see in a real review: in its
// first turn it makes the tool calls it is given, then approves; it keeps what
// each call answered, by call id.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/review/provider.h"

namespace revline::testing {

class ToolCaller : public review::Provider {
 public:
  ToolCaller(std::map<std::string, review::ToolResult>& results, std::vector<review::ToolCall> calls)
      : results_(results), calls_(std::move(calls)) {}
  std::string name() const override { return "fake"; }
  std::string model() const override { return "fake-model"; }
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken&) override {
    review::ModelResponse r;
    if (request.messages.size() == 1) {
      r.toolCalls = calls_;
      r.finish = review::FinishReason::ToolCalls;
      return r;
    }
    for (const review::Message& m : request.messages)
      for (const review::ToolResult& t : m.toolResults) results_[t.callId] = t;
    r.text = nlohmann::json{{"summary", "ok"}, {"verdict", "APPROVE"}, {"findings", nlohmann::json::array()}}.dump();
    return r;
  }

 private:
  std::map<std::string, review::ToolResult>& results_;
  std::vector<review::ToolCall> calls_;
};

}  // namespace revline::testing
