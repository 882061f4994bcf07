// How many tokens a request costs, estimated without a tokenizer: the bytes of
// everything the provider is sent, at kBytesPerToken bytes a token. Measured on
// this repository's own sources (docs/CONFIG.md "Token budget"): real BPE
// tokenizers average 3.7 bytes a token on code, so the rule over-counts on
// average and under-counts only dense data (hex, base64) by up to ~10%, which
// the budget's reserve (session/chunk_plan.h) absorbs.
#pragma once
#include <cstdint>
#include <string_view>

#include "core/review/provider.h"

namespace revline::review {

inline constexpr std::int64_t kBytesPerToken = 3;
// Per message: the role and the framing a provider adds around it.
inline constexpr std::int64_t kMessageOverheadTokens = 8;

// ceil(bytes / kBytesPerToken), where a byte that is not UTF-8 and a control
// character (other than tab, newline, carriage return) count a token each.
std::int64_t estimateTokens(std::string_view text);

// Everything in `request`: the system prompt, every message (text, tool calls
// and their arguments, tool results), the schema and the tools' specs.
std::int64_t estimateTokens(const ModelRequest& request);

}  // namespace revline::review
