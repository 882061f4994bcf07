#include "lsp/protocol.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace revline::lsp {

// ---------------------------------------------------------------- (de)serializers

void to_json(json& j, const Position& p) { j = json{{"line", p.line}, {"character", p.character}}; }

void from_json(const json& j, Position& p) { field(j, "line", p.line); field(j, "character", p.character); }

void to_json(json& j, const Range& r) { j = json{{"start", r.start}, {"end", r.end}}; }

void from_json(const json& j, Range& r) { field(j, "start", r.start); field(j, "end", r.end); }

void to_json(json& j, const TextDocumentIdentifier& t) { j = json{{"uri", t.uri}}; }

void from_json(const json& j, TextDocumentIdentifier& t) { field(j, "uri", t.uri); }

void from_json(const json& j, TextDocumentItem& t) {
  field(j, "uri", t.uri);
  field(j, "languageId", t.languageId);
  field(j, "version", t.version);
  field(j, "text", t.text);
}

void from_json(const json& j, VersionedTextDocumentIdentifier& t) {
  field(j, "uri", t.uri);
  field(j, "version", t.version);
}

void from_json(const json& j, TextDocumentContentChangeEvent& c) {
  field(j, "range", c.range);
  field(j, "text", c.text);
}

void from_json(const json& j, DidOpenTextDocumentParams& p) { field(j, "textDocument", p.textDocument); }

void from_json(const json& j, DidChangeTextDocumentParams& p) {
  field(j, "textDocument", p.textDocument);
  field(j, "contentChanges", p.contentChanges);
}

void from_json(const json& j, DidSaveTextDocumentParams& p) {
  field(j, "textDocument", p.textDocument);
  field(j, "text", p.text);
}

void from_json(const json& j, DidCloseTextDocumentParams& p) { field(j, "textDocument", p.textDocument); }

void to_json(json& j, const Diagnostic& d) {
  j = json{{"range", d.range}, {"severity", static_cast<int>(d.severity)}, {"code", d.code},
           {"source", d.source}, {"message", d.message}};
  if (!d.data.is_null()) j["data"] = d.data;
}

void from_json(const json& j, Diagnostic& d) {
  field(j, "range", d.range);
  field(j, "message", d.message);
  std::optional<int> severity;
  field(j, "severity", severity);
  if (severity) d.severity = static_cast<DiagnosticSeverity>(*severity);
  if (j.contains("code") && j["code"].is_string()) d.code = j["code"];
  if (j.contains("source") && j["source"].is_string()) d.source = j["source"];
  if (j.contains("data")) d.data = j["data"];
}

void to_json(json& j, const PublishDiagnosticsParams& p) {
  j = json{{"uri", p.uri}, {"diagnostics", p.diagnostics}};
  if (p.version) j["version"] = *p.version;
}

void from_json(const json& j, CodeActionContext& c) {
  field(j, "diagnostics", c.diagnostics);
  field(j, "only", c.only);
}

void from_json(const json& j, CodeActionParams& p) {
  field(j, "textDocument", p.textDocument);
  field(j, "range", p.range);
  field(j, "context", p.context);
}

void to_json(json& j, const TextEdit& e) { j = json{{"range", e.range}, {"newText", e.newText}}; }

void to_json(json& j, const TextDocumentEdit& e) {
  j = json{{"textDocument", {{"uri", e.uri}, {"version", e.version ? json(*e.version) : json(nullptr)}}},
           {"edits", e.edits}};
}

void to_json(json& j, const WorkspaceEdit& e) { j = json{{"documentChanges", e.documentChanges}}; }

void to_json(json& j, const Command& c) {
  j = json{{"title", c.title}, {"command", c.command}, {"arguments", c.arguments}};
}

void to_json(json& j, const CodeAction& a) {
  j = json{{"title", a.title}, {"kind", a.kind}};
  if (!a.diagnostics.empty()) j["diagnostics"] = a.diagnostics;
  if (a.isPreferred) j["isPreferred"] = true;
  if (a.edit) j["edit"] = *a.edit;
  if (a.command) j["command"] = *a.command;
}

void from_json(const json& j, TextDocumentPositionParams& p) {
  field(j, "textDocument", p.textDocument);
  field(j, "position", p.position);
}

void to_json(json& j, const Hover& h) {
  j = json{{"contents", {{"kind", h.markdown ? "markdown" : "plaintext"}, {"value", h.value}}}};
  if (h.range) j["range"] = *h.range;
}

void from_json(const json& j, ExecuteCommandParams& p) {
  field(j, "command", p.command);
  if (j.contains("arguments") && !j["arguments"].is_null()) {
    if (!j["arguments"].is_array()) throw DecodeError("arguments", "expected an array");
    p.arguments = j["arguments"];
  }
}

void from_json(const json& j, WorkspaceFolder& f) {
  field(j, "uri", f.uri);
  if (j.contains("name") && j["name"].is_string()) f.name = j["name"];
}

void from_json(const json& j, InitializeParams& p) {
  detail::expectObject(j);
  field(j, "rootUri", p.rootUri);
  if (j.contains("rootPath") && j["rootPath"].is_string()) p.rootPath = j["rootPath"].get<std::string>();
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
    if (c.is_object() && c.contains("textDocument") && c["textDocument"].is_object() &&
        c["textDocument"].contains("hover") && c["textDocument"]["hover"].is_object()) {
      const json& formats = c["textDocument"]["hover"].value("contentFormat", json());
      if (formats.is_array() && !formats.empty())
        p.hoverMarkdown = std::find(formats.begin(), formats.end(), json("markdown")) != formats.end();
    }
  }
}

void from_json(const json& j, WorkspaceFoldersChangeEvent& e) {
  field(j, "added", e.added);
  field(j, "removed", e.removed);
}

void from_json(const json& j, DidChangeWorkspaceFoldersParams& p) { field(j, "event", p.event); }

// ---------------------------------------------------------------- URIs

std::string uriFromPath(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string pathFromUri(const std::string& uri) {
  const std::string scheme = "file://";
  std::string rest;
  if (uri.compare(0, scheme.size(), scheme) == 0) {
    rest = uri.substr(scheme.size());
    // file://host/path: only the empty host and localhost are local.
    const std::size_t slash = rest.find('/');
    if (slash == std::string::npos) throw DecodeError("uri", "file URI without a path: '" + uri + "'");
    const std::string host = rest.substr(0, slash);
    if (!host.empty() && host != "localhost") throw DecodeError("uri", "not a local file URI: '" + uri + "'");
    rest = rest.substr(slash);
  } else if (uri.compare(0, 6, "file:/") == 0) {
    rest = uri.substr(5);  // RFC 8089's form without an authority, "file:/path" (Java's File.toURI())
  } else {
    throw DecodeError("uri", "not a file:// URI: '" + uri + "'");
  }
  std::string out;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && std::isxdigit(static_cast<unsigned char>(rest[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(rest[i + 2]))) {
      out += static_cast<char>(std::stoi(rest.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += rest[i];
    }
  }
  // A Windows client's drive (file:///c%3A/Users/...): no such path here, unless
  // a directory at the root is named so.
  if (out.size() >= 3 && out[0] == '/' && std::isalpha(static_cast<unsigned char>(out[1])) && out[2] == ':' &&
      (out.size() == 3 || out[3] == '/')) {
    std::error_code ec;
    if (!std::filesystem::exists(out.substr(0, 3), ec))
      throw DecodeError("uri", "a Windows path ('" + uri + "'): revline reads files where it runs; run it on the "
                               "machine that holds them (VS Code's Remote - WSL or SSH runs it there)");
  }
  return out;
}

}  // namespace revline::lsp
