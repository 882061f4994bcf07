// Which language a changed file is written in, decided by its extension: the
// rules that depend on syntax only run where that syntax means what they think.
#pragma once
#include <string_view>

namespace revline::builtin {

// JavaScript covers TypeScript too; C covers C++.
enum class Language { Java, Python, JavaScript, Go, CSharp, C, Other };

Language languageOf(std::string_view path);

// Prose and markup files, where a line of "=======" is a heading underline.
bool isProseFile(std::string_view path);

// AsciiDoc: .adoc and .asciidoc, and .txt in a doc/, docs/ or Documentation/
// folder (git's manual pages); elsewhere a .txt (CHANGES.txt, README.txt) is
// plain text, where a line of dashes separates entries.
bool isAsciiDocFile(std::string_view path);

// Tests, fixtures, examples, docs, benchmarks, CI workflows and compose files: code
// that does not ship, where a hard-coded password or an eval is expected.
// Matched on path segments (tests/, __tests__/, fixtures/, testdata/,
// examples/, samples/, Foo.Tests/, .github/workflows/, ...) and file names
// (test_x.py, x_test.go, FooTest.java, x.spec.ts, conftest.py,
// docker-compose.yml, .gitlab-ci.yml, wercker.yml).
bool isNonShippingPath(std::string_view path);

// The part of those that is tests, fixtures and examples (not docs, benchmarks
// or CI), where realistic fake tokens are written on purpose: a token of a
// known shape in a workflow or a doc page leaks as it would in code.
bool isTestOrExamplePath(std::string_view path);

}  // namespace revline::builtin
