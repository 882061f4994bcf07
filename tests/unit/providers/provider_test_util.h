// Shared helpers for the provider wire tests: settings pointing at a FakeServer,
// a recorded (instant) sleep, an injected environment, and sample requests.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/providers/remote_common.h"
#include "core/review/provider.h"
#include "tests/unit/providers/fake_server.h"

namespace revline::testing {

// Records the backoff sleeps instead of sleeping.
struct SleepRecorder {
  std::shared_ptr<std::vector<std::chrono::milliseconds>> sleeps =
      std::make_shared<std::vector<std::chrono::milliseconds>>();
  providers::SleepFn fn() const {
    auto s = sleeps;
    return [s](std::chrono::milliseconds d, const CancelToken&) { s->push_back(d); };
  }
};

inline providers::RemoteSettings settingsFor(const std::string& baseUrl, const SleepRecorder& sleeps,
                                             std::map<std::string, std::string> env = {}) {
  providers::RemoteSettings s;
  s.baseUrl = baseUrl;
  s.model = "test-model";
  s.transport.sleep = sleeps.fn();
  s.transport.random = [] { return 0.5; };  // jitter factor 1.0
  s.transport.connectTimeout = std::chrono::seconds(2);
  s.transport.readTimeout = std::chrono::seconds(5);
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(env));
  auto lookup = [shared](const std::string& name) -> std::optional<std::string> {
    auto it = shared->find(name);
    if (it == shared->end()) return std::nullopt;
    return it->second;
  };
  s.getenv = lookup;
  s.transport.getenv = lookup;
  return s;
}

inline json sampleSchema() {
  return json{{"type", "object"},
              {"properties", {{"summary", {{"type", "string"}}}}},
              {"required", json::array({"summary"})},
              {"additionalProperties", false}};
}

inline review::ModelRequest sampleRequest(const std::string& user = "Review this diff.") {
  review::ModelRequest r;
  r.system = "You are a code reviewer.";
  r.messages.push_back({review::Role::User, user, {}, {}});
  r.schema = sampleSchema();
  return r;
}

inline review::ToolSpec readFileSpec() {
  return {"read_file", "Read a file.",
          json{{"type", "object"},
               {"properties", {{"path", {{"type", "string"}}}}},
               {"required", json::array({"path"})},
               {"additionalProperties", false}}};
}

// OpenAI `tool_calls` entries, ids "call_<round>_<n>", for (name, arguments) pairs.
inline json openAiToolCallList(const std::vector<std::pair<std::string, json>>& calls, int round) {
  json list = json::array();
  int i = 0;
  for (const auto& [name, args] : calls) {
    list.push_back({{"id", "call_" + std::to_string(round) + "_" + std::to_string(++i)},
                    {"type", "function"},
                    {"function", {{"name", name}, {"arguments", args.dump()}}}});
  }
  return list;
}

// The kind of the ProviderError `f` throws (and its message, into `message`); a
// test failure when it throws none.
inline review::ProviderError::Kind kindOf(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const review::ProviderError& e) {
    if (message) *message = e.what();
    return e.kind();
  }
  ADD_FAILURE() << "no ProviderError thrown";
  return review::ProviderError::Kind::Protocol;
}

}  // namespace revline::testing
