#include "core/review/conversation_fit.h"

#include <algorithm>
#include <string>

#include "core/review/token_estimate.h"

namespace revline::review {
namespace {

// What is left of a shortened turn: enough for the model to see what it was.
constexpr std::size_t kKeptBytes = 600;

std::string elidedNote(std::int64_t budget) {
  return "[cut by revline to keep the request within max_input_tokens " + std::to_string(budget) + "]";
}

// `text` cut to its first kKeptBytes (at a UTF-8 boundary) and the note, keeping
// a closing delimiter on its last line (</tool_result>: what is cut stays inside
// the untrusted block); false when already short.
bool shorten(std::string& text, const std::string& note) {
  if (text.size() <= kKeptBytes + note.size() + 64) return false;
  std::string closing;
  if (const auto nl = text.rfind('\n'); nl != std::string::npos && text.compare(nl + 1, 2, "</") == 0 &&
                                        text.size() - nl < 64)
    closing = text.substr(nl);
  std::size_t cut = kKeptBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text = text.substr(0, cut) + "\n" + note + closing;
  return true;
}

}  // namespace

int fitConversation(ModelRequest& request, std::int64_t budget) {
  if (budget <= 0) return 0;
  std::int64_t tokens = estimateTokens(request);
  int shortened = 0;
  const std::string note = elidedNote(budget);
  // Pass 1: tool results (the bulk, and a tool can be asked again); pass 2: the
  // model's own answers and the arguments of its tool calls. Oldest first, so
  // the latest turn, the one being answered, is the last to go.
  for (int pass = 0; pass < 2 && tokens > budget; ++pass) {
    for (std::size_t i = 1; i < request.messages.size() && tokens > budget; ++i) {
      Message& m = request.messages[i];
      bool changed = false;
      if (pass == 0) {
        for (ToolResult& r : m.toolResults) changed |= shorten(r.content, note);
      } else if (m.role == Role::Assistant) {
        changed |= shorten(m.text, note);
        for (ToolCall& c : m.toolCalls) {
          if (c.arguments.dump().size() <= kKeptBytes) continue;
          c.arguments = json{{"note", note}};
          changed = true;
        }
      }
      if (!changed) continue;
      ++shortened;
      tokens = estimateTokens(request);
    }
  }
  // Pass 3: many short tool results (each already under kKeptBytes: a large
  // max_tool_calls under a small budget) are dropped to a note, oldest first;
  // pass 4: whole tool rounds (the call and its results), oldest first. The
  // review goes on with less context instead of failing after it was paid for.
  for (std::size_t i = 1; i < request.messages.size() && tokens > budget; ++i) {
    bool changed = false;
    for (ToolResult& r : request.messages[i].toolResults)
      if (r.content.size() > note.size() + 16) {
        r.content = note;
        changed = true;
      }
    if (!changed) continue;
    ++shortened;
    tokens = estimateTokens(request);
  }
  auto laterCall = [&](std::size_t from) {  // the latest round, the one being answered, stays
    for (std::size_t k = from; k < request.messages.size(); ++k)
      if (request.messages[k].role == Role::Assistant && !request.messages[k].toolCalls.empty()) return true;
    return false;
  };
  for (std::size_t i = 1; i + 1 < request.messages.size() && tokens > budget;) {
    const Message& call = request.messages[i];
    if (call.role != Role::Assistant || call.toolCalls.empty() || request.messages[i + 1].role != Role::Tool ||
        !laterCall(i + 2)) {
      ++i;
      continue;
    }
    request.messages.erase(request.messages.begin() + static_cast<std::ptrdiff_t>(i),
                           request.messages.begin() + static_cast<std::ptrdiff_t>(i + 2));
    ++shortened;
    tokens = estimateTokens(request);
  }
  if (tokens > budget) {
    // Fewer tool calls help only a conversation that has tool turns to shorten.
    const bool toolTurns = std::any_of(request.messages.begin(), request.messages.end(),
                                       [](const Message& m) { return !m.toolCalls.empty(); });
    throw BudgetExceeded("a request of this review needs ~" + std::to_string(tokens) +
                         " tokens, more than max_input_tokens " + std::to_string(budget) +
                         (toolTurns ? " allows even with its later turns shortened; raise max_input_tokens, or lower "
                                      "max_tool_calls so fewer turns follow the diff"
                                    : " allows; raise max_input_tokens"));
  }
  return shortened;
}

}  // namespace revline::review
