// Review findings as the editor sees them: contract.md "LSP mapping" and hover
// Markdown (the review cache is core/session's). The only place where review
// terms become protocol terms.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/review/pipeline.h"
#include "lsp/protocol.h"

namespace revline::lsp {

// A published finding placed on the current text of a document: 0-based lines,
// moved by edits between saves.
struct PlacedFinding {
  review::PublishedFinding published;
  int firstLine = 0;  // 0-based
  int lastLine = 0;   // 0-based, inclusive
  // What its lines read before the change that introduced them (a 1:1 line
  // replacement in the diff), one per line; empty when unknown. Lines that read
  // like this again (an undo) are no longer the reviewed change.
  std::vector<std::string> revertedText;
};

PlacedFinding place(const review::PublishedFinding& finding);
// The same, with revertedText from the file's diff.
PlacedFinding place(const review::PublishedFinding& finding, const diff::FileDiff* file);

DiagnosticSeverity severityFor(contract::Severity severity);
// "title\n\nexplanation (confidence 0.82)"
std::string diagnosticMessage(const contract::Finding& finding);
// `lastLineLength`: UTF-16 length of the last line (the range ends there);
// `firstColumn`: where the first line's code starts (its indentation is not underlined).
Diagnostic toDiagnostic(const PlacedFinding& finding, int lastLineLength, int firstColumn = 0);
// Leading spaces and tabs of `line` (0 for a blank line), in UTF-16 units (= bytes).
int indentationWidth(const std::string& line);

// A Jupyter notebook's diagnostics (`lines`: the notebook's JSON as it is now)
// also say where each is in its cells, `data.cell` and `data.cellLine` (0-based),
// for a client that shows them on the cell (the VS Code extension's notebook
// view); one on no cell's source line gets neither.
void addNotebookCells(std::vector<Diagnostic>& diagnostics, const std::vector<std::string>& lines);

// Markdown for hover: severity, category, confidence, explanation, suggested fix.
std::string hoverMarkdown(const contract::Finding& finding);
// The same as plain text, for a client whose hover shows no markdown (stock
// Emacs without markdown-mode): no emphasis, the fix's text indented.
std::string hoverPlainText(const contract::Finding& finding);

}  // namespace revline::lsp
