// What the review engine needs from a model: one call, request in, response out.
// Providers (core/providers) implement it; the attempt loop drives it.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/support/cancel.h"
#include "core/support/json.h"

namespace revline::review {

struct ToolSpec {
  std::string name;
  std::string description;
  json inputSchema;
};

struct ToolCall {
  std::string id;    // provider's call id (synthesised when the provider has none)
  std::string name;
  json arguments;    // as the model sent them; validated by the tool executor
  // What the provider wants back verbatim on this call in later requests (Gemini's
  // extra_content.google.thought_signature, without which it refuses the next
  // request); null when nothing.
  json echo;
};
// No tool takes more than an object of strings, numbers and a list or two:
// arguments nested deeper stay text and are refused (jsonNesting), since a
// value 100,000 levels deep overflows the stack when copied or printed.
inline constexpr std::size_t kMaxToolArgumentNesting = 32;

struct ToolResult {
  std::string callId;
  std::string name;
  bool ok = true;       // false: the content is an error message for the model
  std::string content;
};

// Redaction at the source: the secrets in raw text (a diff's lines, a file a
// tool read) found before line numbers or "path:N:" prefixes are added.
// `path` names the file the text comes from, when known (a key file's body is all secret).
struct SecretSpan {
  std::size_t offset = 0;
  std::size_t length = 0;
  std::string kind;  // shown as "[REDACTED:<kind>]"
};
using SecretFinder = std::function<std::vector<SecretSpan>(std::string_view text, std::string_view path)>;

// `text` with every span (in order, not overlapping) replaced by "[REDACTED:<kind>]",
// once per line it covers: the line breaks inside a span stay, so a key's body
// of 26 lines is 26 marked lines, and every line after it keeps its number
// (a tool's "lines 40-60", the function context, the model's citations).
std::string redactSpans(std::string_view text, const std::vector<SecretSpan>& spans);

enum class Role { User, Assistant, Tool };

struct Message {
  Role role = Role::User;
  std::string text;                     // user text, or the assistant's raw answer
  std::vector<ToolCall> toolCalls;      // assistant turns that called tools
  std::vector<ToolResult> toolResults;  // Role::Tool turns
  // An assistant turn's fields the provider wants back verbatim with it in later
  // requests (DeepSeek's reasoning_content on a turn that called tools: without
  // it, the next request is refused); null when nothing.
  json echo = nullptr;
};

struct ModelRequest {
  std::string system;
  std::vector<Message> messages;
  // JSON Schema of contract::ReviewReport, properties in contract order (models
  // tend to fill fields in the order they are listed).
  nlohmann::ordered_json schema;
  std::vector<ToolSpec> tools;  // empty: no tools offered
  // Set by the attempt loop for the provider's wire format: the tool budget is
  // spent (calls are refused, the next answer must be the report; Ollama then
  // enforces the schema with `format`), and the max_input_tokens this request
  // was fitted to (0: none; Ollama sizes its context window, num_ctx, from it).
  bool toolBudgetSpent = false;
  // The model answered instead of calling a tool, and the answer failed the
  // contract: this is the retry, and its reply must be the report (Ollama
  // enforces the schema with `format` then, as when the budget is spent: a
  // small model that answered in prose without it is held to the schema).
  bool contractRetry = false;
  std::int64_t inputTokenBudget = 0;
};

enum class FinishReason { Stop, Length, ToolCalls, Refusal };

// What a review (or one model call) consumed. Every field sums with +=, so
// usages of rounds, attempts and chunks add up; never sum them field by field.
struct Usage {
  std::int64_t inputTokens = 0;        // every input token of the calls, cached or not
  std::int64_t outputTokens = 0;
  std::int64_t cachedInputTokens = 0;  // of inputTokens: read from the provider's prompt cache
  std::int64_t cacheWriteTokens = 0;   // of inputTokens: written to the prompt cache (Anthropic bills these higher)
  std::int64_t requests = 0;           // model calls made (set by the attempt loop, not by providers)
  std::int64_t toolCalls = 0;          // repository tool calls served
  std::int64_t toolCallBudget = 0;     // tool calls the review(s) allowed
  std::int64_t unreportedRequests = 0; // of requests: answered without token counts (totals low)
  Usage& operator+=(const Usage& o) {
    inputTokens += o.inputTokens;
    outputTokens += o.outputTokens;
    cachedInputTokens += o.cachedInputTokens;
    cacheWriteTokens += o.cacheWriteTokens;
    requests += o.requests;
    unreportedRequests += o.unreportedRequests;
    toolCalls += o.toolCalls;
    toolCallBudget += o.toolCallBudget;
    return *this;
  }
  // Whether a model metered any of it: tokens counted, or calls answered
  // without counts. Not an offline reviewer (builtin), whose calls count none.
  bool metered() const { return inputTokens > 0 || outputTokens > 0 || unreportedRequests > 0; }
};

struct ModelResponse {
  std::string text;                    // raw answer text (parsed by the reply parser)
  std::vector<ToolCall> toolCalls;     // non-empty: the model wants tool results first
  FinishReason finish = FinishReason::Stop;
  std::optional<std::string> refusal;  // the provider's own refusal message, if any
  Usage usage;
  // Earlier tries of this call that were sent and given up without an answer (no
  // reply within read_timeout_ms, the connection closed mid-reply): each may
  // have been billed, and no answer said for how many tokens.
  int unanswered = 0;
  // A token count the reply had but could not be read (negative, fractional,
  // past 10^12, a string; more cached than sent): its figures are low, not a
  // confident zero, and the request counts as one without token counts.
  bool countsUnreadable = false;
  // Why `text` is empty when the model did write: its output went to its
  // reasoning (reasoning_content, Ollama's message.thinking). Said with the
  // contract problem, so the user learns where the answer went.
  std::string answerElsewhere;
  // What the provider changed to get this answer, for the report's warnings
  // (a server that refused json_schema output: the schema went into the prompt).
  std::vector<std::string> notes;
  // Fields to send back with this turn when it is part of a later request (Message::echo).
  json turnEcho = nullptr;
  // The request gave the schema only in its prompt (structured_output "prompt",
  // set or negotiated): nothing but the model held its answer to it, so an
  // answer in prose is the model's, not a server's that ignored the schema.
  bool schemaOnlyInPrompt = false;

