// Builders for ReviewOutcome values that the report tests share.
#pragma once
#include <optional>
#include <string>
#include <utility>

#include "core/contract/contract.h"
#include "core/diff/diff.h"
#include "core/review/pipeline.h"

namespace revline::reports::testing {

using contract::Category;
using contract::Severity;
using contract::Verdict;

inline contract::Finding finding(std::string file, std::int64_t line, Severity severity, Category category,
                                 std::string title, std::optional<std::int64_t> endLine = std::nullopt) {
  contract::Finding f;
  f.file = std::move(file);
  f.line = line;
  f.endLine = endLine;
  f.severity = severity;
  f.category = category;
  f.title = std::move(title);
  f.explanation = "Because " + f.title + ", the service misbehaves at run time.";
  f.confidence = 0.8;
  return f;
}

inline review::PublishedFinding published(contract::Finding f, std::string id) {
  review::PublishedFinding p;
  p.finding = std::move(f);
  p.id = std::move(id);
  return p;
}

inline review::ReviewOutcome outcome(Verdict verdict = Verdict::Comment) {
  review::ReviewOutcome o;
  o.verdict = verdict;
  o.modelVerdict = verdict;
  o.summary = "Adds a payment check.";
  o.attempts = 1;
  o.toolCalls = 0;
  o.provider = "builtin";
  o.model = "builtin-rules";
  return o;
}

// A modified file (src/Pay.java: lines 10-16 and 40-42 on the RIGHT side, one
// removed line), an added file with a unicode name, and a deleted file.
inline const char* kDiffText =
    "diff --git a/src/Pay.java b/src/Pay.java\n"
    "index 1111111..2222222 100644\n"
    "--- a/src/Pay.java\n"
    "+++ b/src/Pay.java\n"
    "@@ -10,5 +10,7 @@ class Pay {\n"
    "   int a;\n"
    "-  int old;\n"
    "+  if (x != \"NGN\") {\n"
    "+    throw new E();\n"
    "+  }\n"
    "   int b;\n"
    "   int c;\n"
    "   int d;\n"
    "@@ -39,3 +40,3 @@ class Pay {\n"
    "   int e;\n"
    "-  int f;\n"
    "+  int g;\n"
    "   int h;\n"
    "diff --git \"a/docs/caf\\303\\251 notes.md\" \"b/docs/caf\\303\\251 notes.md\"\n"
    "new file mode 100644\n"
    "index 0000000..3333333\n"
    "--- /dev/null\n"
    "+++ \"b/docs/caf\\303\\251 notes.md\"\n"
    "@@ -0,0 +1,2 @@\n"
    "+# Café\n"
    "+password = \"hunter2\"\n"
    "diff --git a/src/Old.java b/src/Old.java\n"
    "deleted file mode 100644\n"
    "index 4444444..0000000\n"
    "--- a/src/Old.java\n"
    "+++ /dev/null\n"
    "@@ -1,2 +0,0 @@\n"
    "-class Old {\n"
    "-}\n";

inline diff::Diff sampleDiff() { return diff::parse(kDiffText); }

}  // namespace revline::reports::testing
