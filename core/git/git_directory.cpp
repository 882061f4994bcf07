#include "core/git/git_directory.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

namespace revline::git {
namespace fs = std::filesystem;

fs::path gitDirectory(const fs::path& root) {
  // Named by the environment (a dotfiles repository: GIT_DIR=$HOME/.cfg, GIT_WORK_TREE=$HOME;
  // a hook's GIT_DIR=.git), as every git revline runs in `root` sees it: never a `.git` made
  // in the work tree.
  if (const char* env = std::getenv("GIT_DIR"); env && *env) {
    const fs::path named(env);
    return named.is_absolute() ? named : root / named;
  }
  const fs::path dotGit = root / ".git";
  if (auto target = gitFileTarget(dotGit)) return *target;
  return dotGit;
}

std::optional<fs::path> gitFileTarget(const fs::path& dotGit) {
  std::error_code ec;
  if (!fs::is_regular_file(dotGit, ec)) return std::nullopt;
  std::ifstream in(dotGit, std::ios::binary);
  std::string content;
  // A .git file is one line; never read more than a page of whatever is there.
  char buffer[4096];
  in.read(buffer, sizeof buffer);
  content.assign(buffer, static_cast<std::size_t>(in.gcount()));
  const std::string prefix = "gitdir:";
  if (content.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  std::string dir = content.substr(prefix.size());
  if (auto nl = dir.find('\n'); nl != std::string::npos) dir.erase(nl);
  while (!dir.empty() && dir.front() == ' ') dir.erase(0, 1);
  while (!dir.empty() && (dir.back() == '\r' || dir.back() == ' ')) dir.pop_back();
  const fs::path p(dir);
  return p.is_absolute() ? p : dotGit.parent_path() / p;
}

}  // namespace revline::git
