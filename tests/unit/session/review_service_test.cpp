// The review session every front end uses: selection, the injected provider,
// the cache (answered without the model, verdict and evidence kept), and a
// preview that is byte for byte the first request the model receives.
#include "core/session/review_service.h"
#include "core/session/spend_meter.h"

#include <gtest/gtest.h>

#include <fstream>

#include <memory>
#include <vector>

#include "core/git/git.h"
#include "tests/support/notebook.h"
#include "tests/support/temp_repo.h"

namespace revline::session {
namespace {
namespace fs = std::filesystem;

// Answers every request with `answer`; records what it was sent.
struct Script {
  json answer;
  std::vector<review::ModelRequest> requests;
};

class ScriptedProvider : public review::Provider {
 public:
  explicit ScriptedProvider(Script& s) : s_(s) {}
  std::string name() const override { return "scripted"; }
  std::string model() const override { return "m1"; }
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken&) override {
    s_.requests.push_back(request);
    review::ModelResponse r;
    r.text = s_.answer.dump();
    return r;
  }

 private:
  Script& s_;
};

ProviderFactory scripted(Script& s) {
  return [&s](const config::Config&, const diff::Diff&, const fs::path&) { return std::make_unique<ScriptedProvider>(s); };
}

json finding(const std::string& file, int line, const std::string& severity) {
  return {{"file", file},          {"line", line},       {"endLine", nullptr},        {"severity", severity},
          {"category", "CORRECTNESS"}, {"title", "Wrong sum"}, {"explanation", "It adds one."},
          {"suggestedFix", nullptr}, {"edit", nullptr},  {"confidence", 0.9}};
}

// A model that finds one MAJOR problem on src/sum.c's changed line.
Script majorOnLine2() {
  return {{{"summary", "bug"}, {"verdict", "REQUEST_CHANGES"}, {"findings", {finding("src/sum.c", 2, "MAJOR")}}}, {}};
}

// A repository whose working tree changes src/sum.c and a lock file.
struct Fixture {
  testing::TempRepo repo;
  Fixture() {
    repo.write("src/sum.c", "int sum(int a, int b) {\n  return a + b;\n}\n");
    repo.write("package-lock.json", "{}\n");
    repo.commitAll("init");
    repo.write("src/sum.c", "int sum(int a, int b) {\n  return a + b + 1;\n}\n");
    repo.write("package-lock.json", "{\"lockfileVersion\": 3}\n");
  }
  ReviewRequest request(config::Config config = {}) const {
    return {diff::parse(git::diffText(repo.root(), {})), repo.root(), std::move(config), {}};
  }
};

TEST(ReviewService, SelectsTheFilesAndStatesWhatWasLeftOut) {
  Fixture f;
  Script s{{{"summary", "ok"}, {"verdict", "APPROVE"}, {"findings", json::array()}}, {}};
  const ReviewResult r = ReviewService(scripted(s)).review(f.request());
  ASSERT_EQ(r.reviewed.files.size(), 1u);
  EXPECT_EQ(*r.reviewed.files[0].newPath, "src/sum.c");
  ASSERT_EQ(r.outcome.coverage.filesSkipped.size(), 1u);
  EXPECT_EQ(r.outcome.coverage.filesSkipped[0].path, "package-lock.json");
  ASSERT_EQ(s.requests.size(), 1u);
  EXPECT_EQ(s.requests[0].messages[0].text.find("package-lock.json"), std::string::npos);  // never sent
}

TEST(ReviewService, ASecondReviewOfTheSameChangeComesFromTheCacheWithoutTheModel) {
  Fixture f;
  Script s = majorOnLine2();
  ReviewCache cache;
  const ReviewService service(scripted(s), &cache);
  EXPECT_FALSE(service.cached(f.request()));  // not reviewed yet
  const ReviewResult first = service.review(f.request());
  EXPECT_FALSE(first.fromCache);
  ASSERT_EQ(s.requests.size(), 1u);
  const ReviewResult second = service.review(f.request());
  EXPECT_TRUE(second.fromCache);
  EXPECT_EQ(s.requests.size(), 1u);  // the model was not asked again
  ASSERT_EQ(second.outcome.findings.size(), 1u);
  EXPECT_EQ(second.outcome.findings[0].id, first.outcome.findings[0].id);
  EXPECT_EQ(second.outcome.verdict, contract::Verdict::RequestChanges);
  EXPECT_EQ(second.outcome.coverage.filesSkipped.size(), 1u);
  ASSERT_TRUE(service.cached(f.request()));

  config::Config other;
  other.review.extraInstructions = "Be strict.";
  service.review(f.request(other));
  EXPECT_EQ(s.requests.size(), 2u);  // another setting, another review

  // "Review this file now" (a full review) asks the model again, though the change was reviewed.
  ReviewRequest full = f.request();
  full.fullReview = true;
  EXPECT_FALSE(service.review(std::move(full)).fromCache);
  EXPECT_EQ(s.requests.size(), 3u);
}

// `revline review --no-cache` is a fresh opinion of the change: the editor's
// whole review of the same diff, kept by a running server, no longer answers
// its next open or save (it showed the old finding after the CLI approved).
TEST(ReviewService, AFreshReviewByTheCliRetiresTheEditorsWholeReviews) {
  Fixture f;
  Script s = majorOnLine2();
  ReviewCache cache;
  const ReviewService server(scripted(s), &cache);
  ASSERT_FALSE(server.review(f.request()).fromCache);
  ASSERT_TRUE(server.cached(f.request()));
  const auto cli = testing::runRevline("review --no-cache", f.repo.root());
  ASSERT_NE(cli.exitCode, 2) << cli.err;
  EXPECT_FALSE(server.cached(f.request()));
  // A review that uses the caches leaves them be.
  server.review(f.request());
  ASSERT_TRUE(server.cached(f.request()));
  testing::runRevline("review", f.repo.root());
  EXPECT_TRUE(server.cached(f.request()));
}

// A cached review whose finding is not on the change (the entry damaged, or
// not written by this review) is a miss: the model is asked again, and nothing
// is published on a line the diff does not show.
TEST(ReviewService, ACachedFindingOffTheChangeIsAMiss) {
  Fixture f;
  Script s = majorOnLine2();
  ReviewCache cache;
  const ReviewService service(scripted(s), &cache);
  service.review(f.request());
  std::size_t moved = 0;
  for (const auto& e : fs::directory_iterator(f.repo.root() / ".git" / "revline" / "cache")) {
    std::ifstream in(e.path());
    json entry = json::parse(in);
    in.close();
    for (auto& p : entry["review"]["findings"]) p["finding"]["line"] = 40;  // past every line the diff shows
    std::ofstream(e.path(), std::ios::trunc) << entry.dump();
    ++moved;
  }
  ASSERT_EQ(moved, 1u);
  ReviewCache fromDisk;  // as the next run reads it
  const ReviewService next(scripted(s), &fromDisk);
  EXPECT_FALSE(next.cached(f.request()));
  const ReviewResult again = next.review(f.request());
  EXPECT_FALSE(again.fromCache);
  EXPECT_EQ(s.requests.size(), 2u);
  ASSERT_EQ(again.outcome.findings.size(), 1u);
  EXPECT_EQ(again.outcome.findings[0].finding.line, 2);
}

// The model reads a changed line with its enclosing function: a commit that
// changes that function elsewhere (the working-tree diff itself unchanged) is
// another review, not the cached one.
TEST(ReviewService, ACommitElsewhereInTheChangedFunctionIsNotServedFromTheCache) {
  testing::TempRepo repo;
  auto body = [](const std::string& early, const std::string& late) {
    std::string out = "int total(int a) {\n" + early + "\n";
    for (int i = 0; i < 12; ++i) out += "  a += " + std::to_string(i) + ";\n";
    return out + late + "\n  return a;\n}\n";
  };
  repo.write("src/total.c", body("  int guard = 0;", "  a *= 2;"));
  repo.commitAll("init");
  repo.write("src/total.c", body("  int guard = 0;", "  a *= 3;"));
  Script s{{{"summary", "ok"}, {"verdict", "APPROVE"}, {"findings", json::array()}}, {}};
  ReviewCache cache;
  const ReviewService service(scripted(s), &cache);
  auto request = [&] { return ReviewRequest{diff::parse(git::diffText(repo.root(), {})), repo.root(), {}, {}}; };
  service.review(request());
  ASSERT_EQ(s.requests.size(), 1u);
  const std::string diffBefore = git::diffText(repo.root(), {});
  // Commit a change at the top of the function, then put the working-tree change back.
  repo.write("src/total.c", body("  int guard = 1;", "  a *= 2;"));
  repo.commitAll("guard");
  repo.write("src/total.c", body("  int guard = 1;", "  a *= 3;"));
  ASSERT_EQ(git::diffText(repo.root(), {}).substr(git::diffText(repo.root(), {}).find("@@")),
            diffBefore.substr(diffBefore.find("@@")));  // the hunk reads the same
  EXPECT_FALSE(service.cached(request()));
  const ReviewResult second = service.review(request());
  EXPECT_FALSE(second.fromCache);
  ASSERT_EQ(s.requests.size(), 2u);
  EXPECT_NE(s.requests[1].messages[0].text.find("int guard = 1;"), std::string::npos);
}

// A file whose name is not UTF-8 (caf\xE9.py, Latin-1) reaches the model, and
// the caches' JSON, as "caf\uFFFD.py". A finding answered from the cache, in
// this process or the next, is on the file itself, as a fresh one is: before,
// the per-hunk cache gave it back on "caf\uFFFD.py", a file that does not exist
// (SARIF pointed code scanning at it). (On disk the whole-review cache misses:
// its key, with the path in it, does not read back the same.)
TEST(ReviewService, AFindingFromTheCacheKeepsAFileNameThatIsNotUtf8) {
  testing::TempRepo repo;
  const std::string latin1 = "caf\xE9.py";
  repo.write(latin1, "def f(x):\n    return x\n");
  repo.write("b.py", "B = 1\n");
  repo.commitAll("init");
  repo.write(latin1, "def f(x):\n    return x + 1\n");
  Script s{{{"summary", "bug"}, {"verdict", "COMMENT"}, {"findings", {finding("caf\xEF\xBF\xBD.py", 2, "MINOR")}}}, {}};
  ReviewCache cache;
  HunkCache hunks;
  const ReviewService service(scripted(s), &cache, defaultGitDiff(), &hunks);
  auto review = [&] {
    return service.review({diff::parse(git::diffText(repo.root(), {})), repo.root(), {}, {}});
  };
  const ReviewResult fresh = review();
  ASSERT_EQ(fresh.outcome.findings.size(), 1u) << fresh.outcome.rejected.at(0).reason;
  EXPECT_EQ(fresh.outcome.findings[0].finding.file, latin1);
  ReviewCache nextRun;  // the review cache as another process reads it: from disk
  const ReviewResult again =
      ReviewService(scripted(s), &nextRun, defaultGitDiff(), &hunks)
          .review({diff::parse(git::diffText(repo.root(), {})), repo.root(), {}, {}});
  EXPECT_TRUE(again.fromCache);
  ASSERT_EQ(again.outcome.findings.size(), 1u);
  EXPECT_EQ(again.outcome.findings[0].finding.file, latin1);
  repo.write("b.py", "B = 2\n");  // another file changes: the per-hunk cache carries caf\xE9.py's finding
  s.answer = {{"summary", "ok"}, {"verdict", "APPROVE"}, {"findings", json::array()}};
  const ReviewResult carried = review();
  ASSERT_EQ(s.requests.size(), 2u);
  EXPECT_EQ(carried.hunksReused, 1);
  ASSERT_EQ(carried.outcome.findings.size(), 1u);
  EXPECT_EQ(carried.outcome.findings[0].finding.file, latin1);
  EXPECT_EQ(carried.outcome.findings[0].id, fresh.outcome.findings[0].id);
}

// The server's lookup on opening a file whose diff was not reviewed as a whole,
// with one hunk reviewed before and one changed since: the first's findings, no
// model asked; the second listed as not reviewed (part of the file), so the
// lookup does not approve though no finding is shown.
TEST(ReviewService, TheOpensLookupShowsTheHunksReviewedBeforeAndNamesTheRestNotReviewed) {
  testing::TempRepo repo;
  std::string base;
  for (int i = 1; i <= 20; ++i) base += "x" + std::to_string(i) + " = " + std::to_string(i) + "\n";
  repo.write("a.py", base);
  repo.commitAll("init");
  auto edited = [&](const std::string& first, const std::string& second) {
    std::string text = base;
    text.replace(text.find("x2 = 2\n"), 7, first + "\n");
    text.replace(text.find("x18 = 18\n"), 9, second + "\n");
    return text;
  };
  repo.write("a.py", edited("x2 = 20", "x18 = 180"));
  Script s{{{"summary", "ok"}, {"verdict", "APPROVE"}, {"findings", json::array()}}, {}};
  ReviewCache cache;
  HunkCache hunks;
  const ReviewService service(scripted(s), &cache, defaultGitDiff(), &hunks);
  auto request = [&] { return ReviewRequest{diff::parse(git::diffText(repo.root(), {})), repo.root(), {}, {}}; };
  ASSERT_EQ(service.review(request()).outcome.verdict, contract::Verdict::Approve);
  repo.write("a.py", edited("x2 = 20", "x18 = 181"));
  const auto opened = service.cached(request());
  ASSERT_TRUE(opened);
  EXPECT_EQ(s.requests.size(), 1u) << "no model asked";
  EXPECT_TRUE(opened->fromCache);
  EXPECT_EQ(opened->hunksReused, 1);
  EXPECT_EQ(opened->hunksTotal, 2);
  EXPECT_EQ(opened->outcome.verdict, contract::Verdict::Comment);
  EXPECT_GT(opened->evidence.partsNotReviewed, 0);
  const review::Coverage& coverage = opened->outcome.coverage;
  EXPECT_EQ(coverage.filesReviewed, 1);
  EXPECT_EQ(coverage.linesReviewed, 2);
  EXPECT_EQ(coverage.linesTotal, 4);
  ASSERT_EQ(coverage.filesSkipped.size(), 1u);
  EXPECT_EQ(coverage.filesSkipped[0].path, "a.py");
  EXPECT_TRUE(coverage.filesSkipped[0].partial);
  EXPECT_EQ(coverage.filesSkipped[0].reason, "not reviewed in its current form; the next save reviews it");
  EXPECT_NE(opened->outcome.summary.find("1 of 2 hunks were reviewed before"), std::string::npos) << opened->outcome.summary;
  // Nothing of it reviewed before: no lookup result, as before.
  repo.write("a.py", edited("x2 = 21", "x18 = 181"));
  EXPECT_FALSE(service.cached(request()));
}

// The no-false-approval rule holds for a review answered from cache: the
// model asked for changes, its blocking finding could not be placed.
TEST(ReviewService, NoFalseApprovalFromTheCacheEither) {
  Fixture f;
  Script s{{{"summary", "bug"}, {"verdict", "REQUEST_CHANGES"}, {"findings", {finding("src/other.c", 40, "BLOCKER")}}},
           {}};
  ReviewCache cache;
  const ReviewService service(scripted(s), &cache);
  const ReviewResult fresh = service.review(f.request());
  EXPECT_TRUE(fresh.outcome.findings.empty());
  EXPECT_EQ(fresh.outcome.verdict, contract::Verdict::Comment);
  EXPECT_GT(fresh.evidence.unplacedBlocking, 0);
  const auto cached = service.cached(f.request());
  ASSERT_TRUE(cached);
  EXPECT_EQ(cached->outcome.verdict, contract::Verdict::Comment);
  EXPECT_EQ(cached->evidence.unplacedBlocking, fresh.evidence.unplacedBlocking);
  // A verdict over fewer findings (the server leaves dismissed ones out) still withholds approval.
  EXPECT_EQ(review::decideVerdict({}, config::Config().review.policy, cached->evidence), contract::Verdict::Comment);
}

// A file of the change the diff could not show (an untracked file over the
// size cap, an unmerged path) is listed as not reviewed, and no review of the
// rest approves: not the model's, not the cache's, not a change with nothing left.
TEST(ReviewService, WhatTheDiffCouldNotShowIsNotReviewedAndPreventsApproval) {
  Fixture f;
  Script s{{{"summary", "ok"}, {"verdict", "APPROVE"}, {"findings", json::array()}}, {}};
  ReviewCache cache;
  const ReviewService service(scripted(s), &cache);
  EXPECT_EQ(service.review(f.request()).outcome.verdict, contract::Verdict::Approve);  // cached: all reviewed
  auto withBigFile = [&f] {
    ReviewRequest r = f.request();
    r.leftOut = {{"dump.sql", "untracked, 9437184 bytes, over the 8 MiB limit (8388608 bytes) for untracked files"}};
    return r;
  };
  for (bool fromCache : {true, false}) {
    ReviewRequest r = withBigFile();
    r.fullReview = !fromCache;
    const ReviewResult result = service.review(std::move(r));
    EXPECT_EQ(result.fromCache, fromCache);
    EXPECT_EQ(result.outcome.verdict, contract::Verdict::Comment) << "from cache: " << fromCache;
    EXPECT_EQ(result.evidence.partsNotReviewed, 1);
    const review::Coverage& c = result.outcome.coverage;
    EXPECT_EQ(c.filesReviewed, 1);
    EXPECT_EQ(c.filesTotal, 3);  // sum.c, the lock file (excluded), dump.sql
    ASSERT_EQ(c.filesSkipped.size(), 2u);
    EXPECT_EQ(c.filesSkipped[1].path, "dump.sql");
    EXPECT_TRUE(c.filesSkipped[1].overLimit);
    EXPECT_EQ(c.filesSkipped[1].reason,
              "untracked, 9437184 bytes, over the 8 MiB limit (8388608 bytes) for untracked files; not reviewed");
  }
  // Incremental review (the per-hunk cache): sent, then every hunk carried over.
  HunkCache hunks;
  const ReviewService incremental(scripted(s), nullptr, {}, &hunks);
  for (int round = 0; round < 2; ++round) {
    const ReviewResult result = incremental.review(withBigFile());
    EXPECT_EQ(result.outcome.verdict, contract::Verdict::Comment) << "round " << round;
    EXPECT_EQ(result.outcome.coverage.filesTotal, 3) << "round " << round;
    EXPECT_EQ(result.outcome.coverage.filesReviewed, 1) << "round " << round;
    EXPECT_EQ(result.outcome.coverage.filesSkipped.size(), 2u) << "round " << round;
  }
  ReviewRequest nothingElse{diff::Diff{}, f.repo.root(), {}, {}};
  nothingElse.leftOut = {{"m.py", "unmerged: its merge conflict is not resolved"}};
  const ReviewResult alone = service.review(std::move(nothingElse));
  EXPECT_EQ(alone.outcome.verdict, contract::Verdict::Comment);
  EXPECT_EQ(alone.outcome.coverage.filesTotal, 1);
  EXPECT_EQ(alone.outcome.coverage.filesReviewed, 0);
  // One whose path the defaults (or the settings) exclude is excluded, as it is
  // once committed: a vendored node_modules/ with an 8 MiB file was COMMENT
  // uncommitted and APPROVE on its branch.
  ReviewRequest vendored = f.request();
  vendored.fullReview = true;
  vendored.leftOut = {{"node_modules/typescript/lib/typescript.js", "untracked, 9437184 bytes, over the 8 MiB limit"}};
  const ReviewResult excluded = service.review(std::move(vendored));
  EXPECT_EQ(excluded.outcome.verdict, contract::Verdict::Approve);
  EXPECT_EQ(excluded.evidence.partsNotReviewed, 0);
  ASSERT_EQ(excluded.outcome.coverage.filesSkipped.size(), 2u);
  EXPECT_FALSE(excluded.outcome.coverage.filesSkipped[1].overLimit);
  EXPECT_EQ(excluded.outcome.coverage.filesSkipped[1].reason,
            "in a node_modules/ directory (built or vendored code); name it in include to review it (untracked, "
            "9437184 bytes, over the 8 MiB limit)");
}

TEST(ReviewService, ThePreviewIsTheFirstRequestTheModelReceives) {
  Fixture f;
  Script s{{{"summary", "ok"}, {"verdict", "APPROVE"}, {"findings", json::array()}}, {}};
  config::Config config;
  config.review.description = "Sums must be exact.";
  const ReviewService service(scripted(s));
  const std::vector<review::ModelRequest> previews = service.preview(f.request(config));
  ASSERT_EQ(previews.size(), 1u);
  const review::ModelRequest& preview = previews[0];
  EXPECT_TRUE(s.requests.empty());  // a preview calls no model
  service.review(f.request(config));
  ASSERT_EQ(s.requests.size(), 1u);
  EXPECT_EQ(preview.system, s.requests[0].system);
  ASSERT_EQ(preview.messages.size(), 1u);
  EXPECT_EQ(preview.messages[0].text, s.requests[0].messages[0].text);
  EXPECT_NE(preview.messages[0].text.find("Sums must be exact."), std::string::npos);
  EXPECT_NE(preview.messages[0].text.find("int sum(int a, int b) {"), std::string::npos);
}

TEST(ReviewService, AnEmptyChangeBuildsNoProvider) {
  testing::TempRepo repo;
  repo.write("a.txt", "a\n");
  repo.commitAll("init");
  int built = 0;
  const ReviewService service([&](const config::Config&, const diff::Diff&, const fs::path&) -> std::unique_ptr<review::Provider> {
    ++built;
    throw review::ProviderError(review::ProviderError::Kind::Config, "no API key");
  });
  const ReviewResult r = service.review({diff::parse(git::diffText(repo.root(), {})), repo.root(), {}, {}});
  EXPECT_EQ(built, 0);
  EXPECT_EQ(r.outcome.verdict, contract::Verdict::Approve);
  EXPECT_EQ(r.outcome.summary, "No changes to review.");
}

// A rename or a mode change without an edit shows the model a file name and no
// line: a finding could sit nowhere, so no request is made for it alone.
TEST(ReviewService, AChangeWithNoLineToShowSendsNothing) {
  testing::TempRepo repo;
  repo.write("old.txt", "one\ntwo\nthree\n");
  repo.write("run.sh", "echo hi\n");
  repo.write("b.txt", "b\n");
  repo.commitAll("init");
  repo.git("mv old.txt new.txt");
  repo.git("update-index --chmod=+x run.sh");
  int built = 0;
  const ReviewService service([&](const config::Config&, const diff::Diff&, const fs::path&) -> std::unique_ptr<review::Provider> {
    ++built;
    throw review::ProviderError(review::ProviderError::Kind::Config, "no API key");
  });
  git::DiffRequest staged;
  staged.mode = git::DiffRequest::Mode::Staged;
  const ReviewResult r = service.review({diff::parse(git::diffText(repo.root(), staged)), repo.root(), {}, {}});
  EXPECT_EQ(built, 0);
  ASSERT_EQ(r.reviewed.files.size(), 2u);  // still the files the review covers
  EXPECT_EQ(r.outcome.coverage.filesReviewed, 2);
  EXPECT_EQ(r.outcome.verdict, contract::Verdict::Approve);
  EXPECT_EQ(r.outcome.summary,
            "No lines to review: the changed files are binary, renamed, copied, empty or change mode only.");
  const auto cached = service.cached({diff::parse(git::diffText(repo.root(), staged)), repo.root(), {}, {}});
  ASSERT_TRUE(cached);
  EXPECT_EQ(cached->reviewed.files.size(), 2u);

  // Beside an edited file the rename is still shown, as part of the change.
  repo.write("b.txt", "b2\n");
  Script s{{{"summary", "ok"}, {"verdict", "APPROVE"}, {"findings", json::array()}}, {}};
  ReviewService(scripted(s)).review({diff::parse(git::diffText(repo.root(), {})), repo.root(), {}, {}});
  ASSERT_EQ(s.requests.size(), 1u);
  EXPECT_NE(s.requests[0].messages[0].text.find("renamed from old.txt"), std::string::npos);

  // A binary file alone likewise: git shows no line of it (it cost a request of file headers).
  repo.commitAll("moved and edited");
  repo.write("logo.png", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
  const ReviewResult binary = service.review({diff::parse(git::diffText(repo.root(), {})), repo.root(), {}, {}});
  EXPECT_EQ(built, 0);
  ASSERT_EQ(binary.reviewed.files.size(), 1u);
  EXPECT_TRUE(binary.reviewed.files[0].binary) << binary.reviewed.files[0].path();
  EXPECT_EQ(binary.outcome.verdict, contract::Verdict::Approve);
}

// Jupyter notebooks: a run rewrites each plot's base64 and the execution
// counts; only the cells' source is sent (session/notebooks.h).
struct NotebookRepo {
  testing::TempRepo repo;
  std::vector<std::string> source{"import pandas as pd\\n", "df = pd.read_csv('a.csv')\\n", "df.head()"};
  NotebookRepo() {
    repo.write("analysis.ipynb", testing::jupyterNotebook({source, testing::base64Image(6000, 1), {"rows 10\\n"}, 1}));
    repo.commitAll("init");
  }
  // The notebook run again: a new plot and count, and `printed`.
  void rerun(const std::vector<std::string>& printed = {"rows 10\\n"}) const {
    repo.write("analysis.ipynb", testing::jupyterNotebook({source, testing::base64Image(6000, 2), printed, 2}));
  }
  ReviewRequest request() const { return {diff::parse(git::diffText(repo.root(), {})), repo.root(), {}, {}}; }
};

const review::SkippedFile* skippedEntry(const ReviewResult& r, const std::string& path) {
  for (const auto& s : r.outcome.coverage.filesSkipped)
    if (s.path == path) return &s;
  return nullptr;
}

TEST(ReviewServiceNotebooks, OnlyTheCellsSourceIsSentNotTheOutputsOrCounts) {
  NotebookRepo nb;
  nb.source.insert(nb.source.begin() + 2, "df = df.dropna()\\n");
  nb.rerun({"rows 9\\n"});
  Script s{{{"summary", "ok"}, {"verdict", "APPROVE"}, {"findings", json::array()}}, {}};
  const ReviewResult r = ReviewService(scripted(s)).review(nb.request());
  ASSERT_EQ(s.requests.size(), 1u);
  const std::string& sent = s.requests[0].messages[0].text;
  EXPECT_NE(sent.find("df = df.dropna()"), std::string::npos) << sent;
  EXPECT_NE(sent.find("import pandas as pd"), std::string::npos) << "the rest of the cell, as function context";
  EXPECT_EQ(sent.find(testing::base64Image(6000, 1).substr(0, 40)), std::string::npos) << "the old plot";
  EXPECT_EQ(sent.find(testing::base64Image(6000, 2).substr(0, 40)), std::string::npos) << "the new plot";
  EXPECT_EQ(sent.find("execution_count"), std::string::npos);
  EXPECT_EQ(sent.find("rows 9"), std::string::npos) << "printed output";
  EXPECT_LT(sent.size(), 3000u);
  EXPECT_EQ(r.outcome.coverage.filesReviewed, 1);
  EXPECT_EQ(r.outcome.coverage.linesReviewed, 1);
  const review::SkippedFile* outputs = skippedEntry(r, "analysis.ipynb");
  ASSERT_NE(outputs, nullptr);
  EXPECT_TRUE(outputs->partial);
  EXPECT_FALSE(outputs->overLimit) << "left out by choice: the verdict may still be APPROVE";
  EXPECT_EQ(outputs->lines, 6) << outputs->reason;  // the plot, the count and the printed line, each - and +
  EXPECT_EQ(r.outcome.verdict, contract::Verdict::Approve);
}

// The per-hunk cache keeps a notebook's reviewed cells: running it again (new
// plots, new counts) sends nothing, and its finding stays.
TEST(ReviewServiceNotebooks, RunningTheNotebookAgainReusesTheReviewOfItsCells) {
  NotebookRepo nb;
  nb.source[1] = "df = pd.read_csv('b.csv')\\n";
  nb.repo.write("analysis.ipynb", testing::jupyterNotebook({nb.source, testing::base64Image(6000, 2), {"rows 3\\n"}, 2}));
  Script s{{{"summary", "bug"}, {"verdict", "COMMENT"}, {"findings", {finding("analysis.ipynb", 0, "MINOR")}}}, {}};
  HunkCache hunks;
  const ReviewService service(scripted(s), nullptr, defaultGitDiff(), &hunks);
  const PreparedReview prepared = prepare(nb.request());
  ASSERT_EQ(prepared.reviewed.files.size(), 1u);
  const int changedLine = prepared.reviewed.files[0].hunks.at(0).lines.at(3).newLine;
  s.answer["findings"][0]["line"] = changedLine;
  const ReviewResult first = service.review(nb.request());
  ASSERT_EQ(s.requests.size(), 1u);
  ASSERT_EQ(first.outcome.findings.size(), 1u) << (first.outcome.rejected.empty() ? "" : first.outcome.rejected[0].reason);
  nb.repo.write("analysis.ipynb", testing::jupyterNotebook({nb.source, testing::base64Image(6000, 3), {"rows 4\\n"}, 3}));
  const ReviewResult again = service.review(nb.request());
  EXPECT_EQ(s.requests.size(), 1u) << "the cells' source is as reviewed: nothing to send";
  EXPECT_EQ(again.hunksReused, 1);
  ASSERT_EQ(again.outcome.findings.size(), 1u);
  EXPECT_EQ(again.outcome.findings[0].id, first.outcome.findings[0].id);
}

// Deleted (or renamed past git's similarity after a run: a deletion and an
// addition), a notebook's removed plots are no more code than its added ones.
TEST(ReviewServiceNotebooks, ADeletedNotebookShowsOnlyItsCellsRemovedSource) {
  NotebookRepo nb;
  nb.repo.git("rm -q analysis.ipynb");
  git::DiffRequest staged;
  staged.mode = git::DiffRequest::Mode::Staged;
  const PreparedReview prepared = prepare({diff::parse(git::diffText(nb.repo.root(), staged)), nb.repo.root(), {}, {}});
  ASSERT_EQ(prepared.reviewed.files.size(), 1u);
  std::string shown;
  for (const auto& h : prepared.reviewed.files[0].hunks)
    for (const auto& l : h.lines) shown += std::string(l.text) + "\n";
  EXPECT_NE(shown.find("import pandas as pd"), std::string::npos) << shown;
  EXPECT_EQ(shown.find(testing::base64Image(6000, 1).substr(0, 40)), std::string::npos) << "the removed plot";
  ASSERT_EQ(prepared.inputs.filesSkipped.size(), 1u);
  EXPECT_TRUE(prepared.inputs.filesSkipped[0].partial);
}

// The cell is a notebook's function context, also in a notebook past the tools'
// 256 KB cap for reading files (most notebooks with plots are).
TEST(ReviewServiceNotebooks, TheChangedCellIsShownWholeInABigNotebook) {
  testing::TempRepo repo;
  std::vector<std::string> source;
  for (int i = 0; i < 14; ++i) source.push_back("step" + std::to_string(i) + " = run(" + std::to_string(i) + ")\\n");
  repo.write("big.ipynb", testing::jupyterNotebook({source, testing::base64Image(400 * 1024, 1), {}, 1}));
  repo.commitAll("init");
  source[10] = "step10 = run(10, retries=3)\\n";
  repo.write("big.ipynb", testing::jupyterNotebook({source, testing::base64Image(400 * 1024, 1), {}, 1}));
  Script s{{{"summary", "ok"}, {"verdict", "APPROVE"}, {"findings", json::array()}}, {}};
  ReviewService(scripted(s)).review({diff::parse(git::diffText(repo.root(), {})), repo.root(), {}, {}});
  ASSERT_EQ(s.requests.size(), 1u);
  const std::string& sent = s.requests[0].messages[0].text;
  EXPECT_NE(sent.find("retries=3"), std::string::npos);
  EXPECT_NE(sent.find("step0 = run(0)"), std::string::npos) << "the cell's first line, 10 lines above the edit" << sent;
}

TEST(ReviewServiceNotebooks, ARerunWithNoSourceChangedSendsNothing) {
  NotebookRepo nb;
  nb.rerun();
  int built = 0;
  const ReviewService service([&](const config::Config&, const diff::Diff&, const fs::path&) -> std::unique_ptr<review::Provider> {
    ++built;
    throw review::ProviderError(review::ProviderError::Kind::Config, "no API key");
  });
  const ReviewResult r = service.review(nb.request());
  EXPECT_EQ(built, 0);
  EXPECT_TRUE(r.reviewed.files.empty());
  const review::SkippedFile* entry = skippedEntry(r, "analysis.ipynb");
  ASSERT_NE(entry, nullptr);
  EXPECT_FALSE(entry->partial);
  EXPECT_FALSE(entry->overLimit);
  EXPECT_NE(entry->reason.find("only in its outputs"), std::string::npos) << entry->reason;
  EXPECT_EQ(r.outcome.verdict, contract::Verdict::Approve);
}

TEST(ReviewServiceNotebooks, AnOutputThatPrintsACredentialStaysInTheReview) {
  NotebookRepo nb;
  const std::string token = "ghp_" + std::string("aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5");
  nb.rerun({"token " + token + "\\n"});
  Script s{{{"summary", "ok"}, {"verdict", "APPROVE"}, {"findings", json::array()}}, {}};
  const ReviewResult r = ReviewService(scripted(s)).review(nb.request());
  ASSERT_EQ(r.reviewed.files.size(), 1u);
  std::string shown;
  for (const auto& h : r.reviewed.files[0].hunks)
    for (const auto& l : h.lines) shown += std::string(l.text) + "\n";
  EXPECT_NE(shown.find(token), std::string::npos) << shown;
  EXPECT_EQ(shown.find(testing::base64Image(6000, 2).substr(0, 40)), std::string::npos);
}

TEST(ReviewServiceNotebooks, AStagedNotebookIsReadAsTheIndexHasIt) {
  NotebookRepo nb;
  nb.source.push_back("\\n");
  nb.source[2] = "df.describe()";
  nb.rerun();
  nb.repo.git("add analysis.ipynb");
  // Unstaged: the work tree's copy is another run with other lines; the index's is the change.
  nb.repo.write("analysis.ipynb", testing::jupyterNotebook({{"x = 1"}, "", {}, 9}));
  git::DiffRequest staged;
  staged.mode = git::DiffRequest::Mode::Staged;
  ReviewRequest request{diff::parse(git::diffText(nb.repo.root(), staged)), nb.repo.root(), {}, {}};
  request.newSide = ReviewRequest::NewSide::Index;
  const PreparedReview prepared = prepare(std::move(request));
  ASSERT_EQ(prepared.reviewed.files.size(), 1u);
  std::string shown;
  for (const auto& h : prepared.reviewed.files[0].hunks)
    for (const auto& l : h.lines) shown += std::string(l.text) + "\n";
  EXPECT_NE(shown.find("df.describe()"), std::string::npos) << shown;
  EXPECT_EQ(shown.find("execution_count"), std::string::npos) << "narrowed by the index's text" << shown;
}

TEST(ReviewServiceNotebooks, ANotebookRewrittenSinceTheDiffIsReviewedWhole) {
  NotebookRepo nb;
  nb.source[2] = "df.tail()";
  nb.rerun();
  ReviewRequest request = nb.request();
  nb.repo.write("analysis.ipynb", "{\"cells\": []}\n");  // saved again before the review read it
  const PreparedReview prepared = prepare(std::move(request));
  ASSERT_EQ(prepared.reviewed.files.size(), 1u);
  bool countShown = false;
  for (const auto& h : prepared.reviewed.files[0].hunks)
    for (const auto& l : h.lines) countShown = countShown || l.text.find("execution_count") != std::string_view::npos;
  EXPECT_TRUE(countShown) << "its lines could not be told apart: all of them are reviewed";
  EXPECT_TRUE(prepared.inputs.filesSkipped.empty());
}

// A model call cancelled: one request in flight counts as spent (tokens unknown);
// one cancelled while waiting out a refusal's Retry-After, when nothing was in
// flight, counts none (a 429 is not billed).
TEST(SpendMeter, ACallCancelledWithNothingInFlightCountsNoRequest) {
  class CancelledCall : public review::Provider {
   public:
    explicit CancelledCall(std::optional<int> sent) : sent_(sent) {}
    std::string name() const override { return "fake"; }
    std::string model() const override { return "fake-model"; }
    bool metered() const override { return true; }
    review::ModelResponse complete(const review::ModelRequest&, const CancelToken&) override {
      Cancelled c("cancelled");
      c.sentUnanswered = sent_;
      throw c;
    }

   private:
    std::optional<int> sent_;
  };
  for (const auto& [sent, counted] : std::vector<std::pair<std::optional<int>, int>>{{std::nullopt, 1}, {0, 0}, {2, 2}}) {
    SpendMeter meter;
    auto provider = meteredBy(meter)(std::make_unique<CancelledCall>(sent));
    EXPECT_THROW(provider->complete({}, CancelToken()), Cancelled);
    EXPECT_EQ(meter.total().requests, counted);
    EXPECT_EQ(meter.total().unreportedRequests, counted);
  }
}

// What a failed or interrupted review says it spent follows the report's rule:
// an answer without one of its counts (an Ollama reply without
// prompt_eval_count), or with one that could not be read, is a request
// "without token counts", and the cost shown is "at least". Before, only an
// answer with neither count was, and the spend before a failure was shown as exact.
TEST(SpendMeter, AnAnswerMissingOneCountIsARequestWithoutCounts) {
  class Answers : public review::Provider {
   public:
    explicit Answers(review::ModelResponse r) : r_(std::move(r)) {}
    std::string name() const override { return "fake"; }
    std::string model() const override { return "fake-model"; }
    bool metered() const override { return true; }
    review::ModelResponse complete(const review::ModelRequest&, const CancelToken&) override { return r_; }

   private:
    review::ModelResponse r_;
  };
  auto answer = [](std::int64_t in, std::int64_t out, bool unreadable) {
    review::ModelResponse r;
    r.usage.inputTokens = in;
    r.usage.outputTokens = out;
    r.countsUnreadable = unreadable;
    return r;
  };
  for (const auto& [response, without] : std::vector<std::pair<review::ModelResponse, int>>{
           {answer(0, 100, false), 1}, {answer(100, 0, false), 1}, {answer(100, 100, true), 1},
           {answer(0, 0, false), 1}, {answer(100, 100, false), 0}}) {
    SpendMeter meter;
    auto provider = meteredBy(meter)(std::make_unique<Answers>(response));
    provider->complete({}, CancelToken());
    EXPECT_EQ(meter.total().requests, 1);
    EXPECT_EQ(meter.total().unreportedRequests, without)
        << response.usage.inputTokens << " in, " << response.usage.outputTokens << " out";
  }
}

}  // namespace
}  // namespace revline::session
