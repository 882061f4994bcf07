// `revline diff` prints what the model is shown (cli.md): the selected files,
// function context as ':' lines, and with --prompt the whole first request.
#include <gtest/gtest.h>

#include "tests/support/temp_repo.h"

namespace revline {
namespace {

using testing::runRevline;
using testing::TempRepo;

// A change inside a function whose header is outside the hunk, and a lock file.
void makeChange(const TempRepo& repo) {
  std::string body;
  for (int i = 0; i < 12; ++i) body += "  int v" + std::to_string(i) + " = " + std::to_string(i) + ";\n";
  repo.write("src/calc.c", "int total(int a) {\n" + body + "  return a;\n}\n");
  repo.write("package-lock.json", "{}\n");
  repo.commitAll("init");
  repo.write("src/calc.c", "int total(int a) {\n" + body + "  return a + 1;\n}\n");
  repo.write("package-lock.json", "{\"lockfileVersion\": 3}\n");
}

TEST(DiffCommand, ShowsTheFunctionContextAndOnlyTheFilesTheReviewerGets) {
  TempRepo repo;
  makeChange(repo);
  const auto r = runRevline("diff", repo.root());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // The enclosing definition's first line, numbered, marked ':' (not a target).
  EXPECT_NE(r.out.find("   1 : int total(int a) {"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  14 +   return a + 1;"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("package-lock.json"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("not sent to the reviewer: package-lock.json (lock file"), std::string::npos) << r.err;

  // context: hunk (a setting) shows the plain hunks, as the model then sees them.
  repo.write(".revline.json", "{\"context\": \"hunk\"}\n");
  const auto plain = runRevline("diff", repo.root());
  ASSERT_EQ(plain.exitCode, 0) << plain.err;
  EXPECT_EQ(plain.out.find(" : "), std::string::npos) << plain.out;

  // --json stays the parsed structure of the whole diff, lock file included.
  const auto j = runRevline("diff --json", repo.root());
  ASSERT_EQ(j.exitCode, 0) << j.err;
  EXPECT_NE(j.out.find("package-lock.json"), std::string::npos);
}

TEST(DiffCommand, PromptPrintsTheWholeFirstRequestWithTheIntent) {
  TempRepo repo;
  makeChange(repo);
  const auto r = runRevline("diff --prompt --description " + testing::shellQuote("Totals must count the seed."),
                            repo.root());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.rfind("=== system ===\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("=== user ===\n"), std::string::npos);
  EXPECT_NE(r.out.find("<intent>\nDescription:\nTotals must count the seed.\n</intent>"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<diff>\n"), std::string::npos);
  EXPECT_NE(r.out.find("   1 : int total(int a) {"), std::string::npos);
  EXPECT_EQ(runRevline("diff --prompt --json", repo.root()).exitCode, 2);  // one output form at a time
}

}  // namespace
}  // namespace revline
