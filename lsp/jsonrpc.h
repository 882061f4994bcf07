// JSON-RPC 2.0 as the language server speaks it: message classification, the
// one error type (LspError) with its one encoder, and ReplyOnce, which makes
// "exactly one reply per request" a property of the type.
#pragma once
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>

#include "core/support/json.h"

namespace revline::lsp {

enum class ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  RequestFailed = -32803,
  RequestCancelled = -32800,
  // A request the server stopped because a newer review of the same file made it
  // moot (LSP 3.17: for requests documented as server-cancellable, as revline's
  // review commands are): not the client's cancellation, whose reply clients
  // (Neovim) drop without telling the caller.
  ServerCancelled = -32802,
};

// Every failure that becomes a JSON-RPC error response.
class LspError : public std::runtime_error {
 public:
  // `data`: the error's optional `data` member (null: none), for a client to tell cases apart.
  LspError(ErrorCode code, const std::string& message, json data = nullptr)
      : std::runtime_error(message), code_(code), data_(std::move(data)) {}
  ErrorCode code() const { return code_; }
  const json& data() const { return data_; }
 private:
  ErrorCode code_;
  json data_;
};

// The one place an error becomes wire JSON: {"code": ..., "message": ..., "data"?: ...}.
json encodeError(const LspError& error);

// An inbound message, classified.
struct Request { json id; std::string method; json params; };
struct Notification { std::string method; json params; };
struct Response { json id; std::optional<json> result; std::optional<json> error; };
// Not JSON-RPC: `id` is set when one could be read (the reply then goes there).
struct Invalid { std::optional<json> id; std::string reason; };
using Message = std::variant<Request, Notification, Response, Invalid>;

Message classify(const json& message);

// When a frame is not even JSON, a best-effort scan for `"id": <number|string>`
// so a -32700 can still be addressed to the request.
std::optional<json> scanId(const std::string& text);

// Reads params into T, turning a decode failure into InvalidParams that names
// the method and the JSON path of the bad field.
template <typename T>
T parseParams(const json& params, const std::string& method) {
  try {
    return params.get<T>();
  } catch (const json::exception& e) {
    throw LspError(ErrorCode::InvalidParams, "invalid params for " + method + ": " + e.what());
  }
}

// The result of a request: a value or an error.
using ReplyValue = std::variant<json, LspError>;

// Answers one request exactly once. Move-only; answering twice is a bug
// (logged, ignored); destroying it unanswered sends InternalError.
class ReplyOnce {
 public:
  using Sender = std::function<void(const json& id, const ReplyValue&)>;
  ReplyOnce() = default;
  ReplyOnce(json id, std::string method, Sender sender)
      : id_(std::move(id)), method_(std::move(method)), sender_(std::move(sender)) {}
  ReplyOnce(ReplyOnce&& other) noexcept { *this = std::move(other); }
  ReplyOnce& operator=(ReplyOnce&& other) noexcept;
  ReplyOnce(const ReplyOnce&) = delete;
  ReplyOnce& operator=(const ReplyOnce&) = delete;
  ~ReplyOnce();

  void operator()(ReplyValue value);
  explicit operator bool() const { return static_cast<bool>(sender_); }
  const json& id() const { return id_; }
  const std::string& method() const { return method_; }

 private:
  json id_;
  std::string method_;
  Sender sender_;  // empty once answered or moved from
};

}  // namespace revline::lsp
