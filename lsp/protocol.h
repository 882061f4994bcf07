// The subset of the Language Server Protocol revline uses, hand-written with
// the wire names. Each struct has its to_json / from_json declared next to it
// and defined once, in protocol.cpp (not instantiated in every TU). Decoding
// reports the JSON path of a bad field (DecodeError); absent and null are
// distinct where the protocol distinguishes them (std::optional = absent or null).
#pragma once
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
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
// An integer field takes a whole number within T's range (3 or 3.0); nlohmann
// would convert 1e300 or 3.7 itself, by a cast that is undefined or cuts silently.
template <typename T>
std::string outOfRange(const json& value) {
  return value.dump() + " is out of range, expected " + std::to_string(std::numeric_limits<T>::min()) + ".." +
         std::to_string(std::numeric_limits<T>::max());
}
template <typename T>
void decodeInteger(const json& value, T& out) {
  using Limits = std::numeric_limits<T>;
  if (value.is_number_unsigned()) {
    if (value.get<std::uint64_t>() > static_cast<std::uint64_t>(Limits::max())) throw DecodeError("", outOfRange<T>(value));
  } else if (value.is_number_integer()) {
    const std::int64_t i = value.get<std::int64_t>();
    if (i < static_cast<std::int64_t>(Limits::min()) || i > static_cast<std::int64_t>(Limits::max()))
      throw DecodeError("", outOfRange<T>(value));
  } else if (value.is_number_float()) {
    const double d = value.get<double>();
    if (!(d >= static_cast<double>(Limits::min()) && d <= static_cast<double>(Limits::max())))
      throw DecodeError("", outOfRange<T>(value));
    if (std::trunc(d) != d) throw DecodeError("", "expected a whole number, got " + value.dump());
    out = static_cast<T>(d);
    return;
  } else {
    throw DecodeError("", std::string("expected an integer, got ") + value.type_name());
  }
  value.get_to(out);
}

