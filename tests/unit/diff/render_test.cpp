// The renderings of a parsed diff: annotate (the model's view), the --json
// structure of cli.md, and numstat against `git apply --numstat`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/diff/render.h"
#include "tests/support/temp_repo.h"

namespace revline::diff {
namespace {

using revline::testing::runShell;
using revline::testing::shellQuote;
using revline::testing::TempRepo;

class RenderTest : public ::testing::Test {
 protected:
  TempRepo repo;

  // A commit with a modification (two hunks' worth of kinds and a missing
  // final newline), a deletion, a mode change, a rename and an addition.
  std::string mixedCommit() {
    repo.write("src/a.txt", "one\ntwo\nthree\n");
    repo.write("gone.txt", "bye\n");
    repo.write("run.sh", "echo\n");
    repo.write("old name.txt", "same\nsame\nsame\nsame\n");
    repo.commitAll();
    repo.write("src/a.txt", "one\nTWO\nthree\nfour");
    repo.remove("gone.txt");
    EXPECT_EQ(runShell("chmod +x run.sh", repo.root()).exitCode, 0);
    repo.git("mv 'old name.txt' 'new name.txt'");
    repo.write("tab\there.txt", "t\n");
    repo.commitAll();
    return repo.git("show --format= -M HEAD");
  }
  std::string gitApplyNumstat(const std::string& patch) {
    const auto r = runShell("GIT_CONFIG_NOSYSTEM=1 HOME=" + shellQuote(repo.root().string()) + " git apply --numstat",
                            repo.root(), patch);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return r.out;
  }
};

TEST_F(RenderTest, AnnotateNumbersRightSideLinesOnly) {
  const Diff d = parse(mixedCommit());
  EXPECT_EQ(annotate(d),
            "File: gone.txt (deleted; its lines have no new-file numbers)\n"
            "@@ -1 +0,0 @@\n"
            "     - bye\n"
            "\n"
            "File: new name.txt (renamed from old name.txt, similarity 100%; no lines shown)\n"
            "\n"
            "File: run.sh (mode 100644 -> 100755; no lines shown)\n"
            "\n"
            "File: src/a.txt (modified)\n"
            "@@ -1,3 +1,4 @@\n"
            "   1   one\n"
            "     - two\n"
            "   2 + TWO\n"
            "   3   three\n"
            "   4 + four\n"
            "     \\ No newline at end of file\n"
            "\n"
            "File: \"tab\\there.txt\" (added)\n"
            "@@ -0,0 +1 @@\n"
            "   1 + t\n");
}

TEST_F(RenderTest, AnnotateWidensTheNumberColumnForLargeFiles) {
  std::string c;
  for (int i = 1; i <= 12345; ++i) c += std::to_string(i) + "\n";
  repo.write("big.txt", c);
  repo.commitAll();
  c.replace(c.rfind("12345\n"), 6, "last\n");
  repo.write("big.txt", c);
  repo.commitAll();
  const std::string out = annotate(parse(repo.git("show --format= HEAD")));
  EXPECT_THAT(out, ::testing::HasSubstr("\n12342   12342\n"));
  EXPECT_THAT(out, ::testing::HasSubstr("\n      - 12345\n12345 + last\n"));
}

TEST_F(RenderTest, AnnotateShowsSectionAndBinary) {
  repo.write("f.c", "int main() {\n  int a;\n  int b;\n  int c;\n  int d;\n  return 0;\n}\n");
  repo.write("img.png", std::string("\x89PNG\0\0", 6));
  repo.commitAll();
  repo.write("f.c", "int main() {\n  int a;\n  int b;\n  int c;\n  int d;\n  return 1;\n}\n");
  repo.write("img.png", std::string("\x89PNG\0\1", 6));
  repo.commitAll();
  const std::string out = annotate(parse(repo.git("show --format= HEAD")));
  EXPECT_THAT(out, ::testing::HasSubstr("@@ -3,5 +3,5 @@ int main() {\n   3     int b;\n"));
  EXPECT_THAT(out, ::testing::HasSubstr("File: img.png (binary; content not shown)\n"));
}

// The view shows no '\r': a line whose only change is its ending reads as the
// same line removed and added again, so the file's header says what changed.
TEST_F(RenderTest, AnnotateSaysWhichLinesChangedOnlyTheirLineEnding) {
  repo.write("a.txt", "one\ntwo\nthree\n");
  repo.write("b.txt", "x\r\ny\r\n");
  repo.commitAll();
  repo.write("a.txt", "one\r\ntwo\r\nTHREE\n");
  repo.write("b.txt", "x\ny\r\n");
  repo.commitAll();
  const std::string out = annotate(parse(repo.git("show --format= HEAD")));
  EXPECT_THAT(out, ::testing::HasSubstr("File: a.txt (modified, 2 lines changed only from LF to CRLF line endings)\n"));
  EXPECT_THAT(out, ::testing::HasSubstr("File: b.txt (modified, 1 line changed only from CRLF to LF line endings)\n"));
  // An edit of the text is no line-ending change, whatever its ending.
  EXPECT_THAT(out, ::testing::HasSubstr("     - three\n   1 + one\n   2 + two\n   3 + THREE\n"));
}

TEST_F(RenderTest, JsonHasExactlyTheCliShape) {
  const Diff d = parse(mixedCommit());
  const json expected = json::parse(R"({"files":[
    {"path": null, "old_path": "gone.txt", "status": "deleted", "lines": []},
    {"path": "new name.txt", "old_path": "old name.txt", "status": "renamed", "lines": []},
    {"path": "run.sh", "old_path": "run.sh", "status": "mode", "lines": []},
    {"path": "src/a.txt", "old_path": "src/a.txt", "status": "modified", "lines": [
      {"new": 1, "kind": "context"}, {"new": 2, "kind": "added"}, {"new": 3, "kind": "context"},
      {"new": 4, "kind": "added"}]},
    {"path": "tab\there.txt", "old_path": null, "status": "added", "lines": [{"new": 1, "kind": "added"}]}
  ]})");
  EXPECT_EQ(toJson(d), expected) << toJson(d).dump(2);
}

