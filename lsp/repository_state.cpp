#include "lsp/repository_state.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "lsp/findings.h"

namespace revline::lsp {
namespace fs = std::filesystem;

namespace {
std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Write to a temporary file, then rename: a crash never leaves half a file.
void writeFileAtomically(const fs::path& p, const std::string& content) {
  std::error_code ec;
  fs::create_directories(p.parent_path(), ec);
  const fs::path tmp = p.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out << content;
    if (!out) return;
  }
  fs::rename(tmp, p, ec);
}

std::uint64_t fnv1a(const std::string& s, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}
}  // namespace

fs::path gitDirectory(const fs::path& root) {
  const fs::path dotGit = root / ".git";
  std::error_code ec;
  if (fs::is_regular_file(dotGit, ec)) {
    std::string content = readFile(dotGit);
    const std::string prefix = "gitdir:";
    if (content.compare(0, prefix.size(), prefix) == 0) {
      std::string dir = content.substr(prefix.size());
      while (!dir.empty() && (dir.front() == ' ')) dir.erase(0, 1);
      while (!dir.empty() && (dir.back() == '\n' || dir.back() == '\r' || dir.back() == ' ')) dir.pop_back();
      fs::path p(dir);
      return p.is_absolute() ? p : root / p;
    }
  }
  return dotGit;
}

std::string ReviewCache::key(const std::string& provider, const std::string& model, int promptVersion,
                             const std::string& annotatedDiff, const std::string& reviewSettings) {
  return "revline-review-cache 1\nprovider " + provider + "\nmodel " + model + "\nprompt " +
         std::to_string(promptVersion) + "\nsettings " + std::to_string(reviewSettings.size()) + "\n" + reviewSettings +
         "\n" + annotatedDiff;
}

namespace {
fs::path cacheFile(const fs::path& root, const std::string& key) {
  char name[40];
  std::snprintf(name, sizeof name, "%016llx%016llx", static_cast<unsigned long long>(fnv1a(key, 14695981039346656037ull)),
                static_cast<unsigned long long>(fnv1a(key, 0x9e3779b97f4a7c15ull)));
  return gitDirectory(root) / "revline" / "cache" / (std::string(name) + ".json");
}
}  // namespace

std::optional<std::vector<review::PublishedFinding>> ReviewCache::get(const fs::path& root, const std::string& key) {
  const std::string memoryKey = root.string() + '\0' + key;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = memory_.find(memoryKey); it != memory_.end()) return it->second;
  }
  const fs::path file = cacheFile(root, key);
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::nullopt;
  try {
    json j = json::parse(readFile(file));
    if (j.at("key").get<std::string>() != key) return std::nullopt;  // hash collision
    auto findings = findingsFromJson(j.at("findings"));
    std::lock_guard<std::mutex> lock(mu_);
    remember(memoryKey, findings);
    return findings;
  } catch (const std::exception&) {
    return std::nullopt;  // a corrupt entry is a miss
  }
}

void ReviewCache::put(const fs::path& root, const std::string& key,
                      const std::vector<review::PublishedFinding>& findings) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    remember(root.string() + '\0' + key, findings);
  }
  json j{{"key", key}, {"findings", findingsToJson(findings)}};
  const fs::path file = cacheFile(root, key);
  writeFileAtomically(file, j.dump(1, ' ', false, json::error_handler_t::replace));
  pruneDisk(file.parent_path());
}

void ReviewCache::pruneDisk(const fs::path& dir) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".json") continue;
    std::error_code tec;
    const auto t = fs::last_write_time(e.path(), tec);
    if (!tec) entries.emplace_back(t, e.path());
  }
  if (entries.size() <= kDiskEntries) return;
  std::sort(entries.begin(), entries.end());
  for (std::size_t i = 0; i + kDiskEntries < entries.size(); ++i) fs::remove(entries[i].second, ec);
}

void ReviewCache::remember(const std::string& memoryKey, const std::vector<review::PublishedFinding>& findings) {
  auto [it, added] = memory_.insert_or_assign(memoryKey, findings);
  if (!added) return;
  order_.push_back(memoryKey);
  while (order_.size() > kMemoryEntries) {
    memory_.erase(order_.front());
    order_.pop_front();
  }
}

std::size_t ReviewCache::memoryEntries() {
  std::lock_guard<std::mutex> lock(mu_);
  return memory_.size();
}

}  // namespace revline::lsp
