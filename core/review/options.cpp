#include "core/review/options.h"

namespace revline::review {

std::string requestSettingsKey(const ReviewOptions& o) {
  return "instructions " + o.extraInstructions + "\nmax_tool_calls " + std::to_string(o.maxToolCalls) +
         "\nmax_attempts " + std::to_string(o.maxAttempts) + "\ncontext " +
         (o.context == ContextMode::Hunk ? "hunk " : "function ") + std::to_string(o.functionContextMaxLines) +
         "\ndescription " + o.description;
}

// What the model is asked, then the caps of publication: a whole review is kept as published.
std::string settingsKey(const ReviewOptions& o) {
  return requestSettingsKey(o) + "\nmax_findings " + std::to_string(o.policy.maxFindings) +
         "\nmax_explanation_chars " + std::to_string(o.policy.maxExplanationChars);
}

}  // namespace revline::review
