// A repository handed over as a directory brings its own .git/config and hooks:
// the programs they name must not run when revline reads the diff (on every
// save, in the language server), unless the user trusts the repository. Each
// test plants a program that leaves a marker file and checks it never ran.
#include "core/git/config_guard.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>

#include "core/git/git.h"
#include "tests/support/temp_repo.h"

namespace revline::git {
namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::TempDir;
using testing::TempRepo;

struct Planted : ::testing::Test {
  TempRepo repo;
  TempDir home;     // the user's own (global) git config lives here
  TempDir markers;  // where a planted program leaves its mark
  std::vector<std::string> ignored;

  GitOptions options() const {
    GitOptions o;
    o.env["HOME"] = home.path().string();
    o.env["GIT_CONFIG_NOSYSTEM"] = "1";
    return o;
  }
  // A shell command that records that it ran.
  std::string mark(const std::string& name) const {
    return "touch " + testing::shellQuote((markers.path() / name).string());
  }
  // A filter driver that records that it ran and passes its input through.
  std::string program(const std::string& name) const { return mark(name) + "; cat"; }
  bool ran(const std::string& name) const { return fs::exists(markers.path() / name); }
  std::string diff(bool trusted = false) {
    DiffRequest request;
    request.trustRepositoryConfig = trusted;
    request.ignoredSettings = &ignored;
    return diffText(repo.root(), request, options());
  }
  void config(const std::string& key, const std::string& value) const {
    repo.git("config " + testing::shellQuote(key) + " " + testing::shellQuote(value));
  }
  // A tracked file under a filter driver, then changed with its size kept (git must read it).
  void filteredChange(const std::string& driver) const {
    repo.write(".gitattributes", "*.txt filter=" + driver + "\n");
    repo.write("a.txt", "one\n");
    repo.commitAll("base");
    repo.write("a.txt", "two\n");
  }
};

TEST_F(Planted, FilterDriverFsmonitorAndHookOfTheRepositoryDoNotRun) {
  filteredChange("evil");
  config("filter.evil.clean", program("clean"));
  config("filter.evil.process", program("process"));
  config("core.fsmonitor", mark("fsmonitor") + "; false");
  repo.write(".git/hooks/post-index-change", "#!/bin/sh\n" + mark("hook") + "\n");
  fs::permissions(repo.root() / ".git/hooks/post-index-change", fs::perms::owner_all);
  repo.write("untracked.txt", "new\n");  // revline's `git add -N` writes its private index: the hook's moment

  const std::string text = diff();
  EXPECT_FALSE(ran("clean") || ran("process") || ran("fsmonitor") || ran("hook"));
  EXPECT_THAT(text, HasSubstr("-one\n+two\n"));  // the diff itself is unchanged
  EXPECT_THAT(text, HasSubstr("b/untracked.txt"));
  EXPECT_THAT(ignored, ElementsAre("core.fsmonitor", "filter.evil.clean", "filter.evil.process"));
  const std::string notice = ignoredSettingsNotice(repo.root(), ignored);
  EXPECT_THAT(notice, HasSubstr("core.fsmonitor, filter.evil.clean, filter.evil.process"));
  EXPECT_THAT(notice, HasSubstr("run `revline trust " + repo.root().string() + "`"));

  // What `git diff` itself does, so the test can fail: the same repository runs them.
  testing::runShell("HOME=" + testing::shellQuote(home.path().string()) + " git diff HEAD", repo.root());
  EXPECT_TRUE(ran("fsmonitor"));
}

// git-lfs installed for one repository (`git lfs install --local`) marks its driver
// required: switched off, it must not make every diff fail.
TEST_F(Planted, ARequiredFilterSwitchedOffDoesNotFailTheDiff) {
  filteredChange("lfs");
  config("filter.lfs.process", program("process"));
  config("filter.lfs.required", "true");
  EXPECT_THAT(diff(), HasSubstr("-one\n+two\n"));
  EXPECT_FALSE(ran("process"));
  EXPECT_THAT(ignored, ElementsAre("filter.lfs.process"));
}

TEST_F(Planted, AFilterFromAnIncludedFileCountsAsTheRepositorys) {
  filteredChange("inc");
  repo.write(".git/more.cfg", "[filter \"inc\"]\n\tclean = " + program("clean") + "\n");
  config("include.path", "more.cfg");
  diff();
  EXPECT_FALSE(ran("clean"));
  EXPECT_THAT(ignored, ElementsAre("filter.inc.clean"));
}

TEST_F(Planted, TheUsersOwnFilterDriversRunAndTrustLetsTheRepositorysRun) {
  filteredChange("mine");
  std::ofstream(home.path() / ".gitconfig") << "[filter \"mine\"]\n\tclean = " << program("global") << "\n";
  diff();
  EXPECT_TRUE(ran("global")) << "a driver of the user's own config (git-lfs installed globally, say) is kept";
  EXPECT_TRUE(ignored.empty());

  config("filter.mine.clean", program("local"));
  diff(/*trusted=*/true);
  EXPECT_TRUE(ran("local")) << "a trusted repository's settings apply as git applies them";
  EXPECT_TRUE(ignored.empty());
}

// --staged compares the work tree with the index (git::unstagedIndexBlobs,
// git::intentToAdd), and git hashes a "racily clean" file through its clean
// filter: an index dated no later than the file (and core.checkStat minimal)
// is the repository's to arrange. Its filter does not run there either.
TEST_F(Planted, TheIndexComparisonsOfAStagedReviewRunNoFilter) {
  filteredChange("x");
  repo.git("add a.txt");
  config("filter.x.clean", program("clean"));
  config("core.checkStat", "minimal");
  fs::last_write_time(repo.root() / ".git" / "index",
                      fs::last_write_time(repo.root() / "a.txt") - std::chrono::hours(24 * 365));
  unstagedIndexBlobs(repo.root(), options());
  intentToAdd(repo.root(), options());
  EXPECT_FALSE(ran("clean"));
}

// A driver whose name is not UTF-8, for a user in a UTF-8 locale: git's regex
// '.' matches no such byte, so the query for the repository's drivers missed it
// and it ran on every diff. The query runs in the C locale.
TEST_F(Planted, ADriverNamedWithABytePastUtf8DoesNotRun) {
  filteredChange("a\xff" "b");
  config("filter.a\xff" "b.clean", program("clean"));
  repo.write("a.txt", "three\n");
  GitOptions utf8 = options();
  utf8.env["LC_ALL"] = "C.UTF-8";
  DiffRequest request;
  request.ignoredSettings = &ignored;
  diffText(repo.root(), request, utf8);
  EXPECT_FALSE(ran("clean"));
  EXPECT_THAT(ignored, ElementsAre("filter.a\xff" "b.clean"));
}

// A driver with an empty name (`[filter ""]`, for `* filter=`), which the
// query's `filter\..+\.` never listed, and a user whose environment sets
// GIT_CONFIG (which only `git config` reads: the query saw that file, the diff
// .git/config). Neither made the repository's program go unseen.
TEST_F(Planted, NeitherAnEmptyDriverNameNorGitConfigHidesADriver) {
  repo.write(".gitattributes", "*.txt filter=\n");
  repo.write("a.txt", "one\n");
  repo.commitAll("base");
  repo.write("a.txt", "two\n");
  repo.git("config --add filter..clean " + testing::shellQuote(program("empty")));
  diff();
  EXPECT_FALSE(ran("empty"));
  EXPECT_THAT(ignored, ElementsAre("filter..clean"));

  TempRepo other;
  const std::string marker = program("named");
  other.write(".gitattributes", "*.txt filter=x\n");
  other.write("a.txt", "one\n");
  other.commitAll("base");
  other.write("a.txt", "two\n");
  other.git("config filter.x.clean " + testing::shellQuote(marker));
  std::ofstream(home.path() / "elsewhere.cfg") << "[user]\n\tname = someone\n";
  GitOptions withGitConfig = options();
  withGitConfig.env["GIT_CONFIG"] = (home.path() / "elsewhere.cfg").string();
  diffText(other.root(), {}, withGitConfig);
  EXPECT_FALSE(ran("named"));
}

TEST_F(Planted, ASubmodulesOwnFilterDoesNotRun) {
  TempRepo sub;
  sub.write(".gitattributes", "*.txt filter=evil\n");
  sub.write("s.txt", "one\n");
  sub.commitAll("sub");
  repo.write("r.txt", "r\n");
  repo.git("-c protocol.file.allow=always submodule add -q " + testing::shellQuote(sub.root().string()) + " sub");
  repo.commitAll("with submodule");
  repo.git("-C sub config filter.evil.clean " + testing::shellQuote(program("sub-clean")));
  repo.write("sub/s.txt", "two\n");  // same size: only the filter can tell whether it changed
  repo.write("r.txt", "r2\n");

  const std::string text = diff();
  EXPECT_FALSE(ran("sub-clean"));
  EXPECT_THAT(text, HasSubstr("+r2\n"));
  EXPECT_THAT(text, Not(HasSubstr("-dirty")));  // an untrusted submodule's work tree is not looked into
  // ... and what that leaves unseen is said, with how to allow it.
  EXPECT_THAT(ignored, ElementsAre(kSubmoduleWorkTrees));
  EXPECT_EQ(ignoredSettingsNotice("/r", ignored),
            "/r: revline did not look into its submodules' work trees (their own git config is out of sight), so "
            "changes not committed inside a submodule are not part of this review (a review run inside the "
            "submodule sees them). If you trust this repository, run `revline trust /r`");
  EXPECT_THAT(ignoredSettingsNotice("/r", {"core.fsmonitor", kSubmoduleWorkTrees}),
              HasSubstr("names programs for git to run (core.fsmonitor); revline did not let them run; revline did "
                        "not look into its submodules' work trees"));
  ignored.clear();
  EXPECT_THAT(diff(/*trusted=*/true), HasSubstr("-dirty"));
  EXPECT_THAT(ignored, ::testing::IsEmpty());
}

// A submodule never checked out (actions/checkout's default, `submodule
// deinit`) has no work tree to look into: no warning that something inside it
// went unseen, on every review of a repository that merely has one.
TEST_F(Planted, ASubmoduleNotCheckedOutIsNoWarning) {
  TempRepo sub;
  sub.write("s.txt", "one\n");
  sub.commitAll("sub");
  repo.write("r.txt", "r\n");
  repo.git("-c protocol.file.allow=always submodule add -q " + testing::shellQuote(sub.root().string()) + " sub");
  repo.commitAll("with submodule");
  repo.git("submodule deinit -q -f sub");
  repo.write("r.txt", "r2\n");
  EXPECT_THAT(diff(), HasSubstr("+r2\n"));
  EXPECT_THAT(ignored, ::testing::IsEmpty());
  repo.git("-c protocol.file.allow=always submodule update -q --init sub");
  diff();
  EXPECT_THAT(ignored, ElementsAre(kSubmoduleWorkTrees));  // checked out again: said again
  // A diff of one named file (the editor's save of r.txt) names no submodule:
  // nothing went unseen, and nothing is said (it was, on every session's first save).
  ignored.clear();
  DiffRequest oneFile;
  oneFile.paths = {"r.txt"};
  oneFile.ignoredSettings = &ignored;
  EXPECT_THAT(diffText(repo.root(), oneFile, options()), HasSubstr("+r2\n"));
  EXPECT_THAT(ignored, ::testing::IsEmpty());
}

// .gitmodules is read by revline (no git process on each save): its `path`
// key in any case, a value in quotes or with a space, a line without one.
TEST_F(Planted, GitmodulesPathsAreReadAsGitWritesThem) {
  repo.write("r.txt", "r\n");
  repo.commitAll("base");
  repo.write("r.txt", "r2\n");
  repo.write(".gitmodules", "[submodule \"v\"]\n\turl = ../v\n\tPath = \"vendor lib\"\n[submodule \"w\"]\n\tpath=w\n");
  fs::create_directories(repo.root() / "vendor lib");
  diff();
  EXPECT_THAT(ignored, ::testing::IsEmpty());  // no checkout in either
  TempRepo nested;
  repo.git("-c protocol.file.allow=always clone -q " + testing::shellQuote(nested.root().string()) + " w");
  diff();
  EXPECT_THAT(ignored, ElementsAre(kSubmoduleWorkTrees));
  ignored.clear();
  fs::remove_all(repo.root() / "w");
  std::ofstream(repo.root() / "vendor lib" / ".git") << "gitdir: ../.git/modules/v\n";  // an absorbed checkout
  diff();
  EXPECT_THAT(ignored, ElementsAre(kSubmoduleWorkTrees));
}

TEST_F(Planted, APartialCloneFetchesNothingUnlessTrusted) {
  // A blobless clone of a local repository: the blob of an older version is not
  // here, and a diff against that version needs it. The base branch moved on
  // since (its tip's a.txt is not the merge base's, which the review reads).
  TempRepo origin;
  origin.write("a.txt", "v1\n");
  const std::string first = origin.commitAll("v1");
  origin.git("branch base");
  origin.write("a.txt", "v2\n");
  origin.commitAll("v2");
  origin.git("checkout -q base");
  origin.write("a.txt", "v1 on the base branch, later\n");
  origin.commitAll("base moved");
  origin.git("checkout -q -");
  origin.git("config uploadpack.allowFilter true");
  TempDir parent;
  const fs::path clone = parent.path() / "clone";
  testing::runShell("GIT_CONFIG_NOSYSTEM=1 HOME=" + testing::shellQuote(home.path().string()) +
                        " git clone -q --filter=blob:none " +
                        testing::shellQuote("file://" + origin.root().string()) + " " +
                        testing::shellQuote(clone.string()),
                    parent.path());
  ASSERT_TRUE(fs::exists(clone / "a.txt"));
  DiffRequest request;
  request.mode = DiffRequest::Mode::Base;
  request.base = "origin/base";
  try {
    diffText(clone, request, options());
    ADD_FAILURE() << "an untrusted partial clone fetched a missing object";
  } catch (const GitError& e) {
    // "lazy fetching disabled" (GIT_NO_LAZY_FETCH) or "transport 'file' not allowed" (older gits), then:
    EXPECT_THAT(e.what(), HasSubstr("run `revline trust` in this repository if you trust it"));
    EXPECT_THAT(e.what(), HasSubstr("fetch the objects with your own git first (`git diff BASE... > /dev/null` does"));
  }
  // What the message says to run fetches them, and the untrusted review then reads
  // the diff (`git diff BASE`, which the message said before, fetched the base's tip only).
  const std::string asUser = "GIT_CONFIG_NOSYSTEM=1 HOME=" + testing::shellQuote(home.path().string()) + " git diff ";
  testing::runShell(asUser + request.base + " > /dev/null", clone);
  EXPECT_THROW(diffText(clone, request, options()), GitError) << "the base's tip is not the merge base";
  testing::runShell(asUser + request.base + "... > /dev/null", clone);
  EXPECT_THAT(diffText(clone, request, options()), HasSubstr("-v1\n+v2\n"));
  request.trustRepositoryConfig = true;
  EXPECT_THAT(diffText(clone, request, options()), HasSubstr("-v1\n+v2\n"));
}

// core.worktree names another directory as the work tree: its files (a home
// directory, say) are not this directory's and are not read.
TEST_F(Planted, AWorkTreeNamedElsewhereIsRefused) {
  repo.write("a.txt", "a\n");
  repo.commitAll("base");
  TempDir elsewhere;
  std::ofstream(elsewhere.path() / "id_rsa") << "private\n";
  config("core.worktree", elsewhere.path().string());
  try {
    findRepositoryRoot(repo.root(), options());
    ADD_FAILURE() << "expected a GitError";
  } catch (const GitError& e) {
    EXPECT_THAT(e.what(), HasSubstr("names its work tree elsewhere (" + elsewhere.path().string()));
    EXPECT_THAT(e.what(), HasSubstr("remove core.worktree from " + (fs::canonical(repo.root()) / ".git/config").string()));
  }
  repo.git("config --unset core.worktree");
  EXPECT_EQ(fs::canonical(findRepositoryRoot(repo.root() / "a.txt", options())), fs::canonical(repo.root()));
}

// A work tree named above the repository (core.worktree set to a parent: $HOME)
// is refused as one named elsewhere. Before, git's own "not a git repository"
// came from a later call. A submodule (core.worktree in its git directory,
// pointing at the directory holding its `.git` file) is reviewed as itself.
TEST_F(Planted, AWorkTreeNamedAboveTheRepositoryIsRefused) {
  repo.write("a.txt", "a\n");
  repo.commitAll("base");
  const fs::path above = fs::canonical(repo.root()).parent_path();
  config("core.worktree", above.string());
  try {
    findRepositoryRoot(repo.root(), options());
    ADD_FAILURE() << "expected a GitError";
  } catch (const GitError& e) {
    EXPECT_THAT(e.what(), HasSubstr("names its work tree elsewhere (" + above.string()));
    EXPECT_THAT(e.what(), HasSubstr("a directory above the repository"));
    EXPECT_THAT(e.what(), Not(HasSubstr("run revline from inside")));  // it already is
  }
  repo.git("config --unset core.worktree");
  TempRepo sub;
  sub.write("lib.txt", "x\n");
  sub.commitAll("sub");
  repo.git("-c protocol.file.allow=always submodule add -q " + sub.root().string() + " sm");
  EXPECT_EQ(fs::canonical(findRepositoryRoot(repo.root() / "sm", options())), fs::canonical(repo.root() / "sm"));
}

// A repository whose git directory is not its .git (`git init --separate-git-dir`,
// a submodule's): the config named is the one that sets core.worktree.
TEST_F(Planted, AWorkTreeNamedElsewhereNamesTheConfigThatSaysSo) {
  TempDir place, elsewhere;
  const fs::path work = place.path() / "work", gitDir = place.path() / "repo.git";
  repo.git("init -q --separate-git-dir=" + gitDir.string() + " " + work.string());
  repo.git("--git-dir=" + gitDir.string() + " config core.worktree " + elsewhere.path().string());
  try {
    findRepositoryRoot(work, options());
    ADD_FAILURE() << "expected a GitError";
  } catch (const GitError& e) {
    // What it says to run works: from inside that work tree, git finds the repository
    // only when told where it is (before: "run revline from inside" it, which failed there).
    EXPECT_THAT(e.what(), HasSubstr("run `cd " + elsewhere.path().string() + " && GIT_DIR=" +
                                    fs::canonical(gitDir).string() + " revline review`"));
    EXPECT_THAT(e.what(), HasSubstr("remove core.worktree from " + (fs::canonical(gitDir) / "config").string()));
    EXPECT_THAT(e.what(), Not(HasSubstr("work/.git")));
  }
  GitOptions told = options();
  told.env["GIT_DIR"] = fs::canonical(gitDir).string();
  EXPECT_EQ(fs::canonical(findRepositoryRoot(elsewhere.path(), told)), fs::canonical(elsewhere.path()));
}

// A directory handed over with a `.git` file naming another repository on the
// disk (`gitdir: /home/you/private/.git`): that repository's history was diffed
// against the directory (its code sent as removed lines) and revline's caches
// written into its git directory. Refused until trusted; a linked work tree, a
// submodule and a trusted `--separate-git-dir` repository are read as before.
TEST_F(Planted, AGitFileNamingAnotherRepositorysGitDirectoryIsRefusedUntilTrusted) {
  TempRepo priv;
  priv.write("secret_algo.py", "PRIVATE_CODE\n");
  priv.commitAll("private");
  TempDir handed;
  const fs::path dir = fs::canonical(handed.path());
  std::ofstream(dir / ".git") << "gitdir: " << (fs::canonical(priv.root()) / ".git").string() << "\n";
  std::ofstream(dir / "x.txt") << "hello\n";
  DiffRequest request;
  try {
    diffText(dir, request, options());
    ADD_FAILURE() << "the other repository was read";
  } catch (const GitError& e) {
    EXPECT_THAT(e.what(), HasSubstr((dir / ".git").string() + " names the git directory " +
                                    (fs::canonical(priv.root()) / ".git").string() + ", outside " + dir.string()));
    EXPECT_THAT(e.what(), HasSubstr("run `revline trust " + dir.string() + "`"));
  }
  EXPECT_FALSE(fs::exists(fs::canonical(priv.root()) / ".git" / "revline"));
  request.trustRepositoryConfig = true;
  EXPECT_THAT(diffText(dir, request, options()), HasSubstr("PRIVATE_CODE"));  // trusted: git's reading, as asked

  // Nor through a `.git` symlink, nor a git directory the directory brings whose
  // `commondir` shares the other repository's data (as a worktree's does), nor one
  // shaped as a submodule's; a `gitdir` back-pointer that is a named pipe keeps
  // nothing waiting.
  const fs::path secret = fs::canonical(priv.root()) / ".git";
  TempDir shapes;
  const fs::path top = fs::canonical(shapes.path());
  fs::create_directories(top / "link");
  fs::create_symlink(secret, top / "link" / ".git");
  fs::create_directories(top / "pkg" / "a");
  fs::create_directories(top / "pkg" / "b");
  std::ofstream(top / "pkg" / "a" / ".git") << "gitdir: ../b\n";
  std::ofstream(top / "pkg" / "b" / "gitdir") << (top / "pkg" / "a" / ".git").string() << "\n";
  std::ofstream(top / "pkg" / "b" / "commondir") << secret.string() << "\n";
  std::ofstream(top / "pkg" / "b" / "HEAD") << "ref: refs/heads/master\n";
  fs::create_directories(top / "pkg2" / "sub");
  fs::create_directories(top / "pkg2" / ".git" / "modules" / "x");
  std::ofstream(top / "pkg2" / "sub" / ".git") << "gitdir: ../.git/modules/x\n";
  std::ofstream(top / "pkg2" / ".git" / "modules" / "x" / "commondir") << secret.string() << "\n";
  std::ofstream(top / "pkg2" / ".git" / "modules" / "x" / "HEAD") << "ref: refs/heads/master\n";
  repo.git("init -q --bare " + (top / "fifo" / "b").string());
  repo.git("-C " + (top / "fifo" / "b").string() + " config core.bare false");
  ASSERT_EQ(::mkfifo((top / "fifo" / "b" / "gitdir").c_str(), 0600), 0);
  fs::create_directories(top / "fifo" / "a");
  std::ofstream(top / "fifo" / "a" / ".git") << "gitdir: ../b\n";
  for (const fs::path& shape : {top / "link", top / "pkg" / "a", top / "pkg2" / "sub", top / "fifo" / "a"}) {
    try {
      diffText(shape, DiffRequest{}, options());
      ADD_FAILURE() << shape << ": another repository's history was read";
    } catch (const GitError& e) {
      EXPECT_THAT(e.what(), HasSubstr((shape / ".git").string() + " names the git directory ")) << shape;
    }
  }

  // A linked work tree outside its repository names its .git back: read untrusted,
  // with its back-pointer relative too (git 2.48's worktree.useRelativePaths).
  repo.write("a.txt", "a\n");
  repo.commitAll("base");
  TempDir place;
  const fs::path linked = fs::canonical(place.path()) / "wt";
  repo.git("worktree add -q " + linked.string());
  std::ofstream(linked / "a.txt") << "a\nb\n";
  EXPECT_THAT(diffText(linked, DiffRequest{}, options()), HasSubstr("+b\n"));
  const fs::path backPointer = fs::canonical(repo.root()) / ".git" / "worktrees" / "wt" / "gitdir";
  std::ofstream(backPointer) << fs::path(linked / ".git").lexically_relative(backPointer.parent_path()).string() << "\n";
  EXPECT_THAT(diffText(linked, DiffRequest{}, options()), HasSubstr("+b\n"));
  // A submodule, in the repository and in its linked work tree: its core.worktree names it.
  TempRepo lib;
  lib.write("l.txt", "l\n");
  lib.commitAll("lib");
  repo.git("-c protocol.file.allow=always submodule add -q " + lib.root().string() + " lib");
  repo.commitAll("with lib");
  std::ofstream(repo.root() / "lib" / "l.txt") << "l\nm\n";
  EXPECT_THAT(diffText(repo.root() / "lib", DiffRequest{}, options()), HasSubstr("+m\n"));
  repo.git("-C " + linked.string() + " checkout -q --detach " + repo.git("rev-parse HEAD").substr(0, 40));
  repo.git("-C " + linked.string() + " -c protocol.file.allow=always submodule update -q --init");
  std::ofstream(linked / "lib" / "l.txt") << "l\nn\n";
  EXPECT_THAT(diffText(linked / "lib", DiffRequest{}, options()), HasSubstr("+n\n"));
}

TEST_F(Planted, CommitMessagesRunNoSignatureCheck) {
  repo.write("a.txt", "a\n");
  std::string base = repo.commitAll("base");
  base = base.substr(0, base.find('\n'));
  // A signed commit (the signature is never checked as valid; it need only be there for git to call gpg).
  const std::string tree = repo.git("rev-parse HEAD^{tree}");
  repo.write(".git/signed", "tree " + tree.substr(0, tree.find('\n')) + "\nparent " + base +
                                "\nauthor A <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000000 +0000\n"
                                "gpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----\n\nsigned\n");
  const std::string signedCommit = repo.git("hash-object -t commit -w .git/signed");
  repo.git("update-ref HEAD " + signedCommit.substr(0, signedCommit.find('\n')));
  repo.write(".git/gpg", "#!/bin/sh\n" + mark("gpg") + "\nexit 1\n");
  fs::permissions(repo.root() / ".git/gpg", fs::perms::owner_all);
  config("log.showSignature", "true");
  config("gpg.program", (repo.root() / ".git/gpg").string());

  EXPECT_THAT(commitsSince(repo.root(), base, 50, options()), ElementsAre(Field(&Commit::message, "signed")));
  EXPECT_FALSE(ran("gpg"));
  repo.git("log -1", /*allowFailure=*/true);  // git's own log does run it: the test can fail
  EXPECT_TRUE(ran("gpg"));
}

TEST(UntrustedGuard, OnlyTheRepositorysOwnSettingsAreNamedAndEachOnce) {
  const std::string listing = "global\0filter.lfs.process\ngit-lfs filter-process\0"s +
                              "local\0filter.Evil.clean\nrm -rf ~\0"s +
                              "worktree\0protocol.ext.allow\nalways\0"s +
                              "local\0protocol.version\n2\0"s +
                              "local\0filter.Evil.clean\nagain\0"s +
                              "local\0filter.bare.smudge\0"s +
                              "worktree\0core.fsmonitor\nTrue\0"s;  // git's own daemon: off, but no program to name
  const Guard guard = untrustedGuard(listing);
  EXPECT_THAT(guard.ignored, ElementsAre("filter.Evil.clean", "protocol.ext.allow", "filter.bare.smudge"));
  EXPECT_THAT(guard.args, ElementsAre("-c", "core.fsmonitor=false", "-c", "protocol.allow=never", "-c",
                                      "filter.Evil.clean=", "-c", "filter.Evil.required=false", "-c",
                                      "protocol.ext.allow=never", "-c", "filter.bare.smudge=", "-c",
                                      "filter.bare.required=false"));
  EXPECT_FALSE(guard.includes);
  EXPECT_TRUE(untrustedGuard("local\0includeif.gitdir:/x/.path\nmore.cfg\0"s).includes);
  EXPECT_FALSE(untrustedGuard("global\0include.path\n~/.gitconfig.local\0"s).includes);
}

// `git lfs install --local` (actions/checkout with lfs: true) writes into the
// repository the very driver the user's own config has: the user's runs, as
// without the repository's copy. One the repository changes (any of its values)
// is pinned to the user's. Before, both were blanked: every LFS file diffed as
// its pointer removed and its whole content added.
TEST(UntrustedGuard, ARepositorysCopyOfTheUsersOwnDriverRunsTheUsers) {
  const std::string listing = "system\0filter.lfs.clean\ngit-lfs clean -- %f\0"s +
                              "global\0filter.lfs.process\ngit-lfs filter-process\0"s +
                              "local\0filter.lfs.clean\ngit-lfs clean -- %f\0"s +
                              "local\0filter.lfs.process\ngit-lfs filter-process\0"s +
                              "local\0filter.lfs.process\ntouch /tmp/pwned; git-lfs filter-process\0"s;
  const Guard guard = untrustedGuard(listing);
  EXPECT_THAT(guard.ignored, ElementsAre("filter.lfs.process"));
  EXPECT_THAT(guard.args, ElementsAre("-c", "core.fsmonitor=false", "-c", "protocol.allow=never", "-c",
                                      "filter.lfs.process=git-lfs filter-process"));
}

TEST(UntrustedGuard, ADriverNameThatCannotBeOverriddenIsRefused) {
  // `-c filter.x=y.clean=` would set "filter.x" instead: refused, not half-guarded.
  const std::string listing = "local\0filter.x=y.clean\nevil\0"s;
  try {
    untrustedGuard(listing);
    ADD_FAILURE() << "expected a GitError";
  } catch (const GitError& e) {
    EXPECT_THAT(e.what(), HasSubstr("\"filter.x=y.clean\""));
    EXPECT_THAT(e.what(), HasSubstr("revline trust"));
  }
}

// The server reads the diff on every save: the guard is read again only when the
// repository's config files change, and never kept for one that includes others.
TEST_F(Planted, AGuardIsReadAgainWhenTheConfigChanges) {
  filteredChange("late");
  diff();
  EXPECT_TRUE(ignored.empty());
  config("filter.late.clean", program("late"));  // set after a first diff: not a stale guard
  diff();
  EXPECT_FALSE(ran("late"));
  EXPECT_THAT(ignored, ElementsAre("filter.late.clean"));

  repo.write(".git/more.cfg", "");
  config("include.path", "more.cfg");
  diff();
  repo.write(".git/more.cfg", "[filter \"late\"]\n\tprocess = " + program("included") + "\n");  // .git/config unchanged
  ignored.clear();
  diff();
  EXPECT_FALSE(ran("included"));
  EXPECT_THAT(ignored, ElementsAre("filter.late.clean", "filter.late.process"));
}

}  // namespace
}  // namespace revline::git
