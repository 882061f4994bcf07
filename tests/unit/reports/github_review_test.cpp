#include "core/reports/github_review.h"
#include "core/reports/github_history.h"

#include <gtest/gtest.h>

#include "tests/unit/reports/report_fixtures.h"

namespace revline::reports {
namespace {
using namespace testing;

// Every comment must sit on RIGHT-side lines of one hunk, or GitHub rejects the whole review.
void expectPlaceable(const json& payload, const diff::Diff& d) {
  for (const auto& c : payload["comments"]) {
    const diff::FileDiff* file = d.findFile(c["path"].get<std::string>());
    ASSERT_NE(file, nullptr) << c.dump();
    ASSERT_TRUE(file->newPath.has_value());
    EXPECT_EQ(c["side"], "RIGHT");
    const int line = c["line"];
    EXPECT_TRUE(file->isRightSideLine(line)) << c.dump();
    if (c.contains("start_line")) {
      EXPECT_EQ(c["start_side"], "RIGHT");
      const int start = c["start_line"];
      EXPECT_LT(start, line);
      bool sameHunk = false;
      for (const auto& h : file->hunks) {
        bool hasStart = false, hasEnd = false;
        for (const auto& l : h.lines) {
          if (l.kind == diff::LineKind::Removed) continue;
          hasStart = hasStart || l.newLine == start;
          hasEnd = hasEnd || l.newLine == line;
        }
        sameHunk = sameHunk || (hasStart && hasEnd);
      }
      EXPECT_TRUE(sameHunk) << c.dump();
    }
  }
}

std::vector<std::string> keys(const json& o) {
  std::vector<std::string> k;
  for (auto it = o.begin(); it != o.end(); ++it) k.push_back(it.key());
  return k;
}

TEST(GithubReview, PlacesCommentsOnlyOnRightSideLines) {
  const diff::Diff d = sampleDiff();
  auto o = outcome(Verdict::RequestChanges);
  o.findings.push_back(published(finding("src/Pay.java", 11, Severity::Major, Category::Correctness, "added line"), "a"));
  o.findings.push_back(published(finding("src/Pay.java", 10, Severity::Major, Category::Correctness, "range in hunk", 12), "b"));
  o.findings.push_back(published(finding("src/Pay.java", 15, Severity::Minor, Category::Correctness, "range across hunks", 41), "c"));
  o.findings.push_back(published(finding("src/Pay.java", 30, Severity::Blocker, Category::Security, "between hunks"), "d"));
  o.findings.push_back(published(finding("src/Old.java", 1, Severity::Blocker, Category::Security, "deleted file"), "e"));
  o.findings.push_back(published(finding("src/Pay.java", 412, Severity::Major, Category::Security, "far away"), "f"));
  o.findings.push_back(published(finding("docs/café notes.md", 2, Severity::Major, Category::Security, "unicode"), "g"));
  o.findings.push_back(published(finding("src/Missing.java", 3, Severity::Major, Category::Security, "not in diff"), "h"));
  o.findings.push_back(published(finding("./src/Pay.java", 41, Severity::Nit, Category::Style, "dot slash"), "i"));

  const GithubReview review = buildGithubReview(o, d);
  const json payload = review.toJson();
  expectPlaceable(payload, d);
  EXPECT_EQ(payload["event"], "REQUEST_CHANGES");
  EXPECT_EQ(keys(payload), (std::vector<std::string>{"body", "comments", "event"}));

  std::map<std::string, json> byTitle;
  for (const auto& c : payload["comments"]) {
    for (const char* t : {"added line", "range in hunk", "range across hunks", "unicode", "dot slash"}) {
      if (c["body"].get<std::string>().find(std::string("· ") + t + "\n") != std::string::npos) byTitle[t] = c;
    }
  }
  ASSERT_EQ(payload["comments"].size(), 5u) << payload.dump(2);
  ASSERT_EQ(byTitle.size(), 5u) << payload.dump(2);
  EXPECT_EQ(keys(byTitle["added line"]), (std::vector<std::string>{"body", "line", "path", "side"}));
  EXPECT_EQ(byTitle["added line"]["line"], 11);
  EXPECT_EQ(byTitle["range in hunk"]["start_line"], 10);
  EXPECT_EQ(byTitle["range in hunk"]["line"], 12);
  EXPECT_EQ(byTitle["range across hunks"]["line"], 15);  // one line, inside the diff
  EXPECT_FALSE(byTitle["range across hunks"].contains("start_line"));
  EXPECT_EQ(byTitle["unicode"]["path"], "docs/café notes.md");
  EXPECT_EQ(byTitle["dot slash"]["path"], "src/Pay.java");

  // Everything that cannot be placed is in the body.
  EXPECT_EQ(review.listedInBody, 4u);
  const std::string body = payload["body"];
  for (const char* t : {"between hunks", "deleted file", "far away", "not in diff"}) {
    EXPECT_NE(body.find(t), std::string::npos) << t << "\n" << body;
  }
  EXPECT_NE(body.find("`src/Pay.java:412` (not on a line of this diff)"), std::string::npos) << body;
  EXPECT_NE(body.find("Adds a payment check."), std::string::npos);
}

TEST(GithubReview, CapsInlineCommentsMostSevereFirstAndListsTheRest) {
  const diff::Diff d = sampleDiff();
  auto o = outcome(Verdict::Comment);
  const int rightLines[] = {10, 11, 12, 13, 14, 15, 16, 40, 41, 42};
  const Severity order[] = {Severity::Nit, Severity::Minor, Severity::Major, Severity::Blocker};
  for (int i = 0; i < 13; ++i) {
    auto f = finding("src/Pay.java", rightLines[i % 10], order[i % 4], Category::Maintainability, "finding " + std::to_string(i));
    f.confidence = 0.5 + i / 100.0;
    o.findings.push_back(published(f, "id" + std::to_string(i)));
  }
  const GithubReview review = buildGithubReview(o, d);
  ASSERT_EQ(review.comments.size(), 10u);
  EXPECT_EQ(review.listedInBody, 3u);
  // Inline: all 3 BLOCKER, 3 MAJOR, 3 MINOR (i=1,5,9), and the most confident NIT (i=12).
  // Listed: the other NITs (i=0,4,8).
  for (const int i : {0, 4, 8}) {
    const std::string title = "finding " + std::to_string(i);
    EXPECT_NE(review.body.find("· " + title + " —"), std::string::npos) << review.body;
    for (const auto& c : review.comments) EXPECT_EQ(c.body.find("· " + title + "\n"), std::string::npos);
  }
  EXPECT_NE(review.body.find("**Findings not shown inline** (3)"), std::string::npos) << review.body;
  // Order: most severe first, then most confident.
  EXPECT_NE(review.comments[0].body.find("**BLOCKER**"), std::string::npos);
  EXPECT_NE(review.comments[0].body.find("finding 11"), std::string::npos);
  EXPECT_NE(review.comments[9].body.find("**NIT**"), std::string::npos);
  EXPECT_NE(review.comments[9].body.find("finding 12"), std::string::npos);

  GithubReviewOptions three;
  three.maxInlineComments = 3;
  EXPECT_EQ(buildGithubReview(o, d, three).comments.size(), 3u);
  EXPECT_EQ(buildGithubReview(o, d, three).listedInBody, 10u);
}

TEST(GithubReview, RemovesDuplicates) {
  const diff::Diff d = sampleDiff();
  auto o = outcome(Verdict::Comment);
  auto f = finding("src/Pay.java", 11, Severity::Major, Category::Correctness, "Same problem");
  o.findings.push_back(published(f, "same-id"));
  o.findings.push_back(published(f, "same-id"));                                // same id
  o.findings.push_back(published(f, "other-id"));                               // same file, line, title
  auto moved = finding("./src/Pay.java", 11, Severity::Major, Category::Correctness, "Same problem");
  o.findings.push_back(published(moved, "third-id"));                           // same after normalisation
  o.findings.push_back(published(finding("src/Pay.java", 11, Severity::Minor, Category::Style, "Another"), "x"));
  const GithubReview review = buildGithubReview(o, d);
  EXPECT_EQ(review.comments.size(), 2u);
  EXPECT_EQ(review.duplicatesDropped, 3u);
  // The count is of what the review shows, severities included.
  EXPECT_NE(review.body.find("2 findings (1 MAJOR, 1 MINOR). 2 are inline comments."), std::string::npos)
      << review.body;
}

// An id leaves the line out (a carried-over finding follows its code), so the
// same statement added in two places shares one id: still two findings.
TEST(GithubReview, KeepsFindingsThatShareAnIdOnDifferentLines) {
  const diff::Diff d = sampleDiff();
  auto o = outcome(Verdict::Comment);
  o.findings.push_back(published(finding("src/Pay.java", 11, Severity::Minor, Category::Correctness, "Unchecked"), "same-id"));
  o.findings.push_back(published(finding("src/Pay.java", 41, Severity::Minor, Category::Correctness, "Unchecked"), "same-id"));
  const GithubReview review = buildGithubReview(o, d);
  ASSERT_EQ(review.comments.size(), 2u);
  EXPECT_EQ(review.comments[0].line, 11);
  EXPECT_EQ(review.comments[1].line, 41);
  EXPECT_EQ(review.duplicatesDropped, 0u);
  EXPECT_NE(review.body.find("2 findings (2 MINOR). 2 are inline comments."), std::string::npos) << review.body;
}

// The same problem added at a second place after the first was commented on
// (one id, since an id leaves the line out): the new place gets its comment.
// Before, the id alone said "commented on before", and nothing was posted.
TEST(GithubReview, AnIdSaidBeforeAtOnePlaceIsNewAtAnother) {
  const diff::Diff d = sampleDiff();
  auto o = outcome(Verdict::Comment);
  o.findings.push_back(published(finding("src/Pay.java", 11, Severity::Minor, Category::Correctness, "Unchecked"), "same-id"));
  o.findings.push_back(published(finding("src/Pay.java", 41, Severity::Minor, Category::Correctness, "Unchecked"), "same-id"));
  GithubReviewOptions options;
  options.saidBefore = {"same-id"};
  options.timesSaidBefore = {{"same-id", 1}};
  options.commentedAt = {{"src/Pay.java", 11, "CORRECTNESS"}};
  const GithubReview review = buildGithubReview(o, d, options);
  ASSERT_EQ(review.comments.size(), 1u);
  EXPECT_EQ(review.comments[0].line, 41);
  EXPECT_EQ(review.newFindings, 1u);
  // Where the first comment is no longer placed (its line moved), one of the two is still the old one.
  options.commentedAt.clear();
  EXPECT_EQ(buildGithubReview(o, d, options).newFindings, 1u);
  // Said at both places before: nothing new.
  options.timesSaidBefore = {{"same-id", 2}};
  EXPECT_EQ(buildGithubReview(o, d, options).newFindings, 0u);
}

TEST(GithubReview, RendersEditsAsSuggestions) {
  const diff::Diff d = sampleDiff();
  auto o = outcome(Verdict::Comment);
  auto single = finding("src/Pay.java", 11, Severity::Major, Category::Correctness, "identity");
  single.confidence = 0.82;
  single.explanation = "Compares references.";
  single.suggestedFix = "Use equals.";
  single.edit = contract::Edit{"  if (x != \"NGN\") {", "  if (!\"NGN\".equals(x)) {"};
  o.findings.push_back(published(single, "0123456789abcdef"));

  const GithubReview review = buildGithubReview(o, d);
  ASSERT_EQ(review.comments.size(), 1u);
  EXPECT_EQ(review.comments[0].body,
            "<!-- revline:finding:0123456789abcdef -->\n"
            "**MAJOR** · CORRECTNESS · identity\n\n"
            "Compares references.\n\n"
            "**Suggested fix:** Use equals.\n\n"
            "```suggestion\n"
            "  if (!\"NGN\".equals(x)) {\n"
            "```\n\n"
            "<sub>revline · confidence 0.82 · id `0123456789abcdef`</sub>");
}

TEST(GithubReview, SuggestionFencesAndRanges) {
  const diff::Diff d = sampleDiff();
  auto o = outcome(Verdict::Comment);
  auto multi = finding("src/Pay.java", 11, Severity::Major, Category::Correctness, "multi", 13);
  multi.edit = contract::Edit{"  if (x != \"NGN\") {\n    throw new E();\n  }", "  // ```code```\n  check(x);"};
  o.findings.push_back(published(multi, "m"));
  auto deletion = finding("src/Pay.java", 41, Severity::Minor, Category::Maintainability, "delete");
  deletion.edit = contract::Edit{"  int g;", ""};
  o.findings.push_back(published(deletion, "d"));
  auto across = finding("src/Pay.java", 16, Severity::Nit, Category::Style, "across", 40);
  across.edit = contract::Edit{"lots", "less"};
  o.findings.push_back(published(across, "a"));

  const GithubReview review = buildGithubReview(o, d);
  ASSERT_EQ(review.comments.size(), 3u);
  EXPECT_EQ(review.comments[0].startLine, 11);
  EXPECT_EQ(review.comments[0].line, 13);
  EXPECT_NE(review.comments[0].body.find("````suggestion\n  // ```code```\n  check(x);\n````\n"), std::string::npos)
      << review.comments[0].body;
  EXPECT_NE(review.comments[1].body.find("```suggestion\n```\n"), std::string::npos) << review.comments[1].body;
  // A range that leaves its hunk is commented on its first line; its edit is
  // shown as a diff, never as a suggestion (that would replace only line 16).
  EXPECT_EQ(review.comments[2].line, 16);
  EXPECT_FALSE(review.comments[2].startLine.has_value());
  EXPECT_EQ(review.comments[2].body.find("suggestion"), std::string::npos);
  EXPECT_NE(review.comments[2].body.find("```diff\n-lots\n+less\n```"), std::string::npos) << review.comments[2].body;
}

TEST(GithubReview, BodyStatesWhatTheReviewSpent) {
  const diff::Diff d = sampleDiff();
  auto o = outcome(Verdict::Comment);
  o.usage = {.inputTokens = 5000, .outputTokens = 400, .cachedInputTokens = 3000, .requests = 3, .toolCalls = 2,
             .toolCallBudget = 5};
  std::string body = buildGithubReview(o, d).body;
  EXPECT_NE(body.find("Usage: 3 model requests, 5000 input tokens (3000 cached), 400 output tokens, 2 of 5 tool calls.\n"),
            std::string::npos)
      << body;
  EXPECT_EQ(body.find("cost"), std::string::npos);
  o.prices = {.input = 1.0, .output = 10.0};
  body = buildGithubReview(o, d).body;
  EXPECT_NE(body.find("; cost 0.0090 at the configured prices (input 0.0050, output 0.0040)."), std::string::npos) << body;
}

// A blocking finding no line of the diff can take (a problem in a deleted file):
// the body says what it is, and the review is posted (before: only a count, and
// "nothing posted" when nothing else was found).
TEST(GithubReview, ABlockingFindingThatCouldNotBePlacedIsSaid) {
  const diff::Diff d = sampleDiff();
  auto o = outcome(Verdict::Comment);
  o.rejected.push_back({finding("gone.py", 1, Severity::Blocker, Category::Correctness, "gone() is deleted but still called"),
                        "'gone.py' is not a file this diff changes", 0, true});
  o.rejected.push_back({finding("x.py", 9, Severity::Minor, Category::Style, "minor one"), "elsewhere", 1});
  o.unplacedBlocking = 1;
  const GithubReview review = buildGithubReview(o, d);
  EXPECT_NE(review.body.find("gone() is deleted but still called"), std::string::npos) << review.body;
  EXPECT_NE(review.body.find("`gone.py:1`: 'gone.py' is not a file this diff changes"), std::string::npos) << review.body;
  EXPECT_EQ(review.body.find("minor one"), std::string::npos) << review.body;
  EXPECT_TRUE(worthPosting(review));
}

TEST(GithubReview, EventFollowsThePolicy) {
  const diff::Diff d = sampleDiff();
  EXPECT_EQ(buildGithubReview(outcome(Verdict::RequestChanges), d).event, "REQUEST_CHANGES");
  EXPECT_EQ(buildGithubReview(outcome(Verdict::Comment), d).event, "COMMENT");
  EXPECT_EQ(buildGithubReview(outcome(Verdict::Approve), d).event, "COMMENT");
  GithubReviewOptions approve;
  approve.approveAllowed = true;
  EXPECT_EQ(buildGithubReview(outcome(Verdict::Approve), d, approve).event, "APPROVE");
  EXPECT_EQ(buildGithubReview(outcome(Verdict::Comment), d, approve).event, "COMMENT");
}

TEST(GithubReview, WorthPostingOnlyWhenSomethingIsSaid) {
  const diff::Diff d = sampleDiff();
  EXPECT_FALSE(worthPosting(buildGithubReview(outcome(Verdict::Comment), d)));
  EXPECT_FALSE(worthPosting(buildGithubReview(outcome(Verdict::Approve), d)));
  EXPECT_TRUE(worthPosting(buildGithubReview(outcome(Verdict::RequestChanges), d)));
  auto bodyOnly = outcome(Verdict::Comment);
  bodyOnly.findings.push_back(published(finding("src/Pay.java", 30, Severity::Minor, Category::Style, "x"), "x"));
  EXPECT_TRUE(worthPosting(buildGithubReview(bodyOnly, d)));
  GithubReviewOptions approve;
  approve.approveAllowed = true;
  EXPECT_TRUE(worthPosting(buildGithubReview(outcome(Verdict::Approve), d, approve)));
}

TEST(GithubReview, KeepsBodiesUnderTheLimit) {
  const diff::Diff d = sampleDiff();
  auto o = outcome(Verdict::Comment);
  auto huge = finding("src/Pay.java", 11, Severity::Major, Category::Correctness, "huge");
  huge.explanation.clear();
  for (int i = 0; i < 50000; ++i) huge.explanation += "é";  // 100000 bytes
  huge.edit = contract::Edit{"x", std::string(80000, 'y')};
  o.findings.push_back(published(huge, "h"));
  for (int i = 0; i < 2000; ++i) {
    auto f = finding("src/Pay.java", 1000 + i, Severity::Minor, Category::Style, "off diff " + std::to_string(i));
    o.findings.push_back(published(f, "o" + std::to_string(i)));
  }
  const GithubReview review = buildGithubReview(o, d);
  ASSERT_EQ(review.comments.size(), 1u);
  EXPECT_LE(review.comments[0].body.size(), 60000u);
  EXPECT_NE(review.comments[0].body.find("too long to show"), std::string::npos);
  EXPECT_NE(review.comments[0].body.find("<sub>revline"), std::string::npos);  // the footer survives
  EXPECT_LE(review.body.size(), 60000u);
  EXPECT_NE(review.body.find("more."), std::string::npos);
  EXPECT_NE(review.body.find("<sub>revline"), std::string::npos);
  // Still valid UTF-8 (nlohmann throws on invalid UTF-8 when dumping).
  EXPECT_NO_THROW(review.toJson().dump());
}

// The findings a body's cap leaves out ("…and N more") are in its marker too: a
// run again on the same head finds nothing new and posts nothing. Before, each
// run posted a new review with the next findings that fitted.
TEST(GithubReview, FindingsTheBodyCapLeavesOutAreNotNewNextTime) {
  const diff::Diff d = sampleDiff();
  auto o = outcome(Verdict::Comment);
  for (int i = 0; i < 300; ++i) {
    auto f = finding("src/Pay.java", 1000 + i, Severity::Minor, Category::Style, "off diff " + std::to_string(i));
    f.explanation = std::string(400, 'w');
    o.findings.push_back(published(f, "id" + std::to_string(i)));
  }
  const GithubReview first = buildGithubReview(o, d);
  ASSERT_NE(first.body.find("more.\n"), std::string::npos) << "the cap must leave some out for this test";
  EXPECT_LE(first.body.size(), 60000u);
  const PostedBefore before = readPostedBefore(
      json::array({{{"id", 1}, {"user", {{"login", "bot"}}}, {"state", "COMMENTED"}, {"body", first.body},
                    {"commit_id", "abc"}}}).dump(),
      "[]", "bot");
  EXPECT_EQ(before.findingIds.size(), 300u);
  GithubReviewOptions again;
  again.saidBefore = before.findingIds;
  const GithubReview second = buildGithubReview(o, d, again);
  EXPECT_EQ(second.newFindings, 0u);
  EXPECT_TRUE(repeatsLatestReview(second, before));
}

// A long summary (a verbose model, a split review's many) is cut, not what
// follows it: before, a 60 KB summary pushed the counts, coverage, usage and
// footer out of the body.
TEST(GithubReview, ALongSummaryIsCutNotWhatFollowsIt) {
  const diff::Diff d = sampleDiff();
  auto o = outcome(Verdict::Comment);
  o.summary = std::string(70000, 'S');
  o.coverage.filesTotal = o.coverage.filesReviewed = 1;
  o.coverage.linesTotal = o.coverage.linesReviewed = 3;
  const GithubReview review = buildGithubReview(o, d);
  EXPECT_LE(review.body.size(), 60000u);
  EXPECT_LE(review.body.find('S'), 100u);
  EXPECT_NE(review.body.find("S…"), std::string::npos) << "the cut is shown";
  EXPECT_NE(review.body.find("Reviewed 1 of 1 file"), std::string::npos) << review.body.substr(review.body.size() - 500);
  EXPECT_NE(review.body.find("<sub>revline"), std::string::npos);
  // The sentence on findings past max_findings ends the summary: kept whole when
  // the model's part is cut (the counts say "50 findings" of 103).
  o.findingsOverCap = 53;
  review::notePublicationCap(o.summary, 53, review::PolicyConfig{});
  const GithubReview capped = buildGithubReview(o, d);
  EXPECT_LE(capped.body.size(), 60000u);
  EXPECT_NE(capped.body.find("S… Not shown: 53 more findings, past the max_findings cap of 50"), std::string::npos)
      << capped.body.substr(0, 200);
}

// The model's words (and the file names it repeats) are attacker-influenced: in
// the posted review they must not hide what revline says after them (an open
// HTML comment, an open fence), fold it away (<details>), fake a heading, or
// notify users and teams (@mentions) under the poster's name.
TEST(GithubReview, ModelTextCannotHideTheReviewOrNotifyAnyone) {
  const diff::Diff d = sampleDiff();
  auto o = outcome(Verdict::Comment);
  o.summary = "Looks good. <!-- everything after this is hidden";
  o.coverage.filesTotal = 2;
  o.coverage.filesReviewed = 1;
  o.coverage.filesSkipped.push_back({"dist/<!--x`.js", "over the request token budget", 3, true});
  auto inline_ = finding("src/Pay.java", 11, Severity::Major, Category::Security, "Bad\n### revline: approved");
  inline_.explanation = "cc @octocat @acme/security-team\n<details><summary>ok</summary>\n```\nunclosed fence";
  inline_.suggestedFix = "see ```\n<!-- hide the footer";
  o.findings.push_back(published(inline_, "aaaa"));
  auto listed = finding("src/Pay.java", 30, Severity::Minor, Category::Style, "Off <!-- diff");
  listed.explanation = "<!--";
  listed.suggestedFix = "@Override it";
  o.findings.push_back(published(listed, "bbbb"));

  const GithubReview review = buildGithubReview(o, d);
  ASSERT_EQ(review.comments.size(), 1u);
  const std::string& comment = review.comments[0].body;
  EXPECT_EQ(comment.find("<!--", 1), std::string::npos) << comment;  // only revline's own marker, first
  EXPECT_EQ(comment.find("<details>"), std::string::npos) << comment;
  EXPECT_NE(comment.find("Bad ### revline: approved"), std::string::npos) << comment;  // one line, no heading
  EXPECT_NE(comment.find("cc @&#8203;octocat @&#8203;acme/security-team\n&lt;details>"), std::string::npos) << comment;
  EXPECT_NE(comment.find("```\nunclosed fence\n```\n\n**Suggested fix:** see \\`\\`\\`\n&lt;!-- hide the footer"),
            std::string::npos)
      << comment;
  const std::string& body = review.body;
  // "<!-- revline:review -->", then only inside a code span that no backtick of the name ends.
  EXPECT_EQ(body.find("<!--", 1), body.find("- ``dist/<!--x`.js``: over the request token budget") + 9) << body;
  EXPECT_NE(body.find("Looks good. &lt;!-- everything"), std::string::npos) << body;
  EXPECT_NE(body.find("Off &lt;!-- diff"), std::string::npos) << body;
  EXPECT_NE(body.find("Suggested fix: @&#8203;Override it"), std::string::npos) << body;
  EXPECT_NE(body.find("Part of the change was not reviewed"), std::string::npos) << body;
  EXPECT_NE(body.find("<sub>revline"), std::string::npos) << body;
}

// A file name is bytes; a pull request may add one that is not UTF-8 (Latin-1).
// The review is JSON: posting it threw "invalid UTF-8 byte" and nothing was
// posted. Now the payload is UTF-8, and a finding on such a file is listed.
TEST(GithubReview, FileNamesThatAreNotUtf8StillPost) {
  const diff::Diff d = diff::parse(
      "diff --git \"a/caf\\351.c\" \"b/caf\\351.c\"\nnew file mode 100644\nindex 0000000..3333333\n--- /dev/null\n"
      "+++ \"b/caf\\351.c\"\n@@ -0,0 +1,2 @@\n+int a;\n+int b;\n");
  auto o = outcome(Verdict::RequestChanges);
  o.findings.push_back(published(finding("caf\xe9.c", 1, Severity::Major, Category::Correctness, "on it"), "a"));
  o.coverage.filesTotal = 2;
  o.coverage.filesReviewed = 1;
  o.coverage.filesSkipped.push_back({"lib\xe9/Cargo.lock", "lock file", 1});
  const GithubReview review = buildGithubReview(o, d);
  EXPECT_TRUE(review.comments.empty());
  std::string posted;
  ASSERT_NO_THROW(posted = review.toJson().dump());
  EXPECT_NE(review.body.find("`caf\xef\xbf\xbd.c:1` (its file name is not UTF-8, which GitHub cannot take a comment on)"),
            std::string::npos)
      << review.body;
  EXPECT_NE(review.body.find("excluded: lib\xef\xbf\xbd/Cargo.lock"), std::string::npos) << review.body;
}

TEST(GithubReview, CommitIdWhenKnown) {
  const diff::Diff d = sampleDiff();
  EXPECT_EQ(buildGithubReview(outcome(), d).toJson("abc123")["commit_id"], "abc123");
  GithubReviewOptions options;
  options.commitId = "def456";
  EXPECT_EQ(renderGithubReview(outcome(), d, options)["commit_id"], "def456");
  EXPECT_FALSE(renderGithubReview(outcome(), d)["commit_id"].is_string());
}

TEST(GithubReview, TruncateUtf8KeepsCharactersWhole) {
  EXPECT_EQ(truncateUtf8("hello", 10), "hello");
  EXPECT_EQ(truncateUtf8("hello world", 8), "hello…");
  EXPECT_EQ(truncateUtf8("ééééé", 7), "éé…");  // 4 bytes of "éé" + 3 of "…"
  EXPECT_EQ(truncateUtf8("ééééé", 6), "é…");
}

}  // namespace
}  // namespace revline::reports
