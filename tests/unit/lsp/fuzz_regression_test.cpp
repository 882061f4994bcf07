// Regressions found by the fuzz and soak runs (scripts/fuzz, tests/soak).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>

#include "core/builtin/builtin_provider.h"
#include "lsp/protocol.h"
#include "lsp/repository_state.h"
#include "tests/support/temp_repo.h"
#include "tests/unit/lsp/lsp_client.h"

namespace revline::lsp {
namespace {
namespace fs = std::filesystem;

struct TempGitDir {
  fs::path root;
  TempGitDir() {
    root = fs::temp_directory_path() / ("revline-fuzz-regression-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(root / ".git");
  }
  ~TempGitDir() { fs::remove_all(root); }
};

review::PublishedFinding finding(int n) {
  review::PublishedFinding p;
  p.id = "id-" + std::to_string(n);
  p.finding.file = "src/a.c";
  p.finding.line = n + 1;
  p.finding.severity = contract::Severity::Major;
  p.finding.category = contract::Category::Security;
  p.finding.title = "finding " + std::to_string(n);
  p.finding.explanation = "explanation";
  p.finding.confidence = 0.8;
  return p;
}

// Soak test: the server's RSS grew by ~5 KB per save without bound, because the
// review cache kept every distinct (whole annotated diff) key and its findings
// in memory for the life of the process. Memory now holds the most recent
// entries only; older ones still come back from disk.
TEST(FuzzRegression, ReviewCacheMemoryIsBounded) {
  TempGitDir dir;
  ReviewCache cache;
  const std::string bigDiff(4096, 'x');
  auto key = [&](int n) { return ReviewCache::key("builtin", "rules", 1, "File: a.c\n" + std::to_string(n) + bigDiff); };
  for (int n = 0; n < 1000; ++n) cache.put(dir.root, key(n), {finding(n)});
  EXPECT_LE(cache.memoryEntries(), ReviewCache::kMemoryEntries);

  // Evicted from memory, read from disk (which keeps the newest kDiskEntries; pruned by
  // modification time, so only a recent entry is certain to be kept on any file system).
  const int oldestKept = 1000 - static_cast<int>(ReviewCache::kMemoryEntries) - 10;
  auto oldest = cache.get(dir.root, key(oldestKept));
  ASSERT_TRUE(oldest);
  ASSERT_EQ(oldest->size(), 1u);
  EXPECT_EQ(oldest->at(0).id, "id-" + std::to_string(oldestKept));
  auto newest = cache.get(dir.root, key(999));
  ASSERT_TRUE(newest);
  EXPECT_EQ(newest->at(0).id, "id-999");
  EXPECT_LE(cache.memoryEntries(), ReviewCache::kMemoryEntries);

  for (int n = 0; n < 100; ++n) cache.put(dir.root, key(999), {finding(999)});  // same key: one entry
  EXPECT_LE(cache.memoryEntries(), ReviewCache::kMemoryEntries);
}

// Sanitized suite (heap-use-after-free in Server::workerLoop): the worker waited
// for a pending job's debounce with condition_variable::wait_until(lock,
// job->due), a reference into the job; a save arriving meanwhile replaced that
// job (freeing it) and the waking worker read the freed deadline. Saves in
// quick succession within the debounce reproduce it (under AddressSanitizer).
TEST(FuzzRegression, SavesReplacingAJobWhileTheWorkerWaitsOnItsDebounce) {
  revline::testing::TempRepo repo;
  repo.write("a.c", "int main(void) {\n  return 0;\n}\n");
  repo.commitAll("init");
  repo.write("a.c", "#include <string.h>\nint main(int argc, char** argv) {\n  char b[4];\n  strcpy(b, argv[1]);\n"
                    "  return 0;\n}\n");
  const fs::path root = fs::canonical(repo.root());
  ServerOptions options;
  options.providerFactory = [](const config::Config&, const diff::Diff& d, const fs::path&) {
    return std::make_unique<builtin::BuiltinProvider>(d);
  };
  lsp::testing::LspClient c(std::move(options));
  c.initialize(uriFromPath(root.string()), {{"debounce_ms", 40}});
  const std::string uri = uriFromPath((root / "a.c").string());
  for (int i = 0; i < 30; ++i) {
    c.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
  json d = c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(d["params"]["uri"], uri);
  c.expectQuiet(std::chrono::milliseconds(300));
  EXPECT_EQ(c.server().stats().reviewsStarted, 1);
  EXPECT_EQ(c.stop(), 0);
}

}  // namespace
}  // namespace revline::lsp
