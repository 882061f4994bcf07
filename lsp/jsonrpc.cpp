#include "lsp/jsonrpc.h"

#include <iostream>
#include <regex>

namespace revline::lsp {

json encodeError(const LspError& error) {
  return json{{"code", static_cast<int>(error.code())}, {"message", error.what()}};
}

namespace {
bool validId(const json& id) { return id.is_number_integer() || id.is_string(); }
}  // namespace

Message classify(const json& m) {
  if (!m.is_object()) return Invalid{std::nullopt, "a JSON-RPC message must be an object"};
  std::optional<json> id;
  if (auto it = m.find("id"); it != m.end() && validId(*it)) id = *it;
  auto version = m.find("jsonrpc");
  if (version == m.end() || *version != "2.0") return Invalid{id, "missing or wrong \"jsonrpc\": expected \"2.0\""};
  auto method = m.find("method");
  if (method != m.end()) {
    if (!method->is_string()) return Invalid{id, "\"method\" must be a string"};
    json params = m.contains("params") ? m.at("params") : json(nullptr);
    if (!params.is_null() && !params.is_object() && !params.is_array())
      return Invalid{id, "\"params\" must be an object or an array"};
    if (!m.contains("id")) return Notification{method->get<std::string>(), std::move(params)};
    if (!id) return Invalid{std::nullopt, "\"id\" must be an integer or a string"};
    return Request{*id, method->get<std::string>(), std::move(params)};
  }
  if (m.contains("result") || m.contains("error")) {
    if (!m.contains("id")) return Invalid{std::nullopt, "a response needs an \"id\""};
    Response r;
    r.id = m.at("id");
    if (m.contains("result")) r.result = m.at("result");
    if (m.contains("error")) r.error = m.at("error");
    return r;
  }
  return Invalid{id, "neither a request, a notification nor a response"};
}

std::optional<json> scanId(const std::string& text) {
  static const std::regex re(R"re("id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*"))re");
  std::smatch m;
  if (!std::regex_search(text, m, re)) return std::nullopt;
  try {
    return json::parse(m[1].str());
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

ReplyOnce& ReplyOnce::operator=(ReplyOnce&& other) noexcept {
  if (this != &other) {
    if (sender_) (*this)(LspError(ErrorCode::InternalError, "server replaced an unanswered reply to " + method_));
    id_ = std::move(other.id_);
    method_ = std::move(other.method_);
    sender_ = std::move(other.sender_);
    other.sender_ = nullptr;
  }
  return *this;
}

ReplyOnce::~ReplyOnce() {
  if (sender_) (*this)(LspError(ErrorCode::InternalError, "server failed to reply to " + method_));
}

void ReplyOnce::operator()(ReplyValue value) {
  if (!sender_) {
    std::cerr << "revline lsp: bug: second reply to " << method_ << " (" << id_.dump() << ") ignored\n";
    return;
  }
  auto sender = std::move(sender_);
  sender_ = nullptr;
  sender(id_, value);
}

}  // namespace revline::lsp
