// The revline binary as a user runs it: exit codes, messages, formats.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "core/support/json.h"
#include "tests/support/notebook.h"
#include "tests/support/temp_repo.h"

namespace revline {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::runRevline;
using testing::TempRepo;

TEST(Cli, HelpAndUnknownCommand) {
  auto r = runRevline("--help");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.out.find("review"), std::string::npos);
  EXPECT_NE(r.out.find("lsp"), std::string::npos);
  r = runRevline("frobnicate");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("unknown command \"frobnicate\""), std::string::npos) << r.err;
  r = runRevline("review --bogus");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("unknown option --bogus"), std::string::npos) << r.err;
  r = runRevline("review --max-attempts zero");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--max-attempts"), std::string::npos) << r.err;
  // A range as git takes it: the way revline reviews one is named.
  r = runRevline("review HEAD~1..HEAD");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("unexpected argument \"HEAD~1..HEAD\": revline review takes no revisions or paths; to "
                       "review a branch's change use --base REF"),
            std::string::npos)
      << r.err;
}

// GIT_DIR and GIT_WORK_TREE relative to where revline is started, as git reads
// them: before, git ran from the work tree's top with the same relative paths,
// and reviewed the repository around this one (whose code would have gone to the model).
TEST(Cli, RelativeGitDirAndWorkTreeAreReadFromTheStartingDirectory) {
  TempRepo outer;
  outer.write("o.txt", "outer\n");
  outer.git("add -A");
  outer.git("commit -q -m o");
  outer.write("o.txt", "outer\nouter change\n");
  const auto inner = outer.root() / "inner";
  std::filesystem::create_directories(inner);
  testing::runShell("git init -q && printf 'in\\n' > i.txt && git add -A && "
                    "git -c user.name=t -c user.email=t@t commit -q -m i && printf 'in\\nchange\\n' > i.txt && mkdir sub",
                    inner);
  const auto r = testing::runShell("GIT_DIR=../.git GIT_WORK_TREE=.. " + testing::shellQuote(REVLINE_BINARY) +
                                       " diff --numstat",
                                   inner / "sub");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "1\t0\ti.txt\n");
  // The git directory named absolutely, the work tree relatively: still this one.
  const auto mixed = testing::runShell("GIT_DIR=" + testing::shellQuote((inner / ".git").string()) +
                                           " GIT_WORK_TREE=.. " + testing::shellQuote(REVLINE_BINARY) +
                                           " diff --numstat",
                                       inner / "sub");
  EXPECT_EQ(mixed.exitCode, 0) << mixed.err;
  EXPECT_EQ(mixed.out, "1\t0\ti.txt\n");
}

// `-h` is every command's `--help`, as `revline lsp --help` lists it. Before, only
// `revline -h` and `revline lsp -h` took it ("unexpected argument", exit 2).
TEST(Cli, DashHIsHelpForEveryCommand) {
  testing::TempDir notARepository;
  for (const std::string command : {"review", "diff", "eval", "pr", "schema", "trust", "lsp"}) {
    const auto shortForm = runRevline(command + " -h", notARepository.path());
    EXPECT_EQ(shortForm.exitCode, 0) << command << ": " << shortForm.err;
    EXPECT_EQ(shortForm.out, runRevline(command + " --help", notARepository.path()).out) << command;
    EXPECT_NE(shortForm.out.find("usage: revline " + command), std::string::npos) << command << ": " << shortForm.out;
  }
}

// The server's message limit is a number of bytes an editor can work under
// (and `diff --no-cache` without --prompt, which reads no cache, is said so):
// "-1" was taken as no limit at all, 0 or 10 as a limit refusing every message.
TEST(Cli, TheServersMessageLimitAndAStrayNoCacheAreRefused) {
  testing::TempDir dir;
  for (const std::string bad : {"-1", "0", "10", "64k", "99999999999999"}) {
    const auto r = runRevline("lsp --max-message-bytes " + bad, dir.path(), "");
    EXPECT_EQ(r.exitCode, 2) << bad;
    EXPECT_NE(r.err.find("--max-message-bytes expects a whole number of bytes from 65536 to 4294967296, got '" + bad +
                         "'"),
              std::string::npos)
        << r.err;
  }
  EXPECT_EQ(runRevline("lsp --max-message-bytes 65536", dir.path(), "").exitCode, 1);  // ran: input ended early
  const auto noCache = runRevline("diff --no-cache", dir.path());
  EXPECT_EQ(noCache.exitCode, 2);
  EXPECT_NE(noCache.err.find("--no-cache applies only with --prompt"), std::string::npos) << noCache.err;
}

