// The parser on real git output: every diff here is produced by git in a
// temporary repository, and checked against the file contents git has.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/diff/diff.h"
#include "core/diff/render.h"
#include "tests/support/temp_repo.h"
#include "tests/unit/diff/diff_checks.h"

namespace revline::diff {
namespace {

using revline::testing::runShell;
using revline::testing::shellQuote;
using revline::testing::TempRepo;
using testing::expectSidesMatch;

class ParserTest : public ::testing::Test {
 protected:
  TempRepo repo;

  std::string seq(int from, int to) {
    std::string s;
    for (int i = from; i <= to; ++i) s += "line " + std::to_string(i) + "\n";
    return s;
  }
  std::string blob(const std::string& rev, const std::string& path) {
    return repo.git("show " + shellQuote(rev + ":" + path));
  }
  std::string gitIsolated(const std::string& args, const std::string& input = "") {
    return runShell("GIT_CONFIG_NOSYSTEM=1 HOME=" + shellQuote(repo.root().string()) + " git " + args, repo.root(),
                    input).out;
  }
  // Parses `text`, checks every section's lines against HEAD~1 / HEAD and the
  // numstat against `git apply --numstat`.
  Diff parseChecked(const std::string& text, const std::string& oldRev = "HEAD~1",
                    const std::string& newRev = "HEAD") {
    Diff d = parse(text);
    for (const FileDiff& f : d.files) {
      if (f.binary) continue;
      const bool symlinkOrGitlink = (f.newMode && (*f.newMode == "120000" || *f.newMode == "160000")) ||
                                    (f.oldMode && (*f.oldMode == "120000" || *f.oldMode == "160000"));
      if (symlinkOrGitlink) continue;  // their "content" is a target or commit id, checked where used
      std::string oldC, newC;
      if (f.oldPath) oldC = blob(oldRev, *f.oldPath);
      if (f.newPath) newC = blob(newRev, *f.newPath);
      expectSidesMatch(f, f.oldPath ? &oldC : nullptr, f.newPath ? &newC : nullptr);
    }
    EXPECT_EQ(numstat(d), gitIsolated("apply --numstat", text));
    return d;
  }
  Diff showHead(const std::string& args = "") { return parseChecked(repo.git("show --format= " + args + " HEAD")); }
};

TEST_F(ParserTest, SeveralHunksIncludingFileStartAndEnd) {
  repo.write("f.txt", seq(1, 100));
  repo.commitAll();
  std::string c = seq(1, 100);
  c.replace(c.find("line 1\n"), 7, "first\n");
  c.replace(c.find("line 50\n"), 8, "middle\nextra\n");
  c.replace(c.find("line 100\n"), 9, "");
  repo.write("f.txt", c);
  repo.commitAll();
  const Diff d = showHead();
  ASSERT_EQ(d.files.size(), 1u);
  const FileDiff& f = d.files[0];
  EXPECT_EQ(f.status, FileStatus::Modified);
  EXPECT_EQ(f.oldPath, "f.txt");
  EXPECT_EQ(f.newPath, "f.txt");
  EXPECT_EQ(f.oldMode, "100644");
  ASSERT_EQ(f.hunks.size(), 3u);
  EXPECT_EQ(f.hunks[0].oldStart, 1);
  EXPECT_EQ(f.hunks[0].newStart, 1);
  EXPECT_EQ(f.hunks[2].oldStart + f.hunks[2].oldCount - 1, 100);
  EXPECT_EQ(f.hunks[2].lines.back().kind, LineKind::Removed);
  EXPECT_EQ(f.hunks[2].lines.back().text, "line 100");
  EXPECT_TRUE(f.isRightSideLine(50));
  EXPECT_EQ(f.newLineText(51), "extra");
  EXPECT_FALSE(f.isRightSideLine(20));
  EXPECT_FALSE(f.newLineText(20).has_value());
  EXPECT_FALSE(f.isRightSideLine(0));
}

TEST_F(ParserTest, AddedAndDeletedFiles) {
  repo.write("gone.txt", "bye\nbye\n");
  repo.commitAll();
  repo.remove("gone.txt");
  repo.write("dir/new.txt", seq(1, 4));
  repo.commitAll();
  const Diff d = showHead();
  ASSERT_EQ(d.files.size(), 2u);
  const FileDiff& added = d.files[0];
  EXPECT_EQ(added.status, FileStatus::Added);
  EXPECT_FALSE(added.oldPath.has_value());
  EXPECT_EQ(added.newPath, "dir/new.txt");
  EXPECT_EQ(added.newMode, "100644");
  const FileDiff& gone = d.files[1];
  EXPECT_EQ(gone.status, FileStatus::Deleted);
  EXPECT_EQ(gone.oldPath, "gone.txt");
  EXPECT_FALSE(gone.newPath.has_value());
  EXPECT_EQ(gone.path(), "gone.txt");
  EXPECT_FALSE(gone.isRightSideLine(1));
  EXPECT_EQ(d.findFile("gone.txt"), &gone);
  EXPECT_EQ(d.findFile("./dir/new.txt"), &added);
  EXPECT_EQ(d.findFile("b/dir/new.txt"), &added);
  EXPECT_EQ(d.findFile("new.txt"), nullptr);
  const FileIndex index(d);  // the same answers, for many lookups
  for (const char* name : {"gone.txt", "./dir/new.txt", "b/dir/new.txt", "a/gone.txt", "new.txt", "dir", ""})
    EXPECT_EQ(index.find(name), d.findFile(name)) << name;
}

TEST_F(ParserTest, PureRenameHasNoHunksAndNamesFromRenameLines) {
  repo.write("old name.txt", seq(1, 5));
  repo.write("plain", seq(1, 7));
  repo.commitAll();
  repo.git("mv 'old name.txt' 'new name.txt'");
  repo.git("mv plain 'spaced out'");
  repo.commitAll();
  const Diff d = showHead("-M");
  ASSERT_EQ(d.files.size(), 2u);
  EXPECT_EQ(d.files[0].status, FileStatus::Renamed);
  EXPECT_EQ(d.files[0].oldPath, "old name.txt");
  EXPECT_EQ(d.files[0].newPath, "new name.txt");
  EXPECT_EQ(d.files[0].similarity, 100);
  EXPECT_TRUE(d.files[0].hunks.empty());
  EXPECT_EQ(d.files[1].oldPath, "plain");
  EXPECT_EQ(d.files[1].newPath, "spaced out");
}

TEST_F(ParserTest, RenameWithEdits) {
  repo.write("src/a.cpp", seq(1, 30));
  repo.commitAll();
  repo.git("mv src/a.cpp src/b.cpp");
  std::string c = seq(1, 30);
  c.replace(c.find("line 15\n"), 8, "changed 15\n");
  repo.write("src/b.cpp", c);
  repo.commitAll();
  const Diff d = showHead("-M");
  ASSERT_EQ(d.files.size(), 1u);
  EXPECT_EQ(d.files[0].status, FileStatus::Renamed);
  EXPECT_EQ(d.files[0].oldPath, "src/a.cpp");
  EXPECT_EQ(d.files[0].newPath, "src/b.cpp");
  ASSERT_EQ(d.files[0].hunks.size(), 1u);
  EXPECT_EQ(d.files[0].newLineText(15), "changed 15");
}

TEST_F(ParserTest, CopiedFiles) {
  repo.write("orig.txt", seq(1, 40));
  repo.commitAll();
  repo.write("copy.txt", seq(1, 40) + "tail\n");
  repo.write("same.txt", seq(1, 40));
  repo.commitAll();
  const Diff d = showHead("-C -C");
  ASSERT_EQ(d.files.size(), 2u);
  for (const FileDiff& f : d.files) {
    EXPECT_EQ(f.status, FileStatus::Copied) << f.path();
    EXPECT_EQ(f.oldPath, "orig.txt");
  }
  EXPECT_EQ(d.files[0].newPath, "copy.txt");
  EXPECT_EQ(d.files[0].newLineText(41), "tail");
  EXPECT_EQ(d.files[1].newPath, "same.txt");
  EXPECT_TRUE(d.files[1].hunks.empty());
}

TEST_F(ParserTest, ModeChangesWithAndWithoutEdits) {
  repo.write("run.sh", "echo hi\n");
  repo.write("tool.sh", "echo a\n");
  repo.write("my script", "x\n");
  repo.commitAll();
  repo.git("update-index --chmod=+x run.sh tool.sh 'my script'");
  repo.write("tool.sh", "echo b\n");
  repo.git("add tool.sh");
  repo.git("update-index --chmod=+x tool.sh");
  repo.git("commit -q -m modes");
  const std::string text = repo.git("show --format= HEAD");
  const Diff d = parseChecked(text);
  ASSERT_EQ(d.files.size(), 3u);
  EXPECT_EQ(d.files[0].path(), "my script");
  EXPECT_EQ(d.files[0].status, FileStatus::Mode);
  EXPECT_EQ(d.files[1].path(), "run.sh");
  EXPECT_EQ(d.files[1].status, FileStatus::Mode);
  EXPECT_EQ(d.files[1].oldMode, "100644");
  EXPECT_EQ(d.files[1].newMode, "100755");
  EXPECT_EQ(d.files[2].path(), "tool.sh");
  EXPECT_EQ(d.files[2].status, FileStatus::Modified);
  EXPECT_EQ(d.files[2].newMode, "100755");
  // The same with --no-prefix: the name with a space is split in the middle.
  const Diff np = parse(repo.git("show --format= --no-prefix HEAD"));
  ASSERT_EQ(np.files.size(), 3u);
  EXPECT_EQ(np.files[0].path(), "my script");
  EXPECT_EQ(np.files[0].oldPath, "my script");
}

TEST_F(ParserTest, BinaryFilesBothForms) {
  std::string bin(3000, '\0');
  for (size_t i = 0; i < bin.size(); ++i) bin[i] = static_cast<char>((i * 7919) % 251);
  repo.write("a.bin", bin);
  repo.write("gone.bin", std::string("\0\1\2", 3));
  repo.write("z.txt", "one\n");
  repo.commitAll();
  bin[1500] = 'x';  // a small change to a big file: git writes a delta
  repo.write("a.bin", bin);
  repo.remove("gone.bin");
  repo.write("new.bin", std::string("\0new", 4));
  repo.write("z.txt", "two\n");
  repo.commitAll();
  for (const std::string args : {"", "--binary"}) {
    const std::string text = repo.git("show --format= " + args + " HEAD");
    if (args == "--binary") {
      EXPECT_THAT(text, ::testing::HasSubstr("GIT binary patch\ndelta "));
      EXPECT_THAT(text, ::testing::HasSubstr("literal "));
    } else {
      EXPECT_THAT(text, ::testing::HasSubstr("Binary files a/a.bin and b/a.bin differ"));
    }
    const Diff d = parseChecked(text);
    ASSERT_EQ(d.files.size(), 4u) << args;
    EXPECT_EQ(d.files[0].path(), "a.bin");
    EXPECT_EQ(d.files[1].oldPath, "gone.bin");
    EXPECT_FALSE(d.files[1].newPath.has_value());
    EXPECT_EQ(d.files[2].newPath, "new.bin");
    EXPECT_FALSE(d.files[2].oldPath.has_value());
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(d.files[i].status, FileStatus::Binary);
      EXPECT_TRUE(d.files[i].binary);
      EXPECT_TRUE(d.files[i].hunks.empty());
    }
    // The text file after the binary data is parsed normally.
    EXPECT_EQ(d.files[3].status, FileStatus::Modified);
    EXPECT_EQ(d.files[3].newLineText(1), "two");
  }
}

TEST_F(ParserTest, NoNewlineAtEndOnEitherOrBothSides) {
  repo.write("old-only.txt", "a\nb");
  repo.write("new-only.txt", "a\nb\n");
  repo.write("both.txt", "a\nb");
  repo.commitAll();
  repo.write("old-only.txt", "a\nb\n");
  repo.write("new-only.txt", "a\nb");
  repo.write("both.txt", "a\nc");
  repo.commitAll();
  const Diff d = showHead();
  ASSERT_EQ(d.files.size(), 3u);
  auto flags = [](const FileDiff& f) {
    std::string s;
    for (const Line& l : f.hunks.at(0).lines) {
      s += l.kind == LineKind::Added ? '+' : l.kind == LineKind::Removed ? '-' : ' ';
      s += l.noNewlineAtEnd ? "!" : "";
    }
    return s;
  };
  EXPECT_EQ(d.findFile("both.txt")->status, FileStatus::Modified);
  EXPECT_EQ(flags(*d.findFile("both.txt")), " -!+!");
  EXPECT_EQ(flags(*d.findFile("new-only.txt")), " -+!");
  EXPECT_EQ(flags(*d.findFile("old-only.txt")), " -!+");
}

TEST_F(ParserTest, QuotedAndSpacedPaths) {
  const std::vector<std::string> names = {"with space.txt", "tab\there", "new\nline", "quo\"te", "back\\slash",
                                          "\xc3\xa9t\xc3\xa9 caf\xc3\xa9.txt", "dir with space/f g"};
  for (const auto& n : names) repo.write(n, "one\n");
  repo.commitAll();
  for (const auto& n : names) repo.write(n, "two\n");
  repo.commitAll();
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  for (const std::string args : {"", "--no-prefix", "--src-prefix=left/ --dst-prefix=right/"}) {
    const std::string text = repo.git("show --format= " + args + " HEAD");
    const Diff d = args.empty() ? parseChecked(text) : parse(text);
    ASSERT_EQ(d.files.size(), names.size()) << args;
    std::vector<std::string> got;
    for (const auto& f : d.files) {
      got.push_back(f.path());
      EXPECT_EQ(f.oldPath, f.newPath);
      EXPECT_EQ(f.newLineText(1), "two");
    }
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, sorted) << args;
    const FileIndex index(d);
    for (const auto& n : names) {
      ASSERT_NE(d.findFile(n), nullptr) << n;
      EXPECT_EQ(index.find(n), d.findFile(n)) << n;
      EXPECT_EQ(index.find(quotePath(n)), d.findFile(n)) << n;  // as the prompt's "File:" line spells it
    }
  }
  // Added files with the same names (only "+++" names them) and a rename to one.
  repo.git("mv 'with space.txt' 'renamed \xc3\xa9.txt'");
  repo.write("fresh\tfile", "x\n");
  repo.commitAll();
  const Diff d = parseChecked(repo.git("show --format= -M HEAD"));
  ASSERT_EQ(d.files.size(), 2u);
  EXPECT_EQ(d.files[0].newPath, "fresh\tfile");
  EXPECT_EQ(d.files[0].status, FileStatus::Added);
  EXPECT_EQ(d.files[1].oldPath, "with space.txt");
  EXPECT_EQ(d.files[1].newPath, "renamed \xc3\xa9.txt");
}

