#include "core/builtin/language.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace revline::builtin {
namespace {

std::string lowerExtension(std::string_view path) {
  const auto slash = path.find_last_of('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const auto dot = name.find_last_of('.');
  if (dot == std::string_view::npos || dot == 0) return {};
  std::string ext(name.substr(dot + 1));
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

template <std::size_t N>
bool oneOf(const std::string& ext, const std::array<std::string_view, N>& list) {
  return std::find(list.begin(), list.end(), ext) != list.end();
}

}  // namespace

Language languageOf(std::string_view path) {
  const std::string ext = lowerExtension(path);
  static constexpr std::array<std::string_view, 6> js{"js", "jsx", "mjs", "cjs", "ts", "tsx"};
  static constexpr std::array<std::string_view, 10> c{"c", "h", "cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "ipp"};
  if (ext == "java") return Language::Java;
  if (ext == "py" || ext == "pyw") return Language::Python;
  if (ext == "go") return Language::Go;
  if (ext == "cs") return Language::CSharp;
  if (oneOf(ext, js)) return Language::JavaScript;
  if (oneOf(ext, c)) return Language::C;
  return Language::Other;
}

bool isProseFile(std::string_view path) {
  static constexpr std::array<std::string_view, 6> prose{"md", "markdown", "rst", "txt", "adoc", "asciidoc"};
  return oneOf(lowerExtension(path), prose);
}

}  // namespace revline::builtin
