#include "lsp/dismissals.h"

#include "core/config/state_key.h"
#include "core/git/git_directory.h"
#include "core/support/files.h"
#include "core/support/json.h"
#include "core/support/keyed_hash.h"

namespace revline::lsp {
namespace fs = std::filesystem;

namespace {

// Ids of a few dozen bytes each: far more dismissals than anyone makes.
constexpr std::size_t kMaxDismissalsBytes = std::size_t{4} << 20;

std::set<std::string> readIds(const fs::path& file) {
  std::set<std::string> ids;
  const std::optional<std::string> text = readWholeFile(file, kMaxDismissalsBytes);
  if (!text) return ids;
  try {
    json j = json::parse(*text);
    for (const auto& id : j.at("dismissed")) ids.insert(id.get<std::string>());
  } catch (const std::exception&) {
    // Unreadable: treated as empty; the next change rewrites it.
  }
  return ids;
}

}  // namespace

DismissedFindings::DismissedFindings(fs::path root) : file_(git::gitDirectory(root) / "revline" / "dismissed.json") { load(); }

void DismissedFindings::load() {
  std::error_code ec;
  const auto stamp = fs::last_write_time(file_, ec);
  seen_ = ec ? fs::file_time_type{} : stamp;
  ids_ = ec ? std::set<std::string>{} : readIds(file_);
}

void DismissedFindings::refresh() {
  std::error_code ec;
  const auto stamp = fs::last_write_time(file_, ec);
  if ((ec ? fs::file_time_type{} : stamp) != seen_) load();
}

bool DismissedFindings::add(const std::string& id) { return update(id, true); }
bool DismissedFindings::remove(const std::string& id) { return update(id, false); }

std::string DismissedFindings::keyed(const std::string& id) {
  return keyedFingerprint(config::stateKey(), "dismissed finding\n" + id);
}

bool DismissedFindings::update(const std::string& plainId, bool add) {
  const std::string id = keyed(plainId);
  // Only in a real directory of the git directory's (never through a planted
  // symlink); else the dismissal holds for this session only.
  if (!ownDirectory(file_.parent_path().parent_path(), file_.parent_path().filename())) {
    if (add) ids_.insert(id);
    else ids_.erase(id);
    return false;
  }
  FileLock lock(file_);
  std::set<std::string> ids = readIds(file_);  // what every server has written so far
  const bool changed = add ? ids.insert(id).second : ids.erase(id) != 0;
  const bool kept = !changed || writeFileAtomically(file_, json{{"dismissed", ids}}.dump(1) + "\n");
  ids_ = std::move(ids);
  std::error_code ec;
  const auto stamp = fs::last_write_time(file_, ec);
  seen_ = ec ? fs::file_time_type{} : stamp;
  return kept;
}

}  // namespace revline::lsp
