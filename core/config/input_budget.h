// The default request budget (max_input_tokens 0) for a provider and model.
// It lives with the configuration because it is the value of a key: the
// session resolves a review's budget from it, and the trust rules compare an
// untrusted repository's budget against it (config.cpp).
#pragma once
#include <cstdint>
#include <string>

namespace revline::config {

// 0 (no limit) for the offline builtin and replay providers; otherwise what
// leaves room for the answer in the model's context window. An empty model is
// the provider's default model (each provider's kDefaultModel; a providers test
// keeps the two in step).
std::int64_t defaultInputTokens(const std::string& provider, const std::string& model);

}  // namespace revline::config
