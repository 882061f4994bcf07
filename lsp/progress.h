// Work-done progress for reviews ($/progress), in the order LSP requires: no
// notification for a token before the client answered its
// window/workDoneProgress/create, none at all after a refusal. A review that
// ends before the answer (a fast one, or --sync) reports begin and end when
// the answer arrives. Thread-safe (reviews run on the worker, replies arrive
// on the loop thread).
#pragma once
#include <deque>
#include <map>
#include <mutex>
#include <string>

#include "lsp/transport.h"

namespace revline::lsp {

class ProgressReporter {
 public:
  explicit ProgressReporter(Transport& transport) : transport_(transport) {}
  // Asks the client for a token (request id `requestId`); `begin` is the
  // WorkDoneProgressBegin value, sent once the client accepts.
  void create(const std::string& token, const std::string& requestId, json begin);
  void report(const std::string& token, json value);
  void end(const std::string& token, const std::string& message);
  // The client's answer to a create request; false when `id` is not one.
  bool onReply(const json& id, bool accepted);

 private:
  struct State {
    json begin;
    bool accepted = false;
    bool ended = false;
    std::string endMessage;
  };
  void send(const std::string& token, const json& value);
  static constexpr std::size_t kMaxUnanswered = 64;  // a client that never answers leaks nothing

  Transport& transport_;
  std::mutex mu_;
  std::map<std::string, State> states_;           // by token
  std::map<std::string, std::string> byRequest_;  // create request id -> token
  std::deque<std::string> order_;                 // tokens, oldest first
};

}  // namespace revline::lsp
