#include "lsp/jsonrpc.h"

#include <iostream>
#include <string_view>

namespace revline::lsp {

json encodeError(const LspError& error) {
  json out{{"code", static_cast<int>(error.code())}, {"message", error.what()}};
  if (!error.data().is_null()) out["data"] = error.data();
  return out;
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

namespace {
bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

// The id token that starts at `pos` (after `"id"`, blanks, `:`, blanks): an
// integer or a JSON string. Empty when there is none.
std::string_view idTokenAt(std::string_view text, std::size_t pos) {
  while (pos < text.size() && isSpace(text[pos])) ++pos;
  if (pos >= text.size() || text[pos] != ':') return {};
  ++pos;
  while (pos < text.size() && isSpace(text[pos])) ++pos;
  const std::size_t start = pos;
  if (pos < text.size() && text[pos] == '"') {
    for (++pos; pos < text.size(); ++pos) {
      if (text[pos] == '"') return text.substr(start, pos + 1 - start);
      if (text[pos] == '\\') {
        if (pos + 1 >= text.size() || text[pos + 1] == '\n' || text[pos + 1] == '\r') return {};
        ++pos;
      }
    }
    return {};
  }
  if (pos < text.size() && text[pos] == '-') ++pos;
  const std::size_t digits = pos;
  while (pos < text.size() && isDigit(text[pos])) ++pos;
  return pos > digits ? text.substr(start, pos - start) : std::string_view{};
}
}  // namespace

// A plain scan (no <regex>): the first `"id"` key followed by an integer or a
// string, as far as it can be read from text that is not valid JSON.
std::optional<json> scanId(const std::string& text) {
  static constexpr std::string_view kKey = "\"id\"";
  const std::string_view view(text);
  for (std::size_t at = view.find(kKey); at != std::string_view::npos; at = view.find(kKey, at + 1)) {
    const std::string_view token = idTokenAt(view, at + kKey.size());
    if (token.empty()) continue;
    try {
      return json::parse(token);
    } catch (const json::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
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
