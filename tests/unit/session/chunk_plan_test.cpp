// The request planner (pure): every part sent once or listed as skipped, no
// request over its capacity, a file's hunks together when the file fits,
// related files together, the request cap, and packing close to the minimum.
#include "core/session/chunk_plan.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "core/config/input_budget.h"

namespace revline::session {
namespace {

FileCost file(std::int64_t header, std::vector<std::int64_t> hunks) {
  FileCost c;
  c.headerTokens = header;
  c.hunkTokens = hunks;
  c.hunkLines.assign(hunks.size(), 1);
  return c;
}

// Each (file, hunk) sent or skipped exactly once; every chunk within capacity and its tokens right.
void expectSound(const ChunkPlan& plan, const std::vector<FileCost>& files, std::int64_t capacity) {
  std::map<std::pair<std::size_t, std::size_t>, int> seen;
  for (const Chunk& c : plan.chunks) {
    std::int64_t tokens = 0;
    EXPECT_LE(c.tokens, capacity);
    for (const ChunkPart& p : c.parts) {
      tokens += files[p.file].headerTokens;
      for (std::size_t h = p.firstHunk; h < p.endHunk; ++h) {
        ++seen[{p.file, h}];
        tokens += files[p.file].hunkTokens[h];
      }
    }
    EXPECT_EQ(tokens, c.tokens);
  }
  for (const SkippedPart& s : plan.skipped)
    for (std::size_t h = s.part.firstHunk; h < s.part.endHunk; ++h) ++seen[{s.part.file, h}];
  for (std::size_t f = 0; f < files.size(); ++f)
    for (std::size_t h = 0; h < files[f].hunkTokens.size(); ++h) EXPECT_EQ((seen[{f, h}]), 1) << f << ":" << h;
}

std::size_t chunkOf(const ChunkPlan& plan, std::size_t file) {
  for (std::size_t c = 0; c < plan.chunks.size(); ++c)
    for (const ChunkPart& p : plan.chunks[c].parts)
      if (p.file == file) return c;
  return SIZE_MAX;
}

std::set<std::string> sentPaths(const ChunkPlan& plan, const std::vector<std::string>& paths) {
  std::set<std::string> sent;
  for (const auto& c : plan.chunks)
    for (const auto& p : c.parts) sent.insert(paths[p.file]);
  return sent;
}

TEST(ChunkPlan, AFileThatFitsKeepsItsHunksTogether) {
  const std::vector<FileCost> files = {file(5, {100, 100, 100}), file(5, {200, 200})};
  const ChunkPlan plan = planChunks({"a.c", "b.c"}, files, 450, 10);
  expectSound(plan, files, 450);
  ASSERT_EQ(plan.chunks.size(), 2u);
  for (const Chunk& c : plan.chunks) EXPECT_EQ(c.parts.size(), 1u);  // each file whole, in one part
  EXPECT_TRUE(plan.skipped.empty());
}

TEST(ChunkPlan, AFileOverTheBudgetGoesInGroupsOfHunks) {
  const std::vector<FileCost> files = {file(10, {300, 300, 300, 300, 300})};
  const ChunkPlan plan = planChunks({"big.c"}, files, 700, 10);
  expectSound(plan, files, 700);
  EXPECT_EQ(plan.chunks.size(), 3u);  // 2 + 2 + 1 hunks, each group with the header
  EXPECT_TRUE(plan.skipped.empty());
  EXPECT_EQ(plan.minimumRequests, 3);
}

TEST(ChunkPlan, AHunkLargerThanARequestIsSkippedAndSaysSo) {
  const std::vector<FileCost> files = {file(10, {100, 5000, 100})};
  const ChunkPlan plan = planChunks({"big.c"}, files, 700, 10);
  expectSound(plan, files, 700);
  ASSERT_EQ(plan.skipped.size(), 1u);
  EXPECT_EQ(plan.skipped[0].part.firstHunk, 1u);
  EXPECT_EQ(plan.skipped[0].why, SkippedPart::Why::TooLarge);
  EXPECT_EQ(plan.chunks.size(), 1u);
  EXPECT_EQ(plan.minimumRequests, 1);  // what can be sent fits one request: the skipped hunk is not counted
}

TEST(ChunkPlan, ASourceAndItsTestStayTogetherWhereTheyFit) {
  // Diff order puts other files between them; each pair fits one request.
  const std::vector<std::string> paths = {"src/main/Foo.java", "src/main/Bar.java", "lib/util.c", "lib/other.c",
                                          "src/test/FooTest.java", "src/test/BarTest.java", "lib/util.h"};
  const std::vector<FileCost> files = {file(5, {300}), file(5, {300}), file(5, {200}), file(5, {500}),
                                       file(5, {300}), file(5, {300}), file(5, {100})};
  const ChunkPlan plan = planChunks(paths, files, 1000, 10);
  expectSound(plan, files, 1000);
  EXPECT_EQ(chunkOf(plan, 0), chunkOf(plan, 4));  // Foo.java with FooTest.java
  EXPECT_EQ(chunkOf(plan, 1), chunkOf(plan, 5));  // Bar.java with BarTest.java
  EXPECT_EQ(chunkOf(plan, 2), chunkOf(plan, 6));  // util.c with util.h
}

TEST(ChunkPlan, PastTheRequestCapThePartsAreSkippedNotDropped) {
  std::vector<FileCost> files;
  std::vector<std::string> paths;
  for (int i = 0; i < 10; ++i) {
    files.push_back(file(5, {400}));
    paths.push_back("d" + std::to_string(i) + "/f.c");
  }
  const ChunkPlan plan = planChunks(paths, files, 500, 3);
  expectSound(plan, files, 500);
  EXPECT_EQ(plan.chunks.size(), 3u);
  ASSERT_EQ(plan.skipped.size(), 7u);
  for (const auto& s : plan.skipped) EXPECT_EQ(s.why, SkippedPart::Why::RequestCap);
  EXPECT_EQ(plan.minimumRequests, 9);  // 4050 tokens in requests of 500
}

// Past the cap, the requests sent are those with the code: docs, configuration,
// deleted and binary files wait, whatever their place in the diff.
TEST(ChunkPlan, PastTheRequestCapTheCodeIsSentFirst) {
  std::vector<FileCost> files;
  std::vector<std::string> paths;
  const std::vector<std::pair<std::string, int>> named = {{".github/ci.yml", 1}, {"AUTHORS", 2}, {"HISTORY.md", 2},
                                                          {"logo.png", 4},       {"old/gone.py", 3}, {"src/a.py", 0},
                                                          {"src/b.py", 0},       {"tests/test_a.py", 0}};
  for (const auto& [path, rank] : named) {
    files.push_back(file(5, {400}));
    files.back().rank = rank;
    paths.push_back(path);
  }
  const ChunkPlan plan = planChunks(paths, files, 500, 4);
  expectSound(plan, files, 500);
  ASSERT_EQ(plan.chunks.size(), 4u);
  EXPECT_EQ(sentPaths(plan, paths), (std::set<std::string>{"src/a.py", "src/b.py", "tests/test_a.py", ".github/ci.yml"}));
  for (std::size_t i = 1; i < plan.chunks.size(); ++i)  // still in diff order
    EXPECT_LT(plan.chunks[i - 1].parts.front().file, plan.chunks[i].parts.front().file);
  EXPECT_EQ(plan.skipped.size(), 4u);
}

// As on spf13/cobra under --max-requests 3: the small files at the root (CI
// configuration, prose and one small source) are related by directory and were
// packed into one request that counted as code, so it was sent while a source
// file elsewhere was left out. Past the cap files are packed by rank.
TEST(ChunkPlan, PastTheRequestCapNoRequestCarriesProseWhileCodeIsLeftOut) {
  const std::vector<std::pair<std::string, int>> named = {
      {".goreleaser.yml", 1}, {"README.md", 2}, {"SECURITY.md", 2}, {"args.go", 0},
      {"completions/bash.go", 0}, {"completions/fish.go", 0}, {"completions/zsh.go", 0}};
  const std::vector<std::int64_t> sizes = {195, 195, 195, 195, 895, 895, 895};
  std::vector<FileCost> files;
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < named.size(); ++i) {
    files.push_back(file(5, {sizes[i]}));
    files.back().rank = named[i].second;
    paths.push_back(named[i].first);
  }
  const ChunkPlan plan = planChunks(paths, files, 1000, 3);
  expectSound(plan, files, 1000);
  ASSERT_EQ(plan.chunks.size(), 3u);
  EXPECT_EQ(sentPaths(plan, paths), (std::set<std::string>{"completions/bash.go", "completions/fish.go", "completions/zsh.go"}));
  // Without the cap, related files still go together.
  const ChunkPlan all = planChunks(paths, files, 1000, 10);
  expectSound(all, files, 1000);
  EXPECT_EQ(chunkOf(all, 0), chunkOf(all, 3)) << "the root's files in one request";
  EXPECT_TRUE(all.skipped.empty());
}

// As a user found with two one-line edits and a new 3,000-line file under
// --max-requests 1: packed by size, each small file filled the room beside a
// different piece of the big one, and the cap sent one of them with a piece
// from the file's middle. Past the cap, whole files go first, then pieces from
// the top down.
TEST(ChunkPlan, PastTheRequestCapSmallEditsGoBeforePiecesOfABigFile) {
  const std::vector<std::string> paths = {"lib/gen_table.py", "lib/shutil.py", "lib/util.py"};
  const std::vector<FileCost> files = {file(5, {940, 940, 940}), file(5, {30}), file(5, {30})};
  for (int cap : {1, 2}) {
    const ChunkPlan plan = planChunks(paths, files, 1000, cap);
    expectSound(plan, files, 1000);
    ASSERT_EQ(plan.chunks.size(), static_cast<std::size_t>(cap));
    EXPECT_EQ(sentPaths(plan, paths).count("lib/shutil.py"), 1u) << cap;
    EXPECT_EQ(sentPaths(plan, paths).count("lib/util.py"), 1u) << cap;
    if (cap == 2) {  // and the big file's first piece, not one from its middle
      ASSERT_EQ(plan.chunks[0].parts.front().file, 0u);
      EXPECT_EQ(plan.chunks[0].parts.front().firstHunk, 0u);
    }
  }
  // A small piece from the middle would fit beside the small files, the first would not: the
  // requests still take the pieces from the top (under a cap of 1, none of them; of 2, the first).
  const std::vector<FileCost> uneven = {file(5, {940, 940, 300, 940}), file(5, {30}), file(5, {30})};
  for (int cap : {1, 2}) {
    const ChunkPlan plan = planChunks(paths, uneven, 1000, cap);
    expectSound(plan, uneven, 1000);
    std::vector<std::size_t> sentHunks;
    for (const Chunk& c : plan.chunks)
      for (const ChunkPart& p : c.parts)
        if (p.file == 0)
          for (std::size_t h = p.firstHunk; h < p.endHunk; ++h) sentHunks.push_back(h);
    std::sort(sentHunks.begin(), sentHunks.end());
    EXPECT_EQ(sentHunks, cap == 1 ? std::vector<std::size_t>{} : std::vector<std::size_t>{0}) << cap;
    EXPECT_EQ(sentPaths(plan, paths).count("lib/shutil.py"), 1u) << cap;
  }
}

// As on rust-analyzer's "next trait solver" change (109 files, 20,449 lines) under
// --max-input-tokens 20000 --max-requests 22: packed first and cut after, the
// requests kept were those with the most whole-file tokens, so 13 small code
// files (2 to 7 changed lines) went with the requests they shared with pieces,
// and a big new file's lines 1101-1459 were sent without lines 1-1100. Under the
// cap, every whole file goes before any piece, and a file's pieces go from its
// top down: the ones sent are always its first ones.
TEST(ChunkPlan, PastTheRequestCapEveryWholeFileGoesBeforeAnyPieceAndPiecesFromTheTop) {
  std::vector<FileCost> files;
  std::vector<std::string> paths;
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> big(300, 900), small(5, 60);
  for (int i = 0; i < 40; ++i) {  // code files of all sizes, in a few directories
    files.push_back(file(5, {i % 3 == 0 ? big(rng) : small(rng)}));
    paths.push_back("crates/c" + std::to_string(i % 4) + "/f" + std::to_string(i) + ".rs");
  }
  for (int n = 0; n < 3; ++n) {  // new files too large for one request
    std::vector<std::int64_t> hunks(12);
    for (auto& h : hunks) h = big(rng);
    files.push_back(file(5, hunks));
    paths.push_back("crates/c" + std::to_string(n) + "/new" + std::to_string(n) + ".rs");
  }
  std::int64_t whole = 0;
  for (std::size_t f = 0; f < 40; ++f) whole += files[f].headerTokens + files[f].hunkTokens[0];
  const std::int64_t capacity = 1000;
  const int wholeRequests = static_cast<int>((whole + capacity - 1) / capacity);
  for (int cap = 1; cap <= 40; ++cap) {
    const ChunkPlan plan = planChunks(paths, files, capacity, cap);
    expectSound(plan, files, capacity);
    ASSERT_LE(plan.chunks.size(), static_cast<std::size_t>(cap));
    const std::set<std::string> sent = sentPaths(plan, paths);
    bool anyPiece = false;
    std::map<std::size_t, std::vector<std::size_t>> piecesSent;  // big file -> its hunks sent
    for (const Chunk& c : plan.chunks)
      for (const ChunkPart& p : c.parts)
        if (p.file >= 40) {
          anyPiece = true;
          for (std::size_t h = p.firstHunk; h < p.endHunk; ++h) piecesSent[p.file].push_back(h);
        }
    if (anyPiece) {
      for (std::size_t f = 0; f < 40; ++f) EXPECT_EQ(sent.count(paths[f]), 1u) << "cap " << cap << ": " << paths[f];
    }
    if (cap > wholeRequests + 1) {
      EXPECT_TRUE(anyPiece) << "cap " << cap;
    }
    for (auto& [f, hunks] : piecesSent) {
      std::sort(hunks.begin(), hunks.end());
      for (std::size_t i = 0; i < hunks.size(); ++i) EXPECT_EQ(hunks[i], i) << "cap " << cap << ": " << paths[f];
    }
  }
}

// The same rule when the cap cuts a plan already made (the requests as built did
// not fit the plan packed for the cap): a request holding a piece is kept only
// once the one holding the piece above it is.
TEST(ChunkPlan, CuttingAMadePlanKeepsPiecesFromTheTop) {
  const std::vector<FileCost> files = {file(5, {900, 400}), file(5, {500}), file(5, {100})};
  ChunkPlan plan;
  plan.chunks = {Chunk{{{0, 0, 1}}, 905},                 // the big file's top, alone
                 Chunk{{{0, 1, 2}, {1, 0, 1}}, 910},      // its tail beside a whole file
                 Chunk{{{2, 0, 1}}, 105}};                // a small whole file
  capRequests(plan, files, 2);
  expectSound(plan, files, 1000);
  ASSERT_EQ(plan.chunks.size(), 2u);
  std::set<std::pair<std::size_t, std::size_t>> sent;
  for (const Chunk& c : plan.chunks)
    for (const ChunkPart& p : c.parts) sent.insert({p.file, p.firstHunk});
  EXPECT_TRUE(sent.count({0, 0})) << "the top of the big file";
  EXPECT_FALSE(sent.count({0, 1})) << "its tail only after its top";
  // With room for all three, all three go.
  ChunkPlan all;
  all.chunks = {Chunk{{{0, 0, 1}}, 905}, Chunk{{{0, 1, 2}, {1, 0, 1}}, 910}, Chunk{{{2, 0, 1}}, 105}};
  capRequests(all, files, 3);
  EXPECT_EQ(all.chunks.size(), 3u);
  EXPECT_TRUE(all.skipped.empty());
}

TEST(ChunkPlan, FileRanks) {
  auto ranked = [](const std::string& path, diff::FileStatus status = diff::FileStatus::Modified, bool binary = false) {
    diff::FileDiff f;
    f.newPath = path;
    f.oldPath = path;
    f.status = status;
    f.binary = binary;
    if (!binary) f.hunks.push_back(diff::Hunk{});
    return fileRank(f);
  };
  EXPECT_EQ(ranked("src/requests/models.py"), 0);
  EXPECT_EQ(ranked("Makefile"), 0);
  EXPECT_EQ(ranked("tools/readme_parser.py"), 0);
  EXPECT_EQ(ranked("pom.xml"), 1);
  EXPECT_EQ(ranked("src/CMakeLists.txt"), 1);
  EXPECT_EQ(ranked("requirements-dev.txt"), 1);
  EXPECT_EQ(ranked(".coveragerc"), 1);
  EXPECT_EQ(ranked(".github/workflows/ci.yml"), 1);
  EXPECT_EQ(ranked("docs/api.rst"), 2);
  EXPECT_EQ(ranked("LICENSE"), 2);
  EXPECT_EQ(ranked("HISTORY.md"), 2);
  EXPECT_EQ(ranked("po/de.po"), 2);  // message catalogs: translations, not code
  EXPECT_EQ(ranked("locales/app.pot"), 2);
  // Signatures and certificates are data, style sheets rank with configuration, templates are code.
  EXPECT_EQ(ranked("sig/jq-1.8.2.tar.gz.asc"), 2);
  EXPECT_EQ(ranked("certs/server.crt"), 2);
  EXPECT_EQ(ranked("docs/content/css/style.css"), 1);
  EXPECT_EQ(ranked("docs/templates/index.html.j2"), 0);
  EXPECT_EQ(ranked("web/index.html"), 0);
  EXPECT_EQ(ranked("requests/packages/urllib3/connection.py", diff::FileStatus::Deleted), 3);
  EXPECT_EQ(ranked("ext/kr.png", diff::FileStatus::Added, true), 4);
}

TEST(ChunkPlan, PacksCloseToTheMinimum) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> size(20, 1500), hunks(1, 6), dir(0, 30);
  std::vector<FileCost> files;
  std::vector<std::string> paths;
  for (int i = 0; i < 400; ++i) {
    std::vector<std::int64_t> h(static_cast<std::size_t>(hunks(rng)));
    for (auto& t : h) t = size(rng);
    files.push_back(file(12, h));
    paths.push_back("dir" + std::to_string(dir(rng)) + "/file" + std::to_string(i) + ".cpp");
  }
  const ChunkPlan plan = planChunks(paths, files, 6000, 100000);
  expectSound(plan, files, 6000);
  EXPECT_TRUE(plan.skipped.empty());
  EXPECT_LE(static_cast<double>(plan.chunks.size()), 1.3 * static_cast<double>(plan.minimumRequests))
      << plan.chunks.size() << " requests, minimum " << plan.minimumRequests;
}

