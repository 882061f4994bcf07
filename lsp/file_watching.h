// Watching what changes the server's view from outside the editor: an edited
// `.revline.json` (a git pull, another editor), the user config (trust and the
// user's own settings: `revline trust` run in a terminal) and a repository that
// appears after a file was opened (`git init`), and git's index and HEAD: a
// commit, a stash or a checkout in a terminal moves lines out of the change, and
// the findings shown on them go (Server::recheckShownFindings). Registered
// dynamically (client/registerCapability) when the client supports it. A
// deleted file the client reports (any watcher of its own) takes its findings
// with it.
#pragma once
#include <filesystem>
#include <string>

#include "lsp/protocol.h"

namespace revline::lsp {

constexpr const char* kWatchRegistrationId = "revline-watched-files";

// Params of client/registerCapability for workspace/didChangeWatchedFiles:
// `**/.revline.json`, `**/.git/HEAD`, git's indexes (`**/.git/index`, a
// submodule's and a linked work tree's) and the user config `userConfig` (absolute;
// empty: there is none to watch). The user config lies outside the workspace,
// so its watcher is an LSP 3.17 RelativePattern (base: the config home) when the
// client takes those, else an absolute glob (left out when the path holds glob
// characters: the modification-time check still notices an edit).
json watchedFilesRegistration(const std::filesystem::path& userConfig, bool relativePatterns);

// Repository: a .git appeared or went (HEAD, the .git itself); GitState: git's
// index changed (commit, stash, reset, add). A checkout writes both.
// OtherGitState: the index of a submodule (.git/modules/NAME/index) or of a
// linked work tree (.git/worktrees/NAME/index), whose work tree is elsewhere.
enum class WatchedKind { Config, UserConfig, Repository, GitState, OtherGitState, Other };
// What a changed file (by path) means to the server.
WatchedKind classifyWatched(const std::string& path, const std::filesystem::path& userConfig);

struct FileEvent { std::string uri; int type = 0; };  // 1 created, 2 changed, 3 deleted
constexpr int kFileDeleted = 3;
inline void from_json(const json& j, FileEvent& e) {
  field(j, "uri", e.uri);
  field(j, "type", e.type);
}
struct DidChangeWatchedFilesParams { std::vector<FileEvent> changes; };
inline void from_json(const json& j, DidChangeWatchedFilesParams& p) { field(j, "changes", p.changes); }

}  // namespace revline::lsp
