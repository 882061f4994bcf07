#include "core/providers/openai_provider.h"

#include "core/review/prompt.h"

namespace revline::providers {

using review::FinishReason;
using review::ProviderError;
using review::Role;
using Kind = review::ProviderError::Kind;

namespace {

constexpr const char* kPath = "/chat/completions";

std::string toolResultText(const review::ToolResult& r) { return r.ok ? r.content : "ERROR: " + r.content; }

// Message content may be a string, null, or (some servers) an array of parts.
std::string contentText(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (content.is_array()) {
    for (const json& part : content) {
      if (part.is_object() && part.contains("text") && part["text"].is_string()) out += part["text"].get<std::string>();
    }
  }
  return out;
}

}  // namespace

OpenAiProvider::OpenAiProvider(RemoteSettings settings)
    : RemoteProvider(std::move(settings), [](const RemoteSettings& s) {
        return resolveEndpoint("openai", s, kDefaultBaseUrl, kDefaultModel, kDefaultKeyEnv);
      }) {}

const char* OpenAiProvider::path() const { return kPath; }

RemoteProvider::Headers OpenAiProvider::headers() const {
  Headers h;
  if (!endpoint_.apiKey.empty()) h.emplace_back("Authorization", "Bearer " + endpoint_.apiKey);
  return h;
}

std::string OpenAiProvider::notFoundHint() const {
  return "OpenAI-compatible servers usually serve under /v1 (e.g. http://127.0.0.1:8080/v1)";
}

void OpenAiProvider::explainFailure(const ProviderError& e, const HttpResponse& res) const {
  const std::string msg = providerErrorMessage(res.body);
  const bool schemaProblem = msg.find("response_format") != std::string::npos || msg.find("json_schema") != std::string::npos;
  if (e.kind() == Kind::BadRequest && schemaProblem && settings_.structuredOutput == config::StructuredOutput::Native) {
    throw ProviderError(Kind::BadRequest, std::string(e.what()) +
                                              "; if this server does not support json_schema output, set "
                                              "\"structured_output\": \"prompt\" in .revline.json");
  }
}

ojson OpenAiProvider::buildRequest(const review::ModelRequest& request) const {
  const bool native = settings_.structuredOutput == config::StructuredOutput::Native;
  ojson messages = ojson::array();
  std::string system = request.system;
  if (!native && !request.schema.is_null()) system += review::schemaInstructions(request.schema);
  if (!system.empty()) messages.push_back({{"role", "system"}, {"content", system}});
  for (const review::Message& m : request.messages) {
    switch (m.role) {
      case Role::User:
        messages.push_back({{"role", "user"}, {"content", m.text}});
        break;
      case Role::Assistant: {
        ojson msg = {{"role", "assistant"}};
        if (m.toolCalls.empty()) {
          msg["content"] = m.text;
        } else {
          msg["content"] = m.text.empty() ? ojson(nullptr) : ojson(m.text);
          ojson calls = ojson::array();
          for (const review::ToolCall& c : m.toolCalls) {
            calls.push_back({{"id", c.id},
                             {"type", "function"},
                             {"function",
                              {{"name", c.name},
                               {"arguments", c.arguments.is_string() ? c.arguments.get<std::string>()
                                                                     : c.arguments.dump(-1, ' ', false, json::error_handler_t::replace)}}}});
          }
          msg["tool_calls"] = std::move(calls);
        }
        messages.push_back(std::move(msg));
        break;
      }
      case Role::Tool:
        for (const review::ToolResult& r : m.toolResults) {
          messages.push_back({{"role", "tool"}, {"tool_call_id", r.callId}, {"content", toolResultText(r)}});
        }
        if (!m.text.empty()) messages.push_back({{"role", "user"}, {"content", m.text}});
        break;
    }
  }
  // The messages last: what stays the same in every call of a conversation
  // (schema, tools, system prompt, the diff) leads the body, byte for byte.
  ojson body = {{"model", endpoint_.model}, {"stream", false}};
  if (native && !request.schema.is_null()) {
    body["response_format"] = {
        {"type", "json_schema"},
        {"json_schema", {{"name", "review_report"}, {"strict", true}, {"schema", request.schema}}}};
  }
  if (!request.tools.empty()) body["tools"] = functionTools(request.tools);
  body["messages"] = std::move(messages);
  return body;
}

review::ModelResponse OpenAiProvider::parseResponse(const json& body) const {
  auto protocol = [&](const std::string& why) {
    return ProviderError(Kind::Protocol, "openai: unexpected reply from " + endpoint_.base.str() + kPath + ": " + why);
  };
  if (body.contains("error") && !body["error"].is_null()) {
    throw ProviderError(Kind::Server, "openai: " + endpoint_.base.str() + kPath +
                                          " returned an error: " + providerErrorMessage(body.dump()));
  }
  if (!body.contains("choices") || !body["choices"].is_array() || body["choices"].empty()) {
    throw protocol("no choices");
  }
  const json& choice = body["choices"][0];
  if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object()) {
    throw protocol("choices[0] has no message");
  }
  const json& message = choice["message"];
  review::ModelResponse out;
  if (message.contains("content")) out.text = contentText(message["content"]);
  std::string finish = choice.contains("finish_reason") && choice["finish_reason"].is_string()
                           ? choice["finish_reason"].get<std::string>()
                           : "stop";

