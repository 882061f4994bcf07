#include "core/providers/openai_provider.h"

#include <string_view>
#include <utility>

#include "core/providers/openai_responses.h"
#include "core/review/prompt.h"
#include "core/support/text.h"

namespace revline::providers {

using review::FinishReason;
using review::ProviderError;
using review::Role;
using Kind = review::ProviderError::Kind;

namespace {

constexpr const char* kPath = "/chat/completions";

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

bool blank(std::string_view text) { return trimmed(text).empty(); }

// The reasoning a server split off the answer: vLLM and DeepSeek's
// `reasoning_content`, newer vLLM's and OpenRouter's `reasoning`; with its field's name.
std::pair<std::string, std::string> reasoningOf(const json& message) {
  for (const char* field : {"reasoning_content", "reasoning"}) {
    const std::string text = stringField(message, field);
    if (!blank(text)) return {field, text};
  }
  return {};
}

}  // namespace

OpenAiProvider::OpenAiProvider(RemoteSettings settings)
    : RemoteProvider(std::move(settings), [](const RemoteSettings& s) {
        return resolveEndpoint("openai", s, kDefaultBaseUrl, kDefaultModel, kDefaultKeyEnv);
      }) {
  std::lock_guard<std::mutex> lock(promptModeMu_);
  if (promptMode_.count(endpoint_.base.str() + '\0' + endpoint_.model))
    settings_.structuredOutput = config::StructuredOutput::Prompt;
  responses_ = responsesOnly_.count(endpoint_.base.str() + '\0' + endpoint_.model) > 0;
  reasoningEcho_ = noReasoningEcho_.count(endpoint_.base.str() + '\0' + endpoint_.model) == 0;
}

bool OpenAiProvider::adaptToRejection(const HttpResponse& response) {
  // "This model is only supported in v1/responses and not in v1/chat/completions."
  if (!responses_ && (response.status == 400 || response.status == 404) &&
      onlyOnResponses(providerErrorMessage(response.body))) {
    responses_ = true;
    {
      std::lock_guard<std::mutex> lock(promptModeMu_);
      if (responsesOnly_.size() >= 256) responsesOnly_.clear();  // bounded, as promptMode_
      responsesOnly_.insert(endpoint_.base.str() + '\0' + endpoint_.model);
    }
    notes_.push_back("openai: model \"" + endpoint_.model + "\" is served only through the Responses API, so the review "
                     "went to " + endpoint_.base.str() + kResponsesPath + " (the refused request was not answered)");
    return true;
  }
  // A server of the Responses API that takes no reasoning back ("Encrypted
  // content is not supported with this model", "Unknown parameter: 'include'"):
  // the review goes on as before, each round reasoning anew.
  if (responses_ && reasoningEcho_ && response.status == 400 &&
      refusesReasoningEcho(providerErrorMessage(response.body))) {
    reasoningEcho_ = false;
    {
      std::lock_guard<std::mutex> lock(promptModeMu_);
      if (noReasoningEcho_.size() >= 256) noReasoningEcho_.clear();  // bounded, as promptMode_
      noReasoningEcho_.insert(endpoint_.base.str() + '\0' + endpoint_.model);
    }
    notes_.push_back("openai: " + endpoint_.base.str() + kResponsesPath + " refused the model's reasoning sent back "
                     "between tool rounds for model \"" + endpoint_.model + "\" (HTTP 400: " +
                     truncateUtf8(withoutKey(providerErrorMessage(response.body), endpoint_.apiKey), 200, "...") +
                     "), so each round went without it (the refused request was not answered)");
    return true;
  }
  if (settings_.structuredOutput != config::StructuredOutput::Native) return false;
  // OpenRouter: 404 "No endpoints found that can handle the requested
  // parameters" when none of the model's providers takes all the request asks
  // (json_schema output, most often): the model exists. Without the schema it
  // may; the tools are the other parameter, said if the resent request fails too.
  const bool noEndpointForParameters = response.status == 404 && refusesRequestedParameters(response.body);
  // llama.cpp before json_schema support: 500 "response_format type must be one of ...".
  if (response.status != 400 && response.status != 422 && !noEndpointForParameters &&
      lastingFailure(response.status, response.body) != LastingFailure::NoSchema)
    return false;
  // "Function calling with a response mime type: 'application/json' is unsupported"
  // (Gemini 2.x, tools and a schema together), "This response_format type is
  // unavailable now" (DeepSeek), "json_schema is not supported": the server
  // takes no json_schema output, and the schema can travel in the prompt instead.
  const std::string message = providerErrorMessage(response.body);
  // OpenAI's refusal for size counts the schema's tokens ("including 317 in the
  // response_format schemas"): the request is too long, not the schema refused.
  if (overContextWindow(providerErrorCode(response.body), message)) return false;
  const std::string lower = lowered(message);
  bool refusesSchema = false;
  // Groq: "json mode cannot be combined with tool/function calling"; DeepSeek's
  // reasoner: "deepseek-reasoner does not support Json Output.".
  // vLLM: "The provided JSON schema contains features not supported by
  // xgrammar."; llama.cpp: "JSON schema conversion failed: ...".
  for (const char* words : {"response_format", "json_schema", "response mime type", "response_schema", "json mode",
                            "json output", "json schema"})
    refusesSchema |= lower.find(words) != std::string::npos;
  refusesSchema |= noEndpointForParameters;
  if (!refusesSchema) return false;
  settings_.structuredOutput = config::StructuredOutput::Prompt;
  {
    std::lock_guard<std::mutex> lock(promptModeMu_);
    if (promptMode_.size() >= 256) promptMode_.clear();  // a few endpoints and models in practice; bounded all the same
    promptMode_.insert(endpoint_.base.str() + '\0' + endpoint_.model);
  }
  notes_.push_back("openai: " + endpoint_.base.str() + " refused json_schema output for model \"" + endpoint_.model +
                   "\" (HTTP " + std::to_string(response.status) + ": " +
                   truncateUtf8(withoutKey(message, endpoint_.apiKey), 200, "...") +
                   "), so the review schema went into the prompt instead (structured_output \"prompt\"); set "
                   "\"structured_output\": \"prompt\" for this model to skip the refused request");
  return true;
}

std::optional<review::ModelResponse> OpenAiProvider::answerInRejection(const HttpResponse& response) const {
  if (response.status != 400) return std::nullopt;
  // Groq checks an answer against the schema (or a tool call's syntax) itself and
  // refuses one that fails with 400 json_validate_failed / tool_use_failed,
  // quoting it as `failed_generation`: a broken answer, not a failed request.
  const std::string code = providerErrorCode(response.body);
  if (code != "json_validate_failed" && code != "tool_use_failed") return std::nullopt;
  json body = parseReplyJson(response.body);
  if (body.is_array() && !body.empty()) body = body[0];
  const json& error = body.is_object() && body.contains("error") ? body["error"] : json();
  const std::string answer = stringField(error, "failed_generation");
  review::ModelResponse out;
  out.text = answer;
  out.finish = FinishReason::Stop;
  if (blank(answer)) out.answerElsewhere = "the server refused the model's answer (" + code + ") without quoting it";
  out.notes.push_back("openai: " + endpoint_.base.str() + " refused an answer of the model (HTTP 400 " + code +
                      "); revline checked the answer it quoted against the review contract as any other");
  return out;
}

const char* OpenAiProvider::path() const { return responses_ ? kResponsesPath : kPath; }

RemoteProvider::Headers OpenAiProvider::headers() const {
  Headers h;
  if (!endpoint_.apiKey.empty()) h.emplace_back("Authorization", "Bearer " + endpoint_.apiKey);
  return h;
}

std::string OpenAiProvider::notFoundHint(const std::string& message) const {
  if (std::string azure = azureOpenAiHint(endpoint_.base.str()); !azure.empty()) {
    // Already the v1 API: what is missing is the deployment the model names (DeploymentNotFound).
    if (endpoint_.base.basePath.ends_with("/openai/v1") && message.find("eployment") != std::string::npos)
      return "Azure OpenAI has no deployment named \"" + endpoint_.model +
             "\" on this resource: set the model to your deployment's name (Azure portal: the resource's Deployments), "
             "which need not be the model's";
    return azure;
  }
  return "OpenAI-compatible servers usually serve under /v1 (e.g. http://127.0.0.1:8080/v1)";
}

ojson OpenAiProvider::buildRequest(const review::ModelRequest& request) const {
  const bool native = settings_.structuredOutput == config::StructuredOutput::Native;
  ojson messages = ojson::array();
  std::string system = request.system;
  if (!native && !request.schema.is_null()) system += review::schemaInstructions(request.schema);
  if (responses_) return responsesRequest(request, endpoint_.model, system, native, reasoningEcho_);
  if (!system.empty()) messages.push_back({{"role", "system"}, {"content", system}});
  for (const review::Message& m : request.messages) {
    switch (m.role) {
      case Role::User:
        // A note after tool results (the tool budget is spent) goes into the last
        // tool message: Mistral's API, and others serving its models, refuse a user
        // message right after a tool one ("Unexpected role 'user' after role 'tool'").
        if (!messages.empty() && messages.back()["role"] == "tool") {
          messages.back()["content"] = messages.back()["content"].get<std::string>() + "\n\n" + m.text;
        } else {
          messages.push_back({{"role", "user"}, {"content", m.text}});
        }
        break;
      case Role::Assistant: {
        ojson msg = {{"role", "assistant"}};
        if (m.toolCalls.empty()) {
          msg["content"] = m.text;
        } else {
          msg["content"] = m.text.empty() ? ojson(nullptr) : ojson(m.text);
          ojson calls = ojson::array();
          for (const review::ToolCall& c : m.toolCalls) {
            ojson call = {{"id", c.id},
                          {"type", "function"},
                          {"function",
                           {{"name", c.name},
                            {"arguments", argumentsText(c.arguments)}}}};
            if (c.echo.is_object())
              for (const auto& [key, value] : c.echo.items()) call[key] = ojson(value);
            calls.push_back(std::move(call));
          }
          msg["tool_calls"] = std::move(calls);
          if (m.echo.is_object())
            for (const auto& [key, value] : m.echo.items()) msg[key] = ojson(value);
        }
        messages.push_back(std::move(msg));
        break;
      }
      case Role::Tool:
        for (const review::ToolResult& r : m.toolResults) {
          messages.push_back({{"role", "tool"}, {"tool_call_id", r.callId}, {"content", toolResultText(r)}});
        }
        if (!m.text.empty() && !messages.empty() && messages.back()["role"] == "tool")
          messages.back()["content"] = messages.back()["content"].get<std::string>() + "\n\n" + m.text;
        else if (!m.text.empty())
          messages.push_back({{"role", "user"}, {"content", m.text}});
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
  if (responses_) return parseResponsesReply(body, endpoint_.base.str() + kResponsesPath);
  auto protocol = [&](const std::string& why) {
    return ProviderError(Kind::Protocol, "openai: unexpected reply from " + endpoint_.base.str() + kPath + ": " + why);
  };
  if (body.contains("error") && !body["error"].is_null()) {
    const std::string message = providerErrorMessage(body.dump());
    // LM Studio answers a path it does not serve with 200 and these words: the base URL lacks /v1.
    if (message.rfind("Unexpected endpoint or method", 0) == 0)
      throw ProviderError(Kind::NotFound, "openai: " + endpoint_.base.str() + kPath + " is not an endpoint of this server (" +
                                              message + "); check base_url (--base-url): OpenAI-compatible servers serve it under "
                                              "/v1 (LM Studio: http://127.0.0.1:1234/v1)");
    throw ProviderError(Kind::Server, "openai: " + endpoint_.base.str() + kPath + " returned an error: " + message);
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
      // Gemini 3 signs each call of a thinking model and refuses the next request
      // unless the signature comes back with it.
      if (call.contains("extra_content") && !call["extra_content"].is_null())
        tc.echo = {{"extra_content", call["extra_content"]}};
      out.toolCalls.push_back(std::move(tc));
    }
  }

  // DeepSeek in thinking mode refuses a request whose tool-calling turn comes
  // without the reasoning it wrote (400 "Missing `reasoning_content` field"):
  // kept to go back with that turn. A turn with no tool call needs none (and
  // deepseek-reasoner refuses one sent back).
  if (!out.toolCalls.empty())
    if (const auto [field, reasoning] = reasoningOf(message); field == "reasoning_content")
      out.turnEcho = {{"reasoning_content", reasoning}};

  if (message.contains("refusal") && message["refusal"].is_string() && !message["refusal"].get<std::string>().empty())
    out.refusal = message["refusal"].get<std::string>();
  settleFinish(out, finish == "length", finish == "content_filter" ? "finish_reason \"content_filter\"" : "");

  std::int64_t reasoningTokens = 0;
  if (body.contains("usage") && body["usage"].is_object()) {
    const json& u = body["usage"];
    out.usage.inputTokens = tokenCount(u, "prompt_tokens", &out.countsUnreadable);  // cached tokens included
    out.usage.outputTokens = tokenCount(u, "completion_tokens", &out.countsUnreadable);
    if (u.contains("completion_tokens_details"))
      reasoningTokens = tokenCount(u["completion_tokens_details"], "reasoning_tokens", &out.countsUnreadable);
    // OpenAI counts reasoning in completion_tokens; xAI bills it apart from them
    // ("total_tokens" = prompt + completion + reasoning), and it is output all the same.
    const std::int64_t total = tokenCount(u, "total_tokens", &out.countsUnreadable);
    if (reasoningTokens > 0 && total == out.usage.inputTokens + out.usage.outputTokens + reasoningTokens)
      out.usage.outputTokens += reasoningTokens;
    if (u.contains("prompt_tokens_details")) {
      out.usage.cachedInputTokens = tokenCount(u["prompt_tokens_details"], "cached_tokens", &out.countsUnreadable);
      // OpenRouter says what a route that caches (Anthropic's, Gemini's) wrote to the cache, within prompt_tokens.
      out.usage.cacheWriteTokens = tokenCount(u["prompt_tokens_details"], "cache_write_tokens", &out.countsUnreadable);
    }
    // DeepSeek says its cache hits in a field of its own.
    if (out.usage.cachedInputTokens == 0)
      out.usage.cachedInputTokens = tokenCount(u, "prompt_cache_hit_tokens", &out.countsUnreadable);
    if (out.usage.cachedInputTokens > out.usage.inputTokens) {  // more cached than sent: not both true
      out.usage.cachedInputTokens = out.usage.inputTokens;
      out.countsUnreadable = true;
    }
    if (out.usage.cacheWriteTokens > out.usage.inputTokens - out.usage.cachedInputTokens) {
      out.usage.cacheWriteTokens = out.usage.inputTokens - out.usage.cachedInputTokens;
      out.countsUnreadable = true;
    }
  }
  // No answer, and a model that wrote: where its output went, for the contract problem.
  if (blank(out.text) && out.toolCalls.empty() && out.finish != FinishReason::Refusal) {
    const auto [field, reasoning] = reasoningOf(message);
    if (out.finish == FinishReason::Length && (reasoningTokens > 0 || !field.empty())) {
      out.answerElsewhere = "its output went to reasoning" +
                            (reasoningTokens > 0 ? " (" + std::to_string(reasoningTokens) + " reasoning tokens)" : std::string()) +
                            ", and none was left for the answer; lower the model's reasoning effort on the server, or "
                            "use a model that reasons less";
    } else if (!field.empty()) {
      out.answerElsewhere = "the model's whole output is in its reasoning (`" + field +
                            "`), none in its answer; the server's reasoning parser took it all (the model never "
                            "closed its thinking): turn the model's thinking off, or start the server without a "
                            "reasoning parser";
    }
  }
  return out;
}

}  // namespace revline::providers
