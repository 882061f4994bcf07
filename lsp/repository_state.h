// What the server remembers per repository, under `<git dir>/revline/`:
// the review cache (cache/<hash>.json) and the dismissed finding ids
// (dismissed.json, lsp/dismissals.h). Both survive restarts; neither touches the work tree.
#pragma once
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/review/pipeline.h"

namespace revline::lsp {

// `<root>/.git`, or the directory a `.git` file points to (worktrees, submodules).
std::filesystem::path gitDirectory(const std::filesystem::path& root);

// Reviews keyed by provider, model, prompt version and the annotated diff.
// Thread-safe. Disk errors are ignored (the cache is an optimisation). Memory
// holds only the most recent entries (each key holds a whole diff, and a long
// session saves thousands of distinct ones); older ones are read from disk.
class ReviewCache {
 public:
  static constexpr std::size_t kMemoryEntries = 32;
  // Files kept on disk per repository; older ones are pruned (one per distinct diff).
  static constexpr std::size_t kDiskEntries = 256;
  std::size_t memoryEntries();

  // `reviewSettings`: the settings that change what a review publishes (extra
  // instructions, publication caps), so editing them is not answered from cache.
  static std::string key(const std::string& provider, const std::string& model, int promptVersion,
                         const std::string& annotatedDiff, const std::string& reviewSettings = "");
  std::optional<std::vector<review::PublishedFinding>> get(const std::filesystem::path& root, const std::string& key);
  void put(const std::filesystem::path& root, const std::string& key,
           const std::vector<review::PublishedFinding>& findings);

 private:
  // Callers hold mu_.
  void remember(const std::string& memoryKey, const std::vector<review::PublishedFinding>& findings);
  static void pruneDisk(const std::filesystem::path& cacheDir);

  std::mutex mu_;
  std::map<std::string, std::vector<review::PublishedFinding>> memory_;  // by root + key
  std::deque<std::string> order_;  // memory_'s keys, oldest first
};

}  // namespace revline::lsp
