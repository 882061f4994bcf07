// Drives the real Server through the in-memory transport from a test, like an
// editor would (clangd's unittests/LSPClient). Every server message must be
// consumed by the test (window/logMessage excepted: kept for `log`, never required).
#pragma once
#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <functional>
#include <thread>

#include "lsp/server.h"
#include "lsp/transport.h"
#include "tests/support/lsp/memory_transport.h"

namespace revline::lsp::testing {

class LspClient {
 public:
  explicit LspClient(ServerOptions options) : server_(transport_, std::move(options)) {
    thread_ = std::thread([this] { exitCode_ = server_.run(); });
  }
  ~LspClient() {
    if (thread_.joinable()) stop();
  }

  int request(const std::string& method, json params) {
    const int id = nextId_++;
    transport_.clientSend(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    return id;
  }
  void notify(const std::string& method, json params) {
    transport_.clientSend(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }
  MemoryTransport& transport() { return transport_; }

  // The first message (in arrival order, earlier skipped ones included) that
  // satisfies `pred`; messages passed over stay for later waits.
  json waitFor(const std::function<bool(const json&)>& pred, const std::string& what,
               std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    for (auto it = backlog_.begin(); it != backlog_.end(); ++it) {
      if (pred(*it)) {
        json m = *it;
        backlog_.erase(it);
        return m;
      }
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      auto m = transport_.clientReceive(left);
      if (!m) break;
      if (m->value("method", "") == "window/logMessage") {
        logs_.push_back((*m)["params"].value("message", ""));
        continue;
      }
      if (pred(*m)) return *m;
      backlog_.push_back(*m);
    }
    ADD_FAILURE() << "timed out waiting for " << what;
    return json();
  }
  // Waits for a window/logMessage containing `text` (one the server writes for
  // troubleshooting: a decision with nothing else to see yet); returns it.
  std::string log(const std::string& text, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      for (auto it = logs_.begin(); it != logs_.end(); ++it) {
        if (it->find(text) == std::string::npos) continue;
        std::string found = *it;
        logs_.erase(it);
        return found;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      auto m = transport_.clientReceive(left);
      if (!m) break;
      if (m->value("method", "") == "window/logMessage") logs_.push_back((*m)["params"].value("message", ""));
      else backlog_.push_back(*m);
    }
    ADD_FAILURE() << "timed out waiting for a log message containing \"" << text << "\"";
    return {};
  }
  // The diagnostics of the last publishDiagnostics that arrives until the server
  // is quiet for `quiet` (the backlog's first); null when none does.
  json lastDiagnostics(std::chrono::milliseconds quiet = std::chrono::milliseconds(500)) {
    json last;
    for (auto it = backlog_.begin(); it != backlog_.end();) {
      if (it->value("method", "") != "textDocument/publishDiagnostics") {
        ++it;
        continue;
      }
      last = (*it)["params"]["diagnostics"];
      it = backlog_.erase(it);
    }
    for (auto m = transport_.clientReceive(std::chrono::seconds(5)); m; m = transport_.clientReceive(quiet)) {
      if (m->value("method", "") == "window/logMessage") logs_.push_back((*m)["params"].value("message", ""));
      else if (m->value("method", "") == "textDocument/publishDiagnostics") last = (*m)["params"]["diagnostics"];
      else backlog_.push_back(*m);
    }
    return last;
  }
  // Every `method` message, the backlog's first, until the server is quiet for `quiet`.
  std::vector<json> allOf(const std::string& method, std::chrono::milliseconds quiet = std::chrono::milliseconds(300)) {
    std::vector<json> out;
    for (auto it = backlog_.begin(); it != backlog_.end();) {
      if (it->value("method", "") != method) {
        ++it;
        continue;
      }
      out.push_back(*it);
      it = backlog_.erase(it);
    }
    while (auto m = transport_.clientReceive(quiet)) {
      if (m->value("method", "") == "window/logMessage") logs_.push_back((*m)["params"].value("message", ""));
      else if (m->value("method", "") == method) out.push_back(*m);
      else backlog_.push_back(*m);
    }
    return out;
  }
  json reply(int id) {
    return waitFor([id](const json& m) { return m.contains("id") && m["id"] == id && !m.contains("method"); },
                   "the reply to request " + std::to_string(id));
  }
  json notification(const std::string& method) {
    return waitFor([&](const json& m) { return m.value("method", "") == method; }, method);
  }
  // Answers the server's next window/workDoneProgress/create (the client accepts it).
  void acceptProgressCreate() {
    const json create = waitFor(
        [](const json& m) { return m.value("method", "") == "window/workDoneProgress/create"; }, "progress create");
    transport_.clientSend(json{{"jsonrpc", "2.0"}, {"id", create["id"]}, {"result", nullptr}});
  }
  // The value of the next `$/progress` end (reports before it are read past).
  json progressEnd() {
    for (;;)
      if (json v = notification("$/progress")["params"]["value"]; v.value("kind", "") == "end") return v;
  }
  // Nothing but logs arrives within `quiet`.
  void expectQuiet(std::chrono::milliseconds quiet = std::chrono::milliseconds(200)) {
    for (const auto& m : backlog_) ADD_FAILURE() << "unread server message: " << m.dump();
    backlog_.clear();
    const auto deadline = std::chrono::steady_clock::now() + quiet;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return;
      auto m = transport_.clientReceive(left);
      if (!m) return;
      if (m->value("method", "") != "window/logMessage") ADD_FAILURE() << "unexpected server message: " << m->dump();
    }
  }

  json initialize(const json& rootUri, json options = json::object(), json capabilities = json::object()) {
    const int id = request("initialize", {{"processId", nullptr}, {"rootUri", rootUri}, {"capabilities", capabilities},
                                          {"initializationOptions", options}});
    json r = reply(id);
    notify("initialized", json::object());
    return r;
  }

  // shutdown + exit; returns the exit code; fails on unread messages.
  int stop() {
    const int id = request("shutdown", nullptr);
    EXPECT_EQ(reply(id)["result"], json(nullptr));
    notify("exit", json::object());
    thread_.join();
    while (auto m = transport_.clientReceive(std::chrono::milliseconds(0)))
      if (m->value("method", "") != "window/logMessage") backlog_.push_back(*m);
    for (const auto& m : backlog_) ADD_FAILURE() << "unread server message: " << m.dump();
    backlog_.clear();
    return exitCode_;
  }

  Server& server() { return server_; }

 private:
  MemoryTransport transport_;
  Server server_;
  std::thread thread_;
  int exitCode_ = -1;
  int nextId_ = 1;
  std::deque<json> backlog_;
  std::deque<std::string> logs_;  // window/logMessage texts not yet looked for
};

}  // namespace revline::lsp::testing
