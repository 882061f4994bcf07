// Finished reviews, kept per repository under `<git dir>/revline/cache/` so an
// unchanged diff is answered without the model, across restarts and between
// the editor and the CLI. Never touches the work tree.
#pragma once
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/diff/diff.h"
#include "core/review/pipeline.h"
#include "core/support/json.h"

namespace revline::session {

// What a cached review keeps: the published findings, whole, and what kept the
// review from approving, so the verdict decided from cache is the verdict the
// review had (policy.h decideVerdict with ApprovalEvidence).
struct CachedReview {
  std::vector<review::PublishedFinding> findings;
  review::ApprovalEvidence evidence;
};

// Cache form of a review (written and read only by revline): each finding as
// the contract serializes it (contract::toJson) plus revline's own fields.
json toJson(const CachedReview& review);
// Reads it back through the contract's coercion (the same checks as a model's
// answer); throws std::runtime_error naming what is malformed.
CachedReview cachedReviewFromJson(const json& j);

// The seal an entry file named `name` keeps beside its review: a keyed
// fingerprint (the user's state key) of the name and the review, so an entry
// whose content was changed, or copied over from another entry, is a miss. The
// file's name alone keeps out entries planted under new names, not an edit of
// one already there (emptying a finding list made a hunk APPROVE unsent).
std::string sealOf(const std::string& name, const json& review);

// True when `finding`'s lines are all lines `hunk` shows on the new side
// (newStart .. newStart + newCount - 1).
bool hunkHolds(const diff::Hunk& hunk, const contract::Finding& finding);

// True when every finding of `review` is on right-side lines of `change`, its
// range within one hunk (review::grounding's rule, checked again): a cached review that is not
// (damaged, or not written by a review of this change) is a miss.
bool onTheChange(const CachedReview& review, const diff::Diff& change);

// Removes the oldest `.json` files of `dir` (by modification time) beyond
// `keep`; errors are ignored (another process may be pruning the same files).
void pruneCacheDirectory(const std::filesystem::path& dir, std::size_t keep);

// Reviews keyed by provider, model, prompt version, the review settings and the
// annotated diff. Thread-safe. Disk errors are ignored (the cache is an
// optimisation). Memory holds only the most recent entries (a long session
// saves thousands of distinct diffs), each under a digest of its key (a key holds
// the whole diff); older ones are read from disk.
class ReviewCache {
 public:
  static constexpr std::size_t kMemoryEntries = 32;
  // Files kept on disk per repository; older ones are pruned (one per distinct diff).
  static constexpr std::size_t kDiskEntries = 256;
  std::size_t memoryEntries();
  // The bytes of the keys memory holds (digests: a few dozen bytes an entry, whatever the diff).
  std::size_t memoryKeyBytes();

  // `options` through review::settingsKey: editing a setting that changes what
  // a review publishes is not answered from cache; `intent` is the commit
  // messages shown with the diff.
  static std::string key(const std::string& provider, const std::string& model, const std::string& annotatedDiff,
                         const review::ReviewOptions& options, const std::vector<std::string>& intent = {});
  std::optional<CachedReview> get(const std::filesystem::path& root, const std::string& key);
  // False when the entry could not be written to disk (kept in memory only).
  bool put(const std::filesystem::path& root, const std::string& key, const CachedReview& review);
  // Drops the entry (memory and disk), if any.
  void forget(const std::filesystem::path& root, const std::string& key);
  // Removes every whole review kept on disk for the repository at `root`: a
  // forced full review by a process without this cache (`revline review
  // --no-cache`) refreshed the per-hunk cache, and the editor's whole reviews
  // of the same diffs must not answer in its place. A server's memory follows
  // (an entry whose file is gone, or was rewritten, is read again).
  static void forgetRepository(const std::filesystem::path& root);

 private:
  // What memory holds of an entry: the review, and the time of the file it was
  // read from or written to (none when it could not be written): an entry whose
  // file another process removed or rewrote since is not answered from memory.
  struct Remembered {
    CachedReview review;
    std::optional<std::filesystem::file_time_type> written;
  };
  // Callers hold mu_.
  void remember(const std::string& memoryKey, Remembered entry);

  std::mutex mu_;
  std::map<std::string, Remembered> memory_;  // by root + the key's digest
  std::deque<std::string> order_;               // memory_'s keys, oldest first
};

}  // namespace revline::session
