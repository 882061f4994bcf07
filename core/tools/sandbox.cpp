#include "core/tools/sandbox.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <system_error>

#include "core/diff/render.h"
#include "core/support/glob.h"
#include "core/support/repo_file.h"

namespace revline::tools {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kExample = "e.g. src/main/java/App.java";

std::string quotePath(std::string_view s) {
  std::string out = "'";
  for (char c : s.substr(0, 200)) {
    if (c == '\0') out += "\\0";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  if (s.size() > 200) out += "...";
  return out + "'";
}

bool looksAbsolute(std::string_view p) {
  if (p.empty()) return false;
  if (p.front() == '/' || p.front() == '\\') return true;
  if (p.size() >= 2 && std::isalpha(static_cast<unsigned char>(p[0])) && p[1] == ':') return true;  // C:\...
  return false;
}

// Splits on '/' (and on '\\', a Windows-style path's separator, unless told
// not to), dropping "" and ".".
std::vector<std::string> components(std::string_view p, bool backslashIsSeparator = true) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : p) {
    if (c == '/' || (c == '\\' && backslashIsSeparator)) {
      if (!cur.empty() && cur != ".") out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty() && cur != ".") out.push_back(cur);
  return out;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
  return out;
}

bool hasNul(std::string_view data) { return data.find('\0') != std::string_view::npos; }

}  // namespace

bool skippedDirectory(std::string_view name) {
  return name == ".git" || name == "node_modules" || name == "build" || name == "target" || name == "dist" ||
         name == "vendor";
}

Sandbox::Sandbox(const fs::path& root, ToolLimits limits) : root_(fs::canonical(root)), limits_(limits) {}

bool Sandbox::inside(const fs::path& canonical) const { return support::insideRoot(root_, canonical); }

const HiddenPaths* Sandbox::gitView() const {
  if (!hiddenLister_) return nullptr;
  if (!hidden_) {
    hidden_.emplace();
    try {
      GitHidden said = hiddenLister_();
      hidden_->untracked.insert(said.untracked.begin(), said.untracked.end());
      hidden_->untrackedWhy = std::move(said.untrackedWhy);
      hidden_->gitData.insert(said.gitData.begin(), said.gitData.end());
      hidden_->gitlinks.insert(said.gitlinks.begin(), said.gitlinks.end());
      if (said.readBlobs) {
        hidden_->indexOnly = std::move(said.indexOnly);
        hidden_->readBlobs = std::move(said.readBlobs);
      }
    } catch (const std::exception&) {
      // git could not say (none on PATH): the fixed skips still apply
    }
  }
  return &*hidden_;
}

const std::string* Sandbox::hiddenWhy(const std::string& relative) const {
  const HiddenPaths* view = gitView();
  if (!view) return nullptr;
  const auto in = [&](const std::set<std::string>& paths) {
    if (paths.empty()) return false;
    if (paths.count(relative)) return true;
    for (std::size_t slash = relative.find('/'); slash != std::string::npos; slash = relative.find('/', slash + 1))
      if (paths.count(relative.substr(0, slash + 1))) return true;
    return false;
  };
  if (in(view->gitData)) return &view->gitDataWhy;
  if (in(view->untracked)) return &view->untrackedWhy;
  return nullptr;
}

const std::string* Sandbox::indexOnlyBlob(const std::string& relative) const {
  if (newVersions_ && newVersions_->count(relative)) return nullptr;  // the change's new side says first
  const HiddenPaths* view = gitView();
  if (!view) return nullptr;
  const auto found = view->indexOnly.find(relative);
  return found == view->indexOnly.end() ? nullptr : &found->second;
}

std::optional<std::string> Sandbox::otherRepositoryHolding(const std::string& relative) const {
  for (std::size_t slash = relative.find('/'); slash != std::string::npos; slash = relative.find('/', slash + 1)) {
    std::error_code ec;
    const std::string directory = relative.substr(0, slash);
    if (fs::exists(fs::symlink_status(root_ / directory / ".git", ec))) return directory;
    if (const HiddenPaths* view = gitView(); view && view->gitlinks.count(directory)) return directory;
  }
  return std::nullopt;
}