// A bad number is said before any work: not after the diff was read (with its
// warnings) or a pull request cloned, and not hidden behind another error.
TEST(Cli, BadNumbersAreSaidBeforeAnyWork) {
  testing::TempDir notARepository;
  for (const std::string command : {"review", "diff", "diff --prompt", "pr octo/repo 1"}) {
    for (const std::string flag : {"--max-requests 0", "--max-input-tokens abc", "--max-parallel-requests 65"}) {
      const auto r = runRevline(command + " " + flag, notARepository.path());
      EXPECT_EQ(r.exitCode, 2) << command << " " << flag;
      EXPECT_NE(r.err.find("option " + flag.substr(0, flag.find(' ')) + " expects a whole number"), std::string::npos)
          << command << " " << flag << ": " << r.err;
    }
  }
}

// A flag that sets a configuration key is checked as that key is in a file:
// an API key given where its variable's name belongs is refused, never echoed
// (into a CI log). Before, the flag took any value and printed it back.
TEST(Cli, FlagsAreCheckedAsTheKeysTheySet) {
  testing::TempDir notARepository;
  for (const std::string command : {"review", "pr octo/repo 1"}) {
    auto r = runRevline(command + " --provider openai --api-key-env sk-proj-SECRETVALUE123", notARepository.path());
    EXPECT_EQ(r.exitCode, 2) << command;
    EXPECT_NE(r.err.find("option --api-key-env: key \"api_key_env\": expected the name of an environment variable"),
              std::string::npos)
        << command << ": " << r.err;
    EXPECT_EQ(r.err.find("SECRETVALUE"), std::string::npos) << command << ": " << r.err;
    r = runRevline(command + " --provider openia", notARepository.path());
    EXPECT_EQ(r.exitCode, 2) << command;
    EXPECT_NE(r.err.find("option --provider: key \"provider\": expected one of builtin, replay, openai"),
              std::string::npos)
        << command << ": " << r.err;
  }
}

// `git diff ... | revline review --stdin` in CI, with a git that failed: an
// empty input passes (no change), and says so.
TEST(Cli, AnEmptyPatchOnStdinPassesAndSaysSo) {
  testing::TempDir dir;
  const auto r = runRevline("review --stdin", dir.path(), "");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("revline review: warning: standard input holds no diff, so there is nothing to review; if the "
                       "command piped in failed, its error is above"),
            std::string::npos)
      << r.err;
  // In the report too: a CI job that keeps only the report learns it.
  const auto report = runRevline("review --stdin --format json", dir.path(), "");
  EXPECT_NE(json::parse(report.out)["warnings"].dump().find("standard input holds no diff"), std::string::npos)
      << report.out;
  const auto diffForm = runRevline("diff --stdin --json", dir.path(), "");
  EXPECT_NE(diffForm.err.find("revline diff: warning: standard input holds no diff"), std::string::npos) << diffForm.err;
  const auto withDiff = runRevline("review --stdin", dir.path(),
                                   "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n");
  EXPECT_EQ(withDiff.err.find("holds no diff"), std::string::npos) << withDiff.err;
}

// A patch on stdin in a checkout git refuses to read (a CI container's, owned
// by another user) fails as the other ways to review it do, with the
// safe.directory fix: it was reviewed as outside any repository, its
// .revline.json dropped without a word, and a gate set to MINOR opened.
// Outside any repository, or in a bare one (a server hook), it is reviewed.
TEST(Cli, APatchOnStdinInACheckoutGitRefusesIsAnErrorNotAReviewWithoutItsSettings) {
  TempRepo repo;
  repo.write(".revline.json", "{\"policy\": {\"blocking_severity\": \"MINOR\"}}\n");
  repo.commitAll("base");
  repo.write("A.java", "class A {\n  boolean admin(String s) { return s == \"admin\"; }\n}\n");  // MINOR
  repo.commitAll("change");
  const std::string patch = repo.git("diff HEAD~1 HEAD");
  EXPECT_EQ(runRevline("review --stdin", repo.root(), patch).exitCode, 1);  // the repository's MINOR gate
  const auto refused = testing::runShell(
      "GIT_TEST_ASSUME_DIFFERENT_OWNER=1 " + testing::shellQuote(REVLINE_BINARY) + " review --stdin", repo.root(), patch);
  EXPECT_EQ(refused.exitCode, 2) << refused.out;
  EXPECT_THAT(refused.err, HasSubstr("owned by another user than the one running revline"));
  EXPECT_THAT(refused.err, HasSubstr("safe.directory"));

  testing::TempDir place;
  repo.git("clone -q --bare . " + testing::shellQuote((place.path() / "bare.git").string()));
  const auto inBare = runRevline("review --stdin", place.path() / "bare.git", patch);
  EXPECT_EQ(inBare.exitCode, 0) << inBare.err;  // no work tree, so no .revline.json: the default gate
  EXPECT_THAT(inBare.out, HasSubstr("A.java:2: MINOR"));
  const auto nowhere = runRevline("review --stdin", place.path(), patch);
  EXPECT_EQ(nowhere.exitCode, 0) << nowhere.err;
}

