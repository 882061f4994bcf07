// Incremental review through the session: after a review, an edit of one hunk
// sends only that hunk; the other hunks' findings are carried over with their
// ids at their new lines; the verdict is policy's over all of them; a forced
// full review, another setting or another model sends everything again; a
// review whose findings cannot be split by hunk is not kept per hunk.
#include "core/session/hunk_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/git/git.h"
#include "core/config/state_key.h"
#include "core/git/git_directory.h"
#include "core/review/prompt.h"
#include "core/support/keyed_hash.h"
#include "core/session/review_service.h"
#include "tests/support/per_hunk_model.h"
#include "tests/support/temp_repo.h"

namespace revline::session {
namespace {
namespace fs = std::filesystem;
using testing::PerHunkLog;
using testing::PerHunkModel;

// max_input_tokens under which a request of PerHunkModel holds one five-hunk
// file of fiveFunctions() but not two (no tools offered).
constexpr std::int64_t kOneFileBudget = 3100;  // ~2,130 fixed, 10% reserve, ~400 a file

// PerHunkModel failing every request that shows `failOn` (when set), as a
// provider answering HTTP 500 would.
class FailingOn : public PerHunkModel {
 public:
  FailingOn(PerHunkLog& log, std::string model, const std::string& failOn)
      : PerHunkModel(log, std::move(model)), failOn_(failOn) {}
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken& cancel) override {
    if (!failOn_.empty() && request.messages.at(0).text.find(failOn_) != std::string::npos)
      throw review::ProviderError(review::ProviderError::Kind::Server, "the fake provider failed (HTTP 500)");
    return PerHunkModel::complete(request, cancel);
  }

 private:
  const std::string& failOn_;
};

struct Incremental : ::testing::Test {
  testing::TempRepo repo;
  PerHunkLog log;
  std::string model = "m1";
  std::string failOn;  // FailingOn
  HunkCache hunks;
  ReviewService service{[this](const config::Config&, const diff::Diff&, const fs::path&) {
                          return std::make_unique<FailingOn>(log, model, failOn);
                        },
                        nullptr, {}, &hunks};