// Each character of a pattern is work at every path it is matched against.
constexpr std::size_t kMaxPatternChars = 300;

std::optional<ToolError> Sandbox::checkPattern(std::string_view pattern, std::string_view what) const {
  if (pattern.find('\0') != std::string_view::npos) {
    return ToolError{std::string(what) + " contains a NUL byte"};
  }
  if (pattern.size() > kMaxPatternChars)
    return ToolError{std::string(what) + " is longer than " + std::to_string(kMaxPatternChars) +
                     " characters; use a shorter pattern"};
  if (looksAbsolute(pattern) || (!pattern.empty() && pattern.front() == '~')) {
    return ToolError{std::string(what) + " " + quotePath(pattern) +
                     " is absolute; tools only see the repository: use a pattern relative to its root, " +
                     std::string(kExample)};
  }
  for (const auto& c : components(pattern)) {
    if (c == "..") {
      return ToolError{std::string(what) + " " + quotePath(pattern) +
                       " contains '..'; tools only see the repository: use a pattern relative to its root"};
    }
  }
  return std::nullopt;
}

Result<ResolvedPath> Sandbox::resolve(std::string_view path, bool ofTheDiff) const {
  // A name as the diff and the tools' listings quote it ("x\nsrc/a.py"), given
  // back: the file it names, unless a file has that very name, quotes and all.
  if (const auto unquoted = diff::pathFromDisplay(path)) {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(root_ / std::string(path), ec)) && unquoted->find('\0') == std::string::npos)
      return resolveName(*unquoted, ofTheDiff);
  }
  return resolveName(path, ofTheDiff);
}

