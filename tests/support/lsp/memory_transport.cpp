#include "tests/support/lsp/memory_transport.h"

#include <utility>

namespace revline::lsp {

void MemoryTransport::clientSendRaw(std::string body) {
  std::lock_guard<std::mutex> lock(mu_);
  toServer_.push_back({std::move(body)});
  cv_.notify_all();
}

void MemoryTransport::clientSendBatch(const std::vector<json>& messages) {
  std::vector<std::string> batch;
  for (const auto& m : messages) batch.push_back(m.dump());
  std::lock_guard<std::mutex> lock(mu_);
  toServer_.push_back(std::move(batch));
  cv_.notify_all();
}

void MemoryTransport::clientClose() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  cv_.notify_all();
}

bool MemoryTransport::readBatch(std::vector<std::string>& bodies) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return !toServer_.empty() || closed_ || woken_; });
  const bool woken = std::exchange(woken_, false);
  if (toServer_.empty()) return woken && !closed_;
  for (auto& b : toServer_.front()) bodies.push_back(std::move(b));
  toServer_.pop_front();
  return true;
}

void MemoryTransport::wake() {
  std::lock_guard<std::mutex> lock(mu_);
  woken_ = true;
  cv_.notify_all();
}

void MemoryTransport::writeBody(const std::string& body) {
  std::lock_guard<std::mutex> lock(mu_);
  toClient_.push_back(body);
  cv_.notify_all();
}

std::optional<json> MemoryTransport::clientReceive(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_for(lock, timeout, [&] { return !toClient_.empty(); })) return std::nullopt;
  std::string body = std::move(toClient_.front());
  toClient_.pop_front();
  return json::parse(body);
}

std::size_t MemoryTransport::pendingForClient() {
  std::lock_guard<std::mutex> lock(mu_);
  return toClient_.size();
}

}  // namespace revline::lsp