  if (message.contains("tool_calls") && message["tool_calls"].is_array()) {
    int index = 0;
    for (const json& call : message["tool_calls"]) {
      ++index;
      if (!call.is_object() || !call.contains("function") || !call["function"].is_object()) continue;
      const json& fn = call["function"];
      review::ToolCall tc;
      tc.id = call.contains("id") && call["id"].is_string() && !call["id"].get<std::string>().empty()
                  ? call["id"].get<std::string>()
                  : "call_" + std::to_string(index);
      tc.name = fn.contains("name") && fn["name"].is_string() ? fn["name"].get<std::string>() : "";
      if (fn.contains("arguments")) {
        const json& args = fn["arguments"];
        if (args.is_string()) {
          tc.arguments = toolArguments(args.get_ref<const std::string&>());  // the executor reports bad JSON to the model
        } else {
          tc.arguments = args;
        }
      } else {
        tc.arguments = json::object();
      }
      out.toolCalls.push_back(std::move(tc));
    }
  }

  if (message.contains("refusal") && message["refusal"].is_string() && !message["refusal"].get<std::string>().empty()) {
    out.refusal = message["refusal"].get<std::string>();
    out.finish = FinishReason::Refusal;
    out.toolCalls.clear();
  } else if (finish == "length") {
    out.finish = FinishReason::Length;
    out.toolCalls.clear();  // a cut-off tool call has cut-off arguments
  } else if (finish == "content_filter") {
    out.finish = FinishReason::Refusal;
    out.refusal = "the provider's content filter stopped the answer (finish_reason \"content_filter\")";
    out.toolCalls.clear();
  } else if (!out.toolCalls.empty()) {
    out.finish = FinishReason::ToolCalls;
  } else {
    out.finish = FinishReason::Stop;
  }

  if (body.contains("usage") && body["usage"].is_object()) {
    const json& u = body["usage"];
    out.usage.inputTokens = tokenCount(u, "prompt_tokens", &out.countsUnreadable);  // cached tokens included
    out.usage.outputTokens = tokenCount(u, "completion_tokens", &out.countsUnreadable);
    if (u.contains("prompt_tokens_details"))
      out.usage.cachedInputTokens = tokenCount(u["prompt_tokens_details"], "cached_tokens", &out.countsUnreadable);
    if (out.usage.cachedInputTokens > out.usage.inputTokens) {  // more cached than sent: not both true
      out.usage.cachedInputTokens = out.usage.inputTokens;
      out.countsUnreadable = true;
    }
  }
  return out;
}

}  // namespace revline::providers