// A submodule moved to another commit: the diff shows the commit, and its
// path (the submodule's work tree, a directory) is not reported as a file
// that could not be read; it is listed as a submodule not reviewed here.
TEST(Cli, ASubmoduleCommitChangeIsNotAFileThatCouldNotBeRead) {
  TempRepo sub, repo;
  sub.write("s.py", "x = 1\n");
  sub.commitAll("one");
  repo.write("r.py", "r = 1\n");
  repo.git("-c protocol.file.allow=always submodule add -q " + testing::shellQuote(sub.root().string()) + " sub");
  repo.commitAll("with submodule");
  repo.git("-C sub -c user.email=a@b -c user.name=a commit -q --allow-empty -m two");
  const auto r = runRevline("review", repo.root());
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("Skipped sub: a submodule moved from commit "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("not a regular file"), std::string::npos) << r.out;
}

TEST(Cli, SchemaIsStrict) {
  auto r = runRevline("schema");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json schema = json::parse(r.out);
  EXPECT_EQ(schema["type"], "object");
  EXPECT_EQ(schema["additionalProperties"], false);
  EXPECT_TRUE(schema["properties"].contains("findings"));
}

TEST(Cli, OutsideARepositoryIsAClearError) {
  testing::TempDir dir;
  auto r = runRevline("review", dir.path());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("not inside a git repository"), std::string::npos) << r.err;
}

// A slow git (a stalled network mount, a huge repository) is said on a
// terminal while it runs, one line rewritten in place and cleared once git is
// done; on a pipe nothing is. Before, `revline review` said nothing for as long
// as git took (120 s when it hung).
TEST(Cli, ASlowGitIsSaidOnATerminal) {
  if (testing::runShell("script -qec true /dev/null").exitCode != 0) GTEST_SKIP() << "no pseudo-terminal here";
  TempRepo repo;
  repo.write("a.py", "x = 1\n");
  repo.commitAll("base");
  repo.write("a.py", "x = 2\n");
  testing::TempDir bin;
  const std::string realGit = testing::runShell("command -v git", repo.root()).out;
  std::ofstream(bin.path() / "git") << "#!/bin/sh\ncase \"$*\" in *' diff '*) sleep 2.5;; esac\nexec "
                                    << realGit.substr(0, realGit.find('\n')) << " \"$@\"\n";
  std::filesystem::permissions(bin.path() / "git", std::filesystem::perms::owner_all);
  const std::string command = "PATH=" + testing::shellQuote(bin.path().string()) + ":\"$PATH\" " +
                              testing::shellQuote(REVLINE_BINARY) + " review";
  const auto r = testing::runShell("script -qec " + testing::shellQuote(command) + " /dev/null", repo.root());
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("\rrevline review: waiting for `git diff` (2 s so far)\33[K\r\33[K")) << r.out;
  const auto piped = testing::runShell(command + " 2>&1", repo.root());
  EXPECT_EQ(piped.exitCode, 0) << piped.out;
  EXPECT_THAT(piped.out, Not(HasSubstr("waiting for"))) << piped.out;
}