TEST_F(RenderTest, JsonStatusForBinaryAndCopies) {
  repo.write("orig.txt", "a\nb\nc\nd\ne\n");
  repo.write("x.bin", std::string("\0\1", 2));
  repo.commitAll();
  repo.write("copy.txt", "a\nb\nc\nd\ne\nf\n");
  repo.remove("x.bin");
  repo.commitAll();
  const json j = toJson(parse(repo.git("show --format= -C -C HEAD")));
  ASSERT_EQ(j["files"].size(), 2u);
  EXPECT_EQ(j["files"][0]["status"], "copied");
  EXPECT_EQ(j["files"][0]["old_path"], "orig.txt");
  EXPECT_EQ(j["files"][0]["lines"].size(), 4u);  // 3 context + 1 added
  EXPECT_EQ(j["files"][1]["status"], "binary");
  EXPECT_TRUE(j["files"][1]["path"].is_null());
  EXPECT_EQ(j["files"][1]["old_path"], "x.bin");
}

TEST_F(RenderTest, JsonQuotesPathsThatAreNotUtf8) {
  repo.write("latin\xe9.txt", "x\n");
  repo.commitAll();
  const Diff d = parse(repo.git("show --format= HEAD"));
  ASSERT_EQ(d.files.size(), 1u);
  EXPECT_EQ(d.files[0].newPath, "latin\xe9.txt");
  const json j = toJson(d);
  EXPECT_EQ(j["files"][0]["path"], "\"latin\\351.txt\"");
  EXPECT_NO_THROW(j.dump());
}

TEST_F(RenderTest, NumstatIsByteIdenticalToGitApply) {
  const std::string patch = mixedCommit();
  EXPECT_EQ(numstat(parse(patch)), gitApplyNumstat(patch));
  repo.write("\xc3\xa9 t.bin", std::string("\0\1", 2));
  repo.write("q\"uote", "1\n2\n");
  repo.remove("src/a.txt");
  repo.commitAll();
  for (const std::string args : {"", "--binary"}) {
    const std::string p = repo.git("show --format= " + args + " HEAD");
    EXPECT_EQ(numstat(parse(p)), gitApplyNumstat(p)) << p;
  }
  EXPECT_EQ(numstat(parse(repo.git("show --format= HEAD"))),
            "2\t0\t\"q\\\"uote\"\n0\t4\tsrc/a.txt\n-\t-\t\"\\303\\251 t.bin\"\n");
}

}  // namespace
}  // namespace revline::diff