TEST_F(ParserTest, MnemonicAndCustomPrefixes) {
  repo.write("src/x y.txt", seq(1, 3));
  repo.write("m.sh", "a\n");
  repo.commitAll();
  repo.write("src/x y.txt", seq(1, 4));
  ASSERT_EQ(runShell("chmod +x m.sh", repo.root()).exitCode, 0);
  repo.write("staged.txt", "s\n");
  repo.git("add staged.txt");
  // c/ (commit) vs w/ (work tree), i/ (index) vs w/, c/ vs i/.
  for (const std::string cmd : {"diff HEAD", "diff", "diff --cached", "diff --src-prefix=old/ --dst-prefix=new/ HEAD",
                                "diff --no-prefix HEAD"}) {
    const std::string text = repo.git("-c diff.mnemonicPrefix=true " + cmd);
    const Diff d = parse(text);
    for (const FileDiff& f : d.files) {
      EXPECT_THAT(f.path(), ::testing::AnyOf("src/x y.txt", "m.sh", "staged.txt")) << cmd << "\n" << text;
    }
    if (cmd == "diff HEAD") {
      EXPECT_THAT(text, ::testing::HasSubstr("--- c/src/x y.txt"));
      EXPECT_EQ(d.files.size(), 3u);
      EXPECT_EQ(d.findFile("m.sh")->status, FileStatus::Mode);
      EXPECT_EQ(d.findFile("src/x y.txt")->newLineText(4), "line 4");
    }
  }
}

