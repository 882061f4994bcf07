#include "core/builtin/notebook_view.h"

#include <cctype>

#include <nlohmann/json.hpp>

#include "core/diff/notebook.h"
#include "core/support/text.h"

namespace revline::builtin {
namespace {

// The kernel's language as the notebook's metadata names it (nbformat 4:
// kernelspec.language, language_info.name); Python when it names none.
Language kernelLanguage(std::string_view text) {
  const nlohmann::json nb = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!nb.is_object()) return Language::Other;
  const nlohmann::json meta = nb.value("metadata", nlohmann::json::object());
  std::string name;
  if (meta.is_object()) {
    const nlohmann::json kernel = meta.value("kernelspec", nlohmann::json::object());
    const nlohmann::json info = meta.value("language_info", nlohmann::json::object());
    if (kernel.is_object() && kernel.value("language", nlohmann::json()).is_string()) name = kernel["language"];
    else if (info.is_object() && info.value("name", nlohmann::json()).is_string()) name = info["name"];
  }
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name.empty() || name.starts_with("python")) return Language::Python;
  // Kernels for other languages (IJava, ijavascript, gophernotes, xeus-cling, .NET Interactive).
  if (name == "java") return Language::Java;
  if (name == "javascript" || name == "typescript") return Language::JavaScript;
  if (name == "go") return Language::Go;
  if (name == "c++" || name == "c" || name.starts_with("c++")) return Language::C;
  if (name == "c#" || name == "csharp") return Language::CSharp;
  return Language::Other;  // R, Julia, Scala, ...: the text rules only
}

// `    "code\n",` -> `code`; nullopt for any other shape.
std::optional<std::string> sourceElement(std::string_view line) {
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

}  // namespace

std::optional<NotebookView> notebookView(std::string_view notebookText) {
  const auto source = diff::notebookSourceLines(notebookText);
  if (!source) return std::nullopt;
  NotebookView view;
  view.lang = kernelLanguage(notebookText);
  const std::vector<std::string_view> lines = fileLines(notebookText);
  view.decoded.assign(lines.size(), false);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) view.text += '\n';
    if (!(*source)[i]) continue;
    if (auto code = sourceElement(lines[i])) {
      view.text += *code;
      view.decoded[i] = true;
    }
  }
  view.text += '\n';
  return view;
}

}  // namespace revline::builtin