Result<ResolvedPath> Sandbox::resolveName(std::string_view path, bool ofTheDiff) const {
  if (path.find('\0') != std::string_view::npos) {
    return ToolError{"path " + quotePath(path) + " contains a NUL byte; refused"};
  }
  std::string_view trimmed = path;
  while (!trimmed.empty() && (trimmed.front() == ' ' || trimmed.front() == '\t')) trimmed.remove_prefix(1);
  while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\t')) trimmed.remove_suffix(1);
  if (trimmed.empty()) return ToolError{"path is empty; give a repository-relative path, " + std::string(kExample)};
  if (looksAbsolute(trimmed)) {
    return ToolError{"path " + quotePath(trimmed) +
                     " is absolute; refused: tools only see the repository, so give a path relative to its root, " +
                     std::string(kExample)};
  }
  if (trimmed.front() == '~') {
    return ToolError{"path " + quotePath(trimmed) +
                     " points into a home directory; refused: tools only see the repository"};
  }
  // A backslash separates (a Windows-style path), unless a file has that very name (`back\\slash.py`).
  bool backslashIsSeparator = true;
  if (trimmed.find('\\') != std::string_view::npos) {
    const std::vector<std::string> literal = components(trimmed, false);
    std::error_code ec;
    const std::string named = join(literal);
    backslashIsSeparator = std::find(literal.begin(), literal.end(), "..") != literal.end() ||
                           !((newVersions_ && newVersions_->count(named)) ||
                             fs::exists(fs::symlink_status(root_ / named, ec)));
  }
  // Lexical normalisation: `a/../b` is fine, anything that climbs above the root is not.
  std::vector<std::string> parts;
  for (const auto& c : components(trimmed, backslashIsSeparator)) {
    if (c == "..") {
      if (parts.empty()) {
        return ToolError{"path " + quotePath(trimmed) +
                         " points outside the repository; refused: tools only see files under the repository root"};
      }
      parts.pop_back();
    } else {
      parts.push_back(c);
    }
  }
  if (parts.empty()) return ToolError{"path " + quotePath(trimmed) + " is the repository root; give a file path"};
  for (const auto& c : parts) {
    if (skippedDirectory(c)) {
      return ToolError{"path " + quotePath(trimmed) + " is inside '" + c + "', which the tools do not read"};
    }
  }
  std::string relative = join(parts);
  // A file the change's new side holds is read from git, whatever the work tree
  // has there now (an edit, nothing, a symlink, a directory): nothing on disk is read.
  if (newVersions_ && newVersions_->count(relative)) return ResolvedPath{root_ / relative, relative};
  // So is a file git reads from the index, not the work tree (out of a sparse
  // checkout's cone, or skip-worktree with local edits the diff never shows).
  // A file of the diff on disk is the diff's new side: git is not asked (the
  // builtin reviewer's reads of the change, on every save, stay without a git call).
  std::error_code onDisk;
  if (!ofTheDiff || !fs::exists(fs::symlink_status(root_ / relative, onDisk)))
    if (const std::string* blob = indexOnlyBlob(relative)) return ResolvedPath{root_ / relative, relative, *blob};
  // The one confinement (core/support/repo_file.h); the messages here are for the
  // model and never show where an outside symlink points.
  support::RepoPath where = support::resolveInRepository(root_, relative);
  if (!where.canonical) {
    if (where.skipped->reason == support::RepoFileSkip::Reason::Missing) {
      return ToolError{"no such file in the repository: " + quotePath(relative) + "; use glob to find files"};
    }
    if (where.skipped->reason == support::RepoFileSkip::Reason::Dangling) {
      return ToolError{"path " + quotePath(relative) + " is a symlink whose target does not exist; refused"};
    }
    return ToolError{"path " + quotePath(relative) +
                     " resolves (through a symlink) to a location outside the repository; refused"};
  }
  const fs::path canonical = *where.canonical;
  if (canonical == root_) return ToolError{"path " + quotePath(relative) + " is the repository root; give a file path"};
  const std::string canonicalRelative = canonical.lexically_relative(root_).generic_string();
  if (!ofTheDiff) {
    const std::string* why = hiddenWhy(relative);
    if (!why) why = hiddenWhy(canonicalRelative);
    if (why) return ToolError{"path " + quotePath(relative) + " " + *why};
  }
  for (const std::string* p : {static_cast<const std::string*>(&relative), &canonicalRelative})
    if (const auto other = changeFiles_.count(*p) ? std::nullopt : otherRepositoryHolding(*p))
      return ToolError{"path " + quotePath(relative) + " is inside " + quotePath(*other) +
                       ", the work tree of another git repository (a submodule or a nested clone); the tools read "
                       "only this repository's files"};
  // A symlink may also lead into a skipped directory.
  for (const auto& c : canonical.lexically_relative(root_)) {
    if (skippedDirectory(c.string())) {
      return ToolError{"path " + quotePath(relative) + " resolves into '" + c.string() + "', which the tools do not read"};
    }
  }
  // Through a symlink to a file git reads from the index: that file as the index has it.
  if (!ofTheDiff && canonicalRelative != relative)
    if (const std::string* blob = indexOnlyBlob(canonicalRelative)) return ResolvedPath{canonical, relative, *blob};
  return ResolvedPath{canonical, relative};
}

