// Watching what changes the server's view from outside the editor: an edited
// `.revline.json` (a git pull, another editor) and a repository that appears
// after a file was opened (`git init`). Registered dynamically
// (client/registerCapability) when the client supports it.
#pragma once
#include <string>

#include "lsp/protocol.h"

namespace revline::lsp {

constexpr const char* kWatchRegistrationId = "revline-watched-files";

// Params of client/registerCapability for workspace/didChangeWatchedFiles.
json watchedFilesRegistration();

enum class WatchedKind { Config, Repository, Other };
// What a changed file (by path) means to the server.
WatchedKind classifyWatched(const std::string& path);

struct FileEvent { std::string uri; int type = 0; };  // 1 created, 2 changed, 3 deleted
inline void from_json(const json& j, FileEvent& e) {
  field(j, "uri", e.uri);
  field(j, "type", e.type);
}
struct DidChangeWatchedFilesParams { std::vector<FileEvent> changes; };
inline void from_json(const json& j, DidChangeWatchedFilesParams& p) { field(j, "changes", p.changes); }

}  // namespace revline::lsp
