#include "core/config/input_budget.h"

#include <cctype>
#include <string_view>

namespace revline::config {

std::int64_t defaultInputTokens(const std::string& provider, const std::string& model) {
  if (provider == "builtin" || provider == "replay") return 0;  // not a model's context window
  std::string m;
  for (char c : model) m += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // The OpenAI provider's default model is a GPT-4.1 one (openai_provider.h).
  if (m.empty() && provider == "openai") m = "gpt-4.1";
  // A router's "vendor/model" (OpenRouter's openai/gpt-4o, anthropic/claude-...) names the same model.
  if (const auto slash = m.rfind('/'); slash != std::string::npos) m.erase(0, slash + 1);
  auto starts = [&](std::string_view prefix) { return m.rfind(prefix, 0) == 0; };
  if (provider == "anthropic" || starts("claude")) return 150000;  // 200k context
  if (starts("gpt-4o") || starts("gpt-4.1") || starts("gpt-4-turbo") || starts("gpt-5") || starts("o1") ||
      starts("o3") || starts("o4"))
    return 100000;  // 128k context or more
  // The first GPT-4 (gpt-4, gpt-4-0613: 8k context, room left for the answer) and
  // GPT-3.5 Turbo (16k); gpt-4-32k and the previews take the default below or above.
  if (m == "gpt-4" || m == "gpt-4-0613" || m == "gpt-4-0314") return 6000;
  if (starts("gpt-3.5-turbo")) return 12000;
  if (provider == "ollama") return 8000;  // local models: small contexts unless configured
  return 24000;  // an unknown OpenAI-compatible model: fits a 32k context
}

}  // namespace revline::config
