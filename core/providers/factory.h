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

// The same provider for a preview of its requests (`revline diff --prompt`),
// which sends nothing: a remote provider whose API key variable is unset is
// built all the same (the key is never used), so what would leave the machine
// can be checked before any key is given.
std::unique_ptr<review::Provider> makeProviderForPreview(const config::Config& config, const diff::Diff& diff,
                                                         const std::filesystem::path& repositoryRoot);

}  // namespace revline::providers
