#include "core/session/new_side.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/diff/notebook.h"
#include "core/git/git.h"
#include "core/support/repo_file.h"

namespace revline::session {

std::shared_ptr<diff::NewVersions> newVersionsFromGit(const std::filesystem::path& root, const diff::Diff& change,
                                                      std::size_t maxBytes) {
  auto versions = std::make_shared<diff::NewVersions>();
  std::vector<std::string> ids;
  bool notebooks = false;  // read up to their own cap: megabytes of outputs around their cells
  for (const diff::FileDiff& f : change.files)
    if (f.newPath && !f.binary && !f.hunks.empty() && f.newBlob) {
      ids.push_back(*f.newBlob);
      notebooks = notebooks || diff::isNotebookPath(*f.newPath);
    }
  auto texts = git::blobTexts(root, ids, notebooks ? std::max(maxBytes, diff::kMaxNotebookBytes) : maxBytes);
  for (const diff::FileDiff& f : change.files)  // any other file: the cap asked for
    if (f.newPath && f.newBlob && !diff::isNotebookPath(*f.newPath))
      if (auto t = texts.find(*f.newBlob); t != texts.end() && t->second && t->second->size() > maxBytes) t->second.reset();
  // Files whose blob git does not have, with that blob's id: is the work tree's copy it?
  std::vector<std::pair<std::string, std::string>> notInGit;
  for (const diff::FileDiff& f : change.files) {
    if (!f.newPath || f.binary || f.hunks.empty()) continue;
    (*versions)[*f.newPath] = std::nullopt;
    if (!f.newBlob) continue;  // nothing says which text the patch was made from
    if (const auto t = texts.find(*f.newBlob); t != texts.end() && t->second) (*versions)[*f.newPath] = t->second;
    else notInGit.emplace_back(*f.newPath, *f.newBlob);
  }
  if (notInGit.empty()) return versions;
  // A patch of the working tree (`git diff > p`) names blobs only hashed, never stored.
  std::vector<std::string> paths;
  for (const auto& [path, blob] : notInGit) paths.push_back(path);
  const auto hashed = git::workTreeBlobIds(root, paths);
  for (const auto& [path, blob] : notInGit) {
    if (const auto h = hashed.find(path); h != hashed.end() && h->second.rfind(blob, 0) == 0) {
      versions->erase(path);
      continue;
    }
    // Line endings converted on the way into git (core.autocrlf, eol=crlf): git
    // hashed the file with CRLF made LF. (Filter drivers, programs, are not run.)
    support::RepoFileRead read = support::readRepositoryFile(root, path, maxBytes);
    if (!read || read.content->find("\r\n") == std::string::npos) continue;
    std::string lf;
    lf.reserve(read.content->size());
    for (std::size_t i = 0; i < read.content->size(); ++i)
      if (!((*read.content)[i] == '\r' && i + 1 < read.content->size() && (*read.content)[i + 1] == '\n'))
        lf += (*read.content)[i];
    if (git::blobIdOf(root, lf).rfind(blob, 0) == 0) versions->erase(path);
  }
  return versions;
}

void addIndexVersionsOfUnstaged(const std::filesystem::path& root, const diff::Diff& change,
                                diff::NewVersions& versions, std::size_t maxBytes, std::size_t maxTotalBytes) {
  std::map<std::string, std::string> unstaged;
  try {
    // (Those git is told not to look at in the work tree are read from the index
    // when asked for: GitHidden::indexOnly, which a sparse checkout makes most of the repository.)
    unstaged = git::unstagedIndexBlobs(root);
  } catch (const std::exception&) {
    return;  // git could not say (none on PATH, a broken index): those files are read from the work tree
  }
  std::vector<std::pair<std::string, std::string>> outside;  // (path, index blob id)
  std::vector<std::string> ids;
  const diff::FileIndex files(change);
  for (auto& [path, id] : unstaged) {
    if (versions.count(path) || files.find(path)) continue;  // a file of the change: read as it has it
    outside.emplace_back(path, id);
    ids.push_back(id);
  }
  const auto texts = git::blobTexts(root, ids, maxBytes, {}, maxTotalBytes);
  for (const auto& [path, id] : outside) {
    const auto t = texts.find(id);
    versions[path] = t != texts.end() ? t->second : std::nullopt;
  }
}

}  // namespace revline::session
