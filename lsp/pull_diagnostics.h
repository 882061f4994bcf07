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

// Coalesces workspace/diagnostic/refresh: one request until the client pulls.
class RefreshGate {
 public:
  // True when a refresh should be sent now (none is outstanding).
  bool shouldSend() {
    if (outstanding_) return false;
    outstanding_ = true;
    return true;
  }
  void pulled() { outstanding_ = false; }

 private:
  bool outstanding_ = false;
};

}  // namespace revline::lsp