TEST_F(ParserTest, OmittedCountsAndFunctionContext) {
  repo.write("one.txt", "only\n");
  std::string code = "int f() {\n";
  for (int i = 0; i < 20; ++i) code += "  int v" + std::to_string(i) + " = " + std::to_string(i) + ";\n";
  code += "  return 0;\n}\n";
  repo.write("code.c", code);
  repo.commitAll();
  repo.write("one.txt", "changed\n");
  std::string edited = code;
  edited.replace(edited.find("v15 = 15"), 8, "v15 = 99");
  repo.write("code.c", edited);
  repo.commitAll();
  const Diff d = showHead();
  const FileDiff& one = *d.findFile("one.txt");
  ASSERT_EQ(one.hunks.size(), 1u);
  EXPECT_EQ(one.hunks[0].oldCount, 1);
  EXPECT_EQ(one.hunks[0].newCount, 1);
  EXPECT_EQ(one.hunks[0].section, "");
  EXPECT_EQ(d.findFile("code.c")->hunks.at(0).section, "int f() {");
  // -U0 and --function-context hunks.
  const Diff u0 = showHead("-U0");
  EXPECT_EQ(u0.findFile("code.c")->hunks.at(0).lines.size(), 2u);
  const Diff w = showHead("--function-context");
  EXPECT_EQ(w.findFile("code.c")->hunks.at(0).newStart, 1);
  EXPECT_EQ(w.findFile("code.c")->hunks.at(0).newCount, 23);
}