Result<std::string> Sandbox::readText(const ResolvedPath& path, std::size_t maxBytes) const {
  const std::size_t cap = maxBytes ? maxBytes : limits_.maxFileBytes;
  // The change's new side first: what the work tree holds there (an edit, a directory, nothing) is not it.
  // Through a symlink, the file it leads to: `l.py -> lib.py` reads lib.py as the new side has it.
  if (newVersions_) {
    auto v = newVersions_->find(path.relative);
    if (v == newVersions_->end() && inside(path.absolute))
      v = newVersions_->find(path.absolute.lexically_relative(root_).generic_string());
    if (v != newVersions_->end()) {
      if (!v->second)
        return ToolError{"the version of " + quotePath(path.relative) +
                         " under review is not the work tree's (its copy there differs, or is gone), and git could "
                         "not give it (not in its object store, or over the size limit); only the diff shows what "
                         "the change holds of it"};
      if (v->second->size() > cap) return tooLarge(path.relative, v->second->size(), cap);
      return finishRead(*v->second, path.relative);
    }
  }
  // A file git reads from the index (GitHidden::indexOnly): its local copy, if any, is not read.
  if (path.indexBlob && hidden_ && hidden_->readBlobs) {
    const std::string& blob = *path.indexBlob;
    auto texts = hidden_->readBlobs({blob}, SIZE_MAX);
    const auto text = texts.find(blob);
    if (text == texts.end() || !text->second)
      return ToolError{"git could not give the index's version of " + quotePath(path.relative) +
                       " (a file git does not read from the work tree: outside the sparse checkout, or marked "
                       "skip-worktree or assume-unchanged), or it is over the " +
                       std::to_string(cap / 1024) + " KB limit for tools"};
    if (text->second->size() > cap) return tooLarge(path.relative, text->second->size(), cap);
    return finishRead(std::move(*text->second), path.relative);
  }
  std::error_code ec;
  if (fs::is_directory(path.absolute, ec)) {
    return ToolError{quotePath(path.relative) + " is a directory; use glob (e.g. \"" + path.relative +
                     "/*\") to list its files"};
  }
  // The one confined read (core/support/repo_file.h): regular files only, opened
  // without blocking, never read past the cap.
  support::RepoFileRead read = support::readRegularFile(path.absolute, quotePath(path.relative), cap);
  if (!read) {
    if (read.skipped->reason == support::RepoFileSkip::Reason::TooLarge) {
      auto size = fs::file_size(path.absolute, ec);
      return tooLarge(path.relative, ec ? std::nullopt : std::optional<std::uintmax_t>(size), cap);
    }
    if (read.skipped->reason == support::RepoFileSkip::Reason::NotRegular) {
      return ToolError{quotePath(path.relative) + " is " + read.skipped->why + "; refused"};
    }
    return ToolError{"cannot read " + quotePath(path.relative) + ": " + read.skipped->why};
  }
  return finishRead(std::move(*read.content), path.relative);
}

ToolError Sandbox::tooLarge(const std::string& relative, std::optional<std::uintmax_t> bytes, std::size_t cap) const {
  return ToolError{quotePath(relative) + " is " + (bytes ? std::to_string(*bytes / 1024) + " KB, over" : std::string("over")) +
                   " the " + std::to_string(cap / 1024) +
                   " KB limit for tools; use search_text to find the part you need"};
}

Result<std::string> Sandbox::finishRead(std::string data, const std::string& relative) const {
  if (hasNul(std::string_view(data).substr(0, limits_.binaryProbeBytes))) {
    return ToolError{quotePath(relative) + " is a binary file; tools only read text files"};
  }
  if (redact_) data = review::redactSpans(data, redact_(data, relative));
  return data;
}

