// `revline trust [PATH]`: lets a repository's .revline.json choose where code
// and credentials go (base_url, api_key_env, model, a remote provider, a cassette
// outside it), and its own git config name programs git runs (filter drivers,
// core.fsmonitor), by adding its root to the user's own configuration.
#include "core/cli/args.h"
#include "core/cli/subcommands.h"
#include "core/config/config.h"
#include "core/config/user_config.h"
#include "core/git/git.h"

namespace revline::cli {

int runTrustCommand(const std::vector<std::string>& args, std::istream&, std::ostream& out, std::ostream&) {
  const ParsedArgs parsed("revline trust", {{"list"}, {"remove"}, {"help"}}, args);
  const std::filesystem::path userFile = config::userConfigPath();
  if (parsed.has("help")) {
    out << "usage: revline trust [PATH]\n       revline trust --remove [PATH]\n       revline trust --list\n\n"
           "Trusts the repository at PATH (default: the current directory's repository): its .revline.json may\n"
           "then set the keys that decide where code and credentials are sent (base_url, api_key_env, model,\n"
           "provider openai/anthropic/ollama, cassette outside the repository), and raise what a review spends;\n"
           "and the programs its own git config names (filter drivers, core.fsmonitor, a partial clone's fetch)\n"
           "run when revline reads the diff. An untrusted repository may still set the policy, instructions, include/exclude,\n"
           "timeouts and the other keys.\n\n"
           "Trust is kept in the user configuration, $XDG_CONFIG_HOME/revline/config.json (default\n"
           "~/.config/revline/config.json; now "
        << (userFile.empty() ? "unset: " + config::whyNoUserConfigPath() : userFile.string())
        << "), under \"trusted_repositories\".\n\n"
           "  --remove  trust the repository no more (PATH may be one that no longer exists)\n"
           "  --list    print the trusted repositories\n";
    return 0;
  }
  if (parsed.has("list")) {
    if (!parsed.positional().empty()) throw UsageError("--list takes no PATH");
    for (const auto& root : config::loadUserConfig(userFile).trusted) out << root.string() << "\n";
    return 0;
  }
  if (parsed.positional().size() > 1) throw UsageError("unexpected argument \"" + parsed.positional()[1] + "\"");
  if (parsed.has("list") && parsed.has("remove")) throw UsageError("--list and --remove exclude each other");
  const std::filesystem::path start =
      parsed.positional().empty() ? std::filesystem::current_path() : std::filesystem::path(parsed.positional()[0]);
  std::error_code ec;
  if (parsed.has("remove")) {
    // A repository deleted since it was trusted is removed by the path it had.
    const std::filesystem::path root = std::filesystem::is_directory(start, ec)
                                           ? std::filesystem::canonical(git::findRepositoryRoot(start))
                                           : std::filesystem::absolute(start).lexically_normal();
    const bool removed = config::untrustRepository(userFile, root);
    out << "revline trust: " << root.string() << (removed ? " is no longer trusted" : " was not trusted") << " (in "
        << userFile.string() << ")\n";
    return 0;
  }
  if (!std::filesystem::is_directory(start, ec)) throw UsageError("\"" + start.string() + "\" is not a directory");
  const std::filesystem::path root = std::filesystem::canonical(git::findRepositoryRoot(start));
  const bool added = config::trustRepository(userFile, root);
  out << "revline trust: " << root.string() << (added ? " is now trusted" : " was already trusted") << " (in "
      << userFile.string() << "): its .revline.json may set base_url, api_key_env, model, provider and cassette, and raise what a review "
         "spends, and its git config may name programs for git to run\n";
  return 0;
}

}  // namespace revline::cli
