#include "core/session/new_side.h"

#include <string>
#include <vector>

#include "core/git/git.h"
#include "core/support/repo_file.h"

namespace revline::session {

std::shared_ptr<const diff::NewVersions> newVersionsFromGit(const std::filesystem::path& root,
                                                            const diff::Diff& change, std::size_t maxBytes) {
  auto versions = std::make_shared<diff::NewVersions>();
  std::vector<std::string> ids;
  for (const diff::FileDiff& f : change.files)
    if (f.newPath && !f.binary && !f.hunks.empty() && f.newBlob) ids.push_back(*f.newBlob);
  const auto texts = git::blobTexts(root, ids, maxBytes);
  std::vector<std::string> notInGit;  // files whose blob git does not have: is the work tree's copy it?
  for (const diff::FileDiff& f : change.files) {
    if (!f.newPath || f.binary || f.hunks.empty()) continue;
    (*versions)[*f.newPath] = std::nullopt;
    if (!f.newBlob) continue;  // nothing says which text the patch was made from
    if (const auto t = texts.find(*f.newBlob); t != texts.end() && t->second) (*versions)[*f.newPath] = t->second;
    else notInGit.push_back(*f.newPath);
  }
  // A patch of the working tree (`git diff > p`) names blobs only hashed, never stored.
  const auto hashed = git::workTreeBlobIds(root, notInGit);
  for (const diff::FileDiff& f : change.files) {
    if (!f.newPath || !f.newBlob || !versions->count(*f.newPath) || (*versions)[*f.newPath]) continue;
    const auto h = hashed.find(*f.newPath);
    if (h != hashed.end() && h->second.rfind(*f.newBlob, 0) == 0) {
      versions->erase(*f.newPath);
      continue;
    }
    // Line endings converted on the way into git (core.autocrlf, eol=crlf): git
    // hashed the file with CRLF made LF. (Filter drivers, programs, are not run.)
    support::RepoFileRead read = support::readRepositoryFile(root, *f.newPath, maxBytes);
    if (!read || read.content->find("\r\n") == std::string::npos) continue;
    std::string lf;
    lf.reserve(read.content->size());
    for (std::size_t i = 0; i < read.content->size(); ++i)
      if (!((*read.content)[i] == '\r' && i + 1 < read.content->size() && (*read.content)[i + 1] == '\n'))
        lf += (*read.content)[i];
    if (git::blobIdOf(root, lf).rfind(*f.newBlob, 0) == 0) versions->erase(*f.newPath);
  }
  return versions;
}

}  // namespace revline::session
