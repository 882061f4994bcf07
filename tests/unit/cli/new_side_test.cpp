// A change whose new side is not the work tree: `revline review --staged` (a
// pre-commit hook) judges the index's copy of a file, and `--stdin` the text
// the patch's index lines name, never a work-tree copy holding other edits.
// Before, the builtin rules and the function context read the work tree: an
// unstaged edit outside the staged hunk let a staged injection through the
// hook, or blocked a safe commit.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/temp_repo.h"

namespace revline::testing {
namespace {

// A request parameter reaches SQL built by concatenation only through line 5,
// which the staged change does not touch.
const char* const kHandler =
    "from flask import request\n"
    "\n"
    "\n"
    "def get(cursor):\n"
    "    user_id = SOURCE\n"
    "    a = 1\n"
    "    b = 2\n"
    "    c = 3\n"
    "    d = 4\n"
    "    e = 5\n"
    "    f = 6\n"
    "    g = 7\n"
    "    cursor.execute(QUERY)\n"
    "    return cursor.fetchall()\n";

std::string handler(const std::string& source, const std::string& query) {
  std::string text = kHandler;
  text.replace(text.find("SOURCE"), 6, source);
  text.replace(text.find("QUERY"), 5, query);
  return text;
}

const std::string kTainted = "request.args[\"id\"]";
const std::string kConstant = "\"5\"";
const std::string kBound = "\"SELECT * FROM t WHERE id = %s\", (user_id,)";
const std::string kConcatenated = "\"SELECT * FROM t WHERE id = \" + user_id";

struct NewSide : ::testing::Test {
  TempRepo repo;
  // Committed with a bound query; then `staged` is added and `workTree` written over it.
  void stageThenEdit(const std::string& staged, const std::string& workTree) {
    repo.write("a.py", handler(kTainted, kBound));
    repo.commitAll("init");
    repo.write("a.py", staged);
    repo.git("add a.py");
    repo.write("a.py", workTree);
  }
};

TEST_F(NewSide, AStagedInjectionIsFoundWhateverTheWorkTreeSays) {
  stageThenEdit(handler(kTainted, kConcatenated), handler(kConstant, kConcatenated));
  const auto r = runRevline("review --staged --fail-on MINOR", repo.root());
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("a.py:13: MINOR SECURITY"), std::string::npos) << r.out;
  // And the model is shown the index's function context, not the work tree's.
  const auto shown = runRevline("diff --staged", repo.root());
  EXPECT_NE(shown.out.find("   5 :     user_id = request.args[\"id\"]"), std::string::npos) << shown.out;
}

TEST_F(NewSide, ASafeStagedChangeIsNotBlockedByAnUnstagedEdit) {
  stageThenEdit(handler(kConstant, kConcatenated), handler(kTainted, kConcatenated));
  const auto r = runRevline("review --staged --fail-on MINOR", repo.root());
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  // The same index as a patch: the blobs its index lines name are the index's.
  const auto piped = runRevline("review --stdin --fail-on MINOR", repo.root(), repo.git("diff --cached"));
  EXPECT_EQ(piped.exitCode, 0) << piped.out << piped.err;
}

TEST_F(NewSide, ASuppressionOnlyInTheWorkTreeDoesNotSilenceAStagedLine) {
  stageThenEdit(handler(kTainted, kConcatenated), handler(kTainted, kConcatenated));
  std::string workTree = handler(kTainted, kConcatenated);
  workTree.replace(workTree.find("+ user_id)") + 10, 0, "  # noqa");
  repo.write("a.py", workTree);
  const auto r = runRevline("review --staged --fail-on MINOR", repo.root());
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
}

TEST_F(NewSide, APatchOfTheWorkTreeIsJudgedByTheWorkTreeItWasMadeFrom) {
  // `git diff > p`: the new blob was only hashed, never stored; the work tree is it.
  repo.write("a.py", handler(kTainted, kBound));
  repo.commitAll("init");
  repo.write("a.py", handler(kTainted, kConcatenated));
  const auto r = runRevline("review --stdin --fail-on MINOR", repo.root(), repo.git("diff"));
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  // Edited since: the work tree is not what the patch shows, and git has no blob for it.
  const std::string patch = repo.git("diff");
  repo.write("a.py", handler(kConstant, kConcatenated));
  const auto later = runRevline("diff --stdin", repo.root(), patch);
  EXPECT_EQ(later.exitCode, 0) << later.err;
  EXPECT_EQ(later.out.find("user_id = \"5\""), std::string::npos) << "no function context from another text:\n"
                                                                   << later.out;
}

// core.autocrlf: git hashed the work tree's file with CRLF made LF, and so does
// the check that the work tree is what a `git diff` patch shows.
TEST_F(NewSide, APatchOfACrlfWorkTreeIsJudgedByIt) {
  repo.git("config core.autocrlf true");
  auto crlf = [](std::string text) {
    for (std::size_t at = 0; (at = text.find('\n', at)) != std::string::npos; at += 2) text.insert(at, "\r");
    return text;
  };
  repo.write("a.py", crlf(handler(kConstant, kBound)));
  repo.commitAll("init");
  repo.write("a.py", crlf(handler(kConstant, kConcatenated)));
  const auto shown = runRevline("diff --stdin", repo.root(), repo.git("diff"));
  EXPECT_EQ(shown.exitCode, 0) << shown.err;
  EXPECT_NE(shown.out.find("   4 : def get(cursor):"), std::string::npos) << shown.out;
}

// A patch naming blobs this repository lacks (another repository's, or a partial
// clone's never fetched, whose lookup git fails outright) is judged by its hunks:
// nothing is fetched, and the review goes on.
TEST(NewSideOfAPatch, BlobsThisRepositoryLacksLeaveTheHunksAlone) {
  TempDir work;
  const auto made = runShell(
      "set -e; export GIT_CONFIG_NOSYSTEM=1 HOME=\"$PWD\"; git config --global user.name t; "
      "git config --global user.email t@t; git config --global protocol.file.allow always; "
      "git init -q -b main full; cd full; git config uploadpack.allowFilter true; "
      "printf 'def get(cursor, user_id):\\n    return 1\\n' > a.py; git add .; git commit -qm init; "
      "git checkout -q -b pr; printf 'def get(cursor, user_id):\\n    cursor.execute(\"SELECT 1 WHERE id = \" + "
      "user_id)\\n    return 1\\n' > a.py; git commit -qam change; git checkout -q main; cd ..; "
      "git clone -q --filter=blob:none --single-branch -b main \"file://$PWD/full\" blobless; "
      "cd blobless; git fetch -q origin pr:pr; git -C ../full diff --full-index main pr > ../change.patch",
      work.path());
  ASSERT_EQ(made.exitCode, 0) << made.err;
  const std::string patch = runShell("cat change.patch", work.path()).out;
  const auto r = runRevline("review --stdin --fail-on MINOR", work.path() / "blobless", patch);
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;  // the injection on the added line, found in the hunk
  EXPECT_EQ(r.err.find("cat-file"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace revline::testing
