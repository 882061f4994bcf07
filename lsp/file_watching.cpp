#include "lsp/file_watching.h"

#include <filesystem>

namespace revline::lsp {

json watchedFilesRegistration() {
  // kind 7: create | change | delete.
  json watchers = json::array({json{{"globPattern", "**/.revline.json"}, {"kind", 7}},
                               json{{"globPattern", "**/.git/HEAD"}, {"kind", 7}}});
  return json{{"registrations", json::array({json{{"id", kWatchRegistrationId},
                                                  {"method", "workspace/didChangeWatchedFiles"},
                                                  {"registerOptions", {{"watchers", watchers}}}}})}};
}

WatchedKind classifyWatched(const std::string& path) {
  const std::filesystem::path p(path);
  if (p.filename() == ".revline.json") return WatchedKind::Config;
  if (p.filename() == "HEAD" && p.parent_path().filename() == ".git") return WatchedKind::Repository;
  if (p.filename() == ".git") return WatchedKind::Repository;
  return WatchedKind::Other;
}

}  // namespace revline::lsp

// ---------------------------------------------------------------- the server's handler

#include "lsp/paths.h"
#include "lsp/server.h"

namespace revline::lsp {

void Server::handleDidChangeWatchedFiles(const json& params) {
  auto p = parseParams<DidChangeWatchedFilesParams>(params, "workspace/didChangeWatchedFiles");
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& change : p.changes) {
    std::string path;
    try {
      path = pathFromUri(change.uri);
    } catch (const DecodeError&) {
      continue;
    }
    switch (classifyWatched(path)) {
      case WatchedKind::Config: configs_.clear(); break;  // reloaded on the next review
      case WatchedKind::Repository: rootByDir_.clear(); break;  // a repository appeared or went
      case WatchedKind::Other: break;
    }
  }
}

}  // namespace revline::lsp
