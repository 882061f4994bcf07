#include "core/review/attempt_loop.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "core/contract/feedback.h"
#include "core/contract/reply_parser.h"
#include "core/review/conversation_fit.h"
#include "core/review/pipeline.h"
#include "core/review/prompt.h"
#include "core/support/text.h"

namespace revline::review {
namespace {

// Whether every problem of an answer is of `kind`: prose (NoJson) says nothing
// held the model to the schema; cut off (Truncated), the answer is too long.
bool onlyProblemsOf(const contract::ReplyParse& parse, contract::ErrorKind kind) {
  return !parse.problems.empty() && std::all_of(parse.problems.begin(), parse.problems.end(),
                                                [kind](const contract::Problem& p) { return p.kind == kind; });
}
constexpr const char* kProseFix =
    "\nThe model answered in prose, though the request asked for the schema: a server that accepts json_schema "
    "output and does not enforce it (llama.cpp's server, some OpenAI-compatible servers) needs \"structured_output\": "
    "\"prompt\" (the schema goes in the prompt); with Ollama, max_tool_calls 0 (or --max-tool-calls 0) lets its "
    "`format` hold the answer to the schema (it is not sent beside tools)";

// ... and when the prompt was all that held it to the schema (structured_output
// "prompt"): the fix above is what was done already.
constexpr const char* kProseInPromptModeFix =
    "\nThe model answered in prose, though the prompt gave it the schema (structured_output \"prompt\": no server "
    "held the answer to it): this model does not keep to the answer format; try a larger or instruction-tuned "
    "model, or, where the server enforces json_schema output (OpenAI, Ollama 0.5 or later with max_tool_calls 0), "
    "\"structured_output\": \"native\"";

// An answer cut off at the output limit, the last one too: a smaller part of the
// change per request asks for a shorter answer (a reasoning model's own limit is
// its server's to raise).
constexpr const char* kCutOffFix =
    "\nThe answer did not fit the model's output limit: lower max_input_tokens (or --max-input-tokens N) so the "
    "change goes in more, smaller requests, each with a shorter answer";

// An answer longer than revline reads of one (contract::kMaxReplyBytes): cut
// there, it was not the model's output limit that ended it.
constexpr const char* kTooLongFix =
    "\nThe answer is longer than the 1 MiB revline reads of one (a model repeating itself, or a server that is not "
    "a model's): lower max_input_tokens (or --max-input-tokens N) so each request asks for a shorter answer, or "
    "check the base URL";

bool cutByRevline(const contract::ReplyParse& parse) {
  return std::any_of(parse.warnings.begin(), parse.warnings.end(),
                     [](const std::string& w) { return w.rfind("reply_too_long:", 0) == 0; });
}

// A reply the provider itself flagged as cut off: a contract failure with the
// truncation feedback, whatever the text happens to contain.
contract::ReplyParse truncatedByProvider(const ModelResponse& response) {
  contract::ReplyParse parse;
  const bool noAnswer = trimmed(response.text).empty();
  parse.problems.push_back(
      {contract::ErrorKind::Truncated, "",
       noAnswer && !response.answerElsewhere.empty()
           ? "the model used its whole output token limit before it began its answer: " + response.answerElsewhere
           : "the reply was cut off at the output token limit before the JSON object was complete"});
  return parse;
}

// The reply parsed as the contract says, and, when it had no text at all
// because the output went elsewhere (a reasoning field), where it went.
contract::ReplyParse parseAnswer(const ModelResponse& response) {
  if (response.finish == FinishReason::Length) return truncatedByProvider(response);
  contract::ReplyParse parse = contract::parseReply(response.text);
  if (!parse.ok() && !response.answerElsewhere.empty() && !parse.problems.empty() &&
      parse.problems.front().kind == contract::ErrorKind::Empty)
    parse.problems.front().message += ": " + response.answerElsewhere;
  return parse;
}

std::string listProblems(const contract::ReplyParse& parse) {
  std::string out;
  for (const auto& p : parse.problems) out += "\n  " + p.message;
  return out;
}

// A tool call the model wrote into its text, which the server's tool-call parser
// did not read (vLLM without --tool-call-parser: Qwen's `<tool_call>{...}</tool_call>`;
// Llama's `<function=read_file>{...}</function>`): never run, and no JSON answer either.
bool textualToolCall(const std::string& text) {
  auto followedBy = [&](std::size_t at, auto&& wanted) {
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
    return at < text.size() && wanted(text[at]);
  };
  for (std::size_t at = text.find("<tool_call>"); at != std::string::npos; at = text.find("<tool_call>", at + 1))
    if (followedBy(at + 11, [](char c) { return c == '{'; })) return true;
  for (std::size_t at = text.find("<function="); at != std::string::npos; at = text.find("<function=", at + 1))
    if (followedBy(at + 10, [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; })) return true;
  return text.find("<|python_tag|>") != std::string::npos;
}

void checkCancelled(const CancelToken& cancel) {
  if (cancel.cancelled()) throw Cancelled();
}

// A tool call by its name and arguments (arguments sent as a JSON string read
// as the object they hold), as the model can tell it: "read_file {"path":"a.c"}".
std::string callKey(const ToolCall& call) {
  json arguments = call.arguments;
  if (arguments.is_string()) {
    json parsed = json::parse(arguments.get<std::string>(), nullptr, false);
    if (!parsed.is_discarded()) arguments = std::move(parsed);
  }
  return call.name + ' ' + arguments.dump(-1, ' ', false, json::error_handler_t::replace);
}

// The answer to a call made before whose result is in the conversation: named
// by the call itself, not its id (Ollama's wire format carries none, and ids a
// server makes up start again at call_1 in every reply).
std::string sameCallAnswer(const std::string& key) {
  return "This is the same call as one above (" + key + "): its result is there, unchanged, and is not sent again.";
}

// Of such an answer, once that result was shortened to keep the request within the budget.
std::string sameCallShortenedAnswer(const std::string& key) {
  return "This is the same call as one above (" + key + "), whose result was shortened since to keep the request "
         "within max_input_tokens: call it again, asking for less, if you need it.";
}

// Whether the result of the call `id` is in the conversation (or the turn being
// built) as it was sent: fitConversation may have shortened it since.
bool stillShown(const ModelRequest& request, const Message& pending, const std::string& id, const std::string& sent) {
  auto in = [&](const Message& m) {
    return std::any_of(m.toolResults.begin(), m.toolResults.end(),
                       [&](const ToolResult& r) { return r.callId == id && r.content == sent; });
  };
  return in(pending) || std::any_of(request.messages.begin(), request.messages.end(), in);
}

}  // namespace

AttemptResult runAttempts(Provider& provider, ModelRequest request, const AttemptOptions& options,
                          ToolExecutor* tools, const CancelToken& cancel) {
  AttemptResult result;
  const int maxAttempts = options.maxAttempts < 1 ? 1 : options.maxAttempts;
  const int budget = tools ? std::max(0, options.maxToolCalls) : 0;
  // Every model call either answers (an attempt) or asks for tools; a model that
  // keeps asking after the budget is spent must not loop forever.
  const int maxModelCalls = maxAttempts + budget + 2;
  int modelCalls = 0;
  // Replies that ask only for tools once the budget is spent (every call refused):
  // the model has been told; past this many more, it is not going to answer.
  constexpr int kRefusedRepliesAllowed = 2;
  int refusedReplies = 0;
  bool budgetAnnounced = false;
  contract::ReplyParse last;
  bool wroteToolCallAsText = false;  // the last answer: a tool call the server did not parse
  bool lastInPromptMode = false;     // the last answer: asked with the schema only in the prompt
  const bool toolsOffered = tools && budget > 0;
  // The calls answered in this conversation, by callKey: the call id and the
  // result as sent. The same call again is pointed at that result instead of
  // run and sent again (a model that read one file four times had it sent four
  // times, and each later round re-sent them all). It still counts as a call.
  std::map<std::string, std::pair<std::string, std::string>> answered;
  // The answers that point at one of them (the pointing call's key): checked
  // after every fit of the conversation, which shortens the oldest results first.
  std::vector<std::string> pointers;
  // What the conversation spent, for a ContractFailure (a failure is still paid for).
  auto spent = [&] {
    Usage u = result.usage;
    u.toolCalls = result.toolCalls;
    u.toolCallBudget = budget;
    return u;
  };
  const auto keptCallingTools = [&] {
    return ContractFailure("the model kept calling tools after its budget of " + std::to_string(budget) +
                               " tool calls was spent and gave no final answer",
                           spent());
  };

  request.inputTokenBudget = options.maxInputTokens;  // for the wire format (Ollama's window)
  while (result.attempts < maxAttempts) {
    checkCancelled(cancel);
    if (++modelCalls > maxModelCalls) throw keptCallingTools();
    // The same tools in every call of the conversation, even once the budget is
    // spent (calls past it are refused with a note): the tools lead the prefix a
    // provider caches, so withdrawing them would re-bill the whole conversation.
    request.tools = tools ? tools->specs() : std::vector<ToolSpec>{};
    request.toolBudgetSpent = tools && result.toolCalls >= budget;
    request.contractRetry = !last.problems.empty();
    int cut = 0;
    try {
      cut = fitConversation(request, options.maxInputTokens);
      // A result pointed at and shortened by the fit: the pointer says so, not "unchanged".
      // (Longer by a few words: fitted again.)
      bool rewritten = false;
      if (cut > 0)
        for (const std::string& key : pointers)
          if (const auto& [id, sent] = answered.at(key); !stillShown(request, Message{}, id, sent))
            for (Message& m : request.messages)
              for (ToolResult& r : m.toolResults)
                if (r.content == sameCallAnswer(key)) {
                  r.content = sameCallShortenedAnswer(key);
                  rewritten = true;
                }
      if (rewritten) cut += fitConversation(request, options.maxInputTokens);
    } catch (const BudgetExceeded& e) {
      throw BudgetExceeded(e.what(), spent());  // the calls before it were paid for
    }
    if (cut > 0) {
      std::string said = std::to_string(cut) + (cut == 1 ? " earlier turn was" : " earlier turns were") +
                         " shortened to keep the request within max_input_tokens " +
                         std::to_string(options.maxInputTokens);
      // Each later call of the conversation shortens the same turns again: said once.
      if (std::find(result.warnings.begin(), result.warnings.end(), said) == result.warnings.end())
        result.warnings.push_back(std::move(said));
    }
    ModelResponse response = provider.complete(request, cancel);
    result.usage += response.usage;
    ++result.usage.requests;
    if (provider.metered() && response.countsMissing()) ++result.usage.unreportedRequests;
    // Tries given up without an answer before this one: sent, maybe billed, counts unknown.
    result.usage.requests += response.unanswered;
    result.usage.unreportedRequests += response.unanswered;
    checkCancelled(cancel);
    for (std::string& note : response.notes)
      if (std::find(result.warnings.begin(), result.warnings.end(), note) == result.warnings.end())
        result.warnings.push_back(std::move(note));

    if (!response.toolCalls.empty()) {
      // At most kMaxToolCallsPerReply calls of one reply are kept (a reply with
      // 20,000 calls would otherwise grow every later request by as many turns);
      // the rest are dropped from the history, refused in a note and counted
      // against the budget.
      std::vector<ToolCall> calls = std::move(response.toolCalls);
      const std::size_t asked = calls.size();
      if (calls.size() > kMaxToolCallsPerReply) calls.resize(kMaxToolCallsPerReply);
      Message call{Role::Assistant, response.text, calls, {}, response.turnEcho};
      Message answers{Role::Tool, "", {}, {}};
      bool refusedForBudget = false;
      const int servedBefore = result.toolCalls;
      for (const ToolCall& tc : calls) {
        if (tools && result.toolCalls < budget) {
          const std::string key = callKey(tc);
          const auto earlier = answered.find(key);
          if (earlier != answered.end() && stillShown(request, answers, earlier->second.first, earlier->second.second)) {
            answers.toolResults.push_back({tc.id, tc.name, true, sameCallAnswer(key)});
            if (std::find(pointers.begin(), pointers.end(), key) == pointers.end()) pointers.push_back(key);
            ++result.toolCalls;
            continue;
          }
          ToolResult r = tools->execute(tc, cancel);
          r.callId = tc.id;
          r.name = tc.name;
          r.content = delimitToolResult(tc.name, r.content);
          if (r.ok) answered[key] = {tc.id, r.content};
          answers.toolResults.push_back(std::move(r));
          ++result.toolCalls;
        } else {
          answers.toolResults.push_back({tc.id, tc.name, false, toolBudgetSpentMessage(budget)});
          refusedForBudget = true;
        }
      }
      if (result.toolCalls == servedBefore && ++refusedReplies > kRefusedRepliesAllowed) throw keptCallingTools();
      request.messages.push_back(std::move(call));
      request.messages.push_back(std::move(answers));
      if (asked > calls.size()) {
        const std::size_t excess = asked - calls.size();
        result.toolCalls = static_cast<int>(std::min<std::size_t>(budget, result.toolCalls + excess));
        request.messages.push_back({Role::User,
                                    "Your reply asked for " + std::to_string(asked) + " tool calls; at most " +
                                        std::to_string(kMaxToolCallsPerReply) + " are run per reply, so the other " +
                                        std::to_string(excess) + " were refused and count against the budget of " +
                                        std::to_string(budget) + " tool calls.",
                                    {},
                                    {}});
      }
      // Said once, and not after a refusal that already says it.
      if (result.toolCalls >= budget && !budgetAnnounced) {
        if (!refusedForBudget) request.messages.push_back({Role::User, toolBudgetSpentMessage(budget), {}, {}});
        budgetAnnounced = true;
      }
      continue;
    }

    ++result.attempts;
    if (response.refusal) {
      throw ProviderError(ProviderError::Kind::Refusal,
                          provider.name() + " refused to review this change: " + *response.refusal);
    }
    contract::ReplyParse parse = parseAnswer(response);
    result.warnings.insert(result.warnings.end(), parse.warnings.begin(), parse.warnings.end());
    if (parse.ok()) {
      result.report = std::move(*parse.report);
      request.messages.push_back({Role::Assistant, response.text, {}, {}});
      result.conversation = std::move(request);
      return result;
    }
    // Feedback: the model's own answer as its turn, then every problem.
    request.messages.push_back({Role::Assistant, response.text, {}, {}});
    std::string feedback = contract::feedbackMessage(parse);
    wroteToolCallAsText = textualToolCall(response.text);
    lastInPromptMode = response.schemaOnlyInPrompt;
    if (wroteToolCallAsText)
      feedback += toolsOffered ? "\n\nYour reply wrote a tool call as text, which is not run. Call tools through the "
                                 "tool-calling interface, or give the final JSON answer now."
                               : "\n\nYour reply wrote a tool call as text, which is not run: no tools are offered "
                                 "in this review. Give the final JSON answer now.";
    request.messages.push_back({Role::User, std::move(feedback), {}, {}});
    last = std::move(parse);
  }
  throw ContractFailure("the model's answer did not meet the review contract after " +
                            std::to_string(result.attempts) + (result.attempts == 1 ? " attempt" : " attempts") +
                            "; problems in the last answer:" + listProblems(last) +
                            (!wroteToolCallAsText ? ""
                             : toolsOffered
                                 ? "\nThe answer was a tool call written as text (<tool_call>, <function=...>), which "
                                   "the server did not read as a tool call: start it with its tool-call parser (vLLM: "
                                   "--enable-auto-tool-choice --tool-call-parser hermes for Qwen models), or set "
                                   "max_tool_calls to 0 (or --max-tool-calls 0) to review without repository tools"
                                 : "\nThe answer was a tool call written as text (<tool_call>, <function=...>), though "
                                   "no tools were offered: this model does not keep to the answer format; try another "
                                   "model") +
                            (!wroteToolCallAsText && onlyProblemsOf(last, contract::ErrorKind::NoJson)
                                 ? (lastInPromptMode ? kProseInPromptModeFix : kProseFix)
                                 : "") +
                            (onlyProblemsOf(last, contract::ErrorKind::Truncated)
                                 ? (cutByRevline(last) ? kTooLongFix : kCutOffFix)
                                 : ""),
                        spent());
}

}  // namespace revline::review
