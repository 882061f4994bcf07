#include "core/providers/factory.h"

#include <fstream>
#include <sstream>

#include "core/builtin/builtin_provider.h"
#include "core/providers/anthropic_provider.h"
#include "core/providers/ollama_provider.h"
#include "core/providers/openai_provider.h"
#include "core/providers/redacting_provider.h"
#include "core/providers/replay_provider.h"

namespace revline::providers {

using review::ProviderError;

std::unique_ptr<review::Provider> makeProvider(const config::Config& config, const diff::Diff& diff,
                                               const std::filesystem::path& repositoryRoot) {
  const std::string& name = config.provider;
  if (name == "builtin") {
    // The rules may look at a whole new file (e.g. a map's declaration outside the hunk).
    builtin::SourceLookup lookup;
    if (!repositoryRoot.empty()) {
      lookup = [repositoryRoot](const std::string& path) -> std::optional<std::string> {
        const std::filesystem::path relative(path);
        for (const auto& part : relative)
          if (part == "..") return std::nullopt;  // a diff path never leaves the repository
        if (relative.is_absolute()) return std::nullopt;
        std::ifstream in(repositoryRoot / path, std::ios::binary);
        if (!in) return std::nullopt;
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
      };
    }
    return std::make_unique<builtin::BuiltinProvider>(diff, std::move(lookup));
  }
  if (name == "replay") {
    if (config.cassette.empty()) {
      throw ProviderError(ProviderError::Kind::Config,
                          "the replay provider needs a cassette: pass --cassette FILE or set \"cassette\" in .revline.json");
    }
    std::filesystem::path path = config.cassette;
    if (path.is_relative() && !repositoryRoot.empty() && !std::filesystem::exists(path)) path = repositoryRoot / path;
    return std::make_unique<ReplayProvider>(ReplayProvider::fromFile(path));
  }
  // Remote providers: secrets are redacted from everything sent to a non-loopback base URL.
  if (name == "openai") return redactIfRemote(std::make_unique<OpenAiProvider>(config));
  if (name == "anthropic") return redactIfRemote(std::make_unique<AnthropicProvider>(config));
  if (name == "ollama") return redactIfRemote(std::make_unique<OllamaProvider>(config));
  throw ProviderError(ProviderError::Kind::Config,
                      "unknown provider \"" + name + "\": use one of builtin, replay, openai, anthropic, ollama");
}

}  // namespace revline::providers
