// The parts of `revline pr` that need no gh: argument checks and the workspace path.
#include "core/cli/pr_command.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/cli/args.h"
#include "core/cli/commands.h"

namespace revline::cli {
namespace {

TEST(PrCommand, ParsesOwnerRepoAndNumber) {
  const PullRequestRef pr = parsePullRequestRef("octo-org/pay.ments_2", "42");
  EXPECT_EQ(pr.owner, "octo-org");
  EXPECT_EQ(pr.repo, "pay.ments_2");
  EXPECT_EQ(pr.number, 42);
  EXPECT_EQ(pr.slug(), "octo-org/pay.ments_2");
  EXPECT_EQ(pr.workspaceName(), "octo-org-pay.ments_2-42");
  EXPECT_EQ(workspaceDir("/w", pr), std::filesystem::path("/w/.revline/workspaces/octo-org-pay.ments_2-42"));
}

TEST(PrCommand, RejectsNamesThatAreNotSafeInAPathOrRoute) {
  for (const char* bad : {"octo", "/repo", "owner/", "a/b/c", "../x", "a/..", "a/.", "o wner/r", "o/r?x", "o/r#1", ""}) {
    EXPECT_THROW(parsePullRequestRef(bad, "1"), UsageError) << bad;
  }
  for (const char* bad : {"0", "-1", "1.5", "x", "", "12345678901", "+3"}) {
    EXPECT_THROW(parsePullRequestRef("o/r", bad), UsageError) << bad;
  }
}

TEST(PrCommand, UsageErrorsExitTwoAndHelpExitsZero) {
  std::ostringstream out, err;
  EXPECT_EQ(runMain({"pr", "octo-org/payments"}, out, err), 2);
  EXPECT_NE(err.str().find("expected OWNER/REPO NUMBER"), std::string::npos) << err.str();
  err.str("");
  EXPECT_EQ(runMain({"pr", "octo-org/payments", "42", "--format", "xml"}, out, err), 2);
  EXPECT_NE(err.str().find("--format"), std::string::npos) << err.str();
  err.str("");
  EXPECT_EQ(runMain({"pr", "octo-org/payments", "42", "--fail-on", "critical"}, out, err), 2);
  EXPECT_NE(err.str().find("--fail-on"), std::string::npos) << err.str();
  err.str("");
  EXPECT_EQ(runMain({"pr", "../etc", "42"}, out, err), 2);
  EXPECT_NE(err.str().find("OWNER/REPO"), std::string::npos) << err.str();
  out.str("");
  EXPECT_EQ(runMain({"pr", "--help"}, out, err), 0);
  EXPECT_NE(out.str().find("--post"), std::string::npos);
  EXPECT_NE(out.str().find("--provider"), std::string::npos);
}

}  // namespace
}  // namespace revline::cli