TEST(Cli, MalformedDiffOnStdinNamesTheLine) {
  testing::TempDir dir;
  const std::string patch =
      "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n line\n";  // the hunk promises 2 lines
  auto r = runRevline("diff --stdin", dir.path(), patch);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("malformed diff"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line "), std::string::npos) << r.err;
}

// `git log -p` of two commits that both change a.py: a.py's second section
// numbers the lines of another version of it, where no finding can be placed
// by path and line. The review says so and how to ask instead (before, it
// reviewed "2 of 2 files" and a finding on the older commit's lines was
// checked against the newer one's). `revline diff --numstat` counts it as git does.
TEST(Cli, ConcatenatedPatchesOfOneFileAreRefusedWithTheWayToReviewTheRange) {
  TempRepo repo;
  repo.write("a.py", "def a():\n    return 1\n");
  repo.commitAll("base");
  repo.write("a.py", "def a():\n    return 2\n");
  repo.commitAll("first");
  repo.write("a.py", "def a():\n    return 2\n\npassword = \"hunter2hunter2x\"\n");
  repo.commitAll("second");
  const std::string log = repo.git("log -p -2");
  auto r = runRevline("review --stdin", repo.root(), log);
  EXPECT_EQ(r.exitCode, 2) << r.out;
  EXPECT_NE(r.err.find("'a.py' has a second section in this diff"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("git diff A B | revline review --stdin"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  r = runRevline("review --stdin --fail-on MINOR", repo.root(), repo.git("diff HEAD~2 HEAD"));
  EXPECT_EQ(r.exitCode, 1) << r.err;  // the range as one diff: the password is found
  EXPECT_NE(r.err.find("revline review: 1 finding at MINOR or above (--fail-on MINOR): exit 1, although the verdict is "
                       "COMMENT"),
            std::string::npos)
      << r.err;
  r = runRevline("diff --numstat --stdin", repo.root(), log);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "2\t0\ta.py\n1\t1\ta.py\n");
}

TEST(Cli, DiffJsonListsUntrackedFilesAsAdded) {
  TempRepo repo;
  repo.write("a.txt", "one\ntwo\n");
  repo.commitAll();
  repo.write("a.txt", "one\nTWO\nthree\n");
  repo.write("new.txt", "fresh\n");
  auto r = runRevline("diff --json", repo.root());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = json::parse(r.out);
  ASSERT_EQ(j["files"].size(), 2u);
  const json& a = j["files"][0];
  EXPECT_EQ(a["path"], "a.txt");
  EXPECT_EQ(a["status"], "modified");
  EXPECT_EQ(a["lines"], json::parse(R"([{"new":1,"kind":"context"},{"new":2,"kind":"added"},{"new":3,"kind":"added"}])"));
  const json& n = j["files"][1];
  EXPECT_EQ(n["path"], "new.txt");
  EXPECT_EQ(n["old_path"], nullptr);
  EXPECT_EQ(n["status"], "added");
  // The index was not touched: new.txt is still untracked.
  EXPECT_EQ(repo.git("status --porcelain -- new.txt"), "?? new.txt\n");
}

TEST(Cli, ReviewExitCodesFollowTheVerdict) {
  TempRepo repo;
  repo.write("src/A.java", "class A {\n}\n");
  repo.commitAll();
  // Clean change: approve, exit 0.
  repo.write("src/A.java", "class A {\n  int twice(int x) { return 2 * x; }\n}\n");
  auto r = runRevline("review --format json", repo.root());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["verdict"], "APPROVE");
  // A BigDecimal compared with equals (a rule that blocks): request changes, exit 1.
  repo.write("src/A.java", "import java.math.BigDecimal;\nclass A {\n  boolean zero(BigDecimal b) { return b.equals(BigDecimal.ZERO); }\n}\n");
  r = runRevline("review --format json", repo.root());
  ASSERT_EQ(r.exitCode, 1) << r.err << r.out;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["verdict"], "REQUEST_CHANGES");
  ASSERT_EQ(j["findings"].size(), 1u);
  EXPECT_EQ(j["findings"][0]["line"], 3);
  // A String compared by identity (a rule below the blocking bar): a comment, exit 0.
  repo.write("src/A.java", "class A {\n  boolean ok(String s) { return s == \"OK\"; }\n}\n");
  r = runRevline("review --format json", repo.root());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["verdict"], "COMMENT");
  EXPECT_EQ(j["provider"], "builtin");
}

