#include "core/providers/factory.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

#include "core/builtin/builtin_provider.h"
#include "core/diff/notebook.h"
#include "core/providers/anthropic_provider.h"
#include "core/providers/ollama_provider.h"
#include "core/providers/openai_provider.h"
#include "core/providers/redacting_provider.h"
#include "core/providers/replay_provider.h"
#include "core/support/repo_file.h"

namespace revline::providers {

using review::ProviderError;

namespace {

// Remote providers: secrets, and the key itself, are redacted from everything sent to a non-loopback base URL.
std::unique_ptr<review::Provider> redacted(std::unique_ptr<RemoteProvider> provider) {
  std::string key = provider->apiKey();
  return redactIfRemote(std::move(provider), std::move(key));
}

std::unique_ptr<review::Provider> makeRemote(RemoteSettings settings, const std::string& name) {
  if (name == "openai") return redacted(std::make_unique<OpenAiProvider>(std::move(settings)));
  if (name == "anthropic") return redacted(std::make_unique<AnthropicProvider>(std::move(settings)));
  if (name == "ollama") return redacted(std::make_unique<OllamaProvider>(std::move(settings)));
  throw ProviderError(ProviderError::Kind::Config,
                      "unknown provider \"" + name + "\": use one of builtin, replay, openai, anthropic, ollama");
}

}  // namespace

std::unique_ptr<review::Provider> makeProvider(const config::Config& config, const diff::Diff& diff,
                                               const std::filesystem::path& repositoryRoot) {
  const std::string& name = config.provider;
  if (name == "builtin") {
    // The rules may look at a whole new file (e.g. a map's declaration outside the hunk).
    builtin::SourceLookup lookup;
    auto skipped = std::make_shared<std::vector<std::string>>();
    if (!repositoryRoot.empty()) {
      // Through the one confined read: a diff path that is a symlink out of the
      // repository, a FIFO, a device or a huge file is skipped and reported.
      lookup = [repositoryRoot, skipped, versions = diff.newVersions](const std::string& path) -> std::optional<std::string> {
        // --staged, --stdin: the change's files as git has their new side, not the work tree's copies.
        if (versions)
          if (const auto v = versions->find(path); v != versions->end()) return v->second;
        // A notebook is megabytes of outputs around its cells: read whole up to its own cap.
        support::RepoFileRead read = support::readRepositoryFile(
            repositoryRoot, path, diff::isNotebookPath(path) ? diff::kMaxNotebookBytes : support::kMaxRepositoryFileBytes);
        // A submodule's path is its work tree, a directory: the diff shows its commit, nothing to read.
        auto submodule = [&] {
          std::error_code ec;
          return std::filesystem::is_directory(std::filesystem::symlink_status(repositoryRoot / path, ec));
        };
        if (!read && read.skipped->reason != support::RepoFileSkip::Reason::Missing && !submodule() &&
            std::find(skipped->begin(), skipped->end(), read.skipped->message()) == skipped->end()) {
          skipped->push_back(read.skipped->message());
        }
        return std::move(read.content);
      };
    }
    return std::make_unique<builtin::BuiltinProvider>(diff, std::move(lookup), [skipped] { return *skipped; });
  }
  if (name == "replay") {
    if (config.cassette.empty()) {
      throw ProviderError(ProviderError::Kind::Config,
                          "the replay provider needs a cassette: pass --cassette FILE or set \"cassette\" in .revline.json "
                          "(a file inside the repository, or anywhere once the repository is trusted: `revline trust`)");
    }
    std::filesystem::path path = config.cassette;
    if (path.is_relative() && !repositoryRoot.empty() && !std::filesystem::exists(path)) path = repositoryRoot / path;
    return std::make_unique<ReplayProvider>(ReplayProvider::fromFile(path));
  }
  return makeRemote(remoteSettings(config), name);
}

std::unique_ptr<review::Provider> makeProviderForPreview(const config::Config& config, const diff::Diff& diff,
                                                         const std::filesystem::path& repositoryRoot) {
  if (config.provider == "builtin" || config.provider == "replay") return makeProvider(config, diff, repositoryRoot);
  RemoteSettings settings = remoteSettings(config);
  settings.getenv = [](const std::string& name) -> std::optional<std::string> {
    if (const char* value = std::getenv(name.c_str())) return std::string(value);
    return std::string("(no key: a preview sends nothing)");
  };
  return makeRemote(std::move(settings), config.provider);
}

}  // namespace revline::providers
