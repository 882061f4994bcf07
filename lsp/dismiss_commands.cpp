// Dismissals the user can manage: revline.dismissFinding, revline.undismiss
// (restore one, or every dismissed finding of a file) and
// revline.showDismissed (the list, also shown as a message).
#include "lsp/commands.h"
#include "lsp/paths.h"
#include "lsp/server.h"

namespace revline::lsp {
namespace fs = std::filesystem;

namespace {
struct Target {
  std::string uri;
  std::optional<std::string> id;
};
Target targetOf(const std::string& command, const json& arguments, bool idRequired) {
  if (arguments.empty() || !arguments[0].is_object() || !arguments[0].contains("uri") || !arguments[0]["uri"].is_string())
    throw LspError(ErrorCode::InvalidParams, command + ": arguments[0]: expected {\"uri\": ..., \"id\": ...}");
  Target t{arguments[0]["uri"].get<std::string>(), std::nullopt};
  if (arguments[0].contains("id")) {
    if (!arguments[0]["id"].is_string())
      throw LspError(ErrorCode::InvalidParams, command + ": arguments[0].id: expected a finding id (a string)");
    t.id = arguments[0]["id"].get<std::string>();
  } else if (idRequired) {
    throw LspError(ErrorCode::InvalidParams, command + ": arguments[0].id is missing (the finding's Diagnostic.data.id)");
  }
  return t;
}
}  // namespace

void Server::handleDismissCommand(const std::string& command, const json& arguments, ReplyOnce& reply) {
  const Target t = targetOf(command, arguments, command == kDismissFinding);
  auto it = files_.find(t.uri);
  std::optional<fs::path> root;
  if (it != files_.end()) root = it->second.root;
  else root = repositoryOf(canonicalPath(pathFromUri(t.uri)));
  if (!root) throw LspError(ErrorCode::InvalidParams, "no revline findings for " + t.uri);
  DismissedFindings& dismissed = dismissedFor(*root);
  // A change the file could not keep holds for this session only: said, not lost in silence.
  const auto notKept = [this](const DismissedFindings& d) {
    showMessage(MessageType::Warning, "revline: the change could not be saved in " + d.file().string() +
                                          " (is .git/revline writable, and a directory?); it holds until the "
                                          "server stops");
  };

  if (command == kDismissFinding) {
    if (it == files_.end()) throw LspError(ErrorCode::InvalidParams, "no revline findings for " + t.uri);
    if (!dismissed.add(*t.id)) notKept(dismissed);
    publish(t.uri);
    return reply(json(nullptr));
  }
  if (command == kUndismiss) {
    int restored = 0;
    if (t.id) {
      restored = dismissed.contains(*t.id) ? 1 : 0;
      if (!dismissed.remove(*t.id)) notKept(dismissed);
    } else if (it != files_.end()) {  // every dismissed finding of the file
      bool kept = true;
      for (const auto& f : it->second.findings)
        if (dismissed.contains(f.published.id)) {
          kept = dismissed.remove(f.published.id) && kept;
          ++restored;
        }
      if (!kept) notKept(dismissed);
    }
    publish(t.uri);
    return reply(json{{"restored", restored}});
  }
  // kShowDismissed: the dismissed findings of this file's last review.
  json list = json::array();
  std::string text;
  if (it != files_.end())
    for (const auto& f : it->second.findings) {
      if (!dismissed.contains(f.published.id)) continue;
      list.push_back(json{{"id", f.published.id}, {"line", f.firstLine + 1}, {"title", f.published.finding.title}});
      text += "\n  line " + std::to_string(f.firstLine + 1) + ": " + f.published.finding.title;
    }
  showMessage(MessageType::Info,
              list.empty() ? std::string("revline: no dismissed findings in this file")
                           : "revline: dismissed findings in this file (restore one with the code action "
                             "\"Restore dismissed finding\" on its line, or all with revline.undismiss):" + text);
  reply(json{{"dismissed", list}});
}

}  // namespace revline::lsp
