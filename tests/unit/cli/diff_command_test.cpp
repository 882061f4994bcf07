// `revline diff` prints what the model is shown (cli.md): the selected files,
// function context as ':' lines, and with --prompt the whole first request.
#include <gtest/gtest.h>

#include "core/support/json.h"
#include "tests/support/per_hunk_model.h"
#include "tests/support/temp_repo.h"
#include "tests/unit/providers/fake_server.h"

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

// --json and --numstat print the diff as read: what git was not asked to show is said on stderr there too.
TEST(DiffCommand, EveryFormSaysWhatTheDiffLeftOut) {
  TempRepo repo;
  makeChange(repo);
  repo.write("huge.log", std::string(9 * 1024 * 1024, 'a'));  // untracked, over the 8 MB cap
  repo.git("config core.fsmonitor .git/watch");                 // the repository's own program, not run
  for (const std::string form : {"diff", "diff --json", "diff --numstat", "diff --prompt"}) {
    const auto r = runRevline(form, repo.root());
    ASSERT_EQ(r.exitCode, 0) << form << ": " << r.err;
    EXPECT_EQ(r.out.find("huge.log"), std::string::npos) << form;
    EXPECT_NE(r.err.find("revline diff: not sent to the reviewer: huge.log (untracked, 9437184 bytes, over the 8 MiB "
                         "limit (8388608 bytes) for untracked files; not reviewed)"),
              std::string::npos)
        << form << ": " << r.err;
    EXPECT_EQ(r.err.find("huge.log"), r.err.rfind("huge.log")) << "said twice: " << r.err;
    EXPECT_NE(r.err.find("revline diff: warning: "), std::string::npos) << form;
    EXPECT_NE(r.err.find("git config names programs for git to run (core.fsmonitor)"), std::string::npos)
        << form << ": " << r.err;
  }
}

// What would leave the machine can be checked before any key is given: the
// preview of a remote provider's request needs none (it sends nothing), and
// shows the diff redacted as that provider would receive it.
TEST(DiffCommand, APreviewForARemoteProviderNeedsNoKey) {
  TempRepo repo;
  repo.write("app.py", "x = 1\n");
  repo.commitAll("base");
  repo.write("app.py", "x = 1\naws_key = \"AKIAIOSFODNN7EXAMPLE\"\n");
  for (const std::string provider : {"openai", "anthropic"}) {
    const auto r = testing::runShell("env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY " + testing::shellQuote(REVLINE_BINARY) +
                                         " diff --prompt --provider " + provider,
                                     repo.root());
    ASSERT_EQ(r.exitCode, 0) << provider << ": " << r.err;
    EXPECT_NE(r.out.find("=== system ===\n"), std::string::npos) << provider;
    EXPECT_NE(r.out.find("[REDACTED:"), std::string::npos) << provider << ": " << r.out;
    EXPECT_EQ(r.out.find("AKIAIOSFODNN7EXAMPLE"), std::string::npos) << provider;
  }
  // The review itself still asks for the key.
  const auto review = testing::runShell("env -u OPENAI_API_KEY " + testing::shellQuote(REVLINE_BINARY) +
                                            " review --provider openai",
                                        repo.root());
  EXPECT_EQ(review.exitCode, 2);
  EXPECT_NE(review.err.find("no API key"), std::string::npos) << review.err;
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

// A change too big for one request under max_input_tokens is sent as several:
// --prompt shows each of them, and the parts a cap leaves out on stderr.
TEST(DiffCommand, PromptShowsEveryRequestOfASplitReview) {
  TempRepo repo;
  for (int f = 0; f < 12; ++f) repo.write("src/f" + std::to_string(f) + ".c", "int f(void);\n");
  repo.commitAll("init");
  for (int f = 0; f < 12; ++f) {
    std::string body;
    for (int i = 0; i < 60; ++i) body += "int f" + std::to_string(f) + "_" + std::to_string(i) + "(int x) { return x + " + std::to_string(i) + "; }\n";
    repo.write("src/f" + std::to_string(f) + ".c", "int f(void);\n" + body);
  }
  const auto r = runRevline("diff --prompt --max-input-tokens 6000 --max-requests 30", repo.root());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.rfind("=== request 1 of ", 0), 0u) << r.out.substr(0, 200);
  const auto requests = r.out.find("(the change exceeds max_input_tokens) ===");
  EXPECT_NE(requests, std::string::npos);
  std::size_t shown = 0;
  for (auto at = r.out.find("=== system ===\n"); at != std::string::npos; at = r.out.find("=== system ===\n", at + 1)) ++shown;
  EXPECT_GT(shown, 1u);
  for (int f = 0; f < 12; ++f) EXPECT_NE(r.out.find("File: src/f" + std::to_string(f) + ".c"), std::string::npos) << f;
  const auto capped = runRevline("diff --prompt --max-input-tokens 6000 --max-requests 1", repo.root());
  ASSERT_EQ(capped.exitCode, 0) << capped.err;
  EXPECT_EQ(capped.out.find("=== request "), std::string::npos) << "one request: shown as before";
  EXPECT_NE(capped.err.find("revline diff: not sent (src/"), std::string::npos) << capped.err;
  EXPECT_NE(capped.err.find("past the max_requests cap of 1"), std::string::npos) << capped.err;
}

// `diff --prompt` shows what `revline review` would send now: after a review by
// a model, an edit of one hunk of five is the one hunk (it showed all five,
// 27.9 KB against the 13 KB sent, on spf13/cobra); --no-cache shows them all.
TEST(DiffCommand, PromptShowsWhatAReviewWouldSendNow) {
  TempRepo repo;
  repo.write("a.py", testing::fiveFunctions());
  repo.commitAll("init");
  repo.write("a.py", testing::fiveFunctions(testing::allChanged()));
  testing::FakeServer model;
  const json report = {{"summary", "Fine."}, {"findings", json::array()}, {"verdict", "APPROVE"}};
  model.enqueue(testing::Reply::openAiAnswer(report.dump()));
  const std::string provider = " --provider openai --base-url " + model.url("/v1") + " --model test --max-tool-calls 0";
  const auto reviewed = runRevline("review" + provider, repo.root());
  ASSERT_EQ(reviewed.exitCode, 0) << reviewed.err;

  std::vector<std::string> edited = testing::allChanged();
  edited[2] = "    v5 = x * 40  # edited";
  repo.write("a.py", testing::fiveFunctions(edited));
  const auto now = runRevline("diff --prompt" + provider, repo.root());
  ASSERT_EQ(now.exitCode, 0) << now.err;
  EXPECT_NE(now.out.find("x * 40  # edited"), std::string::npos) << now.out;
  EXPECT_EQ(now.out.find("x * 3  # a"), std::string::npos) << "a hunk reviewed before is not shown";
  EXPECT_NE(now.err.find("revline diff: not sent (4 of 5 hunks: reviewed before, their findings are carried over; "
                         "--no-cache sends them)"),
            std::string::npos)
      << now.err;
  const auto whole = runRevline("diff --prompt --no-cache" + provider, repo.root());
  ASSERT_EQ(whole.exitCode, 0) << whole.err;
  EXPECT_NE(whole.out.find("x * 3  # a"), std::string::npos);
  EXPECT_NE(whole.out.find("x * 40  # edited"), std::string::npos);

  repo.write("a.py", testing::fiveFunctions(testing::allChanged()));  // back to what was reviewed
  const auto nothing = runRevline("diff --prompt" + provider, repo.root());
  EXPECT_EQ(nothing.out, "=== nothing to send: no changed line is left to review ===\n");
}

}  // namespace
}  // namespace revline