TEST_F(ParserTest, ContentThatLooksLikeHeadersIsCounted) {
  repo.write("tricky.txt", "keep\n-- removed sig\n++ plus\n");
  repo.commitAll();
  repo.write("tricky.txt",
             "keep\n-- x\n++ y\ndiff --git a/f b/f\n@@ -1 +1 @@\n\\ backslash\nindex 1..2\n--- a/z\n+++ b/z\n");
  repo.commitAll();
  const Diff d = showHead();
  ASSERT_EQ(d.files.size(), 1u);
  const FileDiff& f = d.files[0];
  EXPECT_EQ(f.newLineText(4), "diff --git a/f b/f");
  EXPECT_EQ(f.newLineText(5), "@@ -1 +1 @@");
  EXPECT_EQ(f.newLineText(6), "\\ backslash");
  EXPECT_EQ(f.newLineText(8), "--- a/z");
  EXPECT_EQ(f.newLineText(9), "+++ b/z");
}

TEST_F(ParserTest, CrlfContentKeepsTheCarriageReturnOutOfText) {
  repo.write("win.txt", "a\r\nb\r\nc\r\n");
  repo.commitAll();
  repo.write("win.txt", "a\r\nB\r\nc\r\nd");
  repo.commitAll();
  const Diff d = showHead();
  const FileDiff& f = d.files.at(0);
  EXPECT_EQ(f.newLineText(2), "B");
  EXPECT_EQ(f.newLineText(4), "d");
  for (const Line& l : f.hunks.at(0).lines) EXPECT_EQ(l.crlf, l.text != "d") << l.text;
  // A whole diff saved with CRLF line endings (here of an LF file) parses the same.
  repo.write("unix.txt", "a\n");
  repo.commitAll();
  repo.write("unix.txt", "a\nB\n");
  repo.commitAll();
  std::string text = repo.git("show --format= HEAD"), crlfText;
  for (char c : text) {
    if (c == '\n') crlfText += '\r';
    crlfText += c;
  }
  const Diff d2 = parse(crlfText);
  ASSERT_EQ(d2.files.size(), 1u);
  EXPECT_EQ(d2.files[0].path(), "unix.txt");
  EXPECT_EQ(d2.files[0].newLineText(2), "B");
}

