#include "core/session/review_cache.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <tuple>

#include "core/config/state_key.h"
#include "core/contract/coerce.h"
#include "core/contract/serialize.h"
#include "core/git/git_directory.h"
#include "core/review/prompt.h"
#include "core/support/files.h"
#include "core/support/hash.h"
#include "core/support/keyed_hash.h"

namespace revline::session {
namespace fs = std::filesystem;

json toJson(const CachedReview& review) {
  json findings = json::array();
  for (const auto& p : review.findings) {
    json entry{{"finding", contract::toJson(p.finding)}, {"id", p.id}};
    if (p.editDroppedReason) entry["editDroppedReason"] = *p.editDroppedReason;
    if (p.rangeClamped) entry["rangeClamped"] = *p.rangeClamped;
    findings.push_back(std::move(entry));
  }
  return json{{"findings", std::move(findings)},
              {"unplacedBlocking", review.evidence.unplacedBlocking},
              {"changesRequestedNotShown", review.evidence.changesRequestedNotShown}};
}

std::string sealOf(const std::string& name, const json& review) {
  return keyedFingerprint(config::stateKey(),
                          "cache entry\n" + name + "\n" + review.dump(-1, ' ', false, json::error_handler_t::replace));
}

CachedReview cachedReviewFromJson(const json& j) {
  if (!j.is_object() || !j.contains("findings") || !j["findings"].is_array())
    throw std::runtime_error("cached review: expected an object with a \"findings\" array");
  // The findings go back through the contract's coercion, as one report.
  json report{{"verdict", "COMMENT"}, {"summary", "cached"}, {"findings", json::array()}};
  for (const auto& entry : j["findings"]) {
    if (!entry.is_object() || !entry.contains("finding") || !entry.contains("id") || !entry["id"].is_string())
      throw std::runtime_error("cached review: a finding entry needs \"finding\" and \"id\"");
    report["findings"].push_back(entry["finding"]);
  }
  contract::Coerced coerced = contract::coerceReport(report);
  if (!coerced.problems.empty())
    throw std::runtime_error("cached review: " + coerced.problems.front().message);
  CachedReview out;
  const json& entries = j["findings"];
  for (std::size_t i = 0; i < entries.size(); ++i) {
    review::PublishedFinding p;
    p.finding = std::move(coerced.report.findings.at(i));
    p.id = entries[i]["id"].get<std::string>();
    if (entries[i].contains("editDroppedReason")) p.editDroppedReason = entries[i]["editDroppedReason"].get<std::string>();
    if (entries[i].contains("rangeClamped")) p.rangeClamped = entries[i]["rangeClamped"].get<std::string>();
    out.findings.push_back(std::move(p));
  }
  out.evidence.unplacedBlocking = j.value("unplacedBlocking", 0);
  out.evidence.changesRequestedNotShown = j.value("changesRequestedNotShown", false);
  return out;
}

std::string ReviewCache::key(const std::string& provider, const std::string& model, const std::string& annotatedDiff,
                             const review::ReviewOptions& options, const std::vector<std::string>& intent) {
  std::string settings = review::settingsKey(options);
  for (const auto& message : intent) settings += "\ncommit " + std::to_string(message.size()) + "\n" + message;
  // 3: a model's REQUEST_CHANGES without findings no longer approves; the reviews kept before must not answer.
  return "revline-review-cache 3\nprovider " + provider + "\nmodel " + model + "\nprompt " +
         std::to_string(review::kPromptVersion) + "\nsettings " + std::to_string(settings.size()) + "\n" + settings +
         "\n" + annotatedDiff;
}

namespace {
// A whole review's published findings (capped by max_findings): far below this.
constexpr std::size_t kMaxEntryBytes = std::size_t{8} << 20;

// Named with the user's key: an entry planted by whoever handed the repository over is never read.
std::string digestOf(const std::string& key) { return keyedFingerprint(config::stateKey(), key); }

fs::path cacheFile(const fs::path& root, const std::string& digest) {
  return git::gitDirectory(root) / "revline" / "cache" / (digest + ".json");
}

// The memory holds a key's digest, not the key: a key holds the whole annotated
// diff, 15 MB for a workspace review of a large change, and 32 of them were
// kept (twice) by a long editor session.
std::string memoryKeyOf(const fs::path& root, const std::string& digest) { return root.string() + '\0' + digest; }

// When `file` was last written; nullopt when it is not there.
std::optional<fs::file_time_type> modified(const fs::path& file) {
  std::error_code ec;
  const auto t = fs::last_write_time(file, ec);
  if (ec) return std::nullopt;
  return t;
}
}  // namespace

std::optional<CachedReview> ReviewCache::get(const fs::path& root, const std::string& key) {
  const std::string digest = digestOf(key);
  const std::string memoryKey = memoryKeyOf(root, digest);
  const fs::path file = cacheFile(root, digest);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = memory_.find(memoryKey); it != memory_.end()) {
      if (!it->second.written || it->second.written == modified(file)) return it->second.review;
    }
  }
  const std::optional<fs::file_time_type> stamp = modified(file);
  const std::optional<std::string> text = readWholeFile(file, kMaxEntryBytes);
  if (!text) return std::nullopt;
  try {
    json j = json::parse(*text);
    if (j.at("keyCheck").get<std::string>() != fingerprint128(key)) return std::nullopt;  // a collision of the name
    if (j.at("seal").get<std::string>() != sealOf(digest, j.at("review"))) return std::nullopt;  // changed since written
    CachedReview review = cachedReviewFromJson(j.at("review"));
    std::lock_guard<std::mutex> lock(mu_);
    remember(memoryKey, {review, stamp});
    return review;
  } catch (const std::exception&) {
    return std::nullopt;  // a corrupt or older entry is a miss
  }
}

