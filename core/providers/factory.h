// Builds the Provider a configuration names. The only place that knows every
// provider; callers (CLI, language server) stay provider-agnostic.
#pragma once
#include <filesystem>
#include <memory>

#include "core/config/config.h"
#include "core/diff/diff.h"
#include "core/review/provider.h"

namespace revline::providers {

// Throws review::ProviderError(Kind::Config, ...) for an unknown provider name,
// a missing cassette, or a missing API key, with a message that says how to fix it.
// `diff` is what is being reviewed (the builtin reviewer works on it directly).
std::unique_ptr<review::Provider> makeProvider(const config::Config& config, const diff::Diff& diff,
                                               const std::filesystem::path& repositoryRoot);

}  // namespace revline::providers
