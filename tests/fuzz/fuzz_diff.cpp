// Fuzzes the unified-diff parser and its renderings: diff::parse on arbitrary
// bytes either throws diff::ParseError or yields a Diff that annotate, toJson
// (serialisable as strict UTF-8 JSON) and numstat render without failing, and
// whose added and context lines are RIGHT-side lines.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/diff/diff.h"
#include "core/diff/render.h"

using namespace revline;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  diff::Diff parsed;
  try {
    parsed = diff::parse(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const diff::ParseError& e) {
    if (e.inputLine() < 0) std::abort();
    return 0;
  }
  const std::string annotated = diff::annotate(parsed);
  const std::string jsonText = diff::toJson(parsed).dump();  // strict: throws on invalid UTF-8
  const std::string numstat = diff::numstat(parsed);
  (void)annotated;
  (void)jsonText;
  (void)numstat;
  for (const auto& file : parsed.files) {
    if (parsed.findFile(file.path()) == nullptr) std::abort();  // a file can be found by its own path
    (void)diff::quotePath(file.path());
    (void)diff::normalizePath(file.path());
    for (const auto& hunk : file.hunks) {
      for (const auto& line : hunk.lines) {
        if (line.kind == diff::LineKind::Removed) continue;
        if (!file.isRightSideLine(line.newLine)) std::abort();
        if (!file.newLineText(line.newLine)) std::abort();
      }
    }
    (void)file.isRightSideLine(0);
    (void)file.isRightSideLine(-1);
    (void)file.newLineText(1 << 30);
  }
  return 0;
}
