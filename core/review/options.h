// What a review is asked to do: budgets, policy, instructions, context. Its own
// header so configuration (core/config) names the options without the whole
// pipeline.
#pragma once
#include <cstdint>
#include <string>

#include "core/review/cost.h"
#include "core/review/policy.h"

namespace revline::review {

// How much of the file around each hunk the model is shown (diff/function_context.h).
enum class ContextMode { Hunk, Function };

struct ReviewOptions {
  int maxAttempts = 2;       // model answers tried per review (contract retries + 1)
  int maxToolCalls = 5;      // hard budget of repository tool calls per review
  PolicyConfig policy;
  std::string extraInstructions;  // appended to the system prompt (from config)
  ContextMode context = ContextMode::Function;
  int functionContextMaxLines = 200;  // a longer enclosing definition shows only its first line
  std::string description;            // what the change is for, in the author's words (untrusted)
  Prices prices;                      // the model's prices, for the cost in reports (not part of settingsKey)
  // Not a setting: the max_input_tokens the session resolved for this review's
  // provider (session/chunked_review.h), which every call is fitted to; 0: none.
  // Not part of settingsKey (it changes what is sent, not what is asked).
  std::int64_t inputTokenBudget = 0;
  friend bool operator==(const ReviewOptions&, const ReviewOptions&) = default;
};

// The options that change what a review publishes, as text: part of every
// review cache key (session/review_cache.h): requestSettingsKey and the caps of
// publication. Kept beside ReviewOptions so a new option is added to it in the
// same place (to requestSettingsKey when it changes what the model is asked).
std::string settingsKey(const ReviewOptions& options);

// Of those, the ones that change what the model is asked or answers: the
// per-hunk cache's key (session/hunk_cache.h), whose entries hold a request's
// findings before the caps of publication (max_findings, max_explanation_chars),
// so raising max_findings, as the review advises when findings are past it,
// sends nothing again. max_attempts stays: it decides whether findings that
// could not be placed get the grounding feedback round.
std::string requestSettingsKey(const ReviewOptions& options);

}  // namespace revline::review