// `revline review --format sarif > revline.sarif` in a clean checkout, as CI
// recipes run it: the shell creates the file first, and it was reviewed as the
// change ("reviewed 1 of 1 file"; with a model, sent as an added file).
TEST(Cli, TheFileTheOutputIsRedirectedToIsNotPartOfTheChange) {
  TempRepo repo;
  repo.write("src/A.java", "class A {\n}\n");
  repo.commitAll();
  auto r = runRevline("review --format json > report.json", repo.root());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json report = json::parse(repo.read("report.json"));
  EXPECT_EQ(report["coverage"]["filesTotal"], 0) << report.dump(2);
  EXPECT_NE(r.err.find("revline review: note: left out report.json, the file this command's output is written to"),
            std::string::npos)
      << r.err;
  // Standard error's file too; a tracked file sharing the output's inode (a hard link) is the user's.
  repo.write("src/A.java", "class A {\n  int x;\n}\n");
  std::filesystem::create_hard_link(repo.root() / "src" / "A.java", repo.root() / "link.json");
  r = runRevline("review --format json 2> review.err >> link.json", repo.root());
  EXPECT_NE(repo.read("review.err").find("left out review.err, the file this command's messages are written to"),
            std::string::npos);
  EXPECT_NE(repo.read("link.json").find("\"filesTotal\": 2"), std::string::npos)
      << "src/A.java (modified) and report.json (untracked); link.json is written to, so left out";
  std::filesystem::remove(repo.root() / "link.json");
  std::filesystem::remove(repo.root() / "review.err");
  repo.git("checkout -q -- src/A.java");
  // Another untracked file is still part of the change; so is the report in a later run writing elsewhere.
  repo.write("src/B.java", "class B {\n}\n");
  r = runRevline("diff --json > out.json", repo.root());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json d = json::parse(repo.read("out.json"));
  std::vector<std::string> paths;
  for (const auto& f : d["files"]) paths.push_back(f["path"]);
  EXPECT_EQ(paths, (std::vector<std::string>{"report.json", "src/B.java"}));
}

// actions/checkout checks out refs/pull/N/merge for pull_request events: the
// lines of a --format github review are the merge's, which GitHub does not
// take for the pull request's; said (before, nothing did).
TEST(Cli, AGithubReviewOfAMergeCheckoutSaysItsLinesAreTheMerges) {
  TempRepo repo;
  repo.write("a.py", "a = 1\n");
  repo.commitAll();
  repo.git("checkout -q -b feature");
  repo.write("b.py", "b = 2\n");
  repo.commitAll("feature");
  repo.git("checkout -q -");
  repo.write("c.py", "c = 3\n");
  repo.commitAll("base moved");
  // The author's own merge of the base branch into theirs: no warning (it is the head, whose lines GitHub takes).
  repo.git("merge -q --no-ff -m 'Merge branch main into feature' feature");
  repo.write("a.py", "a = 10\n");
  auto r = runRevline("review --format github", repo.root());
  EXPECT_EQ(r.err.find("merge commit"), std::string::npos) << r.err;
  // GitHub's own: "Merge <head sha> into <base sha>".
  repo.git("reset -q --hard HEAD~1");
  const std::string head = repo.git("rev-parse feature"), base = repo.git("rev-parse HEAD");
  repo.git("merge -q --no-ff -m 'Merge " + head.substr(0, 40) + " into " + base.substr(0, 40) + "' feature");
  repo.write("a.py", "a = 10\n");
  r = runRevline("review --format github", repo.root());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("warning: HEAD is GitHub's merge commit of a pull request"), std::string::npos) << r.err;
  r = runRevline("review --format sarif", repo.root());  // code scanning takes the merge's lines
  EXPECT_EQ(r.err.find("merge commit"), std::string::npos) << r.err;
  // A format's name in any case, as --fail-on's (--format SARIF was refused).
  r = runRevline("review --format SARIF", repo.root());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["version"], "2.1.0");
  repo.git("checkout -q feature");
  r = runRevline("review --format github", repo.root());
  EXPECT_EQ(r.err.find("merge commit"), std::string::npos) << r.err;
}

// A report that cannot be written (a full disk, a closed stdout) fails the
// command: before, `revline review --format sarif > /dev/full` exited 0 with
// nothing said, and a CI job went on to upload an empty file.
TEST(Cli, AReportThatCannotBeWrittenFailsTheCommand) {
  TempRepo repo;
  repo.write("src/A.java", "class A {\n}\n");
  repo.commitAll();
  repo.write("src/A.java", "class A {\n  int twice(int x) { return 2 * x; }\n}\n");  // APPROVE: exit 0 when written
  for (const std::string redirect : {">/dev/full", ">&-"}) {
    for (const std::string format : {"text", "json", "sarif"}) {
      SCOPED_TRACE(format + " " + redirect);
      const auto r = runRevline("review --format " + format + " " + redirect, repo.root());
      EXPECT_EQ(r.exitCode, 2) << r.err;
      EXPECT_NE(r.err.find("revline review: cannot write the output to standard output"), std::string::npos) << r.err;
    }
  }
  EXPECT_EQ(runRevline("diff >/dev/full", repo.root()).exitCode, 2);
  EXPECT_EQ(runRevline("--version >/dev/full", repo.root()).exitCode, 2);
  EXPECT_EQ(runRevline("--help >/dev/full", repo.root()).exitCode, 2);
  EXPECT_EQ(runRevline("review --format sarif >/dev/null", repo.root()).exitCode, 0);
  // A reader that went away (`| head` done, a closed pipe): said, exit 2, not killed by SIGPIPE (141).
  const auto gone = testing::runShell("{ sleep 0.3; " + testing::shellQuote(REVLINE_BINARY) + " review --format json; echo \"exit=$?\" >&2; } | true",
                             repo.root());
  EXPECT_NE(gone.err.find("exit=2"), std::string::npos) << gone.err;
  EXPECT_NE(gone.err.find("cannot write the output to standard output"), std::string::npos) << gone.err;
}