  void SetUp() override {
    repo.write("a.py", testing::fiveFunctions());
    repo.commitAll("init");
    repo.write("a.py", testing::fiveFunctions(testing::allChanged()));
  }
  ReviewResult review(config::Config config = {}, bool full = false, bool keepEarlier = false) {
    ReviewRequest request{diff::parse(git::diffText(repo.root(), {})), repo.root(), std::move(config), {}};
    request.fullReview = full;
    request.keepEarlierWhereNotReached = keepEarlier;
    return service.review(std::move(request));
  }
  // Function 0's hunk edited again, two lines longer: the four hunks after it move down by two.
  void editFirstHunk() {
    std::vector<std::string> c = testing::allChanged();
    c[0] = "    v5 = x * 20\n    w = v5 + 1\n    v5 = w - 1";
    repo.write("a.py", testing::fiveFunctions(c));
  }
  // a.py, b.py and c.py, each with its five functions changed.
  void threeChangedFiles() {
    for (const char* name : {"a.py", "b.py", "c.py"}) repo.write(name, testing::fiveFunctions());
    repo.commitAll("three files");
    for (const char* name : {"a.py", "b.py", "c.py"}) repo.write(name, testing::fiveFunctions(testing::allChanged()));
  }
  // One request a review, holding the diff `budget` leaves room for (no tools offered).
  static config::Config oneRequestOf(std::int64_t budget) {
    config::Config capped;
    capped.review.maxToolCalls = 0;
    capped.maxInputTokens = budget;
    capped.maxRequests = 1;
    return capped;
  }
  static std::map<std::string, std::int64_t> lineById(const ReviewResult& r) {
    std::map<std::string, std::int64_t> out;
    for (const auto& p : r.outcome.findings) out[p.id] = p.finding.line;
    return out;
  }
};

TEST_F(Incremental, EditingOneHunkSendsOnlyItAndCarriesTheOthersWithTheirIdsAtTheirNewLines) {
  const ReviewResult first = review();
  ASSERT_EQ(log.reviews(), 1u);
  EXPECT_EQ(log.hunksSent(0), 5);
  ASSERT_EQ(first.outcome.findings.size(), 5u);
  EXPECT_EQ(first.hunksReused, 0);
  EXPECT_EQ(first.hunksTotal, 5);

  editFirstHunk();
  const ReviewResult second = review();
  ASSERT_EQ(log.reviews(), 2u);
  EXPECT_EQ(log.hunksSent(1), 1);  // only the edited hunk went to the model
  EXPECT_NE(log.prompts[1].find("w = v5 + 1"), std::string::npos);
  EXPECT_EQ(log.prompts[1].find("x * 3"), std::string::npos);  // function 1's change is not sent again
  EXPECT_EQ(second.hunksReused, 4);
  EXPECT_FALSE(second.fromCache);
  ASSERT_EQ(second.outcome.findings.size(), 5u);
  const auto before = lineById(first), after = lineById(second);
  int carried = 0;
  for (const auto& [id, line] : before) {
    auto it = after.find(id);
    if (it == after.end()) continue;  // function 0's finding: its line's text changed, so its id did
    EXPECT_EQ(it->second, line + 2) << id;
    ++carried;
  }
  EXPECT_EQ(carried, 4);
  EXPECT_EQ(second.outcome.verdict, contract::Verdict::Comment);  // policy over carried + new: MINOR findings
  EXPECT_EQ(second.outcome.coverage.linesReviewed, first.outcome.coverage.linesReviewed + 2);  // hunk 0: one line out, three in
  EXPECT_NE(second.outcome.summary.find("4 of 5 hunks"), std::string::npos) << second.outcome.summary;

  // The same change once more: nothing is sent, the findings are those of the last review.
  const ReviewResult third = review();
  EXPECT_EQ(log.reviews(), 2u);
  EXPECT_TRUE(third.fromCache);
  EXPECT_EQ(lineById(third), after);
}

// Under a max_findings cap the new review is kept whole, hunk by hunk; the cap
// applies once, to the carried and the new findings, and is said with its count.
// A change with more hunks than the cache keeps besides: each rerun sent the
// hunks the cache had pruned while it wrote them (16,537 hunks of git's v2.40 to
// v2.48 against 4,096 entries: every rerun paid ~4.5M tokens again).
TEST_F(Incremental, AChangeLargerThanTheCacheKeepsEveryHunkOfItsOwn) {
  HunkCache small(3);
  ReviewService smallService{[this](const config::Config&, const diff::Diff&, const fs::path&) {
                               return std::make_unique<FailingOn>(log, model, failOn);
                             },
                             nullptr, {}, &small};
  auto run = [&] {
    return smallService.review(ReviewRequest{diff::parse(git::diffText(repo.root(), {})), repo.root(), {}, {}});
  };
  const ReviewResult first = run();
  ASSERT_EQ(log.reviews(), 1u);
  EXPECT_EQ(log.hunksSent(0), 5);
  const ReviewResult again = run();
  EXPECT_EQ(log.reviews(), 1u) << "sent again: " << log.hunksSent(1) << " hunks";
  EXPECT_TRUE(again.fromCache);
  EXPECT_EQ(again.hunksReused, 5);
  std::size_t entries = 0;
  for (const auto& e : fs::directory_iterator(git::gitDirectory(repo.root()) / "revline" / "hunks"))
    entries += e.path().extension() == ".json";
  EXPECT_EQ(entries, 5u);
}

TEST_F(Incremental, TheFindingsCapCutsWhatIsPublishedNotWhatIsKept) {
  config::Config capped;
  capped.review.policy.maxFindings = 3;
  const ReviewResult first = review(capped);
  EXPECT_EQ(first.outcome.findings.size(), 3u);
  EXPECT_NE(first.outcome.summary.find("Not shown: 2 more findings, past the max_findings cap of 3"), std::string::npos)
      << first.outcome.summary;
  editFirstHunk();
  const ReviewResult second = review(capped);
  ASSERT_EQ(log.reviews(), 2u);
  EXPECT_EQ(log.hunksSent(1), 1);  // the other four were kept whole, though only three were published
  EXPECT_EQ(second.outcome.findings.size(), 3u);
  const std::string& summary = second.outcome.summary;
  EXPECT_NE(summary.find("Not shown: 2 more findings, past the max_findings cap of 3"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("Not shown:"), summary.rfind("Not shown:")) << summary;
}

TEST_F(Incremental, AFullReviewSendsEveryHunkAndRefreshesTheCache) {
  review();
  editFirstHunk();
  review({}, true);
  ASSERT_EQ(log.reviews(), 2u);
  EXPECT_EQ(log.hunksSent(1), 5);
  review();
  EXPECT_EQ(log.reviews(), 2u);  // the full review was kept hunk by hunk
}

TEST_F(Incremental, AnotherSettingOrModelInvalidates) {
  review();
  config::Config strict;
  strict.review.extraInstructions = "Be strict.";
  review(strict);
  ASSERT_EQ(log.reviews(), 2u);
  EXPECT_EQ(log.hunksSent(1), 5);
  config::Config fewerTools;
  fewerTools.review.maxToolCalls = 1;
  review(fewerTools);
  ASSERT_EQ(log.reviews(), 3u);
  EXPECT_EQ(log.hunksSent(2), 5);
  model = "m2";
  review();
  ASSERT_EQ(log.reviews(), 4u);
  EXPECT_EQ(log.hunksSent(3), 5);
  // The same model name on another server (a llama-server whose model file was swapped) is another model.
  model = "m1";
  config::Config elsewhere;
  elsewhere.baseUrl = "http://127.0.0.1:9/v1";
  review(elsewhere);
  ASSERT_EQ(log.reviews(), 5u);
  EXPECT_EQ(log.hunksSent(4), 5);
  // The same server spelt with a trailing slash (a flag beside the config's URL) is the same model: nothing sent.
  elsewhere.baseUrl = "http://127.0.0.1:9/v1/";
  review(elsewhere);
  ASSERT_EQ(log.reviews(), 5u);
  // The schema in the prompt rather than enforced by the server: another request, another answer.
  config::Config inThePrompt;
  inThePrompt.structuredOutput = config::StructuredOutput::Prompt;
  review(inThePrompt);
  ASSERT_EQ(log.reviews(), 6u);
  EXPECT_EQ(log.hunksSent(5), 5);
  // Back to the first settings, model and server: still cached.
  review();
  EXPECT_EQ(log.reviews(), 6u);
  // One try: no grounding feedback round for what cannot be placed, so another answer.
  config::Config oneTry;
  oneTry.review.maxAttempts = 1;
  review(oneTry);
  ASSERT_EQ(log.reviews(), 7u);
  EXPECT_EQ(log.hunksSent(6), 5);
}

// Settings that change what is published, not what the model is asked, send
// nothing again: the caps (max_findings, which the review's own message says to
// raise when findings are past it, and max_explanation_chars) apply to the kept
// findings. Before, each re-sent every hunk. (max_attempts does: it decides
// whether unplaced findings get the grounding feedback round.)
TEST_F(Incremental, PublicationCapsSendNothingAgain) {
  const ReviewResult first = review();
  ASSERT_EQ(first.outcome.findings.size(), 5u);
  const std::string explanation = first.outcome.findings[0].finding.explanation;
  ASSERT_GT(explanation.size(), 12u);
  config::Config capped;
  capped.review.policy.maxFindings = 2;
  capped.review.policy.maxExplanationChars = 12;
  const ReviewResult second = review(capped);
  EXPECT_EQ(log.reviews(), 1u) << "nothing sent";
  ASSERT_EQ(second.outcome.findings.size(), 2u);
  EXPECT_LE(second.outcome.findings[0].finding.explanation.size(), 12u + 3u);  // 12 characters and an ellipsis
  config::Config raised;
  raised.review.policy.maxFindings = 50;
  const ReviewResult third = review(raised);
  EXPECT_EQ(log.reviews(), 1u) << "nothing sent";
  ASSERT_EQ(third.outcome.findings.size(), 5u);
  EXPECT_EQ(third.outcome.findings[0].finding.explanation, explanation);
  editFirstHunk();
  const ReviewResult fourth = review(capped);
  ASSERT_EQ(log.reviews(), 2u);
  EXPECT_EQ(log.hunksSent(1), 1);
  EXPECT_EQ(review(raised).outcome.findings.size(), 5u);  // the new hunk's finding kept whole, though two were shown
  EXPECT_EQ(log.reviews(), 2u);
}

// A hunk's key holds its enclosing definition: a change elsewhere in the same
// function (a hunk of its own) sends the hunk again, since the model reads that
// function with it; hunks in other functions are reused.
TEST_F(Incremental, AChangeElsewhereInTheSameFunctionSendsTheHunkAgain) {
  auto longFunction = [](const std::string& early, const std::string& late) {
    std::string out = "def long(x):\n";
    for (int j = 0; j < 30; ++j)
      out += j == 3 ? early + "\n" : j == 26 ? late + "\n" : "    w" + std::to_string(j) + " = x - " + std::to_string(j) + "\n";
    return out + "    return w29\n\n" + testing::fiveFunctions(testing::allChanged());
  };
  repo.write("a.py", longFunction("    w3 = x - 3", "    w26 = x - 26"));
  repo.commitAll("long");
  repo.write("a.py", longFunction("    w3 = x * 3", "    w26 = x - 26"));
  review();
  ASSERT_EQ(log.reviews(), 1u);
  EXPECT_EQ(log.hunksSent(0), 1);
  repo.write("a.py", longFunction("    w3 = x * 3", "    w26 = x * 26"));  // 23 lines below: a hunk of its own
  const ReviewResult r = review();
  ASSERT_EQ(log.reviews(), 2u);
  EXPECT_EQ(r.hunksTotal, 2);
  EXPECT_EQ(log.hunksSent(1), 2);  // the new hunk, and the first one: its function changed
  EXPECT_EQ(r.outcome.findings.size(), 2u);
}

// The server and a CLI run may review the same repository at once: entries are
// written whole (a temporary per writer, then a rename), so every review
// succeeds and reads either a whole entry or none.
TEST_F(Incremental, ConcurrentReviewsOfOneRepositoryShareTheCache) {
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      try {
        for (int i = 0; i < 5; ++i) {
          const ReviewResult r = review();
          if (r.outcome.findings.size() != 5u) ++failures;
        }
      } catch (const std::exception&) {
        ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(repo.root() / ".git" / "revline" / "hunks")) {
    EXPECT_EQ(e.path().extension(), ".json") << e.path();  // no temporary left behind
    ++files;
  }
  EXPECT_EQ(files, 5u);
}

// Unplaced blocking findings belong to no hunk: such a review is not kept per hunk.
// A review that max_requests cut short keeps what it did review: the rerun
// sends only the files left out, not the whole change again (as on spf13/cobra
// under --max-requests 3: every rerun paid for the same requests).
TEST_F(Incremental, AReviewCutShortByTheRequestCapKeepsWhatItReviewed) {
  threeChangedFiles();
  const config::Config capped = oneRequestOf(kOneFileBudget);  // a request holds one file of the three
  const ReviewResult first = review(capped);
  ASSERT_EQ(log.reviews(), 1u);
  EXPECT_EQ(log.hunksSent(0), 5);
  ASSERT_EQ(first.outcome.coverage.filesSkipped.size(), 2u);
  EXPECT_NE(first.outcome.verdict, contract::Verdict::Approve);

  const ReviewResult second = review(capped);
  ASSERT_EQ(log.reviews(), 2u);
  EXPECT_EQ(log.hunksSent(1), 5) << "the next file, not the first again";
  EXPECT_EQ(second.hunksReused, 5);
  ASSERT_EQ(second.outcome.coverage.filesSkipped.size(), 1u);

  config::Config room = capped;
  room.maxRequests = 10;
  const ReviewResult third = review(room);
  ASSERT_EQ(log.reviews(), 3u);
  EXPECT_EQ(log.hunksSent(2), 5) << "only the file no review had reached";
  EXPECT_EQ(third.hunksReused, 10);
  EXPECT_TRUE(third.outcome.coverage.filesSkipped.empty());
  EXPECT_EQ(third.outcome.findings.size(), 15u);
  std::set<std::string> files;
  for (const auto& p : third.outcome.findings) files.insert(p.finding.file);
  EXPECT_EQ(files, (std::set<std::string>{"a.py", "b.py", "c.py"}));
}

// "Review this file now" under a cap that holds one file of three: the file it
// reaches is reviewed afresh; the two it does not keep their last review's
// findings (in the editor, diagnostics the next save would put back), and are
// still said not reviewed by this review. Without the fallback (`revline review
// --no-cache`) only what this review found is shown. Either way the entries of
// what was not reached stay, so the next save sends nothing.
TEST_F(Incremental, AFullReviewCutShortByTheCapKeepsTheLastFindingsOfWhatItDidNotReach) {
  threeChangedFiles();
  const config::Config capped = oneRequestOf(kOneFileBudget);  // a request holds one file of the three
  for (int run = 0; run < 3; ++run) review(capped);
  ASSERT_EQ(log.reviews(), 3u);
  ASSERT_TRUE(review(capped).fromCache) << "three runs reviewed the three files";

  const ReviewResult forced = review(capped, true, true);
  ASSERT_EQ(log.reviews(), 4u);
  EXPECT_EQ(log.hunksSent(3), 5);
  EXPECT_EQ(forced.outcome.findings.size(), 15u);
  std::map<std::string, int> perFile;
  for (const auto& p : forced.outcome.findings) ++perFile[p.finding.file];
  EXPECT_EQ(perFile, (std::map<std::string, int>{{"a.py", 5}, {"b.py", 5}, {"c.py", 5}}));
  EXPECT_EQ(forced.outcome.coverage.filesSkipped.size(), 2u) << "not reached by this review, and said so";
  EXPECT_NE(forced.outcome.verdict, contract::Verdict::Approve);
  EXPECT_NE(forced.outcome.summary.find("10 of 15 hunks were not reached by this review; the 10 findings of their "
                                        "last review are shown."),
            std::string::npos)
      << forced.outcome.summary;

  const ReviewResult noCache = review(capped, true, false);
  ASSERT_EQ(log.reviews(), 5u);
  EXPECT_EQ(noCache.outcome.findings.size(), 5u);
  EXPECT_EQ(noCache.outcome.summary.find("not reached"), std::string::npos) << noCache.outcome.summary;

  const ReviewResult save = review(capped);
  EXPECT_EQ(log.reviews(), 5u) << "the entries of the files not reached were kept";
  EXPECT_TRUE(save.fromCache);
  EXPECT_EQ(save.outcome.findings.size(), 15u);
}

// A file too large for one request, cut short by the cap, keeps the hunks it did
// review: each rerun sends the next part of the file, from the top down, never
// the same requests again (in the editor every save of a large file paid for them).
TEST_F(Incremental, APartlyReviewedFileKeepsItsReviewedHunksAndTheRerunMovesOn) {
  const config::Config capped = oneRequestOf(2730);  // a request holds a few hunks of a.py, not all five
  std::vector<ReviewResult> runs;
  for (int run = 0; run < 5 && (runs.empty() || !runs.back().outcome.coverage.filesSkipped.empty()); ++run)
    runs.push_back(review(capped));
  ASSERT_GE(runs.size(), 2u) << "the budget holds the whole file: the test needs a smaller one";
  ASSERT_TRUE(runs.back().outcome.coverage.filesSkipped.empty()) << "five runs did not reach the end of the file";
  EXPECT_EQ(log.reviews(), runs.size());
  int sent = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    EXPECT_GE(log.hunksSent(i), 1);
    sent += log.hunksSent(i);
  }
  EXPECT_EQ(sent, 5) << "every hunk sent once over the runs";
  EXPECT_NE(log.prompts[0].find("x * 2  # a"), std::string::npos) << "the first request starts at the top of the file";
  EXPECT_TRUE(runs[0].outcome.coverage.filesSkipped[0].partial);
  EXPECT_NE(runs[0].outcome.verdict, contract::Verdict::Approve);
  EXPECT_EQ(runs.back().outcome.findings.size(), 5u);
  EXPECT_EQ(runs.back().hunksReused, 5 - log.hunksSent(runs.size() - 1));

  // Nothing left: the next run sends nothing.
  const ReviewResult again = review(capped);
  EXPECT_EQ(log.reviews(), runs.size());
  EXPECT_TRUE(again.fromCache);
}

// A cache that cannot be written (here .git/revline is a file; a read-only
// repository does the same) is said: silently, every review would pay for the
// whole change again.
TEST_F(Incremental, ACacheThatCannotBeWrittenIsSaid) {
  std::ofstream(repo.root() / ".git" / "revline") << "not a directory\n";
  const ReviewResult first = review();
  ASSERT_EQ(first.outcome.warnings.size(), 1u);
  EXPECT_NE(first.outcome.warnings[0].find("could not be kept in "), std::string::npos) << first.outcome.warnings[0];
  EXPECT_NE(first.outcome.warnings[0].find("the next review sends the model again what this one could not keep"), std::string::npos);
  review();
  EXPECT_EQ(log.reviews(), 2u) << "nothing was kept";

  fs::remove(repo.root() / ".git" / "revline");
  EXPECT_TRUE(review().outcome.warnings.empty());
  EXPECT_TRUE(review().fromCache);
}

// `.git/revline/hunks` planted as a symlink to another directory: nothing is
// written there and nothing of it pruned (before, the entries went there and
// the oldest of its .json files beyond 4,096 were deleted). The review says its
// cache could not be kept.
TEST_F(Incremental, APlantedSymlinkForTheCacheDirectoryIsNotFollowed) {
  testing::TempDir outside;
  std::ofstream(outside.path() / "precious.json") << "{}";
  fs::create_directories(repo.root() / ".git" / "revline");
  fs::create_directory_symlink(outside.path(), repo.root() / ".git" / "revline" / "hunks");
  const ReviewResult r = review();
  ASSERT_EQ(r.outcome.warnings.size(), 1u);
  EXPECT_NE(r.outcome.warnings[0].find("could not be kept in "), std::string::npos) << r.outcome.warnings[0];
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(outside.path())) files += !e.path().empty();
  EXPECT_EQ(files, 1u) << "nothing written outside the git directory";
  EXPECT_TRUE(fs::exists(outside.path() / "precious.json"));
}

