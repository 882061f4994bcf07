#include "lsp/file_watching.h"

#include <set>
#include <system_error>

#include "core/config/user_config.h"

namespace revline::lsp {

namespace fs = std::filesystem;

namespace {
fs::path canonicalOrNormal(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);  // a deleted file still compares equal
  return ec ? p.lexically_normal() : c;
}
}  // namespace

json watchedFilesRegistration(const fs::path& userConfig, bool relativePatterns) {
  // kind 7: create | change | delete.
  json watchers = json::array({json{{"globPattern", "**/.revline.json"}, {"kind", 7}},
                               json{{"globPattern", "**/.git/HEAD"}, {"kind", 7}},
                               json{{"globPattern", "**/.git/index"}, {"kind", 7}},
                               // A submodule's and a linked work tree's index live in the superproject's .git.
                               json{{"globPattern", "**/.git/modules/**/index"}, {"kind", 7}},
                               json{{"globPattern", "**/.git/worktrees/*/index"}, {"kind", 7}}});
  if (!userConfig.empty() && userConfig.is_absolute()) {
    // Based on the config home ($XDG_CONFIG_HOME or ~/.config), which exists
    // even before `revline trust` creates revline/config.json in it.
    const fs::path base = userConfig.parent_path().parent_path();
    const std::string pattern = (userConfig.parent_path().filename() / userConfig.filename()).generic_string();
    if (relativePatterns) {
      watchers.push_back(json{{"globPattern", {{"baseUri", uriFromPath(base.string())}, {"pattern", pattern}}}, {"kind", 7}});
    } else if (userConfig.generic_string().find_first_of("*?[]{}") == std::string::npos) {
      watchers.push_back(json{{"globPattern", userConfig.generic_string()}, {"kind", 7}});
    }
  }
  return json{{"registrations", json::array({json{{"id", kWatchRegistrationId},
                                                  {"method", "workspace/didChangeWatchedFiles"},
                                                  {"registerOptions", {{"watchers", watchers}}}}})}};
}

WatchedKind classifyWatched(const std::string& path, const fs::path& userConfig) {
  const fs::path p(path);
  if (!userConfig.empty() && canonicalOrNormal(p) == canonicalOrNormal(userConfig)) return WatchedKind::UserConfig;
  if (p.filename() == ".revline.json") return WatchedKind::Config;
  if (p.filename() == "HEAD" && p.parent_path().filename() == ".git") return WatchedKind::Repository;
  if (p.filename() == ".git") return WatchedKind::Repository;
  if (p.filename() == "index" && p.parent_path().filename() == ".git") return WatchedKind::GitState;
  if (p.filename() == "index" && p.generic_string().find("/.git/") != std::string::npos) return WatchedKind::OtherGitState;
  return WatchedKind::Other;
}

}  // namespace revline::lsp

// ---------------------------------------------------------------- the server's handler

#include "lsp/paths.h"
#include "lsp/server.h"

namespace revline::lsp {

void Server::handleDidChangeWatchedFiles(const json& params) {
  auto p = parseParams<DidChangeWatchedFilesParams>(params, "workspace/didChangeWatchedFiles");
  const fs::path userConfig = config::userConfigPath();
  bool configChanged = false;
  std::vector<fs::path> gitStateChanged;  // the work trees of the .git directories reported
  bool anyGitStateChanged = false;        // a submodule's or linked work tree's index
  for (const auto& change : p.changes) {
    std::string path;
    try {
      path = pathFromUri(change.uri);
    } catch (const DecodeError&) {
      continue;
    }
    switch (classifyWatched(path, userConfig)) {
      case WatchedKind::Config:
      case WatchedKind::UserConfig: configChanged = true; break;
      case WatchedKind::Repository:  // a repository appeared or went
        rootByDir_.clear();
        rootByGit_.clear();
        [[fallthrough]];
      case WatchedKind::GitState: gitStateChanged.push_back(fs::path(path).parent_path().parent_path()); break;
      case WatchedKind::OtherGitState: anyGitStateChanged = true; break;  // whose work tree: not told by the path
      case WatchedKind::Other: break;
    }
    if (change.type == kFileDeleted) forgetIfGone(change.uri);  // its findings go with it
  }
  if (configChanged) reloadConfigs();
  std::set<fs::path> roots;
  for (const auto& dir : gitStateChanged)
    if (auto root = repositoryOf(dir)) roots.insert(*root);
  if (anyGitStateChanged) {  // every repository with findings shown, or taken by git: a git diff each, nothing sent
    for (const auto& entry : files_)
      if (!entry.second.findings.empty()) roots.insert(entry.second.root);
    for (const auto& entry : clearedByDiffChange_) roots.insert(entry.second.root);
  }
  if (!roots.empty() || anyGitStateChanged) {
    ++gitStateChanges_;
    lastGitStateChange_ = std::chrono::steady_clock::now();
  }
  for (const auto& root : roots) recheckShownFindings(root);
}

void Server::reloadConfigs() {
  // Every repository seen so far: a .revline.json names its own, but the user
  // config (trust, the user's defaults) applies to all of them. The next review
  // (a save, Review File, an open) uses what is read here.
  std::vector<fs::path> roots;
  for (const auto& [root, config] : configs_) roots.push_back(root);
  configs_.clear();
  for (const auto& root : roots) configFor(root);
}

}  // namespace revline::lsp