  // Answered without the token counts that every answer has (input and output
  // both read and written): one missing or unreadable (an Ollama reply without
  // prompt_eval_count) and the sum would be taken as exact. One rule for the
  // report and for what a failed or interrupted review says it spent.
  bool countsMissing() const { return usage.inputTokens == 0 || usage.outputTokens == 0 || countsUnreadable; }
};

// A failure of the provider itself (network, auth, quota, cassette exhausted):
// never retried by the contract loop, surfaced to the user as `what()`.
class ProviderError : public std::runtime_error {
 public:
  enum class Kind { Network, Timeout, Auth, NotFound, BadRequest, Quota, RateLimited, Server, Protocol, Refusal, Config };  // cancellation: support/cancel.h Cancelled
  ProviderError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const { return kind_; }
  // The tries of the failed call that were sent and given up without an answer
  // (see ModelResponse::unanswered): what it may have spent.
  int unanswered() const { return unanswered_; }
  void setUnanswered(int tries) { unanswered_ = tries; }
 private:
  Kind kind_;
  int unanswered_ = 0;
};

class Provider {
 public:
  virtual ~Provider() = default;
  virtual std::string name() const = 0;   // "builtin", "replay", "openai", ...
  virtual std::string model() const = 0;  // model id, or a fixed label for offline ones
  // True when text sent to this provider leaves the machine (secrets get redacted).
  virtual bool remote() const { return false; }
  // True for a model behind an API (RemoteProvider, a loopback llama.cpp
  // server too), which says what each answer used: an answer without counts is
  // then said. False for the offline reviewers (builtin, replay).
  virtual bool metered() const { return false; }
  // For a remote provider, how to find secrets in raw text, so they are removed
  // at the source (runReview applies it to the diff and the tools' reads); empty
  // when nothing needs removing.
  virtual SecretFinder secretFinder() const { return {}; }
  // True when the reviewer leaves out what suppression comments mark deliberate
  // itself (the builtin rules, whose lexer knows strings from comments):
  // runReview's `revline: ignore` filter (suppression.h) is then not applied.
  virtual bool appliesSuppressions() const { return false; }
  virtual ModelResponse complete(const ModelRequest& request, const CancelToken& cancel) = 0;
};

// Runs the model's tool calls (core/tools implements it; the sandbox lives there).
class ToolExecutor {
 public:
  virtual ~ToolExecutor() = default;
  virtual std::vector<ToolSpec> specs() const = 0;
  // Throws Cancelled when `cancel` fires while the call runs (a long search).
  virtual ToolResult execute(const ToolCall& call, const CancelToken& cancel) = 0;
  // Removes what `finder` finds from file text before it is numbered or
  // prefixed into a result (set by runReview for a remote provider).
  virtual void redactWith(SecretFinder /*finder*/) {}
  // The current text of a repository file, read through the same sandbox (for
  // function context); nullopt when it cannot be read. Not a model tool call.
  virtual std::optional<std::string> newFileText(const std::string& /*path*/) const { return std::nullopt; }
};

}  // namespace revline::review