// A cache entry that is a named pipe is a miss, not a wait: before, the review
// blocked opening it, forever (and a language server stopped answering).
TEST_F(Incremental, ACacheEntryThatIsANamedPipeIsAMissNotAWait) {
  review();  // the entries are written
  std::size_t replaced = 0;
  for (const auto& e : fs::directory_iterator(repo.root() / ".git" / "revline" / "hunks")) {
    if (e.path().extension() != ".json") continue;
    fs::remove(e.path());
    ASSERT_EQ(::mkfifo(e.path().c_str(), 0644), 0);
    ++replaced;
  }
  ASSERT_EQ(replaced, 5u);
  const ReviewResult again = review();  // would hang before the fix
  EXPECT_EQ(log.reviews(), 2u) << "every hunk is sent again";
  EXPECT_EQ(again.hunksReused, 0);
}

// A cache entry is grounded again when read: one whose finding falls outside
// its hunk (damaged, or written by anything but a review) is a miss, and the
// hunk is sent again. Before, its findings were published wherever they said.
TEST_F(Incremental, ACachedFindingOutsideItsHunkMakesTheEntryAMiss) {
  review();
  std::size_t moved = 0;
  for (const auto& e : fs::directory_iterator(repo.root() / ".git" / "revline" / "hunks")) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    nlohmann::json entry = nlohmann::json::parse(in);
    in.close();
    for (auto& f : entry["review"]["findings"]) f["finding"]["line"] = 500;  // far past every hunk
    entry["seal"] = sealOf(e.path().stem().string(), entry["review"]);  // as the user's own revline would
    std::ofstream(e.path(), std::ios::trunc) << entry.dump();
    ++moved;
  }
  ASSERT_EQ(moved, 5u);
  const ReviewResult again = review();
  EXPECT_EQ(log.reviews(), 2u) << "the hunks are sent again";
  EXPECT_EQ(again.hunksReused, 0);
  ASSERT_EQ(again.outcome.findings.size(), 5u);
  for (const auto& p : again.outcome.findings) EXPECT_LT(p.finding.line, 500) << p.id;
}

