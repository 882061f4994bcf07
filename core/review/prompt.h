// The prompts, in one place, with a version: the version is part of every
// cache key, so changing a prompt invalidates cached reviews.
#pragma once
#include <string>

#include "core/diff/diff.h"

namespace revline::review {

inline constexpr int kPromptVersion = 1;

// The system prompt; `extraInstructions` (from configuration) is appended.
std::string systemPrompt(const std::string& extraInstructions, bool toolsAvailable);

// The first user message: the annotated diff, delimited as untrusted data.
std::string userPrompt(const diff::Diff& diff);

// A tool's output as the model sees it: delimited as untrusted data, with any
// closing delimiter inside the content defused so the data cannot end early.
std::string delimitToolResult(const std::string& toolName, const std::string& content);

// Sent when the tool budget is spent: answer now, without tools.
std::string toolBudgetSpentMessage(int budget);

}  // namespace revline::review
