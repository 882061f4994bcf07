// Policy: the verdict table with its configurable knobs, and the publication
// filters (trim, drop, cap, dedupe, order).
#include "core/review/policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/review/pipeline.h"

namespace revline::review {
namespace {

using contract::Category;
using contract::Severity;
using contract::Verdict;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr Category kAllCategories[] = {Category::Correctness, Category::Security,        Category::Concurrency,
                                       Category::DataLoss,    Category::Performance,     Category::Maintainability,
                                       Category::Style,       Category::Testing};
constexpr Severity kAllSeverities[] = {Severity::Blocker, Severity::Major, Severity::Minor, Severity::Nit};

PublishedFinding make(Severity severity, Category category, double confidence, std::string file = "src/A.java",
                      std::int64_t line = 1, std::string title = "Problem") {
  PublishedFinding p;
  p.finding.file = std::move(file);
  p.finding.line = line;
  p.finding.severity = severity;
  p.finding.category = category;
  p.finding.confidence = confidence;
  p.finding.title = std::move(title);
  p.finding.explanation = "Because.";
  p.id = "0123456789abcdef";
  return p;
}

Verdict verdictOf(const PublishedFinding& p, const PolicyConfig& policy = {}) { return decideVerdict({p}, policy); }

// --- decideVerdict ---------------------------------------------------------

TEST(DecideVerdict, NoFindingsApproves) { EXPECT_EQ(decideVerdict({}, PolicyConfig{}), Verdict::Approve); }

TEST(DecideVerdict, DefaultTableAcrossCategoriesSeveritiesAndTheConfidenceBoundary) {
  const std::set<Category> blocking{Category::Correctness, Category::Security, Category::Concurrency,
                                    Category::DataLoss};
  for (Category c : kAllCategories) {
    for (Severity s : kAllSeverities) {
      for (double confidence : {0.0, 0.59, 0.6, 0.61, 1.0}) {
        SCOPED_TRACE(::testing::Message() << "category " << static_cast<int>(c) << " severity "
                                          << static_cast<int>(s) << " confidence " << confidence);
        const bool blocks = blocking.count(c) && (s == Severity::Blocker || s == Severity::Major) && confidence >= 0.6;
        EXPECT_EQ(verdictOf(make(s, c, confidence)), blocks ? Verdict::RequestChanges : Verdict::Comment);
      }
    }
  }
}

TEST(DecideVerdict, ExactlyTheThresholdBlocksJustBelowDoesNot) {
  EXPECT_EQ(verdictOf(make(Severity::Major, Category::Security, 0.6)), Verdict::RequestChanges);
  EXPECT_EQ(verdictOf(make(Severity::Major, Category::Security, 0.5999999)), Verdict::Comment);
}

TEST(DecideVerdict, OneBlockingFindingAmongOthersRequestsChanges) {
  const std::vector<PublishedFinding> findings{make(Severity::Nit, Category::Style, 1.0),
                                               make(Severity::Blocker, Category::DataLoss, 0.7),
                                               make(Severity::Major, Category::Security, 0.3)};
  EXPECT_EQ(decideVerdict(findings, PolicyConfig{}), Verdict::RequestChanges);
  EXPECT_EQ(decideVerdict({findings[0], findings[2]}, PolicyConfig{}), Verdict::Comment);
}

TEST(DecideVerdict, BlockingSeverityKnob) {
  PolicyConfig onlyBlockers;
  onlyBlockers.blockingSeverity = Severity::Blocker;
  EXPECT_EQ(verdictOf(make(Severity::Major, Category::Correctness, 0.9), onlyBlockers), Verdict::Comment);
  EXPECT_EQ(verdictOf(make(Severity::Blocker, Category::Correctness, 0.9), onlyBlockers), Verdict::RequestChanges);

  PolicyConfig minor;
  minor.blockingSeverity = Severity::Minor;
  EXPECT_EQ(verdictOf(make(Severity::Minor, Category::Correctness, 0.9), minor), Verdict::RequestChanges);
  EXPECT_EQ(verdictOf(make(Severity::Nit, Category::Correctness, 0.9), minor), Verdict::Comment);

  PolicyConfig everything;
  everything.blockingSeverity = Severity::Nit;
  EXPECT_EQ(verdictOf(make(Severity::Nit, Category::Correctness, 0.9), everything), Verdict::RequestChanges);
}

TEST(DecideVerdict, ConfidenceThresholdKnob) {
  PolicyConfig strict;
  strict.confidenceThreshold = 0.9;
  EXPECT_EQ(verdictOf(make(Severity::Blocker, Category::Security, 0.89), strict), Verdict::Comment);
  EXPECT_EQ(verdictOf(make(Severity::Blocker, Category::Security, 0.9), strict), Verdict::RequestChanges);

  PolicyConfig lenient;
  lenient.confidenceThreshold = 0.0;
  EXPECT_EQ(verdictOf(make(Severity::Major, Category::Security, 0.0), lenient), Verdict::RequestChanges);
}

TEST(DecideVerdict, BlockingCategoriesKnob) {
  PolicyConfig styleOnly;
  styleOnly.blockingCategories = {Category::Style};
  EXPECT_EQ(verdictOf(make(Severity::Major, Category::Style, 0.9), styleOnly), Verdict::RequestChanges);
  EXPECT_EQ(verdictOf(make(Severity::Blocker, Category::Security, 1.0), styleOnly), Verdict::Comment);

  PolicyConfig none;
  none.blockingCategories.clear();
  EXPECT_EQ(verdictOf(make(Severity::Blocker, Category::Correctness, 1.0), none), Verdict::Comment);
}

// --- applyPublicationFilters -------------------------------------------------

std::vector<PublishedFinding> filter(std::vector<PublishedFinding> in, const PolicyConfig& policy = {}) {
  return applyPublicationFilters(std::move(in), policy);
}

// Part of the change left out by a request limit: what was shown may be fine,
// the change was not shown to be.
TEST(DecideVerdict, PartsNotReviewedNeverApprove) {
  ApprovalEvidence evidence;
  EXPECT_EQ(decideVerdict({}, PolicyConfig{}, evidence), Verdict::Approve);
  evidence.partsNotReviewed = 1;
  EXPECT_EQ(decideVerdict({}, PolicyConfig{}, evidence), Verdict::Comment);
}

TEST(ApprovalEvidence, CountsTheFilesSkippedByALimitNotThoseLeftOutByChoice) {
  ReviewOutcome o;
  o.coverage.filesSkipped.push_back({"yarn.lock", "lock file", 2});
  EXPECT_EQ(approvalEvidence(o).partsNotReviewed, 0);
  SkippedFile over{"big.c", "not reviewed: lines 1-9 past the max_requests cap", 9};
  over.overLimit = true;
  o.coverage.filesSkipped.push_back(over);
  EXPECT_EQ(approvalEvidence(o).partsNotReviewed, 1);
}

// The model asked for changes that its findings do not show (it named none:
// "deletes the only authorization check; must not merge" in its summary alone,
// or some were rejected): not shown fine, so never APPROVE. Before, no finding
// at all was an APPROVE, exit 0, and `revline pr --approve` approved.
TEST(ApprovalEvidence, ChangesAskedForThatNoFindingShowsNeverApprove) {
  ReviewOutcome o;
  o.modelVerdict = Verdict::RequestChanges;
  EXPECT_TRUE(approvalEvidence(o).changesRequestedNotShown);
  EXPECT_EQ(decideVerdict(o.findings, PolicyConfig{}, approvalEvidence(o)), Verdict::Comment);
  o.findings.push_back(make(Severity::Minor, Category::Style, 0.9));
  EXPECT_FALSE(approvalEvidence(o).changesRequestedNotShown) << "its finding shows the change it asked for";
  o.rejected.push_back({make(Severity::Major, Category::Correctness, 0.9).finding, "line 9 is not in the diff", 0});
  EXPECT_TRUE(approvalEvidence(o).changesRequestedNotShown);
  ReviewOutcome comment;
  comment.modelVerdict = Verdict::Comment;
  EXPECT_EQ(decideVerdict(comment.findings, PolicyConfig{}, approvalEvidence(comment)), Verdict::Approve);
}

TEST(PublicationFilters, TrimsTextFields) {
  PublishedFinding p = make(Severity::Major, Category::Correctness, 0.8);
  p.finding.title = "  \tNull dereference \n";
  p.finding.explanation = "\n  It crashes.  \r\n";
  p.finding.suggestedFix = "  Check for null. ";
  const auto out = filter({p});
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_EQ(out[0].finding.title, "Null dereference");
  EXPECT_EQ(out[0].finding.explanation, "It crashes.");
  EXPECT_EQ(out[0].finding.suggestedFix, "Check for null.");
  EXPECT_EQ(out[0].id, p.id);
}

TEST(PublicationFilters, BlankSuggestedFixBecomesNull) {
  PublishedFinding p = make(Severity::Major, Category::Correctness, 0.8);
  p.finding.suggestedFix = " \n\t ";
  const auto out = filter({p});
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_FALSE(out[0].finding.suggestedFix);
}

TEST(PublicationFilters, DropsFindingsWhoseTitleOrExplanationIsBlank) {
  PublishedFinding blankTitle = make(Severity::Blocker, Category::Security, 0.9, "a", 1, " \n ");
  PublishedFinding blankExplanation = make(Severity::Blocker, Category::Security, 0.9, "b", 1);
  blankExplanation.finding.explanation = "\t";
  PublishedFinding fine = make(Severity::Nit, Category::Style, 0.3, "c", 1);
  const auto out = filter({blankTitle, blankExplanation, fine});
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_EQ(out[0].finding.file, "c");
}

TEST(PublicationFilters, CapsExplanationLengthInCharacters) {
  PolicyConfig policy;
  policy.maxExplanationChars = 10;
  PublishedFinding exact = make(Severity::Major, Category::Correctness, 0.8, "a");
  exact.finding.explanation = "0123456789";
  PublishedFinding longer = make(Severity::Major, Category::Correctness, 0.8, "b");
  longer.finding.explanation = "0123456789A";
  const auto out = filter({exact, longer}, policy);
  ASSERT_THAT(out, SizeIs(2));
  EXPECT_EQ(out[0].finding.explanation, "0123456789");  // at the cap: untouched
  EXPECT_EQ(out[1].finding.explanation, "012345678…");  // 9 characters and the ellipsis
}

TEST(PublicationFilters, ExplanationCutNeverSplitsAUtf8Sequence) {
  PolicyConfig policy;
  policy.maxExplanationChars = 4;
  PublishedFinding p = make(Severity::Major, Category::Correctness, 0.8, "a");
  p.finding.explanation = "日本語のテキスト";  // 3-byte characters
  PublishedFinding emoji = make(Severity::Major, Category::Correctness, 0.8, "b");
  emoji.finding.explanation = "a😀b😀c";  // 4-byte characters
  PublishedFinding fits = make(Severity::Major, Category::Correctness, 0.8, "c");
  fits.finding.explanation = "日本語😀";  // 4 characters, 13 bytes: under the cap
  const auto out = filter({p, emoji, fits}, policy);
  ASSERT_THAT(out, SizeIs(3));
  EXPECT_EQ(out[0].finding.explanation, "日本語…");
  EXPECT_EQ(out[1].finding.explanation, "a😀b…");
  EXPECT_EQ(out[2].finding.explanation, "日本語😀");
}

TEST(PublicationFilters, DedupesSameFileLineAndTitleKeepingTheMoreSevere) {
  PublishedFinding minor = make(Severity::Minor, Category::Correctness, 0.99, "a", 5, "Leak");
  PublishedFinding major = make(Severity::Major, Category::Correctness, 0.5, "a", 5, " Leak ");  // same after trim
  major.id = "major";
  const auto out = filter({minor, major});
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_EQ(out[0].id, "major");
  EXPECT_EQ(out[0].finding.title, "Leak");
}

TEST(PublicationFilters, DedupeTieGoesToTheMoreConfidentThenTheFirst) {
  PublishedFinding low = make(Severity::Major, Category::Correctness, 0.6, "a", 5, "Leak");
  low.id = "low";
  PublishedFinding high = make(Severity::Major, Category::Correctness, 0.9, "a", 5, "Leak");
  high.id = "high";
  PublishedFinding high2 = high;
  high2.id = "high2";
  const auto out = filter({low, high, high2});
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_EQ(out[0].id, "high");
}

TEST(PublicationFilters, DifferentFileLineOrTitleAreNotDuplicates) {
  const auto out = filter({make(Severity::Major, Category::Correctness, 0.8, "a", 5, "Leak"),
                           make(Severity::Major, Category::Correctness, 0.8, "b", 5, "Leak"),
                           make(Severity::Major, Category::Correctness, 0.8, "a", 6, "Leak"),
                           make(Severity::Major, Category::Correctness, 0.8, "a", 5, "leak")});
  EXPECT_THAT(out, SizeIs(4));
}

std::vector<std::string> keys(const std::vector<PublishedFinding>& v) {
  std::vector<std::string> out;
  for (const auto& p : v) out.push_back(p.finding.file + ":" + std::to_string(p.finding.line));
  return out;
}

TEST(PublicationFilters, OrdersBySeverityThenConfidenceThenFileThenLine) {
  const std::vector<PublishedFinding> in{
      make(Severity::Nit, Category::Style, 1.0, "n", 1),
      make(Severity::Major, Category::Correctness, 0.7, "b", 9),
      make(Severity::Major, Category::Correctness, 0.9, "z", 1),
      make(Severity::Blocker, Category::Security, 0.2, "s", 3),
      make(Severity::Major, Category::Correctness, 0.7, "a", 20),
      make(Severity::Major, Category::Correctness, 0.7, "a", 3),
      make(Severity::Minor, Category::Testing, 0.8, "m", 1),
  };
  const std::vector<std::string> expected{"s:3", "z:1", "a:3", "a:20", "b:9", "m:1", "n:1"};
  EXPECT_EQ(keys(filter(in)), expected);

  // Deterministic: any input order publishes the same order.
  std::vector<PublishedFinding> reversed(in.rbegin(), in.rend());
  EXPECT_EQ(keys(filter(reversed)), expected);
  std::vector<PublishedFinding> rotated = in;
  std::rotate(rotated.begin(), rotated.begin() + 3, rotated.end());
  EXPECT_EQ(keys(filter(rotated)), expected);
}

TEST(PublicationFilters, CapsTheCountKeepingTheMostSevere) {
  PolicyConfig policy;
  policy.maxFindings = 2;
  const auto out = filter({make(Severity::Nit, Category::Style, 1.0, "n"), make(Severity::Blocker, Category::Security, 0.9, "b"),
                           make(Severity::Minor, Category::Testing, 0.8, "m"), make(Severity::Major, Category::Correctness, 0.8, "j")},
                          policy);
  EXPECT_EQ(keys(out), (std::vector<std::string>{"b:1", "j:1"}));

  policy.maxFindings = 0;
  EXPECT_THAT(filter({make(Severity::Blocker, Category::Security, 1.0)}, policy), IsEmpty());
}

TEST(PublicationFilters, DedupeHappensBeforeTheCountCap) {
  PolicyConfig policy;
  policy.maxFindings = 2;
  const auto out = filter({make(Severity::Blocker, Category::Security, 0.9, "a", 1, "Same"),
                           make(Severity::Blocker, Category::Security, 0.8, "a", 1, "Same"),
                           make(Severity::Minor, Category::Style, 0.5, "c", 1)},
                          policy);
  EXPECT_EQ(keys(out), (std::vector<std::string>{"a:1", "c:1"}));
}

TEST(PublicationFilters, KeepsEditAndEditDroppedReason) {
  PublishedFinding p = make(Severity::Major, Category::Correctness, 0.8, "a");
  p.finding.edit = contract::Edit{"a", "b"};
  PublishedFinding q = make(Severity::Major, Category::Correctness, 0.8, "b");
  q.editDroppedReason = "edit.original does not match line 1";
  const auto out = filter({p, q});
  ASSERT_THAT(out, SizeIs(2));
  ASSERT_TRUE(out[0].finding.edit);
  EXPECT_EQ(out[0].finding.edit->replacement, "b");
  EXPECT_EQ(out[1].editDroppedReason, "edit.original does not match line 1");
}

}  // namespace
}  // namespace revline::review