// A Latin-1 file: reviewed, not "internal error" (exit 2). The finding on the
// line with the non-UTF-8 byte keeps no edit (it would rewrite that byte); the
// JSON output is valid UTF-8 and names why.
// A data scientist's notebook, run again after a one-line edit: the review and
// `revline diff` show the cell's source, not the new plot's base64, and the
// report says which part was left out. The builtin still reads a credential a
// cell printed.
TEST(Cli, ANotebooksOutputsAreLeftOutOfTheReviewAndSaidToBe) {
  TempRepo repo;
  std::vector<std::string> source{"import pandas as pd\\n", "df = pd.read_csv('a.csv')\\n", "df.head()"};
  repo.write("nb/Explore.ipynb", testing::jupyterNotebook({source, testing::base64Image(20000, 1), {"rows 10\\n"}, 1}));
  repo.commitAll();
  source[1] = "df = pd.read_csv('b.csv')\\n";
  const std::string token = "ghp_" + std::string("aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5");
  repo.write("nb/Explore.ipynb", testing::jupyterNotebook({source, testing::base64Image(20000, 2), {"key " + token + "\\n"}, 2}));
  auto r = runRevline("diff", repo.root());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("b.csv"));
  EXPECT_EQ(r.out.find(testing::base64Image(20000, 2).substr(0, 40)), std::string::npos) << "the new plot";
  EXPECT_LT(r.out.size(), 2000u) << r.out.substr(0, 2000);
  r = runRevline("review --format json", repo.root());
  ASSERT_EQ(r.exitCode, 1) << r.err << r.out;  // the printed token blocks
  const json j = json::parse(r.out);
  ASSERT_EQ(j["findings"].size(), 1u) << r.out;
  EXPECT_THAT(j["findings"][0]["title"].get<std::string>(), HasSubstr("GitHub"));
  EXPECT_EQ(j["coverage"]["filesReviewed"], 1);
  EXPECT_EQ(j["coverage"]["filesExcluded"], 0);
  EXPECT_EQ(j["coverage"]["linesReviewed"], 3) << "the edited line, each side, and the printed token";
  ASSERT_EQ(j["coverage"]["filesSkipped"].size(), 1u);
  EXPECT_EQ(j["coverage"]["filesSkipped"][0]["partial"], true);
  EXPECT_FALSE(j["coverage"]["filesSkipped"][0].contains("overLimit"));
  r = runRevline("review", repo.root());
  EXPECT_THAT(r.out, HasSubstr("excluded: part of nb/Explore.ipynb ("));
  EXPECT_THAT(r.out, HasSubstr("Skipped part of nb/Explore.ipynb: its outputs, execution counts and metadata"));
}

// A credential a cell printed before, on an output line the next run rewrote
// (a line printed after it: git shows it removed and added), is no new one:
// the review says what the change adds.
TEST(Cli, ACredentialAlreadyInANotebooksOutputIsNotNewWhenItsLineIsRewritten) {
  TempRepo repo;
  const std::vector<std::string> source{"print(os.environ['GH_TOKEN'])"};
  const std::string token = "ghp_" + std::string("aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5");
  repo.write("nb.ipynb", testing::jupyterNotebook({source, "", {"key " + token}, 1}));
  repo.commitAll();
  repo.write("nb.ipynb", testing::jupyterNotebook({source, "", {"key " + token + "\\n", "done"}, 2}));
  ASSERT_THAT(repo.git("diff"), HasSubstr("-      \"key " + token));
  const auto r = runRevline("review --format json", repo.root());
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_EQ(json::parse(r.out)["findings"].size(), 0u) << r.out;
}