template <typename T>
void decodeAt(const json& value, const std::string& key, T& out) {
  try {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) decodeInteger(value, out);
    else value.get_to(out);
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
void to_json(json& j, const Position& p);
void from_json(const json& j, Position& p);

struct Range {
  Position start, end;
  friend bool operator==(const Range&, const Range&) = default;
};
void to_json(json& j, const Range& r);
void from_json(const json& j, Range& r);

struct TextDocumentIdentifier { std::string uri; };
void to_json(json& j, const TextDocumentIdentifier& t);
void from_json(const json& j, TextDocumentIdentifier& t);

struct TextDocumentItem { std::string uri; std::string languageId; int version = 0; std::string text; };
void from_json(const json& j, TextDocumentItem& t);

struct VersionedTextDocumentIdentifier { std::string uri; int version = 0; };
void from_json(const json& j, VersionedTextDocumentIdentifier& t);

struct TextDocumentContentChangeEvent {
  std::optional<Range> range;  // absent: the whole text is replaced
  std::string text;
};
void from_json(const json& j, TextDocumentContentChangeEvent& c);

struct DidOpenTextDocumentParams { TextDocumentItem textDocument; };
void from_json(const json& j, DidOpenTextDocumentParams& p);

struct DidChangeTextDocumentParams {
  VersionedTextDocumentIdentifier textDocument;
  std::vector<TextDocumentContentChangeEvent> contentChanges;
};
void from_json(const json& j, DidChangeTextDocumentParams& p);

struct DidSaveTextDocumentParams { TextDocumentIdentifier textDocument; std::optional<std::string> text; };
void from_json(const json& j, DidSaveTextDocumentParams& p);

struct DidCloseTextDocumentParams { TextDocumentIdentifier textDocument; };
void from_json(const json& j, DidCloseTextDocumentParams& p);

enum class DiagnosticSeverity { Error = 1, Warning = 2, Information = 3, Hint = 4 };

struct Diagnostic {
  Range range;
  DiagnosticSeverity severity = DiagnosticSeverity::Warning;
  std::string code;
  std::string source = "revline";
  std::string message;
  json data;  // {"id": ...}; null: absent
};
void to_json(json& j, const Diagnostic& d);
void from_json(const json& j, Diagnostic& d);

struct PublishDiagnosticsParams {
  std::string uri;
  std::optional<int> version;
  std::vector<Diagnostic> diagnostics;
};
void to_json(json& j, const PublishDiagnosticsParams& p);

struct CodeActionContext {
  std::vector<Diagnostic> diagnostics;
  std::optional<std::vector<std::string>> only;
};
void from_json(const json& j, CodeActionContext& c);

struct CodeActionParams { TextDocumentIdentifier textDocument; Range range; CodeActionContext context; };
void from_json(const json& j, CodeActionParams& p);

struct TextEdit { Range range; std::string newText; };
void to_json(json& j, const TextEdit& e);

// Always `documentChanges` with the document's version: a client holding an
// edit computed for an older text refuses it instead of corrupting the new one.
struct TextDocumentEdit {
  std::string uri;
  std::optional<int> version;  // nullopt: the file is not open (null on the wire)
  std::vector<TextEdit> edits;
};
void to_json(json& j, const TextDocumentEdit& e);
struct WorkspaceEdit { std::vector<TextDocumentEdit> documentChanges; };
void to_json(json& j, const WorkspaceEdit& e);

struct Command { std::string title; std::string command; json arguments = json::array(); };
void to_json(json& j, const Command& c);

struct CodeAction {
  std::string title;
  std::string kind;  // "quickfix", "source", ...
  std::vector<Diagnostic> diagnostics;
  bool isPreferred = false;
  std::optional<WorkspaceEdit> edit;
  std::optional<Command> command;
};
void to_json(json& j, const CodeAction& a);

struct TextDocumentPositionParams { TextDocumentIdentifier textDocument; Position position; };
void from_json(const json& j, TextDocumentPositionParams& p);

struct Hover {
  std::string value;
  std::optional<Range> range;
  bool markdown = true;  // false: "plaintext"
};
void to_json(json& j, const Hover& h);

struct ExecuteCommandParams { std::string command; json arguments = json::array(); };
void from_json(const json& j, ExecuteCommandParams& p);

struct WorkspaceFolder { std::string uri; std::string name; };
void from_json(const json& j, WorkspaceFolder& f);

struct InitializeParams {
  std::optional<std::string> rootUri;
  std::optional<std::string> rootPath;  // deprecated, still what some clients send alone
  std::optional<std::vector<WorkspaceFolder>> workspaceFolders;
  json initializationOptions;  // null when absent
  bool workDoneProgress = false;  // capabilities.window.workDoneProgress
  bool pullDiagnostics = false;   // capabilities.textDocument.diagnostic (LSP 3.17)
  bool diagnosticRefresh = false; // capabilities.workspace.diagnostics.refreshSupport
  bool watchFiles = false;        // capabilities.workspace.didChangeWatchedFiles.dynamicRegistration
  bool watchRelativePatterns = false;  // ...didChangeWatchedFiles.relativePatternSupport (LSP 3.17)
  bool hoverMarkdown = true;  // false when textDocument.hover.contentFormat lists kinds and not "markdown"
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
void from_json(const json& j, InitializeParams& p);

struct WorkspaceFoldersChangeEvent { std::vector<WorkspaceFolder> added, removed; };
void from_json(const json& j, WorkspaceFoldersChangeEvent& e);
struct DidChangeWorkspaceFoldersParams { WorkspaceFoldersChangeEvent event; };
void from_json(const json& j, DidChangeWorkspaceFoldersParams& p);

enum class MessageType { Error = 1, Warning = 2, Info = 3, Log = 4 };

// file:// URIs <-> absolute paths (percent-encoding both ways).
std::string uriFromPath(const std::string& absolutePath);
// Throws DecodeError for a URI that is not file://.
std::string pathFromUri(const std::string& uri);

}  // namespace revline::lsp