// An entry's name is keyed with the user's secret, and so is its content: an
// entry emptied of its findings, or another entry copied over it, by whoever
// can write the repository's .git, is a miss (before, an emptied entry made its
// hunk APPROVE without a request).
TEST_F(Incremental, AnEntryChangedSinceItWasWrittenIsAMiss) {
  const ReviewResult first = review();
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(repo.root() / ".git" / "revline" / "hunks"))
    if (e.path().extension() == ".json") entries.push_back(e.path());
  ASSERT_EQ(entries.size(), 5u);
  std::ifstream in(entries[0]);
  nlohmann::json entry = nlohmann::json::parse(in);
  in.close();
  ASSERT_EQ(entry["review"]["findings"].size(), 1u);
  entry["review"]["findings"] = nlohmann::json::array();
  std::ofstream(entries[0], std::ios::trunc) << entry.dump();
  fs::copy_file(entries[2], entries[1], fs::copy_options::overwrite_existing);
  const ReviewResult again = review();
  EXPECT_EQ(log.reviews(), 2u) << "the two changed hunks are sent again";
  EXPECT_EQ(again.hunksReused, 3);
  EXPECT_EQ(again.outcome.findings.size(), 5u);
  EXPECT_EQ(again.outcome.verdict, first.outcome.verdict);
}

// An entry of an earlier version is a miss: version 1 kept a hunk as "no
// findings" when its model asked for changes it named no finding for, which
// the policy no longer approves.
TEST_F(Incremental, AnEntryOfAnEarlierVersionIsAMiss) {
  review();
  for (const auto& e : fs::directory_iterator(repo.root() / ".git" / "revline" / "hunks")) {
    std::ifstream in(e.path());
    nlohmann::json entry = nlohmann::json::parse(in);
    in.close();
    entry["version"] = 1;
    std::ofstream(e.path(), std::ios::trunc) << entry.dump();
  }
  EXPECT_EQ(review().hunksReused, 0);
  EXPECT_EQ(log.reviews(), 2u);
}

// A new file is one hunk: without cutting, each save of a file being written
// sent all of it again. Cut into units at top-level blocks, appending sends the
// last unit only, and an insertion at the top the first only (the other units'
// findings carried, moved down).
std::string functions(int count, const std::string& extraFirstLine = "") {
  std::string out = extraFirstLine;
  for (int i = 0; i < count; ++i) {
    out += "def g" + std::to_string(i) + "(x):\n";
    for (int j = 0; j < 20; ++j) out += "    y" + std::to_string(j) + " = x * " + std::to_string(i + j) + "\n";
    out += "    return y19\n\n";
  }
  return out;
}

// A unit of cutIntoUnits, copied: a diff's lines view the patch text, gone with it.
struct Piece {
  int newStart = 0, newCount = 0;
  std::vector<std::string> lines;
};

// new.py, a new file of `text`, cut into units as the per-hunk cache does.
std::vector<Piece> cutNewFile(const std::string& text, std::int64_t maxUnitTokens = 0) {
  testing::TempRepo repo;
  repo.write("keep.txt", "x\n");
  repo.commitAll("init");
  repo.write("new.py", text);
  const std::string patch = git::diffText(repo.root(), {});
  const diff::Diff units = cutIntoUnits(diff::parse(patch), maxUnitTokens);
  std::vector<Piece> out;
  for (const diff::Hunk& h : units.findFile("new.py")->hunks) {
    Piece p{h.newStart, h.newCount, {}};
    for (const auto& l : h.lines) p.lines.emplace_back(l.text);
    out.push_back(std::move(p));
  }
  return out;
}

