// Pull diagnostics (LSP 3.17, textDocument/diagnostic): the report for one
// document, with a resultId so an unchanged document is answered "unchanged".
// Used when the client announces capabilities.textDocument.diagnostic; the
// server then stops pushing and asks the client to pull again
// (workspace/diagnostic/refresh) when a review changes what it would report.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lsp/protocol.h"

namespace revline::lsp {

// The resultId of a list of diagnostics: a digest of their wire form, so the
// same findings at the same places get the same id, across reviews too.
std::string diagnosticsResultId(const std::vector<Diagnostic>& items);

// The DocumentDiagnosticReport: {"kind": "unchanged", "resultId"} when
// `previousResultId` matches, else {"kind": "full", "resultId", "items"}.
json documentDiagnosticReport(const std::vector<Diagnostic>& items, const std::optional<std::string>& previousResultId);

struct DocumentDiagnosticParams {
  TextDocumentIdentifier textDocument;
  std::optional<std::string> previousResultId;
};
inline void from_json(const json& j, DocumentDiagnosticParams& p) {
  field(j, "textDocument", p.textDocument);
  field(j, "previousResultId", p.previousResultId);
}

// Coalesces workspace/diagnostic/refresh: one request until the client pulls
// or answers it. Sublime LSP and coc.nvim answer a refresh without pulling when
// no document of revline's is visible; waiting for a pull then sent none again.
class RefreshGate {
 public:
  // True when a refresh should be sent now (none is outstanding); `id` is the
  // request's, whose answer opens the gate again.
  bool shouldSend(const std::string& id) {
    if (outstanding_) return false;
    outstanding_ = true;
    id_ = id;
    return true;
  }
  void pulled() { outstanding_ = false; }
  // True when `id` is the outstanding refresh's (its answer is then consumed).
  bool answered(const json& id) {
    if (!outstanding_ || !id.is_string() || id.get<std::string>() != id_) return false;
    outstanding_ = false;
    return true;
  }

 private:
  bool outstanding_ = false;
  std::string id_;
};

}  // namespace revline::lsp
