// The subset of the Language Server Protocol revline uses, hand-written with
// the wire names. Each struct has its to_json / from_json next to it. Decoding
// reports the JSON path of a bad field (DecodeError); absent and null are
// distinct where the protocol distinguishes them (std::optional = absent or null).
#pragma once
#include <initializer_list>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/support/json.h"

namespace revline::lsp {

class DecodeError : public std::runtime_error {
 public:
  DecodeError(std::string path, std::string problem)
      : std::runtime_error(path + ": " + problem), path_(std::move(path)), problem_(std::move(problem)) {}
  const std::string& path() const { return path_; }
  const std::string& problem() const { return problem_; }
 private:
  std::string path_, problem_;
};

namespace detail {
inline void expectObject(const json& j) {
  if (!j.is_object()) throw DecodeError("", std::string("expected an object, got ") + j.type_name());
}
template <typename T>
void decodeAt(const json& value, const std::string& key, T& out) {
  try {
    value.get_to(out);
  } catch (const DecodeError& e) {
    throw DecodeError(e.path().empty() ? key : key + "." + e.path(), e.problem());
  } catch (const json::exception& e) {
    throw DecodeError(key, std::string("wrong type (") + value.type_name() + "): " + e.what());
  }
}
}  // namespace detail

// Required field.
template <typename T>
void field(const json& j, const std::string& key, T& out) {
  detail::expectObject(j);
  auto it = j.find(key);
  if (it == j.end()) throw DecodeError(key, "is missing");
  detail::decodeAt(*it, key, out);
}
// Optional field: absent or null reads as nullopt.
template <typename T>
void field(const json& j, const std::string& key, std::optional<T>& out) {
  detail::expectObject(j);
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) { out.reset(); return; }
  T value;
  detail::decodeAt(*it, key, value);
  out = std::move(value);
}

struct Position {
  int line = 0;       // 0-based
  int character = 0;  // UTF-16 code units
  friend bool operator==(const Position&, const Position&) = default;
  friend auto operator<=>(const Position&, const Position&) = default;
};
inline void to_json(json& j, const Position& p) { j = json{{"line", p.line}, {"character", p.character}}; }
inline void from_json(const json& j, Position& p) { field(j, "line", p.line); field(j, "character", p.character); }

struct Range {
  Position start, end;
  friend bool operator==(const Range&, const Range&) = default;
};
inline void to_json(json& j, const Range& r) { j = json{{"start", r.start}, {"end", r.end}}; }
inline void from_json(const json& j, Range& r) { field(j, "start", r.start); field(j, "end", r.end); }

struct TextDocumentIdentifier { std::string uri; };
inline void to_json(json& j, const TextDocumentIdentifier& t) { j = json{{"uri", t.uri}}; }
inline void from_json(const json& j, TextDocumentIdentifier& t) { field(j, "uri", t.uri); }

struct TextDocumentItem { std::string uri; std::string languageId; int version = 0; std::string text; };
inline void from_json(const json& j, TextDocumentItem& t) {
  field(j, "uri", t.uri);
  field(j, "languageId", t.languageId);
  field(j, "version", t.version);
  field(j, "text", t.text);
}

struct VersionedTextDocumentIdentifier { std::string uri; int version = 0; };
inline void from_json(const json& j, VersionedTextDocumentIdentifier& t) {
  field(j, "uri", t.uri);
  field(j, "version", t.version);
}

struct TextDocumentContentChangeEvent {
  std::optional<Range> range;  // absent: the whole text is replaced
  std::string text;
};
inline void from_json(const json& j, TextDocumentContentChangeEvent& c) {
  field(j, "range", c.range);
  field(j, "text", c.text);
}

struct DidOpenTextDocumentParams { TextDocumentItem textDocument; };
inline void from_json(const json& j, DidOpenTextDocumentParams& p) { field(j, "textDocument", p.textDocument); }

struct DidChangeTextDocumentParams {
  VersionedTextDocumentIdentifier textDocument;
  std::vector<TextDocumentContentChangeEvent> contentChanges;
};
inline void from_json(const json& j, DidChangeTextDocumentParams& p) {
  field(j, "textDocument", p.textDocument);
  field(j, "contentChanges", p.contentChanges);
}