TEST(CutIntoUnits, ALargeHunkIsCutBeforeTopLevelBlocksThatAnEditAboveDoesNotMove) {
  const auto pieces = cutNewFile(functions(20));  // 460 lines, one hunk
  ASSERT_GT(pieces.size(), 3u);
  std::size_t lines = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    lines += pieces[i].lines.size();
    if (i + 1 < pieces.size()) {
      EXPECT_GE(pieces[i].lines.size(), kUnitLines / 4) << i;
    }
    if (i > 0) {
      EXPECT_EQ(pieces[i].lines.front().rfind("def g", 0), 0u) << "cut before a top-level line";
      EXPECT_EQ(pieces[i].newStart, pieces[i - 1].newStart + pieces[i - 1].newCount);
    }
  }
  EXPECT_EQ(lines, 460u);
  // A line added at the top: every piece but the first reads the same, one line down.
  const auto moved = cutNewFile(functions(20, "import os\n"));
  ASSERT_EQ(moved.size(), pieces.size());
  for (std::size_t i = 1; i < pieces.size(); ++i) {
    EXPECT_EQ(moved[i].lines, pieces[i].lines) << i;
    EXPECT_EQ(moved[i].newStart, pieces[i].newStart + 1);
  }
  // A hunk of 2 x kUnitLines lines or fewer stays whole.
  EXPECT_EQ(cutNewFile(functions(5)).size(), 1u);
}

// As a user found writing a 3,342-line module: adding a 20-line function in
// its middle changed 21 of its units (each cut counted from the one before).
// Cuts chosen by the text around them change only the units the edit touches.
TEST(CutIntoUnits, AFunctionAddedInTheMiddleChangesOnlyTheUnitsAroundIt) {
  auto module = [](bool withNewFunction) {
    std::string out;
    std::uint32_t seed = 12345;
    for (int i = 0; i < 150; ++i) {
      if (withNewFunction && i == 3) {
        out += "def added(x):\n";
        for (int j = 0; j < 18; ++j) out += "    z" + std::to_string(j) + " = x + " + std::to_string(j) + "\n";
        out += "    return z17\n\n";
      }
      seed = seed * 1103515245u + 12345u;
      // Runs of short functions alike (inspect.py's is*() predicates), and others of 5 to 44 lines.
      const int body = i % 50 < 30 ? 10 : 3 + static_cast<int>((seed >> 16) % 40);
      if (i % 50 >= 30 && i % 5 == 0) {  // and classes of 6 to 15 methods, none at the top level
        out += "class C" + std::to_string(i) + ":\n";
        for (int m = 0; m < 6 + body % 10; ++m) {
          out += "\n    def m" + std::to_string(m) + "(self, x):\n";
          for (int j = 0; j < 4 + (m * 7 + body) % 20; ++j)
            out += "        w" + std::to_string(j) + " = x - " + std::to_string(i + m + j) + "\n";
        }
        out += "\n";
        continue;
      }
      out += "def f" + std::to_string(i) + "(x):\n";
      for (int j = 0; j < body; ++j) out += "    v" + std::to_string(j) + " = x * " + std::to_string(i + j) + "\n";
      out += "    return v0\n\n";
    }
    return out;
  };
  auto units = [](const std::string& text) {
    std::multiset<std::vector<std::string>> out;
    for (Piece& p : cutNewFile(text, 4000)) out.insert(std::move(p.lines));  // pieces up to 2,000 tokens
    return out;
  };
  const auto before = units(module(false)), after = units(module(true));
  ASSERT_GT(before.size(), 40u);
  std::size_t changed = 0;
  for (const auto& u : after) changed += before.count(u) == 0;
  EXPECT_LE(changed, 2u) << "of " << after.size() << " units";
}

TEST_F(Incremental, WritingANewFileSendsOnlyThePartThatChanged) {
  repo.write("new.py", functions(20));
  const ReviewResult first = review();
  ASSERT_EQ(log.reviews(), 1u);
  const int units = log.hunksSent(0) - 5;  // a.py's five hunks go too
  ASSERT_GT(units, 3);
  const std::size_t findings = first.outcome.findings.size();

  repo.write("new.py", functions(21));  // one more function at the end
  const ReviewResult appended = review();
  ASSERT_EQ(log.reviews(), 2u);
  EXPECT_EQ(log.hunksSent(1), 1) << "only the last unit, not the whole new file";
  EXPECT_NE(log.prompts[1].find("def g20(x):"), std::string::npos);
  EXPECT_EQ(appended.outcome.findings.size(), findings);

  repo.write("new.py", functions(21, "import os\n"));  // a line at the top
  const ReviewResult inserted = review();
  ASSERT_EQ(log.reviews(), 3u);
  EXPECT_EQ(log.hunksSent(2), 1) << "only the first unit";
  EXPECT_NE(log.prompts[2].find("import os"), std::string::npos);
  std::map<std::string, std::int64_t> before = lineById(appended), after = lineById(inserted);
  int moved = 0;
  for (const auto& [id, line] : before)
    if (auto it = after.find(id); it != after.end() && it->second == line + 1) ++moved;
  EXPECT_EQ(moved, units - 1) << "the findings of the other units of new.py, one line down";
}

// One block larger than max_requests requests can hold (every line of a file
// without blank lines changed, a small budget): the units are cut to fit a
// request, so each capped run keeps what it reviewed and the next moves on. Cut
// only at 480 lines, a unit needed more pieces than the cap and every run paid
// for the same requests.
TEST_F(Incremental, ABlockLargerThanTheRequestCapIsReviewedRunByRun) {
  std::string before, after;
  for (int i = 0; i < 600; ++i) {
    before += "value_" + std::to_string(i) + " = compute(" + std::to_string(i) + ")\n";
    after += "value_" + std::to_string(i) + " = compute(" + std::to_string(i) + ", fast=True)\n";
  }
  repo.write("a.py", before);
  repo.commitAll("flat");
  repo.write("a.py", after);
  config::Config capped;
  capped.review.maxToolCalls = 0;
  capped.maxInputTokens = 4000;
  capped.maxRequests = 2;
  std::vector<ReviewResult> runs;
  for (int run = 0; run < 40 && (runs.empty() || !runs.back().outcome.coverage.filesSkipped.empty()); ++run) {
    const std::size_t sentBefore = log.reviews();
    runs.push_back(review(capped));
    ASSERT_GT(log.reviews(), sentBefore) << "run " << run << " sent nothing while part of the file was left out";
    if (run > 0) {
      EXPECT_GT(runs.back().outcome.coverage.linesReviewed, runs[runs.size() - 2].outcome.coverage.linesReviewed)
          << "run " << run << " reviewed nothing new";
    }
  }
  ASSERT_TRUE(runs.back().outcome.coverage.filesSkipped.empty()) << runs.size() << " runs did not reach the end";
  EXPECT_EQ(runs.back().outcome.coverage.linesReviewed, 1200);
  const std::size_t sent = log.reviews();
  EXPECT_TRUE(review(capped).fromCache);
  EXPECT_EQ(log.reviews(), sent);
}

