// How findings reach the client: pushed (textDocument/publishDiagnostics) or,
// for clients that pull (LSP 3.17) and support refresh, answered on
// textDocument/diagnostic after a workspace/diagnostic/refresh.
#include "lsp/server.h"

#include "core/diff/notebook.h"

namespace revline::lsp {

std::vector<Diagnostic> Server::diagnosticsFor(const std::string& uri) {
  std::vector<Diagnostic> out;
  auto it = files_.find(uri);
  if (it == files_.end() || it->second.findings.empty()) return out;
  DismissedFindings& dismissed = dismissedFor(it->second.root);
  const std::vector<std::string> lines = currentLines(uri);
  for (const auto& f : it->second.findings) {
    if (dismissed.contains(f.published.id)) continue;
    const int lastLen = f.lastLine < static_cast<int>(lines.size()) ? utf16Length(lines[f.lastLine]) : 0;
    out.push_back(toDiagnostic(f, lastLen, f.firstLine < static_cast<int>(lines.size()) ? indentationWidth(lines[f.firstLine]) : 0));
  }
  if (diff::isNotebookPath(it->second.path)) addNotebookCells(out, lines);
  return out;
}

void Server::publish(const std::string& uri, bool unlessNothingToClear) {
  std::vector<Diagnostic> diagnostics = diagnosticsFor(uri);
  // Pull clients pull the documents they have open; files a workspace review
  // found problems in that are not open are still pushed (handleDidOpen clears
  // that copy when the document opens, so nothing shows twice).
  if (pullDiagnostics_ && documents_.get(uri)) {
    auto pulled = pulledResultId_.find(uri);
    const bool known = pulled != pulledResultId_.end();
    if (known && pulled->second == diagnosticsResultId(diagnostics)) return;  // the client has these
    if (!known && diagnostics.empty()) return;                                 // nothing new to show
    if (const std::string id = "revline-" + std::to_string(++nextOutgoingId_); refresh_.shouldSend(id))
      transport_.call("workspace/diagnostic/refresh", nullptr, id);
    return;
  }
  if (pullDiagnostics_) {
    if (diagnostics.empty() && !pushedToPullClient_.erase(uri)) return;
    if (!diagnostics.empty()) pushedToPullClient_.insert(uri);
  } else if (diagnostics.empty()) {
    // An open document is always told (its version; a client may wait for it).
    if (!shownByPush_.erase(uri) && unlessNothingToClear && !documents_.get(uri)) return;
  } else {
    shownByPush_.insert(uri);
  }
  PublishDiagnosticsParams params;
  params.uri = uri;
  params.version = versionOf(uri);
  params.diagnostics = std::move(diagnostics);
  if (params.version) publishedBeforeChange_.insert(uri);
  transport_.notify("textDocument/publishDiagnostics", params);
}

void Server::switchToPull(const std::string& uri) {
  if (!pullDiagnostics_) return;
  pulledResultId_.erase(uri);
  if (pushedToPullClient_.erase(uri))  // the pushed copy goes; the client pulls from now on
    transport_.notify("textDocument/publishDiagnostics", PublishDiagnosticsParams{uri, std::nullopt, {}});
}

void Server::handleDocumentDiagnostic(const json& params, ReplyOnce& reply) {
  auto p = parseParams<DocumentDiagnosticParams>(params, "textDocument/diagnostic");
  refresh_.pulled();
  const std::vector<Diagnostic> items = diagnosticsFor(p.textDocument.uri);
  json report = documentDiagnosticReport(items, p.previousResultId);
  pulledResultId_[p.textDocument.uri] = report["resultId"].get<std::string>();
  reply(report);
}

}  // namespace revline::lsp
