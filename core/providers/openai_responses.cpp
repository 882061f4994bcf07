#include "core/providers/openai_responses.h"

#include <vector>

#include "core/support/text.h"

namespace revline::providers {

using review::FinishReason;
using review::ProviderError;
using review::Role;
using Kind = review::ProviderError::Kind;

bool onlyOnResponses(const std::string& message) {
  const std::string lower = lowered(message);
  return lower.find("v1/responses") != std::string::npos &&
         (lower.find("only supported") != std::string::npos || lower.find("not supported in v1/chat") != std::string::npos ||
          lower.find("please use") != std::string::npos);
}

bool refusesReasoningEcho(const std::string& message) {
  // "Encrypted content is not supported with this model.", "Unknown parameter:
  // 'include'.", "Item 'rs_...' of type 'reasoning' was provided without its
  // required following item.", "Could not decrypt the provided encrypted_content."
  const std::string lower = lowered(message);
  for (const char* words : {"encrypted", "'include'", "\"include\"", "`include`", "type 'reasoning'", "reasoning item"})
    if (lower.find(words) != std::string::npos) return true;
  return false;
}

namespace {

ojson functionCallItem(const review::ToolCall& c) {
  return {{"type", "function_call"}, {"call_id", c.id}, {"name", c.name}, {"arguments", argumentsText(c.arguments)}};
}

// An assistant turn that called tools, with the reasoning its reply had, in the
// reply's order: each run of reasoning items goes just before the item that
// followed it (OpenAI refuses a reasoning item "without its required following
// item"), so a run whose call was dropped (past the calls kept of one reply) is
// dropped with it.
void pushTurnWithReasoning(ojson& input, const review::Message& m, const json& order) {
  std::vector<ojson> pending;
  std::vector<bool> callSent(m.toolCalls.size(), false);
  bool textSent = m.text.empty();
  auto emit = [&](ojson item) {
    for (ojson& r : pending) input.push_back(std::move(r));
    pending.clear();
    input.push_back(std::move(item));
  };
  for (const json& item : order) {
    if (!item.is_object()) continue;
    const std::string type = stringField(item, "type");
    if (type == "reasoning") {
      pending.push_back(ojson(item));
    } else if (type == "message" && !textSent) {
      emit({{"role", "assistant"}, {"content", m.text}});
      textSent = true;
    } else if (type == "function_call") {
      const std::string id = stringField(item, "call_id");
      for (std::size_t i = 0; i < m.toolCalls.size(); ++i)
        if (!callSent[i] && m.toolCalls[i].id == id) {
          emit(functionCallItem(m.toolCalls[i]));
          callSent[i] = true;
          break;
        }
    }
  }
  if (!textSent) input.push_back({{"role", "assistant"}, {"content", m.text}});
  for (std::size_t i = 0; i < m.toolCalls.size(); ++i)
    if (!callSent[i]) input.push_back(functionCallItem(m.toolCalls[i]));
}

}  // namespace

ojson responsesRequest(const review::ModelRequest& request, const std::string& model, const std::string& system,
                       bool nativeSchema, bool reasoningEcho) {
  ojson input = ojson::array();
  for (const review::Message& m : request.messages) {
    switch (m.role) {
      case Role::User:
        input.push_back({{"role", "user"}, {"content", m.text}});
        break;
      case Role::Assistant:
        if (reasoningEcho && !m.toolCalls.empty() && m.echo.is_object() && m.echo.contains("responses_output") &&
            m.echo["responses_output"].is_array()) {
          pushTurnWithReasoning(input, m, m.echo["responses_output"]);
          break;
        }
        if (!m.text.empty()) input.push_back({{"role", "assistant"}, {"content", m.text}});
        for (const review::ToolCall& c : m.toolCalls) input.push_back(functionCallItem(c));
        break;
      case Role::Tool:
        for (const review::ToolResult& r : m.toolResults)
          input.push_back({{"type", "function_call_output"},
                           {"call_id", r.callId},
                           {"output", toolResultText(r)}});
        if (!m.text.empty()) input.push_back({{"role", "user"}, {"content", m.text}});  // a note after the results
        break;
    }
  }
  // What stays the same in every call of a conversation leads the body, as on
  // /chat/completions; `input` grows at the end.
  ojson body = {{"model", model}, {"store", false}};
  if (reasoningEcho) body["include"] = ojson::array({"reasoning.encrypted_content"});
  if (!system.empty()) body["instructions"] = system;
  if (nativeSchema && !request.schema.is_null())
    body["text"] = {{"format", {{"type", "json_schema"}, {"name", "review_report"}, {"strict", true}, {"schema", request.schema}}}};
  if (!request.tools.empty()) {
    ojson tools = ojson::array();
    for (const review::ToolSpec& t : request.tools)  // flat: no "function" object around them here
      tools.push_back({{"type", "function"}, {"name", t.name}, {"description", t.description},
                       {"parameters", ojson(t.inputSchema)}, {"strict", false}});
    body["tools"] = std::move(tools);
  }
  body["input"] = std::move(input);
  return body;
}

review::ModelResponse parseResponsesReply(const json& body, const std::string& where) {
  auto protocol = [&](const std::string& why) {
    return ProviderError(Kind::Protocol, "openai: unexpected reply from " + where + ": " + why);
  };
  if (body.contains("error") && !body["error"].is_null())
    throw ProviderError(Kind::Server, "openai: " + where + " returned an error: " + providerErrorMessage(body.dump()));
  if (!body.contains("output") || !body["output"].is_array()) throw protocol("no output");
  review::ModelResponse out;
  int index = 0;
  // The reply's items in order, for the turn's echo: reasoning whole (what
  // OpenAI decrypts, as received), the other items by their place.
  json order = json::array();
  bool reasoning = false;
  for (const json& item : body["output"]) {
    if (!item.is_object()) continue;
    const std::string type = stringField(item, "type");
    if (type == "reasoning") {
      // Without encrypted content a reasoning item is only an id, which names
      // nothing with store off ("Item with id 'rs_...' not found"): not kept.
      const auto encrypted = item.find("encrypted_content");
      if (encrypted == item.end() || !encrypted->is_string() || encrypted->get_ref<const std::string&>().empty()) continue;
      const auto summary = item.find("summary");
      order.push_back({{"type", "reasoning"},
                       {"summary", summary != item.end() && summary->is_array() ? *summary : json::array()},
                       {"encrypted_content", *encrypted}});
      reasoning = true;
    } else if (type == "message") {
      order.push_back({{"type", "message"}});
    }
    if (type == "message" && item.contains("content") && item["content"].is_array()) {
      for (const json& part : item["content"]) {
        if (!part.is_object()) continue;
        const std::string kind = stringField(part, "type");
        if (kind == "output_text") out.text += stringField(part, "text");
        else if (kind == "refusal" && !stringField(part, "refusal").empty()) out.refusal = stringField(part, "refusal");
      }
    } else if (type == "function_call") {
      ++index;
      review::ToolCall tc;
      tc.id = stringField(item, "call_id");
      if (tc.id.empty()) tc.id = "call_" + std::to_string(index);
      tc.name = stringField(item, "name");
      const auto args = item.find("arguments");
      tc.arguments = args == item.end()  ? json::object()
                     : args->is_string() ? toolArguments(args->get_ref<const std::string&>())
                                         : *args;
      order.push_back({{"type", "function_call"}, {"call_id", tc.id}});
      out.toolCalls.push_back(std::move(tc));
    }
  }
  if (reasoning) out.turnEcho = {{"responses_output", std::move(order)}};
  const std::string status = stringField(body, "status");
  const std::string incomplete =
      body.contains("incomplete_details") ? stringField(body["incomplete_details"], "reason") : std::string();
  settleFinish(out, status == "incomplete" && incomplete != "content_filter",
               status == "incomplete" && incomplete == "content_filter" ? "incomplete_details \"content_filter\"" : "");
  std::int64_t reasoningTokens = 0;
  if (body.contains("usage") && body["usage"].is_object()) {
    const json& u = body["usage"];
    out.usage.inputTokens = tokenCount(u, "input_tokens", &out.countsUnreadable);  // cached tokens included
    out.usage.outputTokens = tokenCount(u, "output_tokens", &out.countsUnreadable);  // reasoning included
    if (u.contains("input_tokens_details"))
      out.usage.cachedInputTokens = tokenCount(u["input_tokens_details"], "cached_tokens", &out.countsUnreadable);
    if (u.contains("output_tokens_details"))
      reasoningTokens = tokenCount(u["output_tokens_details"], "reasoning_tokens", &out.countsUnreadable);
    if (out.usage.cachedInputTokens > out.usage.inputTokens) {  // more cached than sent: not both true
      out.usage.cachedInputTokens = out.usage.inputTokens;
      out.countsUnreadable = true;
    }
  }
  if (trimmed(out.text).empty() && out.toolCalls.empty() && out.finish == FinishReason::Length && reasoningTokens > 0)
    out.answerElsewhere = "its output went to reasoning (" + std::to_string(reasoningTokens) +
                          " reasoning tokens), and none was left for the answer; use a model that reasons less";
  return out;
}

}  // namespace revline::providers
