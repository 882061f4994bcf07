// A Jupyter notebook as the builtin rules read it: each line of a cell's
// source decoded from the JSON string it is stored as ("    \"eval(x)\\n\",")
// to the code it holds ("eval(x)"), at its own line number, so the rules for
// the notebook's language (its kernel's) apply to cells as to a .py file.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/builtin/language.h"

namespace revline::builtin {

struct NotebookView {
  Language lang = Language::Other;  // the kernel's language: Python unless the notebook names another
  // The notebook's text with each cell source line decoded and every other line
  // (outputs, metadata, JSON structure) empty: as many lines as the file.
  std::string text;
  std::vector<bool> decoded;  // [n - 1]: line n is a source line, decoded in `text`
};

// A line of a source list, `    "code\n",`, as the code it holds, `code`
// (JSON escapes decoded, the element's final line break dropped); nullopt for
// any other shape (a key, a bracket, an element of several lines).
std::optional<std::string> notebookSourceElement(std::string_view line);

// The view of a notebook's text (diff::notebookSourceLines decides what is
// source): code cells only, and not one of a cell magic (`%%bash`); nullopt
// when it does not read as a notebook. A source line that is not one
// JSON string of one line (the key's line, the closing bracket, a source
// written as a single string) is left empty, not guessed at.
std::optional<NotebookView> notebookView(std::string_view notebookText);

}  // namespace revline::builtin
