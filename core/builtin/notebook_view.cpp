#include "core/builtin/notebook_view.h"

#include <cctype>

#include <nlohmann/json.hpp>

#include "core/diff/notebook.h"
#include "core/support/text.h"

namespace revline::builtin {
namespace {

// A kernel's language by its name ("python3", "java", "ir"): Python, Java, JavaScript/TypeScript, Go, C/C++, C#.
Language languageNamed(std::string name) {
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name.starts_with("python")) return Language::Python;
  // Kernels for other languages (IJava, ijavascript, gophernotes, xeus-cling, .NET Interactive).
  if (name == "java") return Language::Java;
  if (name == "javascript" || name == "typescript") return Language::JavaScript;
  if (name == "go") return Language::Go;
  if (name == "c++" || name == "c" || name.starts_with("c++") || name.starts_with("xcpp")) return Language::C;
  if (name == "c#" || name == "csharp") return Language::CSharp;
  return Language::Other;  // R ("ir"), Julia, Scala, ...: the text rules only
}

// The kernel's language as the notebook's metadata names it (nbformat 4:
// kernelspec.language, language_info.name, else the kernel's name); Python
// when it names no kernel at all (nbformat 3 notebooks, a bare notebook).
Language kernelLanguage(std::string_view text) {
  // Only the metadata is wanted: the cells (megabytes of outputs' base64) are dropped as they are read.
  const nlohmann::json nb = nlohmann::json::parse(
      text,
      [](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        return !(depth == 1 && event == nlohmann::json::parse_event_t::key && parsed == "cells");
      },
      /*allow_exceptions=*/false);
  if (!nb.is_object()) return Language::Other;
  const nlohmann::json meta = nb.value("metadata", nlohmann::json::object());
  if (!meta.is_object()) return Language::Python;
  const nlohmann::json kernel = meta.value("kernelspec", nlohmann::json::object());
  const nlohmann::json info = meta.value("language_info", nlohmann::json::object());
  for (const auto& [object, key] : {std::pair{&kernel, "language"}, std::pair{&info, "name"}})
    if (object->is_object() && object->contains(key) && (*object)[key].is_string())
      return languageNamed((*object)[key].get<std::string>());
  // Only the kernel's name: an environment's ("myenv", "conda-env-py", "tf2") is Python's
  // kernel, unless it names another language's kernel (IRkernel's "ir", IJulia's "julia-1.9").
  if (kernel.is_object() && kernel.contains("name") && kernel["name"].is_string()) {
    std::string name = kernel["name"].get<std::string>();
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (std::string_view other : {"ir", "julia", "ijavascript", "javascript", "java", "gophernotes", "xcpp", "xeus",
                                   ".net", "scala", "spylon", "bash", "sparkr", "sas", "stata", "octave", "matlab"})
      if (name == other || name.starts_with(std::string(other) + "-") || (other.size() > 2 && name.starts_with(other)))
        return languageNamed(name);
  }
  return Language::Python;
}

// A cell magic that runs the cell as another language (%%bash, %%javascript,
// %%html, %%sql, %%writefile of a non-.py file, ...); IPython's own timing and
// capture magics (%%time, %%capture, ...), %%writefile x.py and %%script
// python run or hold Python.
bool otherLanguageMagic(std::string_view firstLine) {
  if (!firstLine.starts_with("%%")) return false;
  std::string_view name = firstLine.substr(2);
  name = name.substr(0, name.find_first_of(" \t"));
  for (std::string_view python : {"time", "timeit", "capture", "prun", "debug", "python", "python3", "pypy", "cython"})
    if (name == python) return false;
  // %%writefile x.py (or %%file) writes Python; %%script python3 runs it.
  std::string_view rest = firstLine.substr(2 + name.size());
  while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t')) rest.remove_suffix(1);
  if ((name == "writefile" || name == "file") && rest.ends_with(".py")) return false;
  if (name == "script" && rest.find("python") != std::string_view::npos) return false;
  return true;
}

}  // namespace

std::optional<std::string> notebookSourceElement(std::string_view line) {
  const auto first = line.find_first_not_of(" \t");
  const auto last = line.find_last_not_of(" \t\r");
  if (first == std::string_view::npos) return std::nullopt;
  std::string_view t = line.substr(first, last - first + 1);
  if (t.ends_with(',')) t.remove_suffix(1);
  if (t.size() < 2 || t.front() != '"' || t.back() != '"') return std::nullopt;
  const nlohmann::json s = nlohmann::json::parse(t, nullptr, /*allow_exceptions=*/false);
  if (!s.is_string()) return std::nullopt;
  std::string code = s.get<std::string>();
  if (code.ends_with('\n')) code.pop_back();
  if (code.ends_with('\r')) code.pop_back();
  if (code.find('\n') != std::string::npos) return std::nullopt;  // several lines in one element
  return code;
}

std::optional<NotebookView> notebookView(std::string_view notebookText) {
  // Code cells only: a markdown or raw cell is prose, whose ``` fence or """ is no Python.
  const auto source = diff::notebookSourceLines(notebookText, /*codeCellsOnly=*/true);
  if (!source) return std::nullopt;
  NotebookView view;
  view.lang = kernelLanguage(notebookText);
  const std::vector<std::string_view> lines = fileLines(notebookText);
  view.decoded.assign(lines.size(), false);
  bool magicCell = false;  // a cell whose first line is a cell magic (%%bash, %%javascript): not the kernel's language
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) view.text += '\n';
    if (!(*source)[i]) continue;
    if (i == 0 || !(*source)[i - 1]) {  // the key's line: the cell's first source line follows it
      const auto first = i + 1 < lines.size() ? notebookSourceElement(lines[i + 1]) : std::nullopt;
      magicCell = first && otherLanguageMagic(*first);
    }
    if (magicCell) continue;
    if (auto code = notebookSourceElement(lines[i])) {
      view.text += *code;
      view.decoded[i] = true;
    }
  }
  view.text += '\n';
  return view;
}

}  // namespace revline::builtin
