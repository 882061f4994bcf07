#include "core/reports/gate.h"

#include <gtest/gtest.h>

#include "tests/unit/reports/report_fixtures.h"

namespace revline::reports {
namespace {
using namespace testing;

review::ReviewOutcome withSeverity(Severity s, Verdict v = Verdict::Comment) {
  auto o = outcome(v);
  o.findings.push_back(published(finding("src/Pay.java", 11, s, Category::Style, "t"), "id1"));
  return o;
}

TEST(Gate, VerdictDecidesWithoutFailOn) {
  EXPECT_EQ(exitCodeFor(outcome(Verdict::Approve), std::nullopt), 0);
  EXPECT_EQ(exitCodeFor(withSeverity(Severity::Blocker, Verdict::Comment), std::nullopt), 0);
  EXPECT_EQ(exitCodeFor(outcome(Verdict::RequestChanges), std::nullopt), 1);
}

TEST(Gate, RequestChangesFailsWhateverFailOnSays) {
  EXPECT_EQ(exitCodeFor(outcome(Verdict::RequestChanges), Severity::Nit), 1);
  EXPECT_EQ(exitCodeFor(outcome(Verdict::RequestChanges), Severity::Blocker), 1);
}

TEST(Gate, FailOnIsAThresholdOfSeverity) {
  // failOn MAJOR: BLOCKER and MAJOR fail, MINOR and NIT pass.
  EXPECT_EQ(exitCodeFor(withSeverity(Severity::Blocker), Severity::Major), 1);
  EXPECT_EQ(exitCodeFor(withSeverity(Severity::Major), Severity::Major), 1);
  EXPECT_EQ(exitCodeFor(withSeverity(Severity::Minor), Severity::Major), 0);
  EXPECT_EQ(exitCodeFor(withSeverity(Severity::Nit), Severity::Major), 0);
  EXPECT_EQ(exitCodeFor(withSeverity(Severity::Nit), Severity::Nit), 1);
  EXPECT_EQ(exitCodeFor(withSeverity(Severity::Major), Severity::Blocker), 0);
  EXPECT_EQ(exitCodeFor(outcome(Verdict::Comment), Severity::Nit), 0);
}

TEST(Gate, RejectedFindingsNeverCount) {
  auto o = outcome(Verdict::Approve);
  o.rejected.push_back({finding("src/Pay.java", 412, Severity::Blocker, Category::Security, "t"), "not in diff"});
  EXPECT_EQ(exitCodeFor(o, Severity::Nit), 0);
}

TEST(Gate, ParsesFailOnInAnyCase) {
  EXPECT_EQ(parseFailOn("major"), Severity::Major);
  EXPECT_EQ(parseFailOn("BLOCKER"), Severity::Blocker);
  EXPECT_EQ(parseFailOn(" Nit "), Severity::Nit);
  EXPECT_EQ(parseFailOn("minor"), Severity::Minor);
  EXPECT_EQ(parseFailOn("critical"), std::nullopt);
  EXPECT_EQ(parseFailOn(""), std::nullopt);
}

}  // namespace
}  // namespace revline::reports
