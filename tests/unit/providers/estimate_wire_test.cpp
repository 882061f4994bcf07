// The token estimate against what each provider really sends: for every
// provider and structured_output mode, the text the model is shown of a review
// request (system prompt, messages, tool calls and results, tool specs, and the
// schema wherever it goes) is at most what review::estimateTokens counted, at
// its bytes-per-token rule. Before, the schema shown in a prompt (Ollama always,
// structured_output "prompt") was indented: ~600 tokens the budget never saw.
#include <gtest/gtest.h>

#include "core/contract/schema.h"
#include "core/providers/anthropic_provider.h"
#include "core/providers/ollama_provider.h"
#include "core/providers/openai_provider.h"
#include "core/review/prompt.h"
#include "core/review/token_estimate.h"
#include "tests/unit/providers/provider_test_util.h"

namespace revline::providers {
namespace {

using review::Role;
using ojson = nlohmann::ordered_json;

// A review conversation as the attempt loop builds it: system prompt, the
// diff, a tool round, the real report schema and a tool spec.
review::ModelRequest reviewConversation() {
  review::ModelRequest r;
  r.system = review::systemPrompt("", 5);
  std::string diff = "Review this change.\n\n<diff>\nFile: src/a.py (modified)\n@@ -1,40 +1,40 @@\n";
  for (int i = 1; i <= 40; ++i) diff += std::to_string(i) + " + value_" + std::to_string(i) + " = compute(" + std::to_string(i) + ")\n";
  r.messages.push_back({Role::User, diff + "</diff>", {}, {}});
  r.messages.push_back({Role::Assistant, "", {{"call_1", "read_file", json{{"path", "src/a.py"}}}}, {}});
  r.messages.push_back({Role::Tool, "", {}, {{"call_1", "read_file", true, std::string(3000, 'x')}}});
  r.schema = contract::reportSchemaOrdered();
  r.tools = {testing::readFileSpec()};
  return r;
}

std::size_t textBytes(const ojson& content) {
  if (content.is_string()) return content.get<std::string>().size();
  std::size_t n = 0;
  if (content.is_array())
    for (const auto& block : content) {
      if (block.contains("text")) n += block["text"].get<std::string>().size();
      if (block.contains("content")) n += textBytes(block["content"]);
      if (block.contains("input")) n += block["input"].dump().size();
      if (block.contains("name")) n += block["name"].get<std::string>().size();
    }
  return n;
}

// What the model reads of a body: every text, and each tool's name, description
// and parameters; Ollama's `format` constrains sampling and is not shown.
std::size_t shownBytes(const ojson& body) {
  std::size_t n = 0;
  if (body.contains("system")) n += textBytes(body["system"]);
  for (const auto& m : body["messages"]) {
    if (m.contains("content")) n += textBytes(m["content"]);
    if (m.contains("tool_calls"))
      for (const auto& c : m["tool_calls"]) n += c["function"].dump().size();
  }
  if (body.contains("tools"))
    for (const auto& t : body["tools"]) {
      const ojson& f = t.contains("function") ? t["function"] : t;
      n += f["name"].get<std::string>().size() + f["description"].get<std::string>().size();
      n += (f.contains("parameters") ? f["parameters"] : f["input_schema"]).dump().size();
    }
  if (body.contains("response_format")) n += body["response_format"]["json_schema"]["schema"].dump().size();
  return n;
}

TEST(EstimateOnTheWire, NoProviderShowsTheModelMoreThanTheEstimateCounted) {
  testing::SleepRecorder sleeps;
  for (const auto mode : {config::StructuredOutput::Native, config::StructuredOutput::Prompt}) {
    auto settings = testing::settingsFor("http://127.0.0.1:9/v1", sleeps, {{"ANTHROPIC_API_KEY", "k"}});
    settings.structuredOutput = mode;
    const std::string modeName = mode == config::StructuredOutput::Native ? "native" : "prompt";
    for (const bool budgetSpent : {false, true}) {
      review::ModelRequest request = reviewConversation();
      request.toolBudgetSpent = budgetSpent;  // Ollama then adds `format`, which the model is not shown
      const std::int64_t estimate = review::estimateTokens(request);
      const std::vector<std::pair<std::string, ojson>> bodies = {
          {"openai", OpenAiProvider(settings).buildRequest(request)},
          {"anthropic", AnthropicProvider(settings).buildRequest(request)},
          {"ollama", OllamaProvider(settings).buildRequest(request)},
      };
      for (const auto& [name, body] : bodies) {
        const std::size_t shown = shownBytes(body);
        EXPECT_LE(static_cast<std::int64_t>(shown), estimate * review::kBytesPerToken)
            << name << ", " << modeName << ": the model is shown " << shown << " bytes, the estimate counted "
            << estimate << " tokens";
        // Counted, not far over: the schema's framing is all the estimate adds.
        EXPECT_GE(static_cast<std::int64_t>(shown) + 1500, estimate * review::kBytesPerToken) << name << ", " << modeName;
      }
    }
  }
}

}  // namespace
}  // namespace revline::providers
