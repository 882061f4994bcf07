#include "lsp/findings.h"

#include <cstdio>
#include <stdexcept>

#include "core/contract/enums.h"
#include "core/diff/notebook.h"
#include "core/reports/markdown_text.h"

namespace revline::lsp {

PlacedFinding place(const review::PublishedFinding& f) {
  PlacedFinding p;
  p.published = f;
  p.firstLine = static_cast<int>(std::max<std::int64_t>(1, f.finding.line)) - 1;
  p.lastLine = std::max(p.firstLine, static_cast<int>(f.finding.lastLine()) - 1);
  return p;
}

namespace {
// The old text of new-file line `newLine` when it is part of a run of added
// lines that replaces a run of removed lines of the same length.
std::optional<std::string> oldTextOf(const diff::FileDiff& file, int newLine) {
  for (const auto& h : file.hunks) {
    const auto& lines = h.lines;
    for (std::size_t i = 0; i < lines.size();) {
      if (lines[i].kind != diff::LineKind::Removed) {
        ++i;
        continue;
      }
      std::size_t removedEnd = i;
      while (removedEnd < lines.size() && lines[removedEnd].kind == diff::LineKind::Removed) ++removedEnd;
      std::size_t addedEnd = removedEnd;
      while (addedEnd < lines.size() && lines[addedEnd].kind == diff::LineKind::Added) ++addedEnd;
      if (addedEnd - removedEnd == removedEnd - i)
        for (std::size_t k = removedEnd; k < addedEnd; ++k)
          if (lines[k].newLine == newLine) return std::string(lines[i + (k - removedEnd)].text);
      i = addedEnd;
    }
  }
  return std::nullopt;
}
}  // namespace

PlacedFinding place(const review::PublishedFinding& f, const diff::FileDiff* file) {
  PlacedFinding p = place(f);
  if (!file) return p;
  for (int l = p.firstLine; l <= p.lastLine; ++l) {
    auto old = oldTextOf(*file, l + 1);
    if (!old) {
      p.revertedText.clear();
      break;
    }
    p.revertedText.push_back(std::move(*old));
  }
  return p;
}

DiagnosticSeverity severityFor(contract::Severity s) {
  switch (s) {
    case contract::Severity::Blocker: return DiagnosticSeverity::Error;
    case contract::Severity::Major: return DiagnosticSeverity::Warning;
    case contract::Severity::Minor: return DiagnosticSeverity::Information;
    case contract::Severity::Nit: return DiagnosticSeverity::Hint;
  }
  return DiagnosticSeverity::Warning;
}

namespace {
std::string confidenceText(double c) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", c);
  return buf;
}
}  // namespace

std::string diagnosticMessage(const contract::Finding& f) {
  return f.title + "\n\n" + f.explanation + " (confidence " + confidenceText(f.confidence) + ")";
}

int indentationWidth(const std::string& line) {
  const std::size_t n = line.find_first_not_of(" \t");
  return n == std::string::npos ? 0 : static_cast<int>(n);
}

void addNotebookCells(std::vector<Diagnostic>& diagnostics, const std::vector<std::string>& lines) {
  if (diagnostics.empty()) return;
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  const auto source = diff::notebookSourceLines(text);
  if (!source) return;
  const std::vector<std::string_view> views(lines.begin(), lines.end());
  for (Diagnostic& d : diagnostics)
    if (const auto at = diff::cellLineOf(*source, views, d.range.start.line + 1)) {
      d.data["cell"] = at->cell;
      d.data["cellLine"] = at->line;
    }
}

Diagnostic toDiagnostic(const PlacedFinding& p, int lastLineLength, int firstColumn) {
  Diagnostic d;
  if (p.firstLine == p.lastLine && firstColumn >= lastLineLength) firstColumn = 0;
  d.range = Range{{p.firstLine, firstColumn}, {p.lastLine, lastLineLength}};
  d.severity = severityFor(p.published.finding.severity);
  d.code = std::string(contract::toString(p.published.finding.category));
  d.source = "revline";
  d.message = diagnosticMessage(p.published.finding);
  d.data = json{{"id", p.published.id}};
  return d;
}

// The model's words are shown, never rendered as what they spell: an image an
// editor would fetch (data in its URL), a `command:` link, raw HTML, a fence
// closed early (reports/markdown_text.h, as for a pull-request review).
std::string hoverMarkdown(const contract::Finding& f) {
  std::string md = "**revline: " + reports::markdownLine(f.title) + "**\n\n";
  md += "*" + std::string(contract::toString(f.severity)) + "* · " + std::string(contract::toString(f.category)) +
        " · confidence " + confidenceText(f.confidence) + "\n\n";
  md += reports::markdownProse(f.explanation) + "\n";
  if (f.suggestedFix) md += "\n**Suggested fix:** " + reports::markdownProse(*f.suggestedFix, false) + "\n";
  if (f.edit) {
    const std::string fence = reports::codeFenceFor(f.edit->replacement);
    md += "\n" + fence + "\n" + f.edit->replacement + "\n" + fence + "\n";
  }
  return md;
}

std::string hoverPlainText(const contract::Finding& f) {
  std::string text = "revline: " + f.title + "\n\n";
  text += std::string(contract::toString(f.severity)) + " · " + std::string(contract::toString(f.category)) +
          " · confidence " + confidenceText(f.confidence) + "\n\n";
  text += f.explanation + "\n";
  if (f.suggestedFix) text += "\nSuggested fix: " + *f.suggestedFix + "\n";
  if (f.edit) {
    text += "\n";
    std::size_t at = 0;
    for (std::size_t nl; (nl = f.edit->replacement.find('\n', at)) != std::string::npos; at = nl + 1)
      text += "    " + f.edit->replacement.substr(at, nl - at) + "\n";
    text += "    " + f.edit->replacement.substr(at) + "\n";
  }
  return text;
}


}  // namespace revline::lsp