struct DidSaveTextDocumentParams { TextDocumentIdentifier textDocument; std::optional<std::string> text; };
inline void from_json(const json& j, DidSaveTextDocumentParams& p) {
  field(j, "textDocument", p.textDocument);
  field(j, "text", p.text);
}

struct DidCloseTextDocumentParams { TextDocumentIdentifier textDocument; };
inline void from_json(const json& j, DidCloseTextDocumentParams& p) { field(j, "textDocument", p.textDocument); }

enum class DiagnosticSeverity { Error = 1, Warning = 2, Information = 3, Hint = 4 };

struct Diagnostic {
  Range range;
  DiagnosticSeverity severity = DiagnosticSeverity::Warning;
  std::string code;
  std::string source = "revline";
  std::string message;
  json data;  // {"id": ...}; null: absent
};
inline void to_json(json& j, const Diagnostic& d) {
  j = json{{"range", d.range}, {"severity", static_cast<int>(d.severity)}, {"code", d.code},
           {"source", d.source}, {"message", d.message}};
  if (!d.data.is_null()) j["data"] = d.data;
}
inline void from_json(const json& j, Diagnostic& d) {
  field(j, "range", d.range);
  field(j, "message", d.message);
  std::optional<int> severity;
  field(j, "severity", severity);
  if (severity) d.severity = static_cast<DiagnosticSeverity>(*severity);
  if (j.contains("code") && j["code"].is_string()) d.code = j["code"];
  if (j.contains("source") && j["source"].is_string()) d.source = j["source"];
  if (j.contains("data")) d.data = j["data"];
}

struct PublishDiagnosticsParams {
  std::string uri;
  std::optional<int> version;
  std::vector<Diagnostic> diagnostics;
};
inline void to_json(json& j, const PublishDiagnosticsParams& p) {
  j = json{{"uri", p.uri}, {"diagnostics", p.diagnostics}};
  if (p.version) j["version"] = *p.version;
}

struct CodeActionContext {
  std::vector<Diagnostic> diagnostics;
  std::optional<std::vector<std::string>> only;
};
inline void from_json(const json& j, CodeActionContext& c) {
  field(j, "diagnostics", c.diagnostics);
  field(j, "only", c.only);
}

struct CodeActionParams { TextDocumentIdentifier textDocument; Range range; CodeActionContext context; };
inline void from_json(const json& j, CodeActionParams& p) {
  field(j, "textDocument", p.textDocument);
  field(j, "range", p.range);
  field(j, "context", p.context);
}

struct TextEdit { Range range; std::string newText; };
inline void to_json(json& j, const TextEdit& e) { j = json{{"range", e.range}, {"newText", e.newText}}; }

// Always `documentChanges` with the document's version: a client holding an
// edit computed for an older text refuses it instead of corrupting the new one.
struct TextDocumentEdit {
  std::string uri;
  std::optional<int> version;  // nullopt: the file is not open (null on the wire)
  std::vector<TextEdit> edits;
};
inline void to_json(json& j, const TextDocumentEdit& e) {
  j = json{{"textDocument", {{"uri", e.uri}, {"version", e.version ? json(*e.version) : json(nullptr)}}},
           {"edits", e.edits}};
}
struct WorkspaceEdit { std::vector<TextDocumentEdit> documentChanges; };
inline void to_json(json& j, const WorkspaceEdit& e) { j = json{{"documentChanges", e.documentChanges}}; }

struct Command { std::string title; std::string command; json arguments = json::array(); };
inline void to_json(json& j, const Command& c) {
  j = json{{"title", c.title}, {"command", c.command}, {"arguments", c.arguments}};
}

struct CodeAction {
  std::string title;
  std::string kind;  // "quickfix", "source", ...
  std::vector<Diagnostic> diagnostics;
  bool isPreferred = false;
  std::optional<WorkspaceEdit> edit;
  std::optional<Command> command;
};
inline void to_json(json& j, const CodeAction& a) {
  j = json{{"title", a.title}, {"kind", a.kind}};
  if (!a.diagnostics.empty()) j["diagnostics"] = a.diagnostics;
  if (a.isPreferred) j["isPreferred"] = true;
  if (a.edit) j["edit"] = *a.edit;
  if (a.command) j["command"] = *a.command;
}