TEST_F(ParserTest, EmptyFilesAndVeryLongLines) {
  repo.write("empty-gone", "");
  repo.commitAll();
  repo.remove("empty-gone");
  repo.write("empty-new", "");
  std::string longLine(2 * 1024 * 1024, 'x');
  repo.write("long.txt", "start\n" + longLine + "\nend\n");
  repo.commitAll();
  const Diff d = showHead("--no-renames");  // else git pairs the two empty files as a rename
  ASSERT_EQ(d.files.size(), 3u);
  EXPECT_EQ(d.findFile("empty-new")->status, FileStatus::Added);
  EXPECT_TRUE(d.findFile("empty-new")->hunks.empty());
  EXPECT_EQ(d.findFile("empty-gone")->status, FileStatus::Deleted);
  EXPECT_EQ(d.findFile("long.txt")->newLineText(2)->size(), longLine.size());
}

TEST_F(ParserTest, SubmoduleAndTypeChange) {
  repo.write("t", "plain file\n");
  repo.commitAll();
  const std::string head = repo.git("rev-parse HEAD").substr(0, 40);
  repo.git("update-index --add --cacheinfo 160000," + head + ",sub");
  repo.remove("t");
  ASSERT_EQ(runShell("ln -s target t", repo.root()).exitCode, 0);
  repo.git("add t");
  repo.git("commit -q -m sub");
  const Diff d = showHead();
  ASSERT_EQ(d.files.size(), 3u);
  EXPECT_EQ(d.files[0].path(), "sub");
  EXPECT_EQ(d.files[0].status, FileStatus::Added);
  EXPECT_EQ(d.files[0].newMode, "160000");
  EXPECT_EQ(d.files[0].newLineText(1), "Subproject commit " + head);
  // file -> symlink: two sections, as git prints it.
  EXPECT_EQ(d.files[1].status, FileStatus::Deleted);
  EXPECT_EQ(d.files[1].oldPath, "t");
  EXPECT_EQ(d.files[2].status, FileStatus::Added);
  EXPECT_EQ(d.files[2].newMode, "120000");
  EXPECT_EQ(d.files[2].newLineText(1), "target");
  EXPECT_TRUE(d.files[2].hunks[0].lines[0].noNewlineAtEnd);
  EXPECT_EQ(d.findFile("t"), &d.files[2]);
  EXPECT_EQ(FileIndex(d).find("t"), &d.files[2]);  // the section with a new side, as findFile
  EXPECT_NO_THROW(requireOneSectionPerFile(d));  // a deletion and an addition of one path
}

