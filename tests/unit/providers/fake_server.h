// A fake model provider for the provider tests: a real httplib::Server on
// 127.0.0.1 (a free port) that serves scripted replies in order, recorded
// fixtures or injected faults (status codes, retry-after, slow replies), and
// records every request that reached it so a test can assert what went over
// the wire.
#pragma once
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <deque>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/support/json.h"

namespace revline::testing {

inline std::string fixture(const std::string& name) {
  std::ifstream in(std::string(REVLINE_SOURCE_DIR) + "/tests/unit/providers/fixtures/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing fixture " << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Reply {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  std::chrono::milliseconds delay{0};  // before answering (a slow server)

  static Reply ok(std::string body) { return Reply{200, std::move(body), {}, {}}; }
  static Reply fromFixture(const std::string& name, int status = 200) { return Reply{status, fixture(name), {}, {}}; }
  // OpenAI's refusal on /chat/completions of a model it serves only through the Responses API.
  static Reply onlyOnResponses() {
    return Reply{404, R"({"error":{"message":"This model is only supported in v1/responses and not in v1/chat/completions.","type":"invalid_request_error","param":"model","code":null}})", {}, {}};
  }
  // An OpenAI chat completion whose answer is `content`, with its usage.
  static Reply openAiAnswer(const std::string& content, int promptTokens = 100, int completionTokens = 10) {
    return ok(nlohmann::json{{"choices", {{{"index", 0},
                                           {"message", {{"role", "assistant"}, {"content", content}}},
                                           {"finish_reason", "stop"}}}},
                             {"usage", {{"prompt_tokens", promptTokens}, {"completion_tokens", completionTokens}}}}
                  .dump());
  }
  Reply& header(std::string k, std::string v) {
    headers.emplace_back(std::move(k), std::move(v));
    return *this;
  }
  Reply& after(std::chrono::milliseconds d) {
    delay = d;
    return *this;
  }
};

struct Received {
  std::string method;
  std::string path;
  httplib::Headers headers;
  std::string body;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
  bool hasHeader(const std::string& name) const { return headers.find(name) != headers.end(); }
  revline::json parsed() const { return revline::json::parse(body); }
};

class FakeServer {
 public:
  FakeServer() {
    server_.Post(".*", [this](const httplib::Request& req, httplib::Response& res) { handle(req, res); });
    port_ = server_.bind_to_any_port("127.0.0.1");
    EXPECT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeServer() {
    stopping_ = true;
    server_.stop();
    if (thread_.joinable()) thread_.join();
    if (checkDrained_) {
      std::lock_guard lock(mu_);
      EXPECT_TRUE(replies_.empty()) << replies_.size() << " scripted replies were never requested";
    }
  }
  FakeServer(const FakeServer&) = delete;
  FakeServer& operator=(const FakeServer&) = delete;

  int port() const { return port_; }
  std::string url(const std::string& path = "") const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

  FakeServer& enqueue(Reply reply) {
    std::lock_guard lock(mu_);
    replies_.push_back(std::move(reply));
    return *this;
  }
  std::vector<Received> requests() const {
    std::lock_guard lock(mu_);
    return received_;
  }
  std::size_t requestCount() const {
    std::lock_guard lock(mu_);
    return received_.size();
  }
  // Every request body, joined (for "the secret never went over the wire").
  std::string allBodies() const {
    std::lock_guard lock(mu_);
    std::string all;
    for (const auto& r : received_) all += r.body + "\n";
    return all;
  }
  void expectAllRepliesUsed(bool on) { checkDrained_ = on; }

 private:
  void handle(const httplib::Request& req, httplib::Response& res) {
    Reply reply;
    {
      std::lock_guard lock(mu_);
      received_.push_back({req.method, req.path, req.headers, req.body});
      if (replies_.empty()) {
        reply = Reply{500, R"({"error":{"message":"fake server: no scripted reply left"}})", {}, {}};
        ADD_FAILURE() << "the fake server got an unexpected request: " << req.path;
      } else {
        reply = std::move(replies_.front());
        replies_.pop_front();
      }
    }
    auto until = std::chrono::steady_clock::now() + reply.delay;
    while (!stopping_ && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    res.status = reply.status;
    for (const auto& [k, v] : reply.headers) res.set_header(k, v);
    res.set_content(reply.body, "application/json");
  }

  httplib::Server server_;
  int port_ = -1;
  std::thread thread_;
  mutable std::mutex mu_;
  std::deque<Reply> replies_;
  std::vector<Received> received_;
  std::atomic<bool> stopping_{false};
  bool checkDrained_ = true;
};

}  // namespace revline::testing
