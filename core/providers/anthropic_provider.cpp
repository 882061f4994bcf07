#include "core/providers/anthropic_provider.h"

#include <charconv>
#include <string_view>

#include "core/review/prompt.h"

namespace revline::providers {

using review::FinishReason;
using review::ProviderError;
using review::Role;
using Kind = review::ProviderError::Kind;

namespace {

constexpr const char* kPath = "/v1/messages";

// Appends content blocks as a turn of `role`, merging with the previous turn when it
// has the same role (the API wants user and assistant turns to alternate).
void appendTurn(ojson& messages, const std::string& role, ojson blocks) {
  if (blocks.empty()) return;
  if (!messages.empty() && messages.back()["role"] == role) {
    for (auto& b : blocks) messages.back()["content"].push_back(std::move(b));
    return;
  }
  messages.push_back({{"role", role}, {"content", std::move(blocks)}});
}

ojson textBlock(const std::string& text) { return {{"type", "text"}, {"text", text}}; }

// The API rejects a text block without visible text ("text content blocks must
// contain non-whitespace text"), e.g. the "\n\n" a model writes before a tool_use.
bool blank(const std::string& text) { return text.find_first_not_of(" \t\r\n\f\v") == std::string::npos; }

// The limit in "max_tokens: 8192 > 4096, which is the maximum allowed number of
// output tokens for claude-3-haiku-20240307"; nullopt for any other message
// (such as the context overflow "input length and `max_tokens` exceed context limit").
std::optional<int> modelOutputLimit(std::string_view message) {
  constexpr std::string_view kLead = "max_tokens: ";
  const std::size_t at = message.find(kLead);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = message.substr(at + kLead.size());
  const auto number = [&rest]() -> std::optional<int> {
    int n = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
    if (ec != std::errc()) return std::nullopt;
    rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
    return n;
  };
  if (!number() || !rest.starts_with(" > ")) return std::nullopt;
  rest.remove_prefix(3);
  const std::optional<int> allowed = number();
  if (!allowed || *allowed <= 0) return std::nullopt;
  return allowed;
}

// Prompt caching (cache_control breakpoints; the prefix up to each is cached
// for reuse by a later request that starts with the same bytes):
// - the system block: tools and system prompt, shared by every review of a session;
// - when tools are offered (a conversation of several calls is likely), the
//   last block of the first user turn (the diff, identical in every call of
//   the review) and of the last turn (what the next round re-sends).
// Three of the four breakpoints the API allows.
void markCacheBreakpoints(ojson& body, ojson& messages, bool conversation) {
  const ojson ephemeral = {{"type", "ephemeral"}};
  if (body.contains("system")) body["system"].back()["cache_control"] = ephemeral;
  if (!conversation || messages.empty()) return;
  messages.front()["content"].back()["cache_control"] = ephemeral;
  if (messages.size() > 1) messages.back()["content"].back()["cache_control"] = ephemeral;
}

}  // namespace

AnthropicProvider::AnthropicProvider(RemoteSettings settings)
    : RemoteProvider(std::move(settings), [](const RemoteSettings& s) {
        // The API path already starts with /v1: a base URL written as ".../v1" means the same host.
        return withoutTrailingV1(resolveEndpoint("anthropic", s, kDefaultBaseUrl, kDefaultModel, kDefaultKeyEnv));
      }) {
  std::lock_guard<std::mutex> lock(negotiatedMu_);
  if (const auto it = negotiated_.find(endpoint_.base.str() + '\0' + endpoint_.model); it != negotiated_.end())
    accepted_ = it->second;
}

void AnthropicProvider::remember() const {
  std::lock_guard<std::mutex> lock(negotiatedMu_);
  if (negotiated_.size() >= 256) negotiated_.clear();  // a few endpoints and models in practice; bounded all the same
  negotiated_[endpoint_.base.str() + '\0' + endpoint_.model] = accepted_;
}

const char* AnthropicProvider::path() const { return kPath; }

RemoteProvider::Headers AnthropicProvider::headers() const {
  Headers h = {{"anthropic-version", kApiVersion}};
  if (!endpoint_.apiKey.empty()) h.emplace_back("x-api-key", endpoint_.apiKey);
  return h;
}

std::string AnthropicProvider::notFoundHint(const std::string&) const {
  return "the base URL is the host only, e.g. https://api.anthropic.com";
}

bool AnthropicProvider::adaptToRejection(const HttpResponse& response) {
  if (response.status != 400 || providerErrorCode(response.body) != "invalid_request_error") return false;
  const std::string message = providerErrorMessage(response.body);
  if (accepted_.temperature && message.find("temperature") != std::string::npos) {
    accepted_.temperature = false;  // "`temperature` is deprecated for this model"
    remember();
    return true;
  }
  if (!accepted_.outputCap) {
    const std::optional<int> limit = modelOutputLimit(message);
    if (limit && *limit < settings_.maxOutputTokens) {
      accepted_.outputCap = limit;
      remember();
      return true;
    }
  }
  return false;
}

ojson AnthropicProvider::buildRequest(const review::ModelRequest& request) const {
  const bool native = settings_.structuredOutput == config::StructuredOutput::Native && !request.schema.is_null();
  bool historyHasTools = false;
  for (const auto& m : request.messages) historyHasTools |= !m.toolCalls.empty() || !m.toolResults.empty();
  // Tool blocks need tool definitions in the request; in prompt mode with the tools
  // withdrawn there are none, so earlier tool turns travel as text instead.
  const bool toolsAsText = !native && request.tools.empty() && historyHasTools;

  ojson messages = ojson::array();
  for (const review::Message& m : request.messages) {
    switch (m.role) {
      case Role::User:
        appendTurn(messages, "user", ojson::array({textBlock(blank(m.text) ? "(empty)" : m.text)}));
        break;
      case Role::Assistant: {
        ojson blocks = ojson::array();
        if (!blank(m.text)) blocks.push_back(textBlock(m.text));
        for (const review::ToolCall& c : m.toolCalls) {
          if (toolsAsText) {
            blocks.push_back(textBlock("[called tool " + c.name + " with " + argumentsText(c.arguments) + "]"));
          } else {
            blocks.push_back({{"type", "tool_use"},
                              {"id", c.id},
                              {"name", c.name},
                              {"input", ojson(c.arguments.is_object() ? c.arguments : json::object())}});
          }
        }
        if (blocks.empty()) blocks.push_back(textBlock("(empty reply)"));
        appendTurn(messages, "assistant", std::move(blocks));
        break;
      }
      case Role::Tool: {
        ojson blocks = ojson::array();
        for (const review::ToolResult& r : m.toolResults) {
          if (toolsAsText) {
            blocks.push_back(textBlock("[result of tool " + r.name + (r.ok ? "" : " (error)") + "]\n" + r.content));
          } else {
            ojson block = {{"type", "tool_result"}, {"tool_use_id", r.callId}, {"content", r.content.empty() ? "(empty)" : r.content}};
            if (!r.ok) block["is_error"] = true;
            blocks.push_back(std::move(block));
          }
        }
        if (!blank(m.text)) blocks.push_back(textBlock(m.text));
        appendTurn(messages, "user", std::move(blocks));
        break;
      }
    }
  }

  std::string system = request.system;
  if (!native && !request.schema.is_null()) system += review::schemaInstructions(request.schema);
  // Keys in the order the API builds its cache prefix (tools, system, messages),
  // so a conversation's bodies also share their bytes up to the first user turn.
  ojson body = {{"model", endpoint_.model}, {"max_tokens", accepted_.outputCap.value_or(settings_.maxOutputTokens)}};
  if (accepted_.temperature) body["temperature"] = 0;

  ojson tools = ojson::array();
  if (native) {
    tools.push_back({{"name", kReportName},
                     {"description",
                      "Submit your complete review. Call this exactly once, when you are done, with the whole report "
                      "as its input."},
                     {"input_schema", request.schema}});
  }
  for (const review::ToolSpec& t : request.tools) {
    tools.push_back({{"name", t.name}, {"description", t.description}, {"input_schema", ojson(t.inputSchema)}});
  }
  if (!tools.empty()) body["tools"] = std::move(tools);
  if (native) {
    body["tool_choice"] = request.tools.empty() ? ojson{{"type", "tool"}, {"name", kReportName}} : ojson{{"type", "any"}};
  }
  if (!system.empty()) body["system"] = ojson::array({textBlock(system)});
  markCacheBreakpoints(body, messages, !request.tools.empty());
  body["messages"] = std::move(messages);
  return body;
}

review::ModelResponse AnthropicProvider::parseResponse(const json& body) const {
  if (stringField(body, "type") == "error") {
    throw ProviderError(Kind::Server, "anthropic: " + endpoint_.base.str() + kPath +
                                          " returned an error: " + providerErrorMessage(body.dump()));
  }
  if (!body.contains("content") || !body["content"].is_array()) {
    throw ProviderError(Kind::Protocol, "anthropic: unexpected reply from " + endpoint_.base.str() + kPath +
                                            ": no content array");
  }
  review::ModelResponse out;
  std::string text;
  std::optional<json> submitted;
  int index = 0;
  for (const json& block : body["content"]) {
    ++index;
    if (!block.is_object()) continue;
    std::string type = stringField(block, "type");
    if (type == "text" && block.contains("text") && block["text"].is_string()) {
      text += block["text"].get<std::string>();
    } else if (type == "tool_use") {
      std::string name = stringField(block, "name");
      json input = block.contains("input") ? block["input"] : json::object();
      if (name == kReportName) {
        submitted = std::move(input);  // the last submission wins, as with text candidates
      } else {
        review::ToolCall tc;
        tc.id = block.contains("id") && block["id"].is_string() ? block["id"].get<std::string>()
                                                                 : "toolu_" + std::to_string(index);
        tc.name = std::move(name);
        tc.arguments = std::move(input);
        out.toolCalls.push_back(std::move(tc));
      }
    }
  }
  std::string stop = body.contains("stop_reason") && body["stop_reason"].is_string()
                         ? body["stop_reason"].get<std::string>()
                         : "end_turn";
  if (submitted) {
    out.text = submitted->dump(-1, ' ', false, json::error_handler_t::replace);
    out.toolCalls.clear();  // the review is in; exploration alongside it is moot
  } else {
    out.text = text;
  }
  if (stop == "refusal") {
    out.finish = FinishReason::Refusal;
    out.refusal = text.empty() ? "the model declined to answer (stop_reason \"refusal\")" : text;
    out.toolCalls.clear();
  } else if (stop == "max_tokens" || stop == "model_context_window_exceeded") {
    // Either way the answer was cut off.
    out.finish = FinishReason::Length;
    out.toolCalls.clear();
  } else if (!out.toolCalls.empty()) {
    out.finish = FinishReason::ToolCalls;
  } else {
    out.finish = FinishReason::Stop;
  }
  if (body.contains("usage") && body["usage"].is_object()) {
    const json& u = body["usage"];
    // input_tokens counts only what came after the last cache breakpoint; the
    // cached and newly cached parts are reported beside it.
    bool& unreadable = out.countsUnreadable;
    out.usage.cachedInputTokens = tokenCount(u, "cache_read_input_tokens", &unreadable);
    out.usage.cacheWriteTokens = tokenCount(u, "cache_creation_input_tokens", &unreadable);
    out.usage.inputTokens = tokenCount(u, "input_tokens", &unreadable) + out.usage.cacheWriteTokens +
                            out.usage.cachedInputTokens;
    out.usage.outputTokens = tokenCount(u, "output_tokens", &unreadable);
  }
  return out;
}

}  // namespace revline::providers