TEST_F(ParserTest, GitLogAndFormatPatchSkipTextBetweenSections) {
  repo.write("a.txt", seq(1, 3));
  repo.write("m.sh", "x\n");
  repo.commitAll("first\n\ndiff --git a/fake b/fake\n@@ -1 +1 @@ in the message");
  ASSERT_EQ(runShell("chmod +x m.sh", repo.root()).exitCode, 0);
  repo.commitAll("mode only");
  repo.write("a.txt", seq(1, 4));
  repo.commitAll("third");
  const Diff log = parse(repo.git("log -p --reverse"));
  ASSERT_EQ(log.files.size(), 4u);
  EXPECT_EQ(log.files[0].status, FileStatus::Added);
  EXPECT_EQ(log.files[2].status, FileStatus::Mode);
  EXPECT_EQ(log.files[3].newLineText(4), "line 4");
  try {  // m.sh added, then its mode changed: two versions of it, not one change to review
    requireOneSectionPerFile(log);
    ADD_FAILURE() << "m.sh has two sections";
  } catch (const ParseError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("'m.sh' has a second section in this diff (sections 2 and 3)"));
    const std::string text = repo.git("log -p --reverse");
    const std::size_t third = text.find("diff --git a/m.sh b/m.sh", text.find("diff --git a/m.sh b/m.sh") + 1);
    ASSERT_NE(third, std::string::npos);
    EXPECT_EQ(e.inputLine(), 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(third), '\n'));
  }
  // format-patch: "---" separator, diffstat, "-- " signature, several mails.
  const std::string mails = repo.git("format-patch --stdout HEAD~2");
  EXPECT_THAT(mails, ::testing::HasSubstr("\n-- \n"));
  const Diff fp = parse(mails);
  ASSERT_EQ(fp.files.size(), 2u);
  EXPECT_EQ(fp.files[0].status, FileStatus::Mode);
  EXPECT_EQ(fp.files[1].newLineText(4), "line 4");
  EXPECT_EQ(numstat(fp), gitIsolated("apply --numstat", mails));
  EXPECT_NO_THROW(requireOneSectionPerFile(fp));  // each file once
}

