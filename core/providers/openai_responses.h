// OpenAI's Responses API (POST {base_url}/responses), the wire format of the
// models OpenAI serves only there (o1-pro, o3-pro, the codex models: "This
// model is only supported in v1/responses and not in v1/chat/completions").
// OpenAiProvider switches to it when the server says so (adaptToRejection);
// the review contract, tools and the attempt loop are the same.
//
// The request: `instructions` (the system prompt), `text.format` json_schema
// (strict) or the schema in the instructions, flat function tools, and
// `input` items: user and assistant messages, `function_call` and
// `function_call_output` items; `store: false`, so OpenAI keeps no copy of the
// code. The reply's `output` items: `message` (output_text, refusal),
// `function_call`, `reasoning`; `status: "incomplete"` with its reason; usage
// with input_tokens_details.cached_tokens and output_tokens_details.reasoning_tokens.
//
// Reasoning across tool rounds: with `store: false` OpenAI keeps no reasoning
// between calls, so the request asks for it encrypted (`include:
// ["reasoning.encrypted_content"]`) and a turn that called tools goes back with
// its reasoning items, in the order the reply had them, as OpenAI's reasoning
// guide asks for function calling; otherwise the model reasons again from the
// start in every round, in output tokens. The items go back as OpenAI's own
// client (codex) sends them with store off: type, summary, encrypted_content,
// no id (an id names a stored item; Azure refuses one).
#pragma once
#include <string>

#include "core/providers/remote_common.h"
#include "core/review/provider.h"

namespace revline::providers {

inline constexpr const char* kResponsesPath = "/responses";

// The server's words that a model is served only through the Responses API.
bool onlyOnResponses(const std::string& message);

// The server's words that it refuses the reasoning sent back (the `include`
// parameter, or a reasoning item of the input): the review goes on without it.
bool refusesReasoningEcho(const std::string& message);

// `system`: the system prompt as sent (with the schema in it in prompt mode);
// `nativeSchema`: the schema goes in text.format; `reasoningEcho`: ask for the
// reasoning encrypted and send a tool round's reasoning items back with it.
ojson responsesRequest(const review::ModelRequest& request, const std::string& model, const std::string& system,
                       bool nativeSchema, bool reasoningEcho);

// `where` names the endpoint in a protocol error. Throws ProviderError. The
// reply's items in order, its reasoning with encrypted content, are the turn's
// echo (`turnEcho["responses_output"]`) when it holds such reasoning.
review::ModelResponse parseResponsesReply(const json& body, const std::string& where);

}  // namespace revline::providers
