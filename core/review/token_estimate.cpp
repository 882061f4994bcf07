#include "core/review/token_estimate.h"

namespace revline::review {

std::int64_t estimateTokens(std::string_view text) {
  return (static_cast<std::int64_t>(text.size()) + kBytesPerToken - 1) / kBytesPerToken;
}

std::int64_t estimateTokens(const ModelRequest& request) {
  std::int64_t tokens = estimateTokens(request.system) + kMessageOverheadTokens;
  for (const Message& m : request.messages) {
    tokens += kMessageOverheadTokens + estimateTokens(m.text);
    for (const ToolCall& call : m.toolCalls)
      tokens += kMessageOverheadTokens + estimateTokens(call.id) + estimateTokens(call.name) +
                estimateTokens(call.arguments.dump());
    for (const ToolResult& result : m.toolResults)
      tokens += kMessageOverheadTokens + estimateTokens(result.callId) + estimateTokens(result.content);
  }
  if (!request.schema.is_null()) tokens += estimateTokens(request.schema.dump());
  for (const ToolSpec& tool : request.tools)
    tokens += kMessageOverheadTokens + estimateTokens(tool.name) + estimateTokens(tool.description) +
              estimateTokens(tool.inputSchema.dump());
  return tokens;
}

}  // namespace revline::review
