// The review contract: the one definition of what a model must answer
// (shared/design/contract.md). Each struct lists its fields once, in fields():
// JSON name, member, model-facing description and rules. The JSON Schema
// (schema.h), serialization (serialize.h), coercion of a reply
// (reply_parser.h) and validation (validate.h) are generic visitors over these
// lists, so adding a field is a one-place change: add the member and one
// v.field(...) line (tests/unit/contract/schema_test.cpp checks it).
//
// A visitor implements `void field(std::string_view name, T& value, const FieldSpec&)`
// for T in: std::string, std::optional<std::string>, std::int64_t,
// std::optional<std::int64_t>, double, a ContractEnum, a struct with fields(),
// std::optional<struct>, std::vector<struct>. std::optional means nullable.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/contract/enums.h"
#include "core/contract/field_spec.h"

namespace revline::contract {

struct Edit {
  std::string original;     // exact current text of line..endLine, joined with "\n"
  std::string replacement;  // the text that should replace it

  template <class Self, class Visitor>
  static void fields(Self& self, Visitor& v) {
    v.field("original", self.original,
            FieldSpec("The exact current text of lines line..endLine (or line alone), lines joined with \"\\n\", "
                      "without the `<number> <marker> ` prefix but with the line's own indentation.")
                .notEmpty());
    v.field("replacement", self.replacement,
            FieldSpec("The text that should replace them.").differsFrom("original", self.original));
  }
  bool operator==(const Edit&) const = default;
};

struct Finding {
  std::string file;
  std::int64_t line = 0;
  std::optional<std::int64_t> endLine;
  Severity severity = Severity::Minor;
  Category category = Category::Correctness;
  std::string title;
  std::string explanation;
  std::optional<std::string> suggestedFix;
  std::optional<Edit> edit;
  double confidence = 0;

  std::int64_t lastLine() const { return endLine ? *endLine : line; }

  template <class Self, class Visitor>
  static void fields(Self& self, Visitor& v) {
    v.field("file", self.file,
            FieldSpec("Repository-relative path of the file in the NEW version, exactly as in the diff header.")
                .notBlank());
    v.field("line", self.line,
            FieldSpec("New-file line number of the problem, copied verbatim from the number that prefixes the diff "
                      "line. Must be a line marked '+' or ' ' in the diff. A problem in removed lines goes on the "
                      "first such line after them in the hunk (the last one before them when none follows), with the "
                      "removed text quoted in the explanation.")
                .lineNumber());
    v.field("endLine", self.endLine,
            FieldSpec("Last new-file line of a multi-line problem in the same file, or null. Stay within the block "
                      "of numbered lines that holds `line`: a range that runs past it is cut back to it.")
                .lineNumber()
                .notBefore("line", self.line));
    v.field("severity", self.severity,
            FieldSpec("How bad the problem is."));  // each value's meaning comes from describe()
    v.field("category", self.category, FieldSpec("What kind of problem it is."));
    v.field("title", self.title, FieldSpec("One line naming the problem.").notBlank().maxLength(120));
    v.field("explanation", self.explanation,
            FieldSpec("Why it is a problem and what happens at run time.").notBlank());
    v.field("suggestedFix", self.suggestedFix,
            FieldSpec("How to fix it, in a sentence or a short snippet; null when you have no concrete fix.")
                .blankMeansNull());
    v.field("edit", self.edit,
            FieldSpec("A mechanical edit that fixes the problem, or null when the fix is not a local edit of these "
                      "lines."));
    v.field("confidence", self.confidence,
            FieldSpec("How sure you are. Be honest: below 0.5 when you are guessing.").range(0.0, 1.0));
  }
  bool operator==(const Finding&) const = default;
};

struct ReviewReport {
  std::string summary;
  std::vector<Finding> findings;
  Verdict verdict = Verdict::Comment;

  template <class Self, class Visitor>
  static void fields(Self& self, Visitor& v) {
    v.field("summary", self.summary,
            FieldSpec("One or two sentences: what the change does and how sound it is.").notBlank());
    v.field("findings", self.findings,
            FieldSpec("Every real problem in the changed lines. An empty list if the diff is fine: do not invent "
                      "findings."));
    v.field("verdict", self.verdict,
            FieldSpec("Your recommendation. (The final verdict is computed by policy; this one is kept as "
                      "information.)"));
  }
  bool operator==(const ReviewReport&) const = default;
};

// A struct that lists its fields (Edit, Finding, ReviewReport).
template <class T>
concept ContractObject = requires { &T::template fields<T, int>; };

}  // namespace revline::contract
