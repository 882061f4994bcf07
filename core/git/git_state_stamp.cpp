#include "core/git/git_state_stamp.h"

#include <sys/stat.h>

#include "core/git/git_directory.h"
#include "core/support/files.h"

namespace revline::git {
namespace fs = std::filesystem;

namespace {

// mtime (ns), size and inode, or "-" for a file that is not there: a rewrite
// within one clock tick still shows in the size or the inode (git writes a new
// file and renames it over the old one).
std::string statOf(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "-";
  return std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + ":" +
         std::to_string(st.st_size) + ":" + std::to_string(st.st_ino);
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

std::string gitStateStamp(const fs::path& root) {
  const fs::path gitDir = gitDirectory(root);
  std::error_code ec;
  if (!fs::is_directory(gitDir, ec)) return "";
  // A linked work tree's refs live in the main repository's git directory.
  fs::path commonDir = gitDir;
  if (auto common = readWholeFile(gitDir / "commondir", 4096)) {
    const fs::path named(trimmed(*common));
    commonDir = named.is_absolute() ? named : gitDir / named;
  }
  const std::string head = trimmed(readWholeFile(gitDir / "HEAD", 256).value_or("?"));
  std::string stamp = "index " + statOf(gitDir / "index") + " HEAD " + head;
  // The branch HEAD names moves on a commit or a `git reset --soft`, which may
  // leave the index as it was. Only a name under refs/ is looked at.
  const std::string prefix = "ref: ";
  if (head.compare(0, prefix.size(), prefix) == 0) {
    const std::string ref = head.substr(prefix.size());
    if (ref.compare(0, 5, "refs/") == 0 && ref.find("..") == std::string::npos)
      stamp += " ref " + statOf(commonDir / ref) + " packed " + statOf(commonDir / "packed-refs");
  }
  return stamp;
}

}  // namespace revline::git