// The builtin reads a notebook's cells as code also past the 1 MiB it reads of
// other files (a notebook is megabytes of plots), and only what the change adds:
// the JSON re-indented (as Colab writes it) or a cell moved is no new code.
TEST(Cli, ANotebooksCellsAreReadAsCodeAndOnlyNewCodeIsFlagged) {
  TempRepo repo;
  const std::vector<std::string> plain{"x = 1"};
  const std::vector<std::string> risky{"import subprocess\\n", "x = input()\\n", "eval(x)\\n",
                                       "subprocess.run(f\\\"ls {x}\\\", shell=True)"};
  const std::string plot = testing::base64Image(1100 * 1024, 1);
  repo.write("big.ipynb", testing::jupyterNotebook({plain, plot, {}, 1}));
  repo.commitAll();
  repo.write("big.ipynb", testing::jupyterNotebook({risky, plot, {}, 1}));
  auto r = runRevline("review --format json", repo.root());
  ASSERT_EQ(r.exitCode, 1) << r.out << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j["findings"].size(), 2u) << r.out;
  EXPECT_THAT(r.out, HasSubstr("Rule dynamic-eval"));
  EXPECT_THAT(r.out, HasSubstr("Rule shell-command"));
  // As the index has it, too: read from git, the work tree's copy being another text.
  repo.git("add big.ipynb");
  repo.write("big.ipynb", testing::jupyterNotebook({plain, plot, {}, 2}));
  r = runRevline("review --staged --format json", repo.root());
  EXPECT_EQ(json::parse(r.out)["findings"].size(), 2u) << r.out;
  repo.write("big.ipynb", testing::jupyterNotebook({risky, plot, {}, 1}));
  repo.commitAll();

  // Re-indented with two spaces and the cell's lines unchanged: nothing new.
  std::string twoSpaces = testing::jupyterNotebook({risky, plot, {}, 1});
  for (std::size_t at = 0; (at = twoSpaces.find("\n ", at)) != std::string::npos; at += 3) twoSpaces.insert(at + 1, " ");
  repo.write("big.ipynb", twoSpaces);
  r = runRevline("review --format json", repo.root());
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_EQ(json::parse(r.out)["findings"].size(), 0u) << r.out;
  // The cell moved below a new one: nothing new either.
  repo.git("checkout -- big.ipynb");
  // (Far enough, past a long markdown cell, that git shows the removal and the addition apart.)
  std::vector<std::string> notes;
  for (int i = 0; i < 12; ++i) notes.push_back("note " + std::to_string(i) + "\\n");
  notes.push_back("# notes\\n");
  std::string moved = testing::jupyterNotebook({{"print('first')"}, "", {}, 1}, notes);
  const std::string withRisky = testing::jupyterNotebook({risky, "", {}, 1});
  const std::string riskySource = withRisky.substr(withRisky.find("   \"source\": ["), withRisky.find("   ]\n  },") + 4 - withRisky.find("   \"source\": ["));
  repo.write("big.ipynb", moved.substr(0, moved.rfind("\n ],")) +
                              ",\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 1,\n   \"metadata\": {},\n   "
                              "\"outputs\": [],\n" + riskySource + "\n  }" + moved.substr(moved.rfind("\n ],")));
  r = runRevline("review --format json", repo.root());
  ASSERT_TRUE(json::accept(repo.read("big.ipynb"))) << repo.read("big.ipynb");
  // (A statement as short as `eval(x)` moved far is raised again, as in a .py file: too short to tell apart.)
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  const json afterMove = json::parse(r.out);  // held: a loop over a temporary's member would dangle
  for (const auto& f : afterMove["findings"])
    EXPECT_THAT(f["explanation"].get<std::string>(), Not(HasSubstr("shell-command"))) << r.out;
}

TEST(Cli, ALatin1FileIsReviewed) {
  TempRepo repo;
  repo.write("src/A.java", "class A {\n}\n");
  repo.commitAll();
  repo.write("src/A.java",
             "class A {\n  // caf\xe9\n  boolean ok(String s) { return s == \"\xe9t\xe9\"; }\n"
             "  boolean ok2(String s) { return s == \"OK\"; }\n}\n");
  auto r = runRevline("review --format json --fail-on MINOR", repo.root());
  ASSERT_EQ(r.exitCode, 1) << r.err;
  const json j = json::parse(r.out);  // throws on invalid UTF-8
  ASSERT_EQ(j["findings"].size(), 2u) << r.out;
  for (const auto& f : j["findings"]) {
    if (f["line"] == 3) EXPECT_TRUE(f["edit"].is_null()) << r.out;
    else if (f["line"] == 4) EXPECT_FALSE(f["edit"].is_null()) << "an edit on a valid line is kept: " << r.out;
    else ADD_FAILURE() << "unexpected line: " << r.out;
  }
  r = runRevline("review --fail-on MINOR", repo.root());  // the text report says why the edit was dropped
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_NE(r.out.find("line 3 is not valid UTF-8"), std::string::npos) << r.out;
}

