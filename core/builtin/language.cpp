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
  static constexpr std::array<std::string_view, 7> prose{"md", "markdown", "rst", "txt", "adoc", "asciidoc", "rdoc"};
  return oneOf(lowerExtension(path), prose);
}

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

enum class NonShipping { No, DocsOrCi, TestOrExample };

NonShipping directoryKind(const std::string& dir) {
  static constexpr std::array<std::string_view, 18> tests{"test", "tests", "__tests__", "__test__", "spec", "specs",
      "testing", "testdata", "test-data", "fixtures", "fixture", "__fixtures__", "mocks", "__mocks__", "examples",
      "demo", "e2e", "samples"};
  static constexpr std::array<std::string_view, 6> docsOrCi{"docs", "doc", "documentation", "benchmarks", "bench",
                                                            ".circleci"};
  // .NET test projects: Dapper.Tests/, Foo.UnitTests/, Foo.IntegrationTests/.
  if (std::find(tests.begin(), tests.end(), dir) != tests.end() || dir.starts_with("test_") ||
      dir.ends_with("_test") || dir.ends_with("-tests") || dir.ends_with("_tests") || dir.ends_with(".tests") ||
      dir.ends_with(".test") || dir.ends_with(".unittests") || dir.ends_with(".integrationtests"))
    return NonShipping::TestOrExample;
  return std::find(docsOrCi.begin(), docsOrCi.end(), dir) != docsOrCi.end() ? NonShipping::DocsOrCi : NonShipping::No;
}

NonShipping fileKind(const std::string& name, std::string_view original) {
  if (name.starts_with("test_") || name == "conftest.py") return NonShipping::TestOrExample;
  const auto dot = name.find('.');
  const std::string stem = name.substr(0, dot);
  if (stem.ends_with("_test") || stem.ends_with("_tests") || stem.ends_with("_spec")) return NonShipping::TestOrExample;
  if (name.find(".test.") != std::string::npos || name.find(".spec.") != std::string::npos) return NonShipping::TestOrExample;
  // FooTest.java, FooTests.cs, FooIT.java: case matters, "Contest.java" is not a test.
  const std::string_view o = original.substr(0, original.find('.'));
  if (o.size() > 4 && (o.ends_with("Test") || o.ends_with("Tests") || o.ends_with("IT"))) return NonShipping::TestOrExample;
  if (name.starts_with("docker-compose") || name.starts_with("compose.") || name.starts_with("compose-")) return NonShipping::DocsOrCi;
  const bool ci = name == ".gitlab-ci.yml" || name == ".travis.yml" || name == "jenkinsfile" ||
                  name == "azure-pipelines.yml" || name == "appveyor.yml" || name == "bitbucket-pipelines.yml" ||
                  name == "tox.ini" || name == "wercker.yml" || name == ".drone.yml";
  return ci ? NonShipping::DocsOrCi : NonShipping::No;
}

// Tests and examples win over docs and CI: a fixture under docs/ is a fixture.
NonShipping nonShippingKind(std::string_view path) {
  const std::string p = lower(path);
  NonShipping kind = NonShipping::No;
  if (p.find(".github/workflows/") != std::string::npos || p.find(".github/actions/") != std::string::npos)
    kind = NonShipping::DocsOrCi;
  std::size_t start = 0;
  while (true) {
    const auto slash = p.find('/', start);
    if (slash == std::string::npos) break;
    const std::string dir = p.substr(start, slash - start);
    // "example/" at the top is an example; com/example/ is a Java package.
    const NonShipping d = start == 0 && dir == "example" ? NonShipping::TestOrExample : directoryKind(dir);
    if (d == NonShipping::TestOrExample) return d;
    if (d == NonShipping::DocsOrCi) kind = d;
    start = slash + 1;
  }
  const NonShipping f = fileKind(p.substr(start), path.substr(start));
  return f == NonShipping::No ? kind : f;
}

}  // namespace

bool isAsciiDocFile(std::string_view path) {
  const std::string ext = lowerExtension(path);
  if (ext == "adoc" || ext == "asciidoc") return true;
  if (ext != "txt") return false;
  const std::string p = "/" + lower(path);
  return p.find("/doc/") != std::string::npos || p.find("/docs/") != std::string::npos ||
         p.find("/documentation/") != std::string::npos;
}

bool isNonShippingPath(std::string_view path) { return nonShippingKind(path) != NonShipping::No; }

bool isTestOrExamplePath(std::string_view path) { return nonShippingKind(path) == NonShipping::TestOrExample; }

}  // namespace revline::builtin
