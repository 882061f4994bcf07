// Document events: didOpen / didChange / didSave / didClose, moving published
// findings with the edits, and the current text of a document (open or on disk).
#include "lsp/server.h"

#include <algorithm>

#include "core/support/repo_file.h"
#include "lsp/paths.h"

namespace revline::lsp {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

void Server::handleDidOpen(const json& params) {
  auto p = parseParams<DidOpenTextDocumentParams>(params, "textDocument/didOpen");
  fs::path file, root;
  std::string scope;
  {
    documents_.open(p.textDocument);
    openedAt_[p.textDocument.uri] = ++opens_;
    editsSinceSave_[p.textDocument.uri].clear();
    editedUnseen_.erase(p.textDocument.uri);
    switchToPull(p.textDocument.uri);
    try {
      file = canonicalPath(pathFromUri(p.textDocument.uri));
    } catch (const DecodeError&) {
      return;
    }
    adoptClientUri(file, p.textDocument.uri);
    auto r = repositoryOf(file);
    if (!r) {
      // In no repository now (its .git removed): what was found in one is about a diff that is gone.
      if (files_.count(p.textDocument.uri)) forgetFile(p.textDocument.uri);
      return;
    }
    root = *r;
    scope = configFor(root).reviewScope;
  }
  // The last review of this diff (a reopen, a restart) is shown without a save.
  showLastReview(file, root, scope);
}

void Server::showLastReview(const fs::path& file, const fs::path& root, const std::string& scope) {
  if (scope == "workspace") scheduleWorkspaceReview(root, true, std::nullopt, json(), /*cacheOnly=*/true);
  else scheduleReview(file, true, std::nullopt, json(), /*cacheOnly=*/true);
}

bool Server::hasUnsavedEdits(const std::string& uri) const {
  const auto edits = editsSinceSave_.find(uri);
  return edits != editsSinceSave_.end() && !edits->second.empty();
}

void Server::handleDidClose(const json& params) {
  auto p = parseParams<DidCloseTextDocumentParams>(params, "textDocument/didClose");
  const std::string& uri = p.textDocument.uri;
  const bool discarded = hasUnsavedEdits(uri);
  documents_.close(uri);
  editsSinceSave_.erase(uri);
  publishedBeforeChange_.erase(uri);
  openedAt_.erase(uri);
  pulledResultId_.erase(uri);  // no longer pulled
  if (forgetIfGone(uri)) return;  // deleted (editors close its buffer): cleared
  // Of a workspace folder removed while it was open: no buffer and no folder hold it now.
  if (!removedFolders_.empty()) {
    forgetRemovedFolders(removedFolders_);
    if (!files_.count(uri)) return;
  }
  if (discarded) {
    // Closed without saving: the findings moved with edits the file on disk
    // never got (lines inserted above, the finding's line deleted). The last
    // review of the diff on disk places them again, as a reopen does.
    fs::path file;
    try {
      file = canonicalPath(pathFromUri(uri));
    } catch (const DecodeError&) {
      return;
    }
    if (const auto root = repositoryOf(file)) return showLastReview(file, *root, configFor(*root).reviewScope);
  }
  if (pullDiagnostics_) publish(uri);  // pushed again
}

void Server::handleDidChange(const json& params) {
  auto p = parseParams<DidChangeTextDocumentParams>(params, "textDocument/didChange");
  const std::string& uri = p.textDocument.uri;
  applyChange(p);
  // The whole text replaced just after git's state changed (an editor reloads a
  // file git rewrote so: VS Code's didChange after `git stash pop`) in a file
  // whose findings a change took: the cached review of its diff now is shown, on
  // the lines the buffer reads as reviewed. Before, only a save brought them back.
  // (A reload before git's event is the recheck's: restoreClearedFindings.)
  constexpr auto kReloadAfterGit = std::chrono::seconds(3);
  const bool reloaded = Clock::now() - lastGitStateChange_ < kReloadAfterGit &&
                        std::any_of(p.contentChanges.begin(), p.contentChanges.end(),
                                    [](const TextDocumentContentChangeEvent& c) { return !c.range; });
  if (const auto cleared = clearedByDiffChange_.find(uri);
      reloaded && cleared != clearedByDiffChange_.end() && documents_.get(uri)) {
    const ClearedFile file = cleared->second;
    showLastReview(file.root / file.path, file.root, configFor(file.root).reviewScope);
  }
}

void Server::applyChange(const DidChangeTextDocumentParams& p) {
  const std::string& uri = p.textDocument.uri;
  if (!documents_.get(uri)) {
    // Its text is the client's alone now: a fix made from the file on disk
    // would land on other lines. Held back until the file is saved or opened.
    if (editedUnseen_.insert(uri).second)
      logMessage(MessageType::Log, "revline: edits to " + uri + ", which the editor never opened to revline "
                                   "(a buffer saved under a new name?): no fix is offered for it until it is saved");
    return;
  }
  const std::vector<LineEdit> edits = documents_.change(p);
  auto& log = editsSinceSave_[uri];
  log.insert(log.end(), edits.begin(), edits.end());
  // A publish made before this change carried the version before it: a client
  // that drops diagnostics of another version than its own (Helix, eglot) did,
  // if the user typed while the review ended. Sent again, at this version, once.
  const bool publishedBehind = publishedBeforeChange_.erase(uri) > 0;
  const auto republish = [&] {
    publish(uri);
    publishedBeforeChange_.erase(uri);
  };
  auto it = files_.find(uri);
  if (it == files_.end() || it->second.findings.empty()) {
    if (publishedBehind) republish();
    return;
  }
  const std::vector<std::string> lines = currentLines(uri);
  std::vector<PlacedFinding> kept;
  bool changed = false;
  for (auto f : it->second.findings) {
    const int first = f.firstLine, last = f.lastLine;
    bool alive = true;
    for (const auto& e : edits) {
      if (e.start.line <= f.lastLine && e.end.line >= f.firstLine) changed = true;  // its end column may move
      alive = alive && moveLines(f.firstLine, f.lastLine, e);
    }
    // A fix that was applied (the lines now read as its replacement) is done.
    if (alive && f.published.finding.edit && f.lastLine < static_cast<int>(lines.size())) {
      std::string text;
      for (int l = f.firstLine; l <= f.lastLine; ++l) text += (l > f.firstLine ? "\n" : "") + lines[l];
      if (text == f.published.finding.edit->replacement && text != f.published.finding.edit->original) alive = false;
    }
    // An undo gave the lines back their committed text: the reviewed change is gone.
    if (alive && !f.revertedText.empty() && f.lastLine < static_cast<int>(lines.size())) {
      bool reverted = true;
      for (int l = f.firstLine; l <= f.lastLine && reverted; ++l)
        reverted = lines[static_cast<std::size_t>(l)] == f.revertedText[static_cast<std::size_t>(l - f.firstLine)];
      if (reverted) alive = false;
    }
    if (!alive || f.firstLine != first || f.lastLine != last) changed = true;
    if (alive) kept.push_back(std::move(f));
  }
  // Taken by an edit: the editor's reload after `git stash` is one. When git's
  // state changes again (`git stash pop`, and the reload back), the cached review
  // of the diff then is shown, as for a file the stash took (restoreClearedFindings).
  if (kept.empty() && !it->second.path.empty()) noteCleared(uri, it->second.root, it->second.path);
  it->second.findings = std::move(kept);
  if (changed || publishedBehind) republish();
}

void Server::handleDidSave(const json& params) {
  auto p = parseParams<DidSaveTextDocumentParams>(params, "textDocument/didSave");
  fs::path file;
  fs::path root;
  std::string scope;
  {
    editsSinceSave_[p.textDocument.uri].clear();
    editedUnseen_.erase(p.textDocument.uri);  // saved: the file on disk is the client's text again
    fs::path opened;  // as the editor names it (a link stays a link)
    try {
      opened = pathFromUri(p.textDocument.uri);
      file = canonicalPath(opened);
    } catch (const DecodeError& e) {  // untitled:, git:, a remote file (Kate's sftp://): nothing of git's here
      logMessage(MessageType::Log, std::string("textDocument/didSave: not reviewed: ") + e.what());
      return;
    }
    adoptClientUri(file, p.textDocument.uri);
    auto r = repositoryOf(file);
    if (!r) {
      // Named as the editor has it (a link: and where it leads), and why: COMMIT_EDITMSG is in a repository.
      std::string what = file.string();
      std::error_code ec;
      if (fs::is_symlink(opened, ec))
        what = opened.string() + " (a link to " + file.string() + ")";
      const bool gitDirectory = std::any_of(file.begin(), file.end(), [](const fs::path& part) { return part == ".git"; });
      logMessage(MessageType::Log, what + (gitDirectory ? " is in a repository's git directory, not its work tree"
                                                        : " is not in a git repository") + "; not reviewed");
      if (files_.count(p.textDocument.uri)) forgetFile(p.textDocument.uri);
      return;
    }
    root = *r;
    if (file.filename() == ".revline.json") configs_.erase(root);
    scope = configFor(root).reviewScope;
  }
  if (scope == "workspace") scheduleWorkspaceReview(root, false, std::nullopt, json());
  else scheduleReview(file, false, std::nullopt, json());
}

// ---------------------------------------------------------------- code actions, hover, commands

std::string Server::uriFor(const fs::path& absolutePath) {
  const fs::path c = canonicalPath(absolutePath);
  if (auto it = uriByPath_.find(c.string()); it != uriByPath_.end()) return it->second;
  return spelledUri(c);
}

std::string Server::spelledUri(const fs::path& file) const {
  const std::pair<const fs::path, fs::path>* nearest = nullptr;
  for (const auto& entry : folderAsSpelt_) {
    if (!isWithin(file, entry.first)) continue;
    if (!nearest || entry.first.native().size() > nearest->first.native().size()) nearest = &entry;
  }
  if (!nearest || nearest->first == nearest->second) return uriFromPath(file.string());
  const fs::path rel = file.lexically_relative(nearest->first);
  return uriFromPath((rel == "." ? nearest->second : nearest->second / rel).string());
}

std::vector<std::string> Server::currentLines(const std::string& uri) {
  if (const Document* doc = documents_.get(uri)) return documentLines(doc->text());
  // A file not open: as the worker read it for the review that found something in it.
  // Else read inside its repository (a symlink out of it is not followed); a file with no findings needs no lines.
  const auto it = files_.find(uri);
  if (it == files_.end()) return {};
  if (it->second.reviewedLines) return *it->second.reviewedLines;
  std::string why;
  if (auto lines = readRepositoryLines(it->second.root, it->second.path, &why)) return std::move(*lines);
  if (!why.empty()) logMessage(MessageType::Log, "revline: " + why);
  return {};
}

void Server::adoptClientUri(const fs::path& file, const std::string& uri) {
  // `file` is canonical already (uriFor would resolve it again, a filesystem call on every save).
  std::string& kept = uriByPath_[file.string()];
  const std::string before = kept.empty() ? spelledUri(file) : kept;
  kept = uri;
  if (before == uri) return;
  // Spelt otherwise ("%28" for "(", "%C3%A9" for "%c3%a9"): the same file. A client
  // that keys diagnostics by the string would keep the other copy for good.
  const auto it = files_.find(before);
  if (it == files_.end()) return;
  if (!files_.count(uri)) files_[uri] = std::move(it->second);
  files_.erase(it);
  pushedToPullClient_.erase(before);
  shownByPush_.erase(before);
  transport_.notify("textDocument/publishDiagnostics", PublishDiagnosticsParams{before, std::nullopt, {}});
}

std::string Server::lineBreakOf(const std::string& uri) {
  auto crlf = [](std::string_view text) {
    const auto nl = text.find('\n');
    return nl != std::string_view::npos && nl > 0 && text[nl - 1] == '\r';
  };
  if (const Document* doc = documents_.get(uri)) return crlf(doc->text()) ? "\r\n" : "\n";
  const auto it = files_.find(uri);
  if (it == files_.end()) return "\n";
  const support::RepoFileRead read = support::readRepositoryFile(it->second.root, it->second.path);
  return read && crlf(*read.content) ? "\r\n" : "\n";
}

std::optional<int> Server::versionOf(const std::string& uri) {
  if (const Document* doc = documents_.get(uri)) return doc->version();
  return std::nullopt;
}

}  // namespace revline::lsp