// A split review whose provider fails part-way keeps what the answered
// requests found: the rerun sends only the requests that failed (on cobra a
// 500 from the 9th request made the next run pay for all 15 again).
TEST_F(Incremental, AFailedSplitReviewKeepsWhatItsAnsweredRequestsFound) {
  threeChangedFiles();
  config::Config split;
  split.review.maxToolCalls = 0;
  split.maxInputTokens = kOneFileBudget;  // a request holds one file of the three
  split.maxParallelRequests = 1;          // in diff order: a.py, b.py, then c.py fails
  failOn = "File: c.py (";
  EXPECT_THROW(review(split), review::ProviderError);
  ASSERT_EQ(log.reviews(), 2u);

  failOn.clear();
  const ReviewResult again = review(split);
  ASSERT_EQ(log.reviews(), 3u);
  EXPECT_EQ(log.hunksSent(2), 5);
  EXPECT_NE(log.prompts[2].find("File: c.py ("), std::string::npos) << "only the file whose request failed";
  EXPECT_EQ(again.hunksReused, 10);
  EXPECT_EQ(again.outcome.findings.size(), 15u);
  EXPECT_TRUE(again.outcome.coverage.filesSkipped.empty());
}

// Beside hunks reviewed before, what is left may be a file that shows no line
// (a rename): alone it is not worth a request (one went out with only its name).
TEST_F(Incremental, ARenameBesideHunksReviewedBeforeSendsNothing) {
  repo.write("a.py", testing::fiveFunctions());
  repo.write("notes.txt", "one\ntwo\n");
  repo.commitAll("with notes");
  repo.write("a.py", testing::fiveFunctions(testing::allChanged()));
  review();
  ASSERT_EQ(log.reviews(), 1u);
  repo.git("mv notes.txt readme.txt");
  const ReviewResult again = review();
  EXPECT_EQ(log.reviews(), 1u) << "a request for the rename alone";
  EXPECT_EQ(again.outcome.findings.size(), 5u);
}

// A renamed file's similarity index moves with every edit; an edit of one of
// its hunks still sends only that hunk.
TEST_F(Incremental, EditingOneHunkOfARenamedFileSendsOnlyIt) {
  repo.git("mv a.py b.py");
  repo.write("b.py", testing::fiveFunctions(testing::allChanged()));
  const ReviewResult first = review();
  ASSERT_EQ(log.reviews(), 1u);
  ASSERT_EQ(log.hunksSent(0), 5);
  std::vector<std::string> c = testing::allChanged();
  c[0] = "    v5 = x * 20\n    w = v5 + 1\n    v5 = w - 1";
  repo.write("b.py", testing::fiveFunctions(c));
  const ReviewResult second = review();
  ASSERT_EQ(log.reviews(), 2u);
  EXPECT_EQ(log.hunksSent(1), 1);
  EXPECT_EQ(second.hunksReused, 4);
  EXPECT_EQ(second.outcome.findings.size(), 5u);
}

TEST(HunkCacheStore, AReviewWithUnplacedBlockingFindingsKeepsNothing) {
  testing::TempRepo repo;
  repo.write("a.py", testing::fiveFunctions());
  repo.commitAll("init");
  repo.write("a.py", testing::fiveFunctions(testing::allChanged()));
  const diff::Diff whole = diff::parse(git::diffText(repo.root(), {}));
  HunkCache cache;
  const review::ReviewOptions options;
  const HunkReviewContext context{"openai", "m", &options, {}};
  const IncrementalPlan plan = cache.plan(repo.root(), whole, context, nullptr, CacheUse::Reuse);
  EXPECT_EQ(plan.hunksTotal, 5);
  review::ReviewOutcome fresh;
  fresh.unplacedBlocking = 1;
  cache.store(repo.root(), plan, fresh, options.policy);
  EXPECT_EQ(cache.plan(repo.root(), whole, context, nullptr, CacheUse::Reuse).hunksReused, 0);
  fresh.unplacedBlocking = 0;
  fresh.coverage.filesSkipped = {{"a.py", "over the request budget", 10}};  // left out: not reviewed
  cache.store(repo.root(), plan, fresh, options.policy);
  EXPECT_EQ(cache.plan(repo.root(), whole, context, nullptr, CacheUse::Reuse).hunksReused, 0);
  fresh.coverage.filesSkipped.clear();
  cache.store(repo.root(), plan, fresh, options.policy);
  const IncrementalPlan again = cache.plan(repo.root(), whole, context, nullptr, CacheUse::Reuse);
  EXPECT_EQ(again.hunksReused, 5);
  EXPECT_TRUE(again.toReview.files.empty());
  EXPECT_TRUE(fs::is_directory(repo.root() / ".git" / "revline" / "hunks"));
}

// Of a review split into requests, one request's answer that does not stand hunk
// by hunk (changes asked for and not shown) keeps its own files out of the
// cache, not the other requests' (before, nothing of the review was kept, and
// every rerun paid for every request again). A review that is not kept also
// takes away the earlier entries of what it reviewed again (`--no-cache`), so
// an older review's findings never stand for it.
TEST(HunkCacheStore, OfASplitReviewOnlyTheFilesOfAnUnsettledRequestAreNotKept) {
  testing::TempRepo repo;
  for (const char* name : {"a.py", "b.py", "c.py"}) repo.write(name, testing::fiveFunctions());
  repo.commitAll("init");
  for (const char* name : {"a.py", "b.py", "c.py"}) repo.write(name, testing::fiveFunctions(testing::allChanged()));
  const diff::Diff whole = diff::parse(git::diffText(repo.root(), {}));
  HunkCache cache;
  const review::ReviewOptions options;
  const HunkReviewContext context{"openai", "m", &options, {}};
  const auto reused = [&] { return cache.plan(repo.root(), whole, context, nullptr, CacheUse::Reuse).hunksReused; };
  review::ReviewOutcome split;
  split.modelVerdict = contract::Verdict::RequestChanges;  // over all the requests, with no finding shown
  split.unsettledFiles = std::vector<std::string>{"b.py"};
  cache.store(repo.root(), cache.plan(repo.root(), whole, context, nullptr, CacheUse::Reuse), split, options.policy);
  EXPECT_EQ(reused(), 10);
  const IncrementalPlan rest = cache.plan(repo.root(), whole, context, nullptr, CacheUse::Reuse);
  ASSERT_EQ(rest.toReview.files.size(), 1u);
  EXPECT_EQ(rest.toReview.files[0].path(), "b.py");

  review::ReviewOutcome settled;
  cache.store(repo.root(), cache.plan(repo.root(), whole, context, nullptr, CacheUse::Refresh), settled, options.policy);
  EXPECT_EQ(reused(), 15);
  // Refreshed, and b.py's request unsettled this time: its earlier entries go.
  cache.store(repo.root(), cache.plan(repo.root(), whole, context, nullptr, CacheUse::Refresh), split, options.policy);
  EXPECT_EQ(reused(), 10);
  // One request for the whole change (no per-request account): nothing of it stands.
  review::ReviewOutcome whole1;
  whole1.unplacedBlocking = 1;
  cache.store(repo.root(), cache.plan(repo.root(), whole, context, nullptr, CacheUse::Refresh), whole1, options.policy);
  EXPECT_EQ(reused(), 0);
}

