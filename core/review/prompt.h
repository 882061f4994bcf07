// The prompts, in one place, with a version: the version is part of every
// cache key, so changing a prompt invalidates cached reviews.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/diff/diff.h"
#include "core/diff/function_context.h"

namespace revline::review {

inline constexpr int kPromptVersion = 4;

// The system prompt; `extraInstructions` (from configuration) is appended.
// `toolBudget` > 0: the repository tools are offered, and the prompt states the
// budget and asks for the calls batched in one turn (each turn re-sends the
// conversation). The text depends on nothing else: it is the start of the
// prefix providers cache, identical in every call of a review.
std::string systemPrompt(const std::string& extraInstructions, int toolBudget);

// What the first user message holds besides the diff.
struct PromptInput {
  std::vector<std::vector<diff::HunkContext>> functionContext;  // per file, per hunk; empty: none
  std::string description;                                      // the author's description (untrusted)
  std::vector<std::string> commitMessages;                      // the commits' subjects and bodies (untrusted)
  std::size_t maxIntentChars = 8000;                            // description plus commit messages, cut beyond
};

inline constexpr std::size_t kMaxIntentChars = 8000;
// The intent's share of a request of `inputTokenBudget` tokens (0: none): an
// eighth at 3 bytes a token, at most kMaxIntentChars, so a long branch history
// never leaves a small budget (a local model's) without room for the diff.
inline std::size_t maxIntentCharsFor(std::int64_t inputTokenBudget) {
  if (inputTokenBudget <= 0) return kMaxIntentChars;
  return std::min<std::size_t>(kMaxIntentChars, static_cast<std::size_t>(inputTokenBudget) * 3 / 8);
}

// The first user message: the intent (when given) and the annotated diff, each
// delimited as untrusted data.
std::string userPrompt(const diff::Diff& diff);
std::string userPrompt(const diff::Diff& diff, const PromptInput& input);

struct RejectedFinding;
// Sent after an answer whose findings could not all be placed: each rejected
// finding with its index, location, title and the grounding reason, one a line.
std::string groundingFeedbackMessage(const std::vector<RejectedFinding>& rejected);

// A tool's output as the model sees it: delimited as untrusted data, with any
// closing delimiter inside the content defused so the data cannot end early.
std::string delimitToolResult(const std::string& toolName, const std::string& content);

// The schema as a prompt shows it, appended to the system prompt where no
// server enforces it (structured_output "prompt") and for Ollama (whose
// `format` constrains sampling and shows the model nothing): format
// instructions, then the schema as compact JSON (indented, it took twice the
// tokens). The token estimate counts the schema this way however it is sent.
std::string schemaInstructions(const nlohmann::ordered_json& schema);

// Sent when the tool budget is spent: answer now, without tools.
std::string toolBudgetSpentMessage(int budget);

}  // namespace revline::review