TEST_F(ParserTest, PlainUnifiedDiffWithoutGitHeaders) {
  repo.write("a/x.txt", seq(1, 5));
  repo.write("b/x.txt", seq(2, 6));
  repo.write("b/new.txt", "n\n");
  const auto r = runShell("diff -u a/x.txt b/x.txt; diff -u /dev/null b/new.txt", repo.root());
  ASSERT_EQ(r.exitCode, 1);  // diff's "files differ"
  const Diff d = parse(r.out);
  ASSERT_EQ(d.files.size(), 2u);
  EXPECT_EQ(d.files[0].path(), "x.txt");
  EXPECT_EQ(d.files[0].status, FileStatus::Modified);
  const std::string oldC = repo.read("a/x.txt"), newC = repo.read("b/x.txt");
  expectSidesMatch(d.files[0], &oldC, &newC);
  EXPECT_EQ(d.files[1].newPath, "new.txt");
  EXPECT_EQ(d.files[1].status, FileStatus::Added);
  // git diff --no-index, as revline runs it for untracked files.
  const auto u = runShell("git diff --no-index /dev/null 'b/new.txt'", repo.root());
  EXPECT_EQ(u.exitCode, 1);
  const Diff ud = parse(u.out);
  ASSERT_EQ(ud.files.size(), 1u);
  EXPECT_EQ(ud.files[0].newPath, "b/new.txt");
  EXPECT_EQ(ud.files[0].status, FileStatus::Added);
}

TEST_F(ParserTest, EmptyInputHasNoFiles) {
  EXPECT_TRUE(parse("").files.empty());
  EXPECT_TRUE(parse("\n\n").files.empty());
  repo.commitAll("empty commit");
  EXPECT_TRUE(parse(repo.git("show --format= HEAD")).files.empty());
}

TEST(QuotePath, MatchesGitQuoting) {
  EXPECT_EQ(quotePath("plain/path.txt"), "plain/path.txt");
  EXPECT_EQ(quotePath("with space"), "with space");
  EXPECT_EQ(quotePath("tab\there"), "\"tab\\there\"");
  EXPECT_EQ(quotePath("q\"b\\"), "\"q\\\"b\\\\\"");
  EXPECT_EQ(quotePath("\xc3\xa9"), "\"\\303\\251\"");
  EXPECT_EQ(quotePath(std::string("\x01\x7f", 2)), "\"\\001\\177\"");
}

TEST(NormalizePath, DropsDotSlash) {
  EXPECT_EQ(normalizePath("./src/a.cpp"), "src/a.cpp");
  EXPECT_EQ(normalizePath("././src/a.cpp"), "src/a.cpp");
  EXPECT_EQ(normalizePath("src/a.cpp"), "src/a.cpp");
  EXPECT_EQ(normalizePath("a/src/a.cpp"), "a/src/a.cpp");  // only findFile knows whether "a/" is a prefix
}

// The new side's blob id, which --staged and --stdin read the file's whole new text by.
TEST_F(ParserTest, TheNewBlobIdOfTheIndexLineIsKept) {
  repo.write("a.txt", seq(1, 3));
  repo.commitAll("one");
  repo.write("a.txt", seq(1, 4));
  repo.git("add a.txt");
  const Diff staged = parse(repo.git("diff --cached"));
  ASSERT_EQ(staged.files.size(), 1u);
  ASSERT_TRUE(staged.files[0].newBlob);
  EXPECT_EQ(repo.git("rev-parse :a.txt").rfind(*staged.files[0].newBlob, 0), 0u) << *staged.files[0].newBlob;
  const Diff withMode = parse("diff --git a/b b/b\nindex 83db48f..bf269f4 100644\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-x\n+y\n");
  EXPECT_EQ(withMode.files[0].newBlob, std::optional<std::string>("bf269f4"));
  EXPECT_EQ(withMode.files[0].newMode, std::optional<std::string>("100644"));
  // Zeros: not known to git (a deleted file's new side); no index line: nothing said.
  EXPECT_EQ(parse("diff --git a/b b/b\ndeleted file mode 100644\nindex 83db48f..0000000\n--- a/b\n+++ /dev/null\n"
                  "@@ -1 +0,0 @@\n-x\n")
                .files[0]
                .newBlob,
            std::nullopt);
  EXPECT_EQ(parse("--- a/b\n+++ b/b\n@@ -1 +1 @@\n-x\n+y\n").files[0].newBlob, std::nullopt);
}

}  // namespace
}  // namespace revline::diff
