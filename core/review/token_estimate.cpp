#include "core/review/token_estimate.h"

#include "core/review/prompt.h"
#include "core/support/utf8.h"

namespace revline::review {

std::int64_t estimateTokens(std::string_view text) {
  // Bytes, except what the model reads as one character each however it is
  // sent: a byte that is not UTF-8 (U+FFFD, 3 bytes on the wire) and a control
  // character ("\u0000" in JSON) are a token each, not a third of one.
  std::int64_t units = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      ++units;
      ++i;
    } else if (c == '\n' || c == '\t' || c == '\r') {
      ++units;
      ++i;
    } else if (const std::size_t n = c < 0x80 ? 0 : utf8SequenceAt(text, i); n > 0) {
      units += static_cast<std::int64_t>(n);
      i += n;
    } else {
      units += kBytesPerToken;
      ++i;
    }
  }
  return (units + kBytesPerToken - 1) / kBytesPerToken;
}

std::int64_t estimateTokens(const ModelRequest& request) {
  std::int64_t tokens = estimateTokens(request.system) + kMessageOverheadTokens;
  for (const Message& m : request.messages) {
    tokens += kMessageOverheadTokens + estimateTokens(m.text);
    if (!m.echo.is_null()) tokens += estimateTokens(m.echo.dump());  // a turn's reasoning sent back with it
    for (const ToolCall& call : m.toolCalls)
      tokens += kMessageOverheadTokens + estimateTokens(call.id) + estimateTokens(call.name) +
                estimateTokens(call.arguments.dump());
    for (const ToolResult& result : m.toolResults)
      tokens += kMessageOverheadTokens + estimateTokens(result.callId) + estimateTokens(result.content);
  }
  // As a prompt shows it, with its format instructions: what structured_output
  // "prompt" and Ollama send, and a bound on native modes (the schema once, in
  // the wire format the server reads, which frames it in its own words).
  if (!request.schema.is_null()) tokens += estimateTokens(schemaInstructions(request.schema));
  for (const ToolSpec& tool : request.tools)
    tokens += kMessageOverheadTokens + estimateTokens(tool.name) + estimateTokens(tool.description) +
              estimateTokens(tool.inputSchema.dump());
  return tokens;
}

}  // namespace revline::review
