#include "core/contract/validate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/contract/reply_parser.h"
#include "core/contract/serialize.h"

namespace revline::contract {
namespace {

Finding goodFinding() {
  Finding f;
  f.file = "src/a.cpp";
  f.line = 10;
  f.severity = Severity::Major;
  f.category = Category::Security;
  f.title = "SQL built from user input";
  f.explanation = "The id is concatenated into the query.";
  f.confidence = 0.7;
  return f;
}

ReviewReport reportWith(const Finding& third) {
  ReviewReport r;
  r.summary = "Adds a search endpoint.";
  r.verdict = Verdict::RequestChanges;
  r.findings = {goodFinding(), goodFinding(), third};
  return r;
}

std::vector<std::string> messages(const std::vector<Problem>& problems) {
  std::vector<std::string> out;
  for (const auto& p : problems) out.push_back(p.message);
  return out;
}

TEST(Validate, ValidReportHasNoProblems) {
  EXPECT_TRUE(validate(reportWith(goodFinding())).empty());
  Finding f = goodFinding();
  f.endLine = 10;
  f.suggestedFix = "  ";  // blank reads as null: not a violation
  f.edit = Edit{"query(id);", ""};
  f.confidence = 1.0;
  EXPECT_TRUE(validate(reportWith(f)).empty());
  ReviewReport empty;
  empty.summary = "Nothing to say.";
  EXPECT_TRUE(validate(empty).empty());
}

struct Case {
  const char* name;
  std::function<void(Finding&)> change;
  ErrorKind kind;
  std::string message;
};

TEST(Validate, EachRuleNamesPointerValueAndExpectation) {
  const std::vector<Case> cases = {
      {"line 0", [](Finding& f) { f.line = 0; }, ErrorKind::OutOfRange,
       "/findings/2/line: got 0, expected a new-file line number >= 1"},
      {"line too big", [](Finding& f) { f.line = 1LL << 31; }, ErrorKind::OutOfRange,
       "/findings/2/line: got 2147483648, expected a new-file line number <= 2147483647"},
      {"endLine before line", [](Finding& f) { f.endLine = 9; }, ErrorKind::OutOfRange,
       "/findings/2/endLine: got 9, expected null or a new-file line number >= line (10)"},
      {"endLine 0", [](Finding& f) { f.endLine = 0; }, ErrorKind::OutOfRange,
       "/findings/2/endLine: got 0, expected null or a new-file line number >= 1"},
      {"blank file", [](Finding& f) { f.file = " "; }, ErrorKind::EmptyString,
       R"(/findings/2/file: got " ", expected non-blank text)"},
      {"blank title", [](Finding& f) { f.title = ""; }, ErrorKind::EmptyString,
       R"(/findings/2/title: got "", expected non-blank text)"},
      {"blank explanation", [](Finding& f) { f.explanation = "\n"; }, ErrorKind::EmptyString,
       R"(/findings/2/explanation: got "\n", expected non-blank text)"},
      {"long title", [](Finding& f) { f.title = std::string(121, 'a'); }, ErrorKind::OutOfRange,
       "/findings/2/title: got \"" + std::string(79, 'a') +
           "… (121 characters), expected at most 120 characters"},
      {"confidence above 1", [](Finding& f) { f.confidence = 1.5; }, ErrorKind::OutOfRange,
       "/findings/2/confidence: got 1.5, expected a number from 0.0 to 1.0 (write 0.9 for 90%)"},
      {"confidence below 0", [](Finding& f) { f.confidence = -0.25; }, ErrorKind::OutOfRange,
       "/findings/2/confidence: got -0.25, expected a number from 0.0 to 1.0"},
      {"confidence NaN", [](Finding& f) { f.confidence = std::nan(""); }, ErrorKind::OutOfRange,
       "/findings/2/confidence: got NaN, expected a number from 0.0 to 1.0"},
      {"edit without original", [](Finding& f) { f.edit = Edit{"", "x"}; }, ErrorKind::EmptyString,
       R"(/findings/2/edit/original: got "", expected a non-empty string)"},
      {"edit that changes nothing", [](Finding& f) { f.edit = Edit{"x", "x"}; }, ErrorKind::OutOfRange,
       "/findings/2/edit/replacement: got the same text as original, expected text that differs from original"},
      {"enum out of range", [](Finding& f) { f.severity = static_cast<Severity>(9); }, ErrorKind::InvalidEnum,
       "/findings/2/severity: got enum value 9, expected one of BLOCKER, MAJOR, MINOR, NIT"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Finding f = goodFinding();
    c.change(f);
    const auto problems = validate(reportWith(f));
    ASSERT_EQ(problems.size(), 1u) << ::testing::PrintToString(messages(problems));
    EXPECT_EQ(problems[0].kind, c.kind);
    EXPECT_EQ(problems[0].message, c.message);
  }
}

TEST(Validate, ReportsEveryViolation) {
  ReviewReport r = reportWith(goodFinding());
  r.summary = "";
  r.findings[0].line = -1;
  r.findings[1].title = "";
  r.findings[2].confidence = 2;
  EXPECT_EQ(messages(validate(r)), (std::vector<std::string>{
                                       R"(/summary: got "", expected non-blank text)",
                                       "/findings/0/line: got -1, expected a new-file line number >= 1",
                                       R"(/findings/1/title: got "", expected non-blank text)",
                                       "/findings/2/confidence: got 2, expected a number from 0.0 to 1.0 (write 0.9 for 90%)",
                                   }));
}

TEST(Validate, SingleFindingWithPointer) {
  Finding f = goodFinding();
  f.line = 0;
  EXPECT_EQ(messages(validate(f, "/findings/7")),
            std::vector<std::string>{"/findings/7/line: got 0, expected a new-file line number >= 1"});
}

// The model sees one format: a report that breaks a rule gives the same
// problems whether validated in code or parsed from its JSON.
TEST(Validate, SameProblemsAsTheReplyParser) {
  const std::vector<std::function<void(Finding&)>> changes = {
      [](Finding& f) { f.line = 0; },
      [](Finding& f) { f.endLine = 3; },
      [](Finding& f) { f.title = std::string(130, 'x'); },
      [](Finding& f) { f.file = "  "; },
      [](Finding& f) { f.confidence = 7; },
      [](Finding& f) { f.edit = Edit{"", "y"}; },
      [](Finding& f) { f.edit = Edit{"same", "same"}; },
      [](Finding& f) {
        f.line = 0;
        f.explanation = "";
      },
  };
  for (std::size_t i = 0; i < changes.size(); ++i) {
    SCOPED_TRACE(i);
    Finding f = goodFinding();
    changes[i](f);
    const ReviewReport r = reportWith(f);
    const ReplyParse parsed = parseReply(toJson(r).dump());
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.problems, validate(r));
  }
}

}  // namespace
}  // namespace revline::contract
