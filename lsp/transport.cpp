#include <iostream>

#include "lsp/transport.h"

namespace revline::lsp {

Transport::Transport() {
  log = [](const std::string& line) { std::cerr << "revline lsp: " << line << "\n"; };
}

void Transport::send(const json& message) {
  // Invalid UTF-8 from a file must not throw: replace it.
  std::string body = message.dump(-1, ' ', false, json::error_handler_t::replace);
  std::lock_guard<std::mutex> lock(writeMutex_);
  writeBody(body);
}

void Transport::notify(const std::string& method, const json& params) {
  send(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", params}});
}

void Transport::call(const std::string& method, const json& params, const json& id) {
  send(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
}

void Transport::reply(const json& id, const ReplyValue& value) {
  json m{{"jsonrpc", "2.0"}, {"id", id}};
  if (const auto* error = std::get_if<LspError>(&value)) m["error"] = encodeError(*error);
  else m["result"] = std::get<json>(value);
  send(m);
}

void Transport::post(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(postedMutex_);
    posted_.push_back(std::move(task));
  }
  wake();
}

void Transport::discardPosted() {
  std::lock_guard<std::mutex> lock(postedMutex_);
  posted_.clear();
}

void Transport::runPosted() {
  std::vector<std::function<void()>> tasks;
  {
    std::lock_guard<std::mutex> lock(postedMutex_);
    tasks.swap(posted_);
  }
  for (auto& task : tasks) task();
}

namespace {
struct Parsed {
  std::optional<Message> message;  // nullopt: not JSON
  std::string error;
  const std::string* body = nullptr;
};
bool isCancel(const Parsed& p) {
  if (!p.message) return false;
  const auto* n = std::get_if<Notification>(&*p.message);
  return n && n->method == "$/cancelRequest";
}
}  // namespace

bool Transport::loop(MessageHandler& handler) {
  for (;;) {
    std::vector<std::string> bodies;
    const bool more = readBatch(bodies);
    runPosted();  // results posted while waiting, before the messages that follow them
    std::vector<Parsed> parsed(bodies.size());
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      parsed[i].body = &bodies[i];
      try {
        parsed[i].message = classify(json::parse(bodies[i]));
      } catch (const json::exception& e) {
        parsed[i].error = e.what();
      }
    }
    // Cancellations first: they only mark work as cancelled, and must be seen
    // before the work they cancel is started.
    std::vector<const Parsed*> ordered;
    for (const auto& p : parsed)
      if (isCancel(p)) ordered.push_back(&p);
    for (const auto& p : parsed)
      if (!isCancel(p)) ordered.push_back(&p);
    for (const Parsed* p : ordered)
      if (!dispatch(*p->body, p->message, p->error, handler)) return true;
    if (!more) return false;
  }
}

bool Transport::dispatch(const std::string& body, const std::optional<Message>& message, const std::string& parseError,
                         MessageHandler& handler) {
  if (!message) {
    // JSON-RPC 2.0: a parse error is answered, with id null when it cannot be read.
    log("a message that is not JSON: " + parseError);
    reply(scanId(body).value_or(json(nullptr)), LspError(ErrorCode::ParseError, "invalid JSON: " + parseError));
    return true;
  }
  const Message& m = *message;
  if (auto* r = std::get_if<Request>(&m)) return handler.onCall(r->method, r->params, r->id);
  if (auto* n = std::get_if<Notification>(&m)) return handler.onNotify(n->method, n->params);
  if (auto* r = std::get_if<Response>(&m)) return handler.onReply(r->id, r->result, r->error);
  const auto& bad = std::get<Invalid>(m);
  log("an invalid JSON-RPC message: " + bad.reason);
  reply(bad.id.value_or(json(nullptr)), LspError(ErrorCode::InvalidRequest, bad.reason));
  return true;
}

}  // namespace revline::lsp
