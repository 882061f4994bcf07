// A Transport for tests: the test plays the client from another thread,
// passing message bodies through queues (no framing, no file descriptors).
// Test-only, so it is not in the production library.
#pragma once
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lsp/transport.h"

namespace revline::lsp {

// In-memory transport: the test plays the client from another thread.
class MemoryTransport : public Transport {
 public:
  MemoryTransport() = default;
  // Client side.
  void clientSendRaw(std::string body);
  void clientSend(const json& message) { clientSendRaw(message.dump()); }
  // Sends several messages as one batch (as if they arrived in one read).
  void clientSendBatch(const std::vector<json>& messages);
  void clientClose();  // end of input
  // The next message the server sent, or nullopt after `timeout`.
  std::optional<json> clientReceive(std::chrono::milliseconds timeout);
  std::size_t pendingForClient();

 protected:
  bool readBatch(std::vector<std::string>& bodies) override;
  void writeBody(const std::string& body) override;
  void wake() override;

 private:
  bool woken_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::vector<std::string>> toServer_;
  bool closed_ = false;
  std::deque<std::string> toClient_;
};

}  // namespace revline::lsp
