#include "core/session/notebooks.h"

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "core/builtin/secrets.h"
#include "core/diff/notebook.h"
#include "core/git/git.h"
#include "core/support/repo_file.h"
#include "core/support/text.h"

namespace revline::session {
namespace {

// The text `side` of the diff shows on each of its lines is the text read: else
// the file changed since git diffed it (an editor's save meanwhile), or was read
// from elsewhere, and its lines cannot be told apart by that text.
bool showsAs(const diff::FileDiff& f, std::string_view text, bool oldSide) {
  const auto lines = fileLines(text);
  for (const auto& h : f.hunks)
    for (const auto& l : h.lines) {
      if ((l.kind == diff::LineKind::Removed) != oldSide && l.kind != diff::LineKind::Context) continue;
      const int n = oldSide ? l.oldLine : l.newLine;
      if (n < 1 || static_cast<std::size_t>(n) > lines.size() || lines[static_cast<std::size_t>(n - 1)] != l.text)
        return false;
    }
  return true;
}

// Whether the diff shows lines of the old side (removed ones) or of the new (added or context).
bool showsLinesOf(const diff::FileDiff& f, bool oldSide) {
  for (const auto& h : f.hunks)
    for (const auto& l : h.lines)
      if (oldSide ? l.kind == diff::LineKind::Removed : l.kind != diff::LineKind::Removed) return true;
  return false;
}

// A new side that is not the work tree's (--staged, --stdin) but that new_side.cpp
// did not read (over its 1 MiB cap): the blob the diff names, read here.
bool newSideFromBlob(const diff::Diff& change, const diff::FileDiff& f) {
  if (!change.newVersions || !f.newBlob || !f.newPath) return false;
  const auto v = change.newVersions->find(*f.newPath);
  return v != change.newVersions->end() && !v->second;
}

using Blobs = std::map<std::string, std::optional<std::string>>;

// The new side of `f` as the change has it: the index's or the patch's blob,
// else the work tree's file; nullopt when not known.
std::optional<std::string> newSideText(const diff::Diff& change, const diff::FileDiff& f,
                                       const std::filesystem::path& root, const Blobs& blobs) {
  if (newSideFromBlob(change, f)) {
    const auto b = blobs.find(*f.newBlob);
    return b != blobs.end() ? b->second : std::nullopt;
  }
  if (change.newVersions)
    if (const auto v = change.newVersions->find(*f.newPath); v != change.newVersions->end()) return v->second;
  return support::readRepositoryFile(root, *f.newPath, diff::kMaxNotebookBytes).content;
}

}  // namespace

std::vector<review::SkippedFile> leaveOutNotebookOutputs(diff::Diff& change, const std::filesystem::path& root) {
  std::vector<review::SkippedFile> leftOut;
  if (root.empty()) return leftOut;  // --stdin outside a repository: neither side can be read
  // Either name (a notebook deleted, or renamed): what decides is whether its text reads as one.
  auto isCandidate = [](const diff::FileDiff& f) {
    return !f.binary && !f.hunks.empty() &&
           ((f.newPath && diff::isNotebookPath(*f.newPath)) || (f.oldPath && diff::isNotebookPath(*f.oldPath)));
  };
  std::vector<std::string> ids;
  for (const auto& f : change.files) {
    if (!isCandidate(f)) continue;
    if (f.oldBlob && showsLinesOf(f, true)) ids.push_back(*f.oldBlob);
    if (newSideFromBlob(change, f)) ids.push_back(*f.newBlob);
  }
  const Blobs blobs = ids.empty() ? Blobs{} : git::blobTexts(root, ids, diff::kMaxNotebookBytes);
  std::vector<diff::FileDiff> kept;
  for (auto& f : change.files) {
    if (!isCandidate(f)) {
      kept.push_back(std::move(f));
      continue;
    }
    std::vector<bool> keepOld, keepNew;
    bool readable = true;
    if (showsLinesOf(f, true)) {
      const auto old = f.oldBlob ? blobs.find(*f.oldBlob) : blobs.end();
      std::optional<std::vector<bool>> source;
      if (old != blobs.end() && old->second && showsAs(f, *old->second, true))
        source = diff::notebookSourceLines(*old->second);
      if (source) keepOld = std::move(*source);
      readable = readable && source.has_value();
    }
    if (readable && showsLinesOf(f, false)) {
      const auto text = f.newPath ? newSideText(change, f, root, blobs) : std::nullopt;
      std::optional<std::vector<bool>> source;
      if (text && showsAs(f, *text, false)) source = diff::notebookSourceLines(*text);
      if (source) keepNew = std::move(*source);
      readable = readable && source.has_value();
    }
    if (!readable) {
      kept.push_back(std::move(f));
      continue;
    }
    // An output that prints a credential is part of what the change commits: kept for the
    // secret rule (and redacted from what a model is sent); one removed beside it too, so
    // that a credential printed before, on a line the run rewrote, is not taken for a new one.
    for (const auto& h : f.hunks)
      for (const auto& l : h.lines) {
        const bool removed = l.kind == diff::LineKind::Removed;
        if (l.kind == diff::LineKind::Context) continue;
        std::vector<bool>& keep = removed ? keepOld : keepNew;
        const int n = removed ? l.oldLine : l.newLine;
        if (n >= 1 && static_cast<std::size_t>(n) <= keep.size() && !keep[static_cast<std::size_t>(n - 1)] &&
            !builtin::findSecrets(l.text).empty())
          keep[static_cast<std::size_t>(n - 1)] = true;
      }
    const std::string path = f.path();
    const std::int64_t dropped = diff::keepOnlyLines(f, keepOld, keepNew);
    if (f.hunks.empty()) {
      leftOut.push_back({path,
                         "a notebook whose change is only in its outputs, execution counts or metadata, not in a "
                         "cell's source",
                         dropped});
      continue;
    }
    if (dropped > 0) {
      review::SkippedFile partly{path,
                                 "its outputs, execution counts and metadata (" + std::to_string(dropped) +
                                     (dropped == 1 ? " changed line" : " changed lines") +
                                     "): not code; the cells' source is reviewed",
                                 dropped};
      partly.partial = true;
      leftOut.push_back(std::move(partly));
    }
    kept.push_back(std::move(f));
  }
  change.files = std::move(kept);
  return leftOut;
}

}  // namespace revline::session
