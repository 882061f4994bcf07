// textDocument/codeAction: the fix of a finding (a versioned, re-checked
// edit), dismiss and restore, and the file's source actions.
#include <set>

#include "lsp/commands.h"
#include "lsp/paths.h"
#include "lsp/server.h"

namespace revline::lsp {
namespace fs = std::filesystem;

namespace {

// The finding ids the client sent back in Diagnostic.data (revline's only).
std::set<std::string> idsFromContext(const CodeActionContext& context) {
  std::set<std::string> ids;
  for (const auto& d : context.diagnostics)
    if (d.source == "revline" && d.data.is_object() && d.data.contains("id") && d.data["id"].is_string())
      ids.insert(d.data["id"].get<std::string>());
  return ids;
}

std::string joinLines(const std::vector<std::string>& lines, int first, int last) {
  std::string text;
  for (int l = first; l <= last; ++l) text += (l > first ? "\n" : "") + lines[static_cast<std::size_t>(l)];
  return text;
}

// A carriage return alone ends a line for the LSP (and VS Code), not for git,
// whose numbers the findings carry: at or above it, which line an edit lands
// on depends on the client (one that splits there replaced the line above the
// finding's). No fix is offered there.
bool loneCarriageReturnUpTo(const std::vector<std::string>& lines, int last) {
  // The lines are split at "\n" with a "\r" before it dropped: any "\r" left is one alone.
  for (int l = 0; l <= last && l < static_cast<int>(lines.size()); ++l)
    if (lines[static_cast<std::size_t>(l)].find('\r') != std::string::npos) return true;
  return false;
}

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

// The edit's text as the editor's buffer reads it: editors keep a UTF-8 file's
// byte-order mark out of the buffer, while the diff (and so the model's
// `original`) shows it at the start of line 1.
std::string withoutByteOrderMark(std::string text, int firstLine) {
  if (firstLine == 0 && text.starts_with(kByteOrderMark)) text.erase(0, kByteOrderMark.size());
  return text;
}

}  // namespace

void Server::handleCodeAction(const json& params, ReplyOnce& reply) {
  auto p = parseParams<CodeActionParams>(params, "textDocument/codeAction");
  const std::string& uri = p.textDocument.uri;
  auto wanted = [&](const std::string& kind) {
    if (!p.context.only) return true;
    for (const auto& o : *p.context.only)
      if (kind == o || kind.rfind(o + ".", 0) == 0) return true;
    return false;
  };
  // The client names the findings (Diagnostic.data.id); without ids (a client
  // that drops data), the findings on the requested lines.
  const std::set<std::string> ids = idsFromContext(p.context);
  auto selected = [&](const PlacedFinding& f) {
    if (!ids.empty()) return ids.count(f.published.id) != 0;
    return !(f.lastLine < p.range.start.line || f.firstLine > p.range.end.line);
  };
  json actions = json::array();
  std::size_t dismissedInFile = 0;
  auto it = files_.find(uri);
  if (it != files_.end()) {
    DismissedFindings& dismissed = dismissedFor(it->second.root);
    // A file not open: its text on disk now, read for this request (a checkout
    // may have rewritten it since the review read it; the edit's null version
    // lets no client check it against anything).
    std::vector<std::string> lines;
    if (documents_.get(uri)) {
      lines = currentLines(uri);
    } else if (auto onDisk = readRepositoryLines(it->second.root, it->second.path)) {
      lines = std::move(*onDisk);
    }
    const std::optional<int> version = versionOf(uri);
    for (const auto& f : it->second.findings) {
      const auto& finding = f.published.finding;
      const bool onRange = !(f.lastLine < p.range.start.line || f.firstLine > p.range.end.line);
      if (dismissed.contains(f.published.id)) {
        ++dismissedInFile;
        if (onRange && wanted("quickfix")) {
          CodeAction a;
          a.title = "Restore dismissed finding: " + finding.title;
          a.kind = "quickfix";
          a.command = Command{a.title, kUndismiss, json::array({json{{"uri", uri}, {"id", f.published.id}}})};
          actions.push_back(a);
        }
        continue;
      }
      if (!selected(f)) continue;
      const int lastLen = f.lastLine < static_cast<int>(lines.size()) ? utf16Length(lines[f.lastLine]) : 0;
      const Diagnostic diag = toDiagnostic(f, lastLen, f.firstLine < static_cast<int>(lines.size()) ? indentationWidth(lines[f.firstLine]) : 0);
      // Offered only while the lines still read as the edit's original; the
      // edit carries the version that was checked, so a client applying it
      // to a newer text refuses it, and its range ends where that text ends.
      // None for a file the client edits without having opened it (editedUnseen_).
      const bool bomInBuffer = !lines.empty() && lines.front().starts_with(kByteOrderMark);
      auto asInTheBuffer = [&](const std::string& text) { return bomInBuffer ? text : withoutByteOrderMark(text, f.firstLine); };
      if (finding.edit && wanted("quickfix") && !editedUnseen_.count(uri) && f.lastLine < static_cast<int>(lines.size()) &&
          !loneCarriageReturnUpTo(lines, f.lastLine) &&
          joinLines(lines, f.firstLine, f.lastLine) == asInTheBuffer(finding.edit->original)) {
        CodeAction a;
        a.title = "Apply revline fix: " + finding.title;
        a.kind = "quickfix";
        a.diagnostics = {diag};
        a.isPreferred = true;
        // In a CRLF file a multi-line fix's breaks are "\r\n" too: a client applies the text as it is.
        std::string replacement;
        const bool crlf = finding.edit->replacement.find('\n') != std::string::npos && lineBreakOf(uri) == "\r\n";
        for (const char c : asInTheBuffer(finding.edit->replacement)) {
          if (crlf && c == '\n' && (replacement.empty() || replacement.back() != '\r')) replacement += '\r';
          replacement += c;
        }
        WorkspaceEdit edit;
        edit.documentChanges.push_back(TextDocumentEdit{
            uri, version, {TextEdit{Range{{f.firstLine, 0}, {f.lastLine, lastLen}}, std::move(replacement)}}});
        a.edit = std::move(edit);
        actions.push_back(a);
      }
      if (wanted("quickfix")) {
        CodeAction a;
        a.title = "Dismiss this finding";
        a.kind = "quickfix";
        a.diagnostics = {diag};
        a.command = Command{"Dismiss this finding", kDismissFinding,
                            json::array({json{{"uri", uri}, {"id", f.published.id}}})};
        actions.push_back(a);
      }
    }
  }
  if (wanted("source") && dismissedInFile) {
    CodeAction a;
    a.title = "Show dismissed findings (" + std::to_string(dismissedInFile) + ")";
    a.kind = "source";
    a.command = Command{a.title, kShowDismissed, json::array({json{{"uri", uri}}})};
    actions.push_back(a);
  }
  bool inRepository = false;
  try {
    inRepository = repositoryOf(canonicalPath(pathFromUri(uri))).has_value();
  } catch (const DecodeError&) {
  }
  if (wanted("source") && inRepository) {  // a file outside git has no diff to review
    CodeAction a;
    a.title = "Review this file now";
    a.kind = "source";
    a.command = Command{"Review this file now", kReviewFile, json::array({json{{"uri", uri}, {"background", true}}})};
    actions.push_back(a);
  }
  reply(actions);
}

}  // namespace revline::lsp
