#include "lsp/progress.h"

namespace revline::lsp {

void ProgressReporter::send(const std::string& token, const json& value) {
  transport_.notify("$/progress", json{{"token", token}, {"value", value}});
}

void ProgressReporter::create(const std::string& token, const std::string& requestId, json begin) {
  std::lock_guard<std::mutex> lock(mu_);
  states_[token] = State{std::move(begin), false, false, {}};
  byRequest_[requestId] = token;
  order_.push_back(token);
  while (order_.size() > kMaxUnanswered) {
    // A client that never answers the create request: its token and the request
    // both go (bounded, a review after another).
    std::erase_if(byRequest_, [&](const auto& entry) { return entry.second == order_.front(); });
    states_.erase(order_.front());
    order_.pop_front();
  }
  transport_.call("window/workDoneProgress/create", json{{"token", token}}, requestId);
}

void ProgressReporter::report(const std::string& token, json value) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = states_.find(token);
  if (it != states_.end() && it->second.accepted) send(token, value);
}

void ProgressReporter::end(const std::string& token, const std::string& message) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = states_.find(token);
  if (it == states_.end()) return;
  if (it->second.accepted) {
    send(token, json{{"kind", "end"}, {"message", message}});
    states_.erase(it);
  } else {
    it->second.ended = true;  // reported when the client answers
    it->second.endMessage = message;
  }
}

bool ProgressReporter::onReply(const json& id, bool accepted) {
  if (!id.is_string()) return false;
  std::lock_guard<std::mutex> lock(mu_);
  auto r = byRequest_.find(id.get<std::string>());
  if (r == byRequest_.end()) return false;
  const std::string token = r->second;
  byRequest_.erase(r);
  auto it = states_.find(token);
  if (it == states_.end()) return true;
  if (!accepted) {
    states_.erase(it);
    return true;
  }
  send(token, it->second.begin);
  if (it->second.ended) {
    send(token, json{{"kind", "end"}, {"message", it->second.endMessage}});
    states_.erase(it);
  } else {
    it->second.accepted = true;
  }
  return true;
}

}  // namespace revline::lsp