// Two names that differ only in a byte that is not UTF-8 each hold a key: both
// are reported and block. Before, both read "caf\uFFFD.py" in the answer, no
// finding could be placed, and the review passed (exit 0).
TEST(Cli, NamesThatDifferOnlyInBytesThatAreNotUtf8AreToldApart) {
  TempRepo repo;
  repo.write("keep.txt", "x\n");
  repo.commitAll();
  repo.write("caf\xe9.py", "KEY = 'AKIAZ3MSJV4WWNKWW5FA'\n");
  repo.write("caf\xe8.py", "x = 1\nKEY = 'AKIAQ3EGRMTX2WJ7KZ5N'\n");
  auto r = runRevline("review --format json", repo.root());
  ASSERT_EQ(r.exitCode, 1) << r.out << r.err;
  const json j = json::parse(r.out);
  ASSERT_EQ(j["findings"].size(), 2u) << r.out;
  std::set<std::int64_t> lines;
  for (const auto& f : j["findings"]) lines.insert(f["line"].get<std::int64_t>());
  EXPECT_EQ(lines, (std::set<std::int64_t>{1, 2})) << r.out;
  // JSON holds no raw bytes: each name as git quotes it (as `revline diff --json`), not a lossy U+FFFD.
  std::set<std::string> files;
  for (const auto& f : j["findings"]) files.insert(f["file"].get<std::string>());
  EXPECT_EQ(files, (std::set<std::string>{"\"caf\\350.py\"", "\"caf\\351.py\""})) << r.out;
  // The model is shown each name as itself: C-quoted, as git spells it.
  r = runRevline("diff", repo.root());
  EXPECT_NE(r.out.find("File: \"caf\\351.py\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("File: \"caf\\350.py\""), std::string::npos) << r.out;
}

// The builtin rules read suppression comments with their lexer: a marker
// inside a string is no comment, and the model findings' filter must not take
// it for one either (a token in a URL ending "#revline: ignore" passed).
TEST(Cli, AMarkerInsideAStringSilencesNoBuiltinFinding) {
  TempRepo repo;
  repo.write("keep.txt", "x\n");
  repo.commitAll();
  repo.write("u.py", "URL = \"https://x-access-token:ghp_Pq3Lw8Nb2Xc7Vd1Mf5Kg9Hj4Sp6Ra0Ze2Yu7Io@github.com/a/b.git#revline: ignore\"\n");
  const auto r = runRevline("review", repo.root());
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("u.py:1: BLOCKER SECURITY"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("not published"), std::string::npos) << r.err;
}

TEST(Cli, ReplayCassetteThroughTheCli) {
  TempRepo repo;
  repo.write("src/A.java", "class A {\n}\n");
  repo.commitAll();
  repo.write("src/A.java", "class A {\n  void f() {}\n}\n");
  const json cassette = {{"interactions", json::array({json{{"reply",
      R"({"summary":"ok","verdict":"APPROVE","findings":[{"file":"src/A.java","line":2,"severity":"NIT","category":"STYLE","title":"Empty method","explanation":"f does nothing.","confidence":0.4}]})"}}})}};
  repo.write("cassette.json", cassette.dump());
  auto r = runRevline("review --provider replay --cassette cassette.json --format json", repo.root());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["verdict"], "COMMENT");
  EXPECT_EQ(j["findings"][0]["title"], "Empty method");
  EXPECT_EQ(j["attempts"], 1);
  // A provider error (cassette exhausted after a bad answer) is exit 2 with the reason.
  const json bad = {{"interactions", json::array({json{{"reply", "no json here"}}})}};
  repo.write("bad.json", bad.dump());
  r = runRevline("review --cassette bad.json", repo.root());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("no interaction left"), std::string::npos) << r.err;
}

TEST(Cli, MissingCassetteIsAClearError) {
  TempRepo repo;
  repo.write("a.txt", "x\n");
  auto r = runRevline("review --provider replay", repo.root());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--cassette"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace revline