struct TextDocumentPositionParams { TextDocumentIdentifier textDocument; Position position; };
inline void from_json(const json& j, TextDocumentPositionParams& p) {
  field(j, "textDocument", p.textDocument);
  field(j, "position", p.position);
}

struct Hover { std::string markdown; std::optional<Range> range; };
inline void to_json(json& j, const Hover& h) {
  j = json{{"contents", {{"kind", "markdown"}, {"value", h.markdown}}}};
  if (h.range) j["range"] = *h.range;
}

struct ExecuteCommandParams { std::string command; json arguments = json::array(); };
inline void from_json(const json& j, ExecuteCommandParams& p) {
  field(j, "command", p.command);
  if (j.contains("arguments") && !j["arguments"].is_null()) {
    if (!j["arguments"].is_array()) throw DecodeError("arguments", "expected an array");
    p.arguments = j["arguments"];
  }
}

struct WorkspaceFolder { std::string uri; std::string name; };
inline void from_json(const json& j, WorkspaceFolder& f) {
  field(j, "uri", f.uri);
  if (j.contains("name") && j["name"].is_string()) f.name = j["name"];
}

struct InitializeParams {
  std::optional<std::string> rootUri;
  std::optional<std::vector<WorkspaceFolder>> workspaceFolders;
  json initializationOptions;  // null when absent
  bool workDoneProgress = false;  // capabilities.window.workDoneProgress
  bool pullDiagnostics = false;   // capabilities.textDocument.diagnostic (LSP 3.17)
  bool diagnosticRefresh = false; // capabilities.workspace.diagnostics.refreshSupport
  bool watchFiles = false;        // capabilities.workspace.didChangeWatchedFiles.dynamicRegistration
  bool watchRelativePatterns = false;  // ...didChangeWatchedFiles.relativePatternSupport (LSP 3.17)
};
// capabilities.<path...> as a bool (absent, null or not a boolean: false).
inline bool capabilityFlag(const json& j, std::initializer_list<const char*> path) {
  const json* at = &j;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return false;
    at = &(*at)[key];
  }
  return at->is_boolean() && at->get<bool>();
}
inline void from_json(const json& j, InitializeParams& p) {
  detail::expectObject(j);
  field(j, "rootUri", p.rootUri);
  field(j, "workspaceFolders", p.workspaceFolders);
  if (j.contains("initializationOptions")) p.initializationOptions = j["initializationOptions"];
  const json* window = nullptr;
  if (j.contains("capabilities") && j["capabilities"].is_object() && j["capabilities"].contains("window"))
    window = &j["capabilities"]["window"];
  if (window && window->is_object() && window->contains("workDoneProgress"))
    p.workDoneProgress = (*window)["workDoneProgress"].is_boolean() && (*window)["workDoneProgress"].get<bool>();
  if (j.contains("capabilities")) {
    const json& c = j["capabilities"];
    p.pullDiagnostics = c.is_object() && c.contains("textDocument") && c["textDocument"].is_object() &&
                        c["textDocument"].contains("diagnostic") && c["textDocument"]["diagnostic"].is_object();
    p.diagnosticRefresh = capabilityFlag(c, {"workspace", "diagnostics", "refreshSupport"});
    p.watchFiles = capabilityFlag(c, {"workspace", "didChangeWatchedFiles", "dynamicRegistration"});
    p.watchRelativePatterns = capabilityFlag(c, {"workspace", "didChangeWatchedFiles", "relativePatternSupport"});
  }
}

struct WorkspaceFoldersChangeEvent { std::vector<WorkspaceFolder> added, removed; };
inline void from_json(const json& j, WorkspaceFoldersChangeEvent& e) {
  field(j, "added", e.added);
  field(j, "removed", e.removed);
}
struct DidChangeWorkspaceFoldersParams { WorkspaceFoldersChangeEvent event; };
inline void from_json(const json& j, DidChangeWorkspaceFoldersParams& p) { field(j, "event", p.event); }

enum class MessageType { Error = 1, Warning = 2, Info = 3, Log = 4 };

// file:// URIs <-> absolute paths (percent-encoding both ways).
std::string uriFromPath(const std::string& absolutePath);
// Throws DecodeError for a URI that is not file://.
std::string pathFromUri(const std::string& uri);

}  // namespace revline::lsp