TEST(ChunkPlan, SplitHunkKeepsEveryLineAndNumbersTheCounts) {
  diff::Hunk h;
  h.oldStart = 10;
  h.newStart = 12;
  for (int i = 0; i < 7; ++i) {
    const auto kind = i % 3 == 0 ? diff::LineKind::Removed : i % 3 == 1 ? diff::LineKind::Added : diff::LineKind::Context;
    h.lines.push_back({kind, 0, 0, "x"});
  }
  const auto pieces = splitHunk(h, 3);
  ASSERT_EQ(pieces.size(), 3u);
  std::size_t lines = 0;
  int oldNext = 10, newNext = 12;
  for (const auto& p : pieces) {
    lines += p.lines.size();
    EXPECT_EQ(p.oldStart, oldNext);
    EXPECT_EQ(p.newStart, newNext);
    oldNext += p.oldCount;
    newNext += p.newCount;
  }
  EXPECT_EQ(lines, 7u);
  EXPECT_EQ(oldNext - 10, 5);  // removed at 0, 3, 6 and context at 2, 5
  EXPECT_EQ(newNext - 12, 4);  // added at 1,4; context at 2,5
}

TEST(ChunkPlan, DefaultBudgetsByProviderAndModel) {
  EXPECT_EQ(config::defaultInputTokens("builtin", ""), 0);
  EXPECT_EQ(config::defaultInputTokens("replay", "x"), 0);
  EXPECT_EQ(config::defaultInputTokens("anthropic", "claude-sonnet-4-5"), 150000);
  EXPECT_EQ(config::defaultInputTokens("openai", "gpt-4o-mini"), 100000);
  EXPECT_EQ(config::defaultInputTokens("ollama", "qwen2.5-coder"), 8000);
  EXPECT_EQ(config::defaultInputTokens("openai", "some-local-model"), 24000);
  // An empty model is the provider's default model.
  EXPECT_EQ(config::defaultInputTokens("openai", ""), 100000);
  EXPECT_EQ(config::defaultInputTokens("anthropic", ""), 150000);
  EXPECT_EQ(config::defaultInputTokens("ollama", ""), 8000);
}

}  // namespace
}  // namespace revline::session