// A blocking finding as a review publishes it.
review::PublishedFinding publishedAt(const std::string& file, std::int64_t line, const std::string& title,
                                     const std::string& id) {
  contract::Finding f;
  f.file = file;
  f.line = line;
  f.severity = contract::Severity::Blocker;
  f.category = contract::Category::Correctness;
  f.title = title;
  f.explanation = "Here only.";
  f.confidence = 0.9;
  return {f, id, std::nullopt, std::nullopt};
}

// A plan holds each unit's entry name, not its key: the key repeats what is
// common to the review (a range's commit messages) for every hunk, and a 5 MB
// diff of 300 commits held 238 MB of keys (1 GB at a small budget). The names
// are the keys' digests as before, so entries written before are still found.
TEST(HunkCachePlan, HoldsEachUnitsEntryNameNotItsKey) {
  testing::TempRepo repo;
  std::string text;
  for (int i = 0; i < 40; ++i) text += "int f" + std::to_string(i) + "(void) {\n  return " + std::to_string(i) + ";\n}\n\n";
  repo.write("a.c", text);
  repo.commitAll("init");
  for (int i = 0; i < 40; i += 8) {
    const std::string from = "return " + std::to_string(i) + ";";
    text.replace(text.find(from), from.size(), "return -" + std::to_string(i) + ";");
  }
  repo.write("a.c", text);
  const diff::Diff whole = diff::parse(git::diffText(repo.root(), {}));
  ASSERT_EQ(whole.files.at(0).hunks.size(), 5u);
  HunkCache cache;
  const review::ReviewOptions options;
  // Two commits changed a.c; one changed only another file, and is in no key of a.c's.
  const HunkReviewContext context{"openai",
                                  "m",
                                  &options,
                                  {{std::string(100'000, 'm'), {"a.c"}},
                                   {"Only b.c", {"b.c"}},
                                   {std::string(100'000, 'n'), {"b.c", "a.c"}}}};
  const IncrementalPlan plan = cache.plan(repo.root(), whole, context, nullptr, CacheUse::Reuse);
  ASSERT_EQ(plan.units.size(), 5u);
  for (const auto& unit : plan.units) EXPECT_LE(unit.key.size(), 64u);
  // The first unit's name, from its key as written before (a change of how keys are made misses every entry;
  // made once on purpose when the settings became those that change what is asked, requestSettingsKey).
  auto field = [](std::string& out, std::string_view name, std::string_view value) {
    out += std::string(name) + " " + std::to_string(value.size()) + "\n" + std::string(value) + "\n";
  };
  std::string key = "revline-hunk-cache 1\n";
  field(key, "provider", "openai");
  field(key, "model", "m");
  field(key, "prompt", std::to_string(review::kPromptVersion));
  field(key, "settings", review::requestSettingsKey(options));
  field(key, "commit", std::string(100'000, 'm'));
  field(key, "commit", std::string(100'000, 'n'));
  const diff::FileDiff& file = whole.files[0];
  field(key, "file", "a.c");
  field(key, "status", diff::toString(file.status));
  field(key, "old", "a.c");
  field(key, "modes", file.oldMode.value_or("") + " " + file.newMode.value_or(""));
  const diff::Hunk& first = file.hunks[0];
  field(key, "section", first.section);
  for (const auto& l : first.lines)
    key += std::string(1, l.kind == diff::LineKind::Added ? '+' : l.kind == diff::LineKind::Removed ? '-' : ' ') +
           std::string(l.text) + "\n";
  EXPECT_EQ(plan.units[0].key, keyedFingerprint(config::stateKey(), key));
  review::ReviewOutcome fresh;
  cache.store(repo.root(), plan, fresh, options.policy);
  EXPECT_EQ(cache.plan(repo.root(), whole, context, nullptr, CacheUse::Reuse).hunksReused, 5);
}

// Two hunks that read alike: the same block, outside any definition, changed
// the same way in two places. Each has its own review: a finding on the first
// is carried back to the first only, and the second's "nothing" does not
// overwrite it.
TEST(HunkCacheStore, HunksThatReadAlikeKeepTheirOwnReviews) {
  auto text = [](const std::string& change) {
    std::string out;
    for (int block = 0; block < 2; ++block) {
      for (int k = 0; k < 8; ++k) out += "  step_" + std::to_string(block) + "_" + std::to_string(k) + "();\n";
      out += "  x = 0;\n  lock(m);\n  a = read(x);\n  b = a " + change + ";\n  unlock(m);\n  use(b);\n  done();\n";
    }
    return out + "  finish();\n";
  };
  testing::TempRepo repo;
  repo.write("s.c", text("+ 1"));
  repo.commitAll("init");
  repo.write("s.c", text("+ 2"));
  const diff::Diff whole = diff::parse(git::diffText(repo.root(), {}));
  ASSERT_EQ(whole.files.at(0).hunks.size(), 2u);
  HunkCache cache;
  const review::ReviewOptions options;
  const HunkReviewContext context{"openai", "m", &options, {}};
  const IncrementalPlan plan = cache.plan(repo.root(), whole, context, nullptr, CacheUse::Reuse);
  ASSERT_EQ(plan.units.size(), 2u);
  EXPECT_NE(plan.units[0].key, plan.units[1].key);
  const std::int64_t first = whole.files[0].hunks[0].newStart + 3;  // "  b = a + 2;" of the first block
  review::ReviewOutcome fresh;
  fresh.findings.push_back(publishedAt("s.c", first, "Reads x unlocked", "id-1"));
  cache.store(repo.root(), plan, fresh, options.policy);
  const IncrementalPlan again = cache.plan(repo.root(), whole, context, nullptr, CacheUse::Reuse);
  EXPECT_EQ(again.hunksReused, 2);
  ASSERT_EQ(again.carried.size(), 1u);
  EXPECT_EQ(again.carried[0].finding.line, first);
}

// An INI file of one section per color, every section the same but its color:
// the hunks of sections changed alike read alike.
std::string sections(const std::vector<std::string>& colors) {
  std::string out;
  for (const std::string& color : colors) {
    out += "[section]\nname = s\ncolor = " + color + "\n";
    for (int k = 0; k < 9; ++k) out += "pad" + std::to_string(k) + " = " + std::to_string(k) + "\n";
  }
  return out;
}

// settings.ini of `base` sections committed, under a per-hunk cache of one remote model.
struct SectionsUnderCache {
  testing::TempRepo repo;
  HunkCache cache;
  const review::ReviewOptions options;
  const HunkReviewContext context{"openai", "m", &options, {}};
  explicit SectionsUnderCache(const std::vector<std::string>& base) {
    repo.write("settings.ini", sections(base));
    repo.commitAll("init");
  }
  // settings.ini rewritten as `text`: its diff now.
  diff::Diff write(const std::string& text) {
    repo.write("settings.ini", text);
    return diff::parse(git::diffText(repo.root(), {}));
  }
  IncrementalPlan plan(const diff::Diff& change) { return cache.plan(repo.root(), change, context, nullptr, CacheUse::Reuse); }
  void store(const IncrementalPlan& plan, const review::ReviewOutcome& fresh) {
    cache.store(repo.root(), plan, fresh, options.policy);
  }
};

// Of three hunks that read alike, the middle one edited: the last one's review
// must not move to the one before it. Before, hunks were told apart by their
// order alone, so the last took the middle's review (nothing) and its finding
// was lost, or moved to the line of another. Now the alike are sent again.
TEST(HunkCacheStore, EditingOneOfHunksThatReadAlikeMovesNoReviewToAnother) {
  SectionsUnderCache ini({"blue", "blue", "blue"});
  const diff::Diff whole = ini.write(sections({"red", "red", "red"}));
  ASSERT_EQ(whole.files.at(0).hunks.size(), 3u);
  const IncrementalPlan plan = ini.plan(whole);
  review::ReviewOutcome fresh;  // on "color = red" of the last section
  fresh.findings.push_back(
      publishedAt("settings.ini", whole.files[0].hunks[2].newStart + 3, "The last section must stay blue", "id-last"));
  ini.store(plan, fresh);

  const diff::Diff edited = ini.write(sections({"red", "green", "red"}));
  const IncrementalPlan again = ini.plan(edited);
  for (const auto& carried : again.carried)
    EXPECT_NE(carried.finding.title, "The last section must stay blue") << "carried to line " << carried.finding.line;
  // The last section is sent again (its review is not carried to a hunk it was not made for).
  ASSERT_EQ(again.toReview.files.size(), 1u);
  bool lastSent = false;
  for (const auto& h : again.toReview.files[0].hunks) lastSent |= h.newStart == edited.files[0].hunks[2].newStart;
  EXPECT_TRUE(lastSent);
}

// Two hunks that read alike, A and B, B with a finding; then A is edited to
// other text and a new hunk C that reads as B did is added after B: still two
// alike. Told apart by "n of m" alone, B took A's review (nothing) and the new
// C took B's, its finding moved onto C's lines, and neither was sent. Now the
// distances between alike hunks count too: B and C are sent again.
TEST(HunkCacheStore, OneOfHunksThatReadAlikeEditedAwayAndANewOneAddedIsSentAgain) {
  // Section 0 never changes: each changed section has the same lines around it.
  SectionsUnderCache ini({"blue", "blue", "blue", "blue", "blue"});
  const diff::Diff before = ini.write(sections({"blue", "red", "plain", "red", "plain"}));  // A (section 1) and B (section 3) alike
  ASSERT_EQ(before.files.at(0).hunks.size(), 4u);
  const IncrementalPlan first = ini.plan(before);
  const std::int64_t onB = before.files[0].hunks[2].newStart + 3;  // "color = red" of section 3
  review::ReviewOutcome fresh;
  fresh.findings.push_back(publishedAt("settings.ini", onB, "Red is reserved", "id-b"));
  ini.store(first, fresh);

  const diff::Diff after = ini.write(sections({"blue", "green", "plain", "red", "red"}));  // A edited away; C (section 4) reads as B
  ASSERT_EQ(after.files.at(0).hunks.size(), 4u);
  const IncrementalPlan again = ini.plan(after);
  for (const auto& p : again.carried)
    EXPECT_NE(p.finding.line, after.files[0].hunks[3].newStart + 3) << "B's finding was moved onto the new hunk";
  std::set<std::int64_t> sent;
  for (const auto& h : again.toReview.files.at(0).hunks) sent.insert(h.newStart);
  EXPECT_TRUE(sent.count(after.files[0].hunks[3].newStart)) << "the new hunk was not sent";
  EXPECT_TRUE(sent.count(after.files[0].hunks[2].newStart) || !again.carried.empty())
      << "B neither sent again nor carrying its finding";
}

// Beside hunks that read alike, an ordinary edit sends only what it changed:
// another hunk edited in place, a line added at the top (every hunk moves), a
// change added at the end (the first way of telling alike hunks apart, by the
// hunks beside them, sent them all again).
TEST(HunkCacheStore, EditsBesideHunksThatReadAlikeSendOnlyWhatChanged) {
  SectionsUnderCache ini({"blue", "blue", "blue", "blue", "blue", "blue", "blue"});
  // Reviews settings.ini written as `text` (nothing found); how many hunks it sent.
  auto reviewAs = [&](const std::string& text) {
    const IncrementalPlan plan = ini.plan(ini.write(text));
    ini.store(plan, review::ReviewOutcome{});
    return plan.toReview.files.empty() ? std::size_t{0} : plan.toReview.files[0].hunks.size();
  };
  ASSERT_EQ(reviewAs(sections({"blue", "red", "plain", "red", "grey", "blue", "blue"})), 4u);
  EXPECT_EQ(reviewAs(sections({"blue", "red", "plainer", "red", "grey", "blue", "blue"})), 1u) << "another hunk edited in place";
  EXPECT_EQ(reviewAs("; top\n" + sections({"blue", "red", "plainer", "red", "grey", "blue", "blue"})), 1u)
      << "a line added at the top";
  EXPECT_EQ(reviewAs("; top\n" + sections({"blue", "red", "plainer", "red", "grey", "blue", "white"})), 1u)
      << "a change added at the end";
}

// A part the budget left out, in a file whose other hunks were reused: the
// file was reviewed in part, as a review of the whole change would say.
TEST(HunkCacheStore, ASkippedHunkBesideReusedOnesIsAPartialFile) {
  testing::TempRepo repo;
  repo.write("a.py", testing::fiveFunctions());
  repo.commitAll("init");
  repo.write("a.py", testing::fiveFunctions(testing::allChanged()));
  const diff::Diff whole = diff::parse(git::diffText(repo.root(), {}));
  IncrementalPlan plan;
  for (std::size_t h = 0; h < 5; ++h) plan.units.push_back({"k" + std::to_string(h), 0, static_cast<std::ptrdiff_t>(h), h > 0});
  plan.hunksTotal = 5;
  plan.hunksReused = 4;
  plan.toReview = whole;
  plan.toReview.files[0].hunks = {whole.files[0].hunks[0]};
  review::ReviewOutcome fresh;
  review::SkippedFile skipped{"a.py", "not reviewed: line 7 needs ~9000 tokens", 2};
  skipped.overLimit = true;  // partial stays false: the fresh review saw only this hunk of the file
  fresh.coverage.filesSkipped = {skipped};
  const review::ReviewOptions options;
  const review::ReviewOutcome merged = mergeIncremental(plan, fresh, whole, {}, options.policy);
  EXPECT_EQ(merged.coverage.filesTotal, 1);
  EXPECT_EQ(merged.coverage.filesReviewed, 1);
  ASSERT_EQ(merged.coverage.filesSkipped.size(), 1u);
  EXPECT_TRUE(merged.coverage.filesSkipped[0].partial);
  EXPECT_EQ(merged.coverage.linesReviewed, merged.coverage.linesTotal - 2);
  EXPECT_NE(merged.verdict, contract::Verdict::Approve);
}

TEST(HunkCacheStore, LocalReviewersAreNotCachedPerHunk) {
  EXPECT_FALSE(HunkCache::applies("builtin"));
  EXPECT_FALSE(HunkCache::applies("replay"));
  EXPECT_TRUE(HunkCache::applies("openai"));
  EXPECT_TRUE(HunkCache::applies("anthropic"));
  EXPECT_TRUE(HunkCache::applies("ollama"));
}

}  // namespace
}  // namespace revline::session