const std::vector<std::string>& Sandbox::files(bool* truncated) const {
  if (!files_) {
    std::vector<std::string> out;
    std::size_t visited = 0;
    std::error_code ec;
    fs::recursive_directory_iterator it(root_, fs::directory_options::skip_permission_denied, ec);
    fs::recursive_directory_iterator end;
    for (; !ec && it != end; it.increment(ec)) {
      if (++visited > limits_.maxWalkEntries) {
        filesTruncated_ = true;
        break;
      }
      const fs::directory_entry& entry = *it;
      std::error_code sec;
      auto lst = entry.symlink_status(sec);
      if (sec) continue;
      const std::string name = entry.path().filename().string();
      const std::string relative = entry.path().lexically_relative(root_).generic_string();
      if (fs::is_directory(lst)) {
        // Not entered: a skipped name, what git hides, another repository's work tree.
        if (skippedDirectory(name) || hiddenWhy(relative + "/") ||
            fs::exists(fs::symlink_status(entry.path() / ".git", sec)) || otherRepositoryHolding(relative + "/"))
          it.disable_recursion_pending();
        continue;
      }
      if (name == ".git" || hiddenWhy(relative)) continue;  // a linked work tree's or submodule's `.git` file
      if (fs::is_symlink(lst)) {
        fs::path target = fs::canonical(entry.path(), sec);
        if (sec || !inside(target) || !fs::is_regular_file(fs::status(target, sec))) continue;
        const std::string targetRelative = target.lexically_relative(root_).generic_string();
        bool intoSkipped = false;
        for (const auto& c : target.lexically_relative(root_)) intoSkipped |= skippedDirectory(c.string());
        if (intoSkipped || hiddenWhy(targetRelative) || otherRepositoryHolding(targetRelative)) continue;
      } else if (!fs::is_regular_file(lst)) {
        continue;
      }
      out.push_back(relative);
    }
    // A path as git names it (no backslash separates) that the walk did not list: listed unless git hides it
    // or it is under a skipped directory.
    const auto listable = [this](const std::string& relative) {
      const auto parts = components(relative, /*backslashIsSeparator=*/false);
      return !hiddenWhy(relative) &&
             std::none_of(parts.begin(), parts.end(), [](const std::string& c) { return skippedDirectory(c); });
    };
    const auto onDisk = [this](const std::string& relative) {
      std::error_code sec;
      return fs::exists(fs::symlink_status(root_ / relative, sec));
    };
    // Files of the change in a directory not entered (it holds a `.git` entry too): this repository's.
    for (const std::string& relative : changeFiles_) {
      std::error_code sec;
      if (fs::is_regular_file(fs::symlink_status(root_ / relative, sec)) && otherRepositoryHolding(relative) &&
          listable(relative))
        out.push_back(relative);
    }
    // Files the change's new side holds that the work tree lost (--staged: deleted, not staged).
    if (newVersions_)
      for (const auto& [relative, text] : *newVersions_)
        if (text && !onDisk(relative) && listable(relative)) out.push_back(relative);
    // Files git reads from the index that the work tree does not have (a sparse checkout's, outside its cone).
    if (const HiddenPaths* view = gitView())
      for (const auto& [relative, blob] : view->indexOnly) {
        if (++visited > limits_.maxWalkEntries) {  // the index's entries count against the listing's bound too
          filesTruncated_ = true;
          break;
        }
        if (!(newVersions_ && newVersions_->count(relative)) && !onDisk(relative) && listable(relative))
          out.push_back(relative);
      }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    files_ = std::move(out);
  }
  if (truncated) *truncated = filesTruncated_;
  return *files_;
}

std::optional<std::string> Sandbox::readForSearch(const std::string& relative,
                                                 std::optional<std::string>* fromIndex) const {
  if (fromIndex) {
    if (!*fromIndex || (*fromIndex)->size() > limits_.maxFileBytes) return std::nullopt;
    auto result = finishRead(std::move(**fromIndex), relative);
    if (auto* text = std::get_if<std::string>(&result)) return std::move(*text);
    return std::nullopt;
  }
  std::error_code ec;
  const std::string* blob = indexOnlyBlob(relative);
  const bool fromGit = (newVersions_ && newVersions_->count(relative)) || blob;
  fs::path p = fromGit ? root_ / relative  // read from git, not here
                       : fs::canonical(root_ / fs::path(relative), ec);
  if (ec || !inside(p)) return std::nullopt;
  if (!blob) blob = indexOnlyBlob(p.lexically_relative(root_).generic_string());  // a symlink to one
  ResolvedPath resolved{p, relative};
  if (blob) resolved.indexBlob = *blob;
  auto result = readText(resolved);
  if (auto* text = std::get_if<std::string>(&result)) return std::move(*text);
  return std::nullopt;
}

std::map<std::string, std::optional<std::string>> Sandbox::indexOnlyTexts(const std::vector<std::string>& relatives,
                                                                          std::size_t maxTotalBytes) const {
  std::map<std::string, std::optional<std::string>> out;
  std::vector<std::pair<std::string, std::string>> wanted;  // (path, blob id)
  std::vector<std::string> ids;
  for (const std::string& relative : relatives)
    if (const std::string* blob = indexOnlyBlob(relative)) {
      wanted.emplace_back(relative, *blob);
      ids.push_back(*blob);
    }
  if (ids.empty()) return out;
  auto texts = hidden_->readBlobs(ids, maxTotalBytes);
  for (const auto& [relative, blob] : wanted) {
    const auto text = texts.find(blob);
    out[relative] = text == texts.end() ? std::nullopt : text->second;
  }
  return out;
}

// ---------------------------------------------------------------- glob

GlobMatcher toolGlob(std::string_view pattern, std::int64_t maxSteps) {
  while (pattern.substr(0, 2) == "./") pattern.remove_prefix(2);
  return GlobMatcher(pattern, maxSteps);
}

}  // namespace revline::tools