bool ReviewCache::put(const fs::path& root, const std::string& key, const CachedReview& review) {
  const std::string digest = digestOf(key);
  const fs::path file = cacheFile(root, digest);
  // Kept in memory whatever the disk does; with the written file's time, when there is one.
  bool written = false;
  // Only into a real directory of the git directory's (never through a planted symlink).
  const std::optional<fs::path> dir = ownDirectory(git::gitDirectory(root), fs::path("revline") / "cache");
  if (dir) {
    // A second digest of the key, not the key: that holds the whole diff (an entry
    // past kMaxEntryBytes, never read back, for a large workspace review).
    json reviewJson = toJson(review);
    const std::string seal = sealOf(digest, reviewJson);
    const json j{{"keyCheck", fingerprint128(key)}, {"review", std::move(reviewJson)}, {"seal", seal}};
    written = writeFileAtomically(file, j.dump(1, ' ', false, json::error_handler_t::replace));
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    remember(memoryKeyOf(root, digest), {review, written ? modified(file) : std::nullopt});
  }
  if (dir) pruneCacheDirectory(*dir, kDiskEntries);
  return written;
}

void ReviewCache::forgetRepository(const fs::path& root) {
  const fs::path gitDir = git::gitDirectory(root);
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(gitDir / "revline" / "cache", ec))) return;  // none kept (or not a real one)
  // Only a real directory of the git directory's: a planted symlink leads no removal outside.
  if (const auto dir = ownDirectory(gitDir, fs::path("revline") / "cache")) pruneCacheDirectory(*dir, 0);
}

void ReviewCache::forget(const fs::path& root, const std::string& key) {
  const std::string digest = digestOf(key);
  {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string memoryKey = memoryKeyOf(root, digest);
    if (memory_.erase(memoryKey)) order_.erase(std::find(order_.begin(), order_.end(), memoryKey));
  }
  std::error_code ec;
  fs::remove(cacheFile(root, digest), ec);
}

bool hunkHolds(const diff::Hunk& hunk, const contract::Finding& finding) {
  return hunk.newCount > 0 && finding.line >= hunk.newStart &&
         finding.lastLine() <= std::int64_t{hunk.newStart} + hunk.newCount - 1;
}

bool onTheChange(const CachedReview& review, const diff::Diff& change) {
  const diff::FileIndex files(change);
  return std::all_of(review.findings.begin(), review.findings.end(), [&](const review::PublishedFinding& p) {
    const diff::FileDiff* file = files.find(p.finding.file);
    // line..lastLine within one hunk, as grounding clamps a range.
    return file && std::any_of(file->hunks.begin(), file->hunks.end(),
                               [&](const diff::Hunk& h) { return hunkHolds(h, p.finding); });
  });
}

void pruneCacheDirectory(const fs::path& dir, std::size_t keep) {
  std::error_code ec;
  // An entry dated ahead of the clock (a clock set back, a .git restored from a
  // machine ahead) counts as older than every other: as the newest, a few
  // thousand of them outlived every entry written since, the change's own too,
  // and each run paid for the whole change again. Among themselves they keep
  // their order (a .git on a server whose clock is ahead dates them all ahead).
  std::vector<std::tuple<bool, fs::file_time_type, fs::path>> entries;  // (not ahead, time, path): oldest first
  const fs::file_time_type ahead = fs::file_time_type::clock::now() + std::chrono::minutes(1);
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".json") continue;
    std::error_code tec;
    const auto t = fs::last_write_time(e.path(), tec);
    if (!tec) entries.emplace_back(t <= ahead, t, e.path());
  }
  if (entries.size() <= keep) return;
  std::sort(entries.begin(), entries.end());
  for (std::size_t i = 0; i + keep < entries.size(); ++i) fs::remove(std::get<2>(entries[i]), ec);
}

void ReviewCache::remember(const std::string& memoryKey, Remembered entry) {
  auto [it, added] = memory_.insert_or_assign(memoryKey, std::move(entry));
  if (!added) return;
  order_.push_back(memoryKey);
  while (order_.size() > kMemoryEntries) {
    memory_.erase(order_.front());
    order_.pop_front();
  }
}

std::size_t ReviewCache::memoryKeyBytes() {
  std::lock_guard<std::mutex> lock(mu_);
  std::size_t bytes = 0;
  for (const auto& entry : memory_) bytes += entry.first.size();
  for (const auto& k : order_) bytes += k.size();
  return bytes;
}

std::size_t ReviewCache::memoryEntries() {
  std::lock_guard<std::mutex> lock(mu_);
  return memory_.size();
}

}  // namespace revline::session
