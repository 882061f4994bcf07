// Grounding against diffs that git itself produced: which findings survive,
// the exact reasons for the ones that do not, and which edits are kept.
#include "core/review/grounding.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/diff/render.h"

#include <string>
#include <vector>

#include "tests/support/temp_repo.h"

namespace revline::review {
namespace {

using contract::Finding;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// "  int aN = N;\n" for N in [from, to].
std::string numbered(int from, int to) {
  std::string out;
  for (int n = from; n <= to; ++n) out += "  int a" + std::to_string(n) + " = " + std::to_string(n) + ";\n";
  return out;
}

diff::Diff diffOfLastCommit(const testing::TempRepo& repo) { return diff::parse(repo.git("diff HEAD~1 HEAD")); }

// One commit touching four files. New-file lines of src/PaymentService.java the
// diff shows: 17-23 (20 replaced) and 28-35 (31, 32 added); 24-27 are hidden.
// src/Util.java loses its last two lines (old 9, 10); src/Old.java is deleted;
// docs/new.md is added with 3 lines.
const diff::Diff& fixtureDiff() {
  static const diff::Diff d = [] {
    testing::TempRepo repo;
    repo.write("src/PaymentService.java", numbered(1, 40));
    std::string util;
    for (int n = 1; n <= 10; ++n) util += "u" + std::to_string(n) + "();\n";
    repo.write("src/Util.java", util);
    repo.write("src/Old.java", "class Old {\n}\n");
    repo.commitAll("base");
    repo.write("src/PaymentService.java",
               numbered(1, 19) + "  int a20 = compute();\n" + numbered(21, 30) + "  // added 1\n  // added 2\n" +
                   numbered(31, 40));
    repo.write("src/Util.java", util.substr(0, util.find("u9();")));
    repo.remove("src/Old.java");
    repo.write("docs/new.md", "# New\n\ntext\n");
    repo.commitAll("change");
    return diffOfLastCommit(repo);
  }();
  return d;
}

Finding at(std::string file, std::int64_t line, std::optional<std::int64_t> endLine = std::nullopt) {
  Finding f;
  f.file = std::move(file);
  f.line = line;
  f.endLine = endLine;
  f.severity = contract::Severity::Major;
  f.category = contract::Category::Correctness;
  f.title = "Problem";
  f.explanation = "Why it matters.";
  f.confidence = 0.8;
  return f;
}

Finding withEdit(Finding f, std::string original, std::string replacement) {
  f.edit = contract::Edit{std::move(original), std::move(replacement)};
  return f;
}

// The single reason for a finding that must be rejected.
std::string rejection(const Finding& f, const diff::Diff& d = fixtureDiff()) {
  const GroundingResult r = ground({f}, d);
  EXPECT_THAT(r.grounded, IsEmpty());
  return r.rejected.size() == 1 ? r.rejected[0].reason : "<not rejected>";
}

// The single published finding for a finding that must be grounded.
PublishedFinding grounded(const Finding& f, const diff::Diff& d = fixtureDiff()) {
  const GroundingResult r = ground({f}, d);
  EXPECT_THAT(r.rejected, IsEmpty()) << (r.rejected.empty() ? "" : r.rejected[0].reason);
  return r.grounded.size() == 1 ? r.grounded[0] : PublishedFinding{};
}

// A file name that is not UTF-8 reaches the model with U+FFFD for the bad byte,
// and the model names it so: the finding lands on the real file. Before, every
// finding on such a file was rejected, and a BLOCKER there could never block.
TEST(Grounding, AFileNameThatIsNotUtf8IsFoundByTheNameTheModelWasShown) {
  testing::TempRepo repo;
  repo.write("keep.txt", "x\n");
  repo.commitAll("init");
  const std::vector<std::pair<std::string, std::string>> added = {
      {"caf\xe9.py", "import os\nos.system(input())\n"}, {"a\xe9.py", "x = 1\n"}, {"a\xe8.py", "y = 2\n"}};
  for (const auto& file : added) repo.write(file.first, file.second);
  repo.commitAll("add");
  const diff::Diff d = diffOfLastCommit(repo);
  ASSERT_NE(d.findFile("caf\xe9.py"), nullptr);
  const PublishedFinding p = grounded(at("caf\xEF\xBF\xBD.py", 2), d);
  EXPECT_EQ(p.finding.file, "caf\xe9.py");
  EXPECT_EQ(p.finding.line, 2);
  // Two files that read the same to the model: neither can be told, so the finding is rejected.
  EXPECT_NE(rejection(at("a\xEF\xBF\xBD.py", 1), d).find("is not a file this diff changes"), std::string::npos);
  // As the prompt now shows them (C-quoted, each byte itself), each is found.
  EXPECT_EQ(grounded(at("\"a\\351.py\"", 1), d).finding.file, "a\xe9.py");
  EXPECT_EQ(grounded(at("\"a\\350.py\"", 1), d).finding.file, "a\xe8.py");
}

// A name git quotes (a quote, a backslash, a tab, a newline in it) is shown to
// the model quoted, as git's headers spell it, and the schema asks for the
// path "exactly as in the diff header": that spelling lands on the real file.
// Before, every such finding was rejected, and a MAJOR there never blocked.
TEST(Grounding, AQuotedFileNameIsFoundByTheSpellingTheModelWasShown) {
  testing::TempRepo repo;
  repo.write("keep.txt", "x\n");
  repo.commitAll("init");
  const std::vector<std::string> names = {"a\"b.py", "weird\tna\"me.py", "new\nline.py", "back\\slash.py",
                                          "caf\xc3\xa9 \"q\".py"};
  for (const auto& name : names) repo.write(name, "import os\nos.system(input())\n");
  repo.commitAll("add");
  const diff::Diff d = diffOfLastCommit(repo);
  const std::string prompt = diff::annotate(d);
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    const std::string shown = diff::displayPath(name);
    ASSERT_NE(shown, name) << "git quotes it";
    ASSERT_NE(prompt.find("File: " + shown + " ("), std::string::npos) << prompt;
    const PublishedFinding p = grounded(at(shown, 2), d);
    EXPECT_EQ(p.finding.file, name);
    EXPECT_EQ(p.id, grounded(at(name, 2), d).id);
    EXPECT_EQ(grounded(at("\"b/" + shown.substr(1), 2), d).finding.file, name) << "git's header form, prefix inside";
  }
  // The list of changed files a rejection gives the model spells them the same way.
  EXPECT_NE(rejection(at("nope.py", 1), d).find("changed files: \"a\\\"b.py\", "), std::string::npos)
      << rejection(at("nope.py", 1), d);
  EXPECT_THAT(rejection(at("\"a\\qb.py\"", 1), d), ::testing::HasSubstr("is not a file this diff changes"));
}

TEST(Grounding, HallucinatedLineIsRejectedWithExactReason) {
  EXPECT_EQ(rejection(at("src/PaymentService.java", 412)),
            "line 412 of 'src/PaymentService.java' is not among the lines this diff touches");
}

TEST(Grounding, AddedAndContextLinesAreGrounded) {
  for (int line : {17, 19, 20, 23, 28, 31, 32, 35}) {
    SCOPED_TRACE(line);
    const PublishedFinding p = grounded(at("src/PaymentService.java", line));
    EXPECT_EQ(p.finding.line, line);
    EXPECT_EQ(p.finding.file, "src/PaymentService.java");
    EXPECT_THAT(p.id, SizeIs(16));
    EXPECT_FALSE(p.editDroppedReason);
  }
}

TEST(Grounding, LinesOutsideTheHunksAreRejected) {
  for (int line : {1, 16, 24, 27, 36, 42}) {
    SCOPED_TRACE(line);
    EXPECT_EQ(rejection(at("src/PaymentService.java", line)),
              "line " + std::to_string(line) + " of 'src/PaymentService.java' is not among the lines this diff touches");
  }
}

TEST(Grounding, RangeRunningPastTheBlockIsClampedToIt) {
  const PublishedFinding p = grounded(at("src/PaymentService.java", 22, 26));
  EXPECT_EQ(p.finding.line, 22);
  EXPECT_EQ(p.finding.endLine, 23);
  EXPECT_EQ(p.rangeClamped,
            "the range lines 22-26 ran past the lines this diff shows (line 24 is not shown); clamped to lines 22-23");
  // Clamped to one line: endLine becomes null.
  const PublishedFinding one = grounded(at("src/PaymentService.java", 23, 30));
  EXPECT_FALSE(one.finding.endLine);
  // An edit written for the unclamped range no longer matches and is withheld.
  const PublishedFinding edited =
      grounded(withEdit(at("src/PaymentService.java", 22, 25), "  int a22 = 22;\n  int a23 = 23;\n  x\n  y", "z"));
  EXPECT_FALSE(edited.finding.edit);
  EXPECT_EQ(edited.editDroppedReason, "edit.original has 4 lines but the finding covers lines 22-23");
}

TEST(Grounding, RangeStartingOutsideIsRejected) {
  // Starting outside: the first line itself is named.
  EXPECT_EQ(rejection(at("src/PaymentService.java", 26, 29)),
            "line 26 of 'src/PaymentService.java' is not among the lines this diff touches "
            "(the finding spans lines 26-29)");
}

TEST(Grounding, RangeInsideOneHunkIsGrounded) {
  const PublishedFinding p = grounded(at("src/PaymentService.java", 28, 35));
  EXPECT_EQ(p.finding.endLine, 35);
}

TEST(Grounding, RemovedLinesAreNotRightSideLines) {
  // src/Util.java lost its old lines 9 and 10; the new file ends at 8.
  EXPECT_TRUE(ground({at("src/Util.java", 8)}, fixtureDiff()).rejected.empty());
  // The old number of a removed line: the reason names where the removed-code rule places it.
  EXPECT_EQ(rejection(at("src/Util.java", 9)),
            "line 9 of 'src/Util.java' is not among the lines this diff touches; if it is about the removed line "
            "\"u9();\" (old line 9), place it on line 8, the line the removed-code rule names");
  EXPECT_EQ(grounded(at("src/Util.java", 7, 10)).finding.endLine, 8);  // clamped to the last shown line
  EXPECT_EQ(rejection(at("src/Util.java", 9, 10)),
            "line 9 of 'src/Util.java' is not among the lines this diff touches (the finding spans lines 9-10); if it "
            "is about the removed line \"u9();\" (old line 9), place it on line 8, the line the removed-code rule names");
}

TEST(Grounding, DeletedFileCannotBeCommentedOn) {
  EXPECT_EQ(rejection(at("src/Old.java", 1)), "cannot comment on a deleted file: this diff deletes 'src/Old.java'");
}

TEST(Grounding, AddedFileLinesAreGrounded) {
  EXPECT_EQ(grounded(at("docs/new.md", 1, 3)).finding.file, "docs/new.md");
  EXPECT_EQ(rejection(at("docs/new.md", 4)), "line 4 of 'docs/new.md' is not among the lines this diff touches");
}

TEST(Grounding, UnknownFileIsRejectedListingTheChangedFiles) {
  // The deleted file is not listed: nothing in it can be commented on.
  EXPECT_EQ(rejection(at("src/X.java", 3)),
            "'src/X.java' is not a file this diff changes "
            "(changed files: docs/new.md, src/PaymentService.java, src/Util.java)");
}

TEST(Grounding, NoFuzzyPathMatching) {
  for (const char* near : {"PaymentService.java", "src/paymentservice.java", "src/PaymentService.jav",
                           "/src/PaymentService.java", "x/y/src/PaymentService.java"}) {
    SCOPED_TRACE(near);
    EXPECT_THAT(rejection(at(near, 20)), ::testing::StartsWith("'" + std::string(near) + "' is not a file"));
  }
}

TEST(Grounding, GitAndDotPrefixesAreAcceptedAndCanonicalised) {
  for (const char* spelled : {"./src/PaymentService.java", "b/src/PaymentService.java", "a/src/PaymentService.java"}) {
    SCOPED_TRACE(spelled);
    const PublishedFinding p = grounded(at(spelled, 20));
    EXPECT_EQ(p.finding.file, "src/PaymentService.java");
    // The id is computed from the canonical path, so the spelling does not matter.
    EXPECT_EQ(p.id, grounded(at("src/PaymentService.java", 20)).id);
  }
}

TEST(Grounding, BinaryFileHasNoLinesToCommentOn) {
  testing::TempRepo repo;
  repo.write("img.bin", std::string("\x89PNG\0\1\2", 7));
  repo.commitAll("base");
  repo.write("img.bin", std::string("\x89PNG\0\3\4", 7));
  repo.commitAll("binary");
  EXPECT_EQ(rejection(at("img.bin", 1), diffOfLastCommit(repo)),
            "'img.bin' is a binary file; this diff shows none of its lines");
}

TEST(Grounding, ListOfChangedFilesIsCapped) {
  testing::TempRepo repo;
  repo.write("README", "r\n");
  repo.commitAll("base");
  for (int i = 10; i < 22; ++i) repo.write("f" + std::to_string(i) + ".txt", "x\n");
  repo.commitAll("twelve files");
  EXPECT_EQ(rejection(at("g.txt", 1), diffOfLastCommit(repo)),
            "'g.txt' is not a file this diff changes (changed files: f10.txt, f11.txt, f12.txt, f13.txt, f14.txt, "
            "f15.txt, f16.txt, f17.txt, f18.txt, f19.txt and 2 more)");
}

TEST(Grounding, KeepsInputOrderAndRejectedFindingsAsSent) {
  const GroundingResult r = ground({at("a/src/PaymentService.java", 20), at("nope.txt", 1), at("docs/new.md", 2),
                                    at("./src/PaymentService.java", 25)},
                                   fixtureDiff());
  ASSERT_THAT(r.grounded, SizeIs(2));
  EXPECT_EQ(r.grounded[0].finding.file, "src/PaymentService.java");
  EXPECT_EQ(r.grounded[1].finding.file, "docs/new.md");
  ASSERT_THAT(r.rejected, SizeIs(2));
  EXPECT_EQ(r.rejected[0].finding.file, "nope.txt");
  EXPECT_EQ(r.rejected[1].finding.file, "./src/PaymentService.java");  // not rewritten
  EXPECT_EQ(r.rejected[1].finding.line, 25);
}

TEST(Grounding, NothingInNothingOut) {
  const GroundingResult r = ground({}, fixtureDiff());
  EXPECT_THAT(r.grounded, IsEmpty());
  EXPECT_THAT(r.rejected, IsEmpty());
}

TEST(GroundingEdit, KeptWhenOriginalMatchesExactly) {
  const PublishedFinding p =
      grounded(withEdit(at("src/PaymentService.java", 20), "  int a20 = compute();", "  int a20 = compute(id);"));
  ASSERT_TRUE(p.finding.edit);
  EXPECT_EQ(p.finding.edit->original, "  int a20 = compute();");
  EXPECT_EQ(p.finding.edit->replacement, "  int a20 = compute(id);");
  EXPECT_FALSE(p.editDroppedReason);
}

// A quick fix an editor may apply unshown (the preferred one) wrote what the
// model put in: a bidi override that makes code read otherwise, a NUL, an ESC.
// A character the lines already hold may stay; tabs and line breaks are text.
TEST(GroundingEdit, AReplacementAddingAnInvisibleOrControlCharacterIsNotOffered) {
  for (const auto& [replacement, code] :
       std::vector<std::pair<std::string, std::string>>{{"  int a20 = compute(/*\u202e } if (admin) { */);", "U+202E"},
                                                        {"  int a20 = compute(\x1b]52;c;eA==\x07);", "U+001B"},
                                                        {std::string("  int a20 = compute(\0);", 23), "U+0000"},
                                                        {"  int a20 = compute(id\u200b);", "U+200B"},
                                                        {"  int a20 = compute(id);\xf3\xa0\x80\x81", "U+E0001"},
                                                        {"  int \u3164 = compute(id);", "U+3164"},
                                                        {"  int a20 = compute(id);\r  evil();", "U+000D"},
                                                        {"  int \u17b4 = compute(id);", "U+17B4"},
                                                        {"  int a20 = compute(id\U000e0100);", "U+E0100"}}) {
    const PublishedFinding p = grounded(withEdit(at("src/PaymentService.java", 20), "  int a20 = compute();", replacement));
    EXPECT_FALSE(p.finding.edit) << code;
    EXPECT_EQ(p.editDroppedReason, "edit.replacement adds " + code +
                                       ", a control or invisible character the lines do not hold: applying it would "
                                       "hide it in the file, so it is not offered");
  }
  const PublishedFinding tabbed =
      grounded(withEdit(at("src/PaymentService.java", 20), "  int a20 = compute();", "  int a20 =\tcompute(id);\n  f();"));
  EXPECT_TRUE(tabbed.finding.edit) << tabbed.editDroppedReason.value_or("");
  // An emoji's variation selector is text ("⚠️" in a message).
  const PublishedFinding emoji =
      grounded(withEdit(at("src/PaymentService.java", 20), "  int a20 = compute();", "  int a20 = compute(); // \u26a0\ufe0f"));
  EXPECT_TRUE(emoji.finding.edit) << emoji.editDroppedReason.value_or("");
}

TEST(GroundingEdit, KeptOnContextLines) {
  const PublishedFinding p = grounded(withEdit(at("src/PaymentService.java", 17), "  int a17 = 17;", "  int a17 = 0;"));
  EXPECT_TRUE(p.finding.edit);
  EXPECT_FALSE(p.editDroppedReason);
}

TEST(GroundingEdit, MultiLineEditAcrossAddedAndContextLinesIsKept) {
  const PublishedFinding p = grounded(withEdit(at("src/PaymentService.java", 30, 33),
                                               "  int a30 = 30;\n  // added 1\n  // added 2\n  int a31 = 31;",
                                               "  int a30 = 30;\n  int a31 = 31;"));
  ASSERT_TRUE(p.finding.edit) << p.editDroppedReason.value_or("");
  EXPECT_EQ(p.finding.edit->replacement, "  int a30 = 30;\n  int a31 = 31;");
}

TEST(GroundingEdit, OneTrailingNewlineIsToleratedAndCanonicalised) {
  const PublishedFinding p = grounded(
      withEdit(at("src/PaymentService.java", 31, 32), "  // added 1\n  // added 2\n", "  // merged\n"));
  ASSERT_TRUE(p.finding.edit) << p.editDroppedReason.value_or("");
  EXPECT_EQ(p.finding.edit->original, "  // added 1\n  // added 2");
  EXPECT_EQ(p.finding.edit->replacement, "  // merged");
}

TEST(GroundingEdit, TwoTrailingNewlinesAreAnExtraLine) {
  const PublishedFinding p =
      grounded(withEdit(at("src/PaymentService.java", 20), "  int a20 = compute();\n\n", "  int a20 = 0;"));
  EXPECT_FALSE(p.finding.edit);
  EXPECT_EQ(p.editDroppedReason, "edit.original has 2 lines but the finding covers line 20");
}

TEST(GroundingEdit, MismatchDropsTheEditButKeepsTheFinding) {
  const PublishedFinding p =
      grounded(withEdit(at("src/PaymentService.java", 20), "  int a20 = compute( );", "  int a20 = compute(id);"));
  EXPECT_EQ(p.finding.line, 20);
  EXPECT_FALSE(p.finding.edit);
  EXPECT_EQ(p.editDroppedReason,
            "edit.original does not match line 20: expected \"  int a20 = compute();\", got \"  int a20 = compute( );\"");
}

TEST(GroundingEdit, LostIndentationIsRestoredOnTheReplacement) {
  const PublishedFinding p =
      grounded(withEdit(at("src/PaymentService.java", 20), "int a20 = compute();", "int a20 = compute(id);"));
  ASSERT_TRUE(p.finding.edit) << p.editDroppedReason.value_or("");
  EXPECT_EQ(p.finding.edit->original, "  int a20 = compute();");
  EXPECT_EQ(p.finding.edit->replacement, "  int a20 = compute(id);");
  // Relative indentation inside the replacement is kept; blank lines stay blank.
  const PublishedFinding multi = grounded(withEdit(at("src/PaymentService.java", 30, 31), "int a30 = 30;\n// added 1",
                                                   "if (ok) {\n  int a30 = 30;\n}\n\n// added 1"));
  ASSERT_TRUE(multi.finding.edit) << multi.editDroppedReason.value_or("");
  EXPECT_EQ(multi.finding.edit->replacement, "  if (ok) {\n    int a30 = 30;\n  }\n\n  // added 1");
}

TEST(GroundingEdit, OtherWhitespaceDifferencesAreMismatches) {
  const PublishedFinding p = grounded(withEdit(at("src/PaymentService.java", 20), "  int a20 = compute( );", "x"));
  EXPECT_EQ(p.editDroppedReason,
            "edit.original does not match line 20: expected \"  int a20 = compute();\", got \"  int a20 = compute( );\"");
}

TEST(GroundingEdit, AUniqueRunInsideTheRangeIsKeptWithTheOtherLinesUnchanged) {
  const PublishedFinding p =
      grounded(withEdit(at("src/PaymentService.java", 30, 32), "// added 1", "// first"));
  ASSERT_TRUE(p.finding.edit) << p.editDroppedReason.value_or("");
  EXPECT_EQ(p.finding.edit->original, "  int a30 = 30;\n  // added 1\n  // added 2");
  EXPECT_EQ(p.finding.edit->replacement, "  int a30 = 30;\n  // first\n  // added 2");
}

TEST(GroundingEdit, MultiLineMismatchNamesTheFirstDifferingLine) {
  const PublishedFinding p = grounded(
      withEdit(at("src/PaymentService.java", 30, 32), "  int a30 = 30;\n  // added 1\n  // added two", "x"));
  EXPECT_EQ(p.editDroppedReason,
            "edit.original does not match line 32: expected \"  // added 2\", got \"  // added two\"");
}

TEST(GroundingEdit, OriginalSpanningMoreOrFewerLinesThanTheFindingIsDropped) {
  // A single-line finding whose original continues onto the next line.
  PublishedFinding p =
      grounded(withEdit(at("src/PaymentService.java", 31), "  // added 1\n  // added 2", "  // added"));
  EXPECT_FALSE(p.finding.edit);
  EXPECT_EQ(p.editDroppedReason, "edit.original has 2 lines but the finding covers line 31");

  // Fewer lines than the range: kept when they are a unique run inside it.
  p = grounded(withEdit(at("src/PaymentService.java", 31, 33), "  // added 1\n  // added 2", "  // added"));
  ASSERT_TRUE(p.finding.edit) << p.editDroppedReason.value_or("");
  EXPECT_EQ(p.finding.edit->replacement, "  // added\n  int a31 = 31;");
}

TEST(GroundingEdit, ReplacementEqualToTheCurrentTextIsDropped) {
  const PublishedFinding p =
      grounded(withEdit(at("src/PaymentService.java", 20), "  int a20 = compute();\n", "  int a20 = compute();"));
  EXPECT_FALSE(p.finding.edit);
  EXPECT_EQ(p.editDroppedReason, "edit.replacement is identical to the current text of line 20");
}

TEST(GroundingEdit, LongValuesInTheReasonAreCutOnACharacterBoundary) {
  testing::TempRepo repo;
  repo.write("t.txt", "a\n");
  repo.commitAll("base");
  // 79 ASCII bytes, then "é" (2 bytes) straddling the 80-byte cut.
  const std::string line = std::string(79, 'x') + "é and more";
  repo.write("t.txt", line + "\n");
  repo.commitAll("long");
  const diff::Diff d = diffOfLastCommit(repo);
  const PublishedFinding p = grounded(withEdit(at("t.txt", 1), "short", "y"), d);
  EXPECT_EQ(p.editDroppedReason,
            "edit.original does not match line 1: expected \"" + std::string(79, 'x') + "…\", got \"short\"");
}

TEST(GroundingEdit, QuotesAndTabsAreEscapedInTheReason) {
  testing::TempRepo repo;
  repo.write("t.txt", "a\n");
  repo.commitAll("base");
  repo.write("t.txt", "\tsay(\"hi\");\n");
  repo.commitAll("quoted");
  const PublishedFinding p = grounded(withEdit(at("t.txt", 1), "\tsay('hi');", "y"), diffOfLastCommit(repo));
  EXPECT_EQ(p.editDroppedReason, R"(edit.original does not match line 1: expected "\tsay(\"hi\");", got "\tsay('hi');")");
}

TEST(GroundingEdit, CrLfLineEndingsAreNotPartOfTheText) {
  testing::TempRepo repo;
  repo.write("win.txt", "one\r\ntwo\r\nthree\r\n");
  repo.commitAll("base");
  repo.write("win.txt", "one\r\nTWO\r\nthree\r\n");
  repo.commitAll("crlf");
  const diff::Diff d = diffOfLastCommit(repo);

  for (const char* original : {"TWO", "TWO\r", "TWO\r\n", "TWO\n"}) {
    SCOPED_TRACE(::testing::PrintToString(std::string(original)));
    const PublishedFinding p = grounded(withEdit(at("win.txt", 2), original, "two"), d);
    ASSERT_TRUE(p.finding.edit) << p.editDroppedReason.value_or("");
    EXPECT_EQ(p.finding.edit->original, "TWO");
  }
  const PublishedFinding multi = grounded(withEdit(at("win.txt", 1, 3), "one\r\nTWO\r\nthree", "x"), d);
  ASSERT_TRUE(multi.finding.edit) << multi.editDroppedReason.value_or("");
  EXPECT_EQ(multi.finding.edit->original, "one\nTWO\nthree");

  const PublishedFinding wrong = grounded(withEdit(at("win.txt", 2), "two", "x"), d);
  EXPECT_EQ(wrong.editDroppedReason, "edit.original does not match line 2: expected \"TWO\", got \"two\"");
}

}  // namespace
}  // namespace revline::review
