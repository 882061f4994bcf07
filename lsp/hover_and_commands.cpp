// Hover on a finding, and workspace/executeCommand: review this file or the
// workspace now, clear the diagnostics, cancel the reviews (dismissal commands:
// dismiss_commands.cpp).
#include "lsp/server.h"

#include <algorithm>

#include "lsp/commands.h"
#include "lsp/paths.h"
#include "core/support/repo_file.h"

namespace revline::lsp {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::string argumentUri(const json& arguments) {
  if (arguments.empty()) return {};
  const json& a = arguments[0];
  if (a.is_string()) return a.get<std::string>();
  if (a.is_object() && a.contains("uri") && a["uri"].is_string()) return a["uri"].get<std::string>();
  throw LspError(ErrorCode::InvalidParams, "arguments[0]: expected a document URI or {\"uri\": ...}");
}

// {"uri": ..., "background": true}: the code action's form (see handleExecuteCommand).
bool argumentBackground(const json& arguments) {
  if (!arguments.is_array() || arguments.empty() || !arguments[0].is_object()) return false;
  const json& a = arguments[0];
  return a.contains("background") && a["background"].is_boolean() && a["background"].get<bool>();
}

}  // namespace

void Server::handleHover(const json& params, ReplyOnce& reply) {
  auto p = parseParams<TextDocumentPositionParams>(params, "textDocument/hover");
  auto it = files_.find(p.textDocument.uri);
  if (it == files_.end()) return reply(json(nullptr));
  DismissedFindings& dismissed = dismissedFor(it->second.root);
  std::string markdown;  // or plain text, for a client that shows no markdown
  std::optional<Range> range;
  const std::vector<std::string> lines = currentLines(p.textDocument.uri);
  for (const auto& f : it->second.findings) {
    if (dismissed.contains(f.published.id)) continue;
    if (p.position.line < f.firstLine || p.position.line > f.lastLine) continue;
    if (!markdown.empty()) markdown += hoverMarkdown_ ? "\n---\n\n" : "\n";
    markdown += hoverMarkdown_ ? hoverMarkdown(f.published.finding) : hoverPlainText(f.published.finding);
    if (!range) {
      const int lastLen = f.lastLine < static_cast<int>(lines.size()) ? utf16Length(lines[f.lastLine]) : 0;
      range = Range{{f.firstLine, 0}, {f.lastLine, lastLen}};
    }
  }
  if (markdown.empty()) return reply(json(nullptr));
  reply(json(Hover{markdown, range, hoverMarkdown_}));
}

void Server::handleExecuteCommand(const json& params, ReplyOnce& reply, const json& id) {
  auto p = parseParams<ExecuteCommandParams>(params, "workspace/executeCommand");
  if (p.command == kReviewFile) {
    const std::string uri = argumentUri(p.arguments);
    if (uri.empty()) throw LspError(ErrorCode::InvalidParams, kReviewFile + std::string(": needs the document URI"));
    const fs::path file = canonicalPath(pathFromUri(uri));
    // The code action's command runs in the background: eglot and lsp-mode wait
    // for an executeCommand reply with the editor blocked (lsp-mode cancels it
    // after 10 s), and a model's review takes longer. Its result comes as
    // diagnostics and progress; a client that asks without the flag gets the
    // review's outcome as the reply.
    if (argumentBackground(p.arguments)) {
      scheduleReview(file, true, std::nullopt, json());
      reply(json(nullptr));
    } else {
      scheduleReview(file, true, std::move(reply), id);
    }
  } else if (p.command == kReviewWorkspace) {
    std::vector<fs::path> roots;
    const std::string uri = argumentUri(p.arguments);
    {
      // The open documents' files (untitled:, git: ... are none).
      std::vector<fs::path> openFiles;
      for (const std::string& open : documents_.uris()) try {
          openFiles.push_back(canonicalPath(pathFromUri(open)));
        } catch (const DecodeError&) {
        }
      auto addRepositoryOf = [&](const fs::path& f) {
        if (auto r = repositoryOf(f); r && std::find(roots.begin(), roots.end(), *r) == roots.end()) roots.push_back(*r);
      };
      // A client without a workspace folder (Sublime with one file, Kate without
      // a project): the repositories of the open documents.
      const std::vector<fs::path> from = uri.empty() ? folders_ : std::vector<fs::path>{canonicalPath(pathFromUri(uri))};
      if (from.empty())
        for (const auto& f : openFiles) addRepositoryOf(f);
      for (const auto& folder : from) {
        if (repositoryOf(folder)) {
          addRepositoryOf(folder);
          continue;
        }
        // A folder that holds repositories without being in one (~/src with a
        // clone in each directory): the repositories of the open documents in it,
        // and of its files showing findings, the ones the user is working in.
        for (const auto& f : openFiles)
          if (support::insideRoot(folder, f)) addRepositoryOf(f);
        for (const auto& [shown, state] : files_)
          if (support::insideRoot(folder, state.root / state.path)) addRepositoryOf(state.root / state.path);
      }
    }
    // Its words are the VS Code extension's sign of a folder to leave out of "Review Workspace".
    if (roots.empty() && !uri.empty()) throw LspError(ErrorCode::RequestFailed, notReviewable(pathFromUri(uri)));
    if (roots.empty())
      throw LspError(ErrorCode::RequestFailed,
                     whyNoRepository_.empty()
                         ? "no workspace folder is inside a git repository, and no open document is: open a file of a "
                           "repository (its repository is then reviewed), or the repository's folder as the workspace"
                         : "nothing here can be reviewed: " + whyNoRepository_);
    // One repository: the reply waits for its review. Several: each runs; the reply comes now.
    if (roots.size() == 1) {
      scheduleWorkspaceReview(roots[0], true, std::move(reply), id);
    } else {
      for (const auto& r : roots) scheduleWorkspaceReview(r, true, std::nullopt, json());
      reply(json(nullptr));
    }
  } else if (p.command == kClearDiagnostics) {
    const std::string uri = argumentUri(p.arguments);
    for (auto& [u, state] : files_) {
      if (!uri.empty() && u != uri) continue;
      state.findings.clear();
      publish(u);
    }
    reply(json(nullptr));
  } else if (p.command == kCancelReviews) {
    const std::vector<std::string> stopped = cancelReviewsFromEditor();
    std::vector<std::string> named;  // each once: a file's running review and its save waiting behind it
    for (const auto& what : stopped)
      if (std::find(named.begin(), named.end(), what) == named.end()) named.push_back(what);
    reply(json{{"cancelled", stopped.size()}, {"reviews", named}});
  } else if (p.command == kDismissFinding || p.command == kUndismiss || p.command == kShowDismissed) {
    handleDismissCommand(p.command, p.arguments, reply);
  } else {
    throw LspError(ErrorCode::InvalidParams, "unknown command: " + p.command);
  }
}

// ---------------------------------------------------------------- reviews

}  // namespace revline::lsp
