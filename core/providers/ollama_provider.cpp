#include "core/providers/ollama_provider.h"

#include <mutex>

#include "core/review/prompt.h"
#include "core/support/text.h"

namespace revline::providers {

using review::FinishReason;
using review::ProviderError;
using review::Role;
using Kind = review::ProviderError::Kind;

namespace {

constexpr const char* kPath = "/api/chat";

}  // namespace

OllamaProvider::OllamaProvider(RemoteSettings settings)
    : RemoteProvider(std::move(settings), [](const RemoteSettings& s) {
        // Ollama's native API lives at the root; a base URL copied from the /v1 (OpenAI) setup, or
        // from Ollama's API docs (http://localhost:11434/api), means the same server.
        Endpoint e = withoutTrailingV1(resolveEndpoint("ollama", s, kDefaultBaseUrl, kDefaultModel, kDefaultKeyEnv,
                                                       /*keyRequired=*/false));
        if (e.base.basePath.ends_with("/api")) e.base.basePath.resize(e.base.basePath.size() - 4);
        return e;
      }) {
  std::lock_guard<std::mutex> lock(negotiatedMu_);
  thinkingOff_ = !withoutThinking_.count(endpoint_.base.str() + '\0' + endpoint_.model);
  if (noSchemaFormat_.count(endpoint_.base.str())) settings_.structuredOutput = config::StructuredOutput::Prompt;
}

const char* OllamaProvider::path() const { return kPath; }

RemoteProvider::Headers OllamaProvider::headers() const {
  Headers h;
  if (!endpoint_.apiKey.empty()) h.emplace_back("Authorization", "Bearer " + endpoint_.apiKey);
  return h;
}

std::string OllamaProvider::notFoundHint(const std::string& message) const {
  // A missing model is `model "x" not found, try pulling it first`; a route the
  // server does not have (a base URL with a path) is Go's "404 page not found".
  if (message.find("page not found") != std::string::npos)
    return "the server has no " + std::string(kPath) + " under " + endpoint_.base.str() +
           ": base_url is Ollama's address alone, e.g. http://127.0.0.1:11434";
  return "pull the model first: `ollama pull " + endpoint_.model + "`";
}

bool OllamaProvider::adaptToRejection(const HttpResponse& response) {
  // Ollama before 0.5 reads `format` as a string ("json"): "json: cannot
  // unmarshal object into Go struct field ChatRequest.format of type string".
  // The schema stays in the prompt; the review goes on, and says to upgrade.
  const std::string message = providerErrorMessage(response.body);
  if (settings_.structuredOutput == config::StructuredOutput::Native && response.status == 400 &&
      message.find("cannot unmarshal object") != std::string::npos && message.find(".format") != std::string::npos) {
    settings_.structuredOutput = config::StructuredOutput::Prompt;
    {
      std::lock_guard<std::mutex> lock(negotiatedMu_);
      if (noSchemaFormat_.size() >= 256) noSchemaFormat_.clear();  // bounded, as withoutThinking_
      noSchemaFormat_.insert(endpoint_.base.str());
    }
    notes_.push_back("ollama: " + endpoint_.base.str() + " took no JSON schema in `format` (HTTP 400: " +
                     truncateUtf8(withoutKey(message, endpoint_.apiKey), 200, "...") +
                     "), as Ollama before 0.5 does, so the schema went in the prompt only and nothing held the "
                     "answer to it: upgrade Ollama to 0.5 or later (the refused request was not answered)");
    return true;
  }
  // "\"qwen2.5-coder:7b\" does not support thinking": a model without thinking
  // refuses even `think: false`, and needs no switch to turn it off.
  if (!thinkingOff_ || response.status != 400 ||
      providerErrorMessage(response.body).find("does not support thinking") == std::string::npos)
    return false;
  thinkingOff_ = false;
  std::lock_guard<std::mutex> lock(negotiatedMu_);
  if (withoutThinking_.size() >= 256) withoutThinking_.clear();  // bounded, as a few models are used in practice
  withoutThinking_.insert(endpoint_.base.str() + '\0' + endpoint_.model);
  return true;
}

ojson OllamaProvider::buildRequest(const review::ModelRequest& request) const {
  const bool hasSchema = !request.schema.is_null();
  // A format constraint leaves no room for a tool call, so it is sent only when
  // no tool is to be called: none offered, the budget spent, or the retry of an
  // answer that failed the contract (the model answered rather than call one;
  // the tools stay listed so the prompt Ollama's KV cache holds is unchanged).
  const bool useFormat = hasSchema && settings_.structuredOutput == config::StructuredOutput::Native &&
                         (request.tools.empty() || request.toolBudgetSpent || request.contractRetry);
  ojson messages = ojson::array();
  std::string system = request.system;
  // The schema is always worth showing to a local model; with `format` it is also enforced.
  if (hasSchema) system += review::schemaInstructions(request.schema);
  if (!system.empty()) messages.push_back({{"role", "system"}, {"content", system}});
  for (const review::Message& m : request.messages) {
    switch (m.role) {
      case Role::User:
        messages.push_back({{"role", "user"}, {"content", m.text}});
        break;
      case Role::Assistant: {
        ojson msg = {{"role", "assistant"}, {"content", m.text}};
        if (!m.toolCalls.empty()) {
          ojson calls = ojson::array();
          for (const review::ToolCall& c : m.toolCalls) {
            calls.push_back(
                {{"function", {{"name", c.name}, {"arguments", ojson(c.arguments.is_object() ? c.arguments : json::object())}}}});
          }
          msg["tool_calls"] = std::move(calls);
        }
        messages.push_back(std::move(msg));
        break;
      }
      case Role::Tool:
        for (const review::ToolResult& r : m.toolResults) {
          messages.push_back(
              {{"role", "tool"}, {"tool_name", r.name}, {"content", toolResultText(r)}});
        }
        if (!m.text.empty()) messages.push_back({{"role", "user"}, {"content", m.text}});
        break;
    }
  }
  ojson options = {{"temperature", 0}};
  if (request.inputTokenBudget > 0) {
    // Ollama's context window defaults to a few thousand tokens whatever the
    // model holds, and a longer prompt is cut from the front without an error
    // (the system prompt first). Sized for the request's budget and the answer,
    // in steps of 1,024 so one review keeps one window (a new size reloads the model).
    const std::int64_t window = request.inputTokenBudget + settings_.maxOutputTokens;
    options["num_ctx"] = (window + 1023) / 1024 * 1024;
    options["num_predict"] = settings_.maxOutputTokens;
  }
  ojson body = {{"model", endpoint_.model},
               {"messages", std::move(messages)},
               {"stream", false},
               {"options", std::move(options)}};
  if (useFormat) {
    body["format"] = request.schema;
    // A thinking model (deepseek-r1, qwen3) thinks by default, and with `format`
    // Ollama puts its whole output in message.thinking, leaving the answer empty.
    // gpt-oss takes only a level ("low", "medium", "high"), and with false answers
    // nothing; Ollama keeps its reasoning apart from the answer anyway.
    if (thinkingOff_ && endpoint_.model.find("gpt-oss") == std::string::npos) body["think"] = false;
  }
  if (!request.tools.empty()) body["tools"] = functionTools(request.tools);
  return body;
}

review::ModelResponse OllamaProvider::parseResponse(const json& body) const {
  if (body.contains("error") && body["error"].is_string()) {
    throw ProviderError(Kind::Server, "ollama: " + endpoint_.base.str() + kPath + " returned an error: " +
                                          body["error"].get<std::string>());
  }
  if (!body.contains("message") || !body["message"].is_object()) {
    throw ProviderError(Kind::Protocol, "ollama: unexpected reply from " + endpoint_.base.str() + kPath +
                                            ": no message (is this an Ollama server? for OpenAI-compatible "
                                            "servers use provider openai)");
  }
  // "stream": false is sent, so the reply is the whole answer: one that says it is
  // not (a proxy that passed one chunk of a stream on) is no answer to read.
  if (body.contains("done") && body["done"].is_boolean() && !body["done"].get<bool>())
    throw ProviderError(Kind::Protocol, "ollama: the reply from " + endpoint_.base.str() + kPath +
                                            " says it is not finished (\"done\": false): it is one part of a streamed "
                                            "answer, though revline asked for the whole (\"stream\": false); a proxy "
                                            "in between may stream: point base_url at Ollama itself");
  const json& message = body["message"];
  review::ModelResponse out;
  if (message.contains("content") && message["content"].is_string()) out.text = message["content"].get<std::string>();
  if (message.contains("tool_calls") && message["tool_calls"].is_array()) {
    int index = 0;
    for (const json& call : message["tool_calls"]) {
      ++index;
      if (!call.is_object() || !call.contains("function") || !call["function"].is_object()) continue;
      const json& fn = call["function"];
      review::ToolCall tc;
      tc.id = call.contains("id") && call["id"].is_string() ? call["id"].get<std::string>()
                                                             : "call_" + std::to_string(index);
      tc.name = stringField(fn, "name");
      json args = fn.contains("arguments") ? fn["arguments"] : json::object();
      if (args.is_string()) args = toolArguments(args.get<std::string>());
      tc.arguments = std::move(args);
      out.toolCalls.push_back(std::move(tc));
    }
  }
  std::string done = body.contains("done_reason") && body["done_reason"].is_string()
                         ? body["done_reason"].get<std::string>()
                         : "stop";
  if (done == "length") {
    out.finish = FinishReason::Length;
    out.toolCalls.clear();
  } else if (!out.toolCalls.empty()) {
    out.finish = FinishReason::ToolCalls;
  } else {
    out.finish = FinishReason::Stop;
  }
  out.usage.inputTokens = tokenCount(body, "prompt_eval_count", &out.countsUnreadable);
  out.usage.outputTokens = tokenCount(body, "eval_count", &out.countsUnreadable);
  // No answer from a model that wrote: its output went to message.thinking.
  const std::string thinking = stringField(message, "thinking");
  if (out.toolCalls.empty() && trimmed(out.text).empty() && !trimmed(thinking).empty()) {
    out.answerElsewhere = out.finish == FinishReason::Length
                              ? "its output went to its thinking (message.thinking), and none was left for the answer; "
                                "use a model without thinking, or one that thinks less"
                              : "the model's whole output is in its thinking (message.thinking), none in its answer: "
                                "this Ollama may be too old to turn thinking off (update it), or use a model without "
                                "thinking";
  }
  return out;
}

}  // namespace revline::providers
