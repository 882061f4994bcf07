#include "core/config/selection.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <string_view>

#include "core/config/glob.h"
#include "core/support/keyed_hash.h"

namespace revline::config {
namespace {

constexpr std::size_t kMinifiedLineChars = 1000;  // a .js/.css line this long is minified output
constexpr int kGeneratedHeaderLines = 5;          // where a "generated, do not edit" marker is looked for

constexpr std::array<std::string_view, 20> kLockFiles = {
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock",    "pnpm-lock.yaml", "bun.lockb",
    "Cargo.lock",        "poetry.lock",         "Pipfile.lock", "uv.lock",        "pdm.lock",
    "go.sum",            "composer.lock",       "Gemfile.lock", "mix.lock",       "pubspec.lock",
    "Podfile.lock",      "flake.lock",          "packages.lock.json", "gradle.lockfile", "conan.lock"};

// Directories of built or vendored code, as GitHub's linguist marks them (a
// pull request's diff collapses them): a vendored library bumped in third_party/
// is thousands of lines nobody here wrote, which cost a model's budget first.
constexpr std::array<std::string_view, 8> kBuiltDirectories = {
    "dist", "vendor", "node_modules", "third_party", "third-party", "thirdparty", "bower_components", "jspm_packages"};

std::string_view baseName(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<std::string> builtDirectory(std::string_view path) {
  for (std::size_t start = 0; start < path.size();) {
    const std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) break;  // the last segment is the file itself
    const std::string_view segment = path.substr(start, slash - start);
    for (auto dir : kBuiltDirectories)
      if (segment == dir) return "in a " + std::string(dir) + "/ directory (built or vendored code)";
    start = slash + 1;
  }
  return std::nullopt;
}

bool generatedMarker(std::string_view text) {
  const std::string l = lower(text);
  if (l.find("@generated") != std::string::npos) return true;
  const auto generated = l.find("generated");
  return generated != std::string::npos &&
         (l.find("do not edit", generated) != std::string::npos || l.find("don't edit", generated) != std::string::npos);
}

}  // namespace

std::optional<std::string> binaryContent(const diff::FileDiff& file) {
  if (file.binary) return "binary content (a NUL byte in its first 8,000 bytes, so git shows no line of it)";
  for (const auto& h : file.hunks)
    for (const auto& l : h.lines)
      // git calls a file binary only for a NUL in its first 8,000 bytes: a PDF or
      // an .ai file may reach the diff as "text" and cost a model its budget.
      if (l.text.find('\0') != std::string_view::npos)
        return "binary content (a NUL byte on " +
               (l.kind == diff::LineKind::Removed ? "removed line " + std::to_string(l.oldLine)
                                                  : "line " + std::to_string(l.newLine)) +
               ", which git showed as text: past its first 8,000 bytes, or a .gitattributes `diff` attribute)";
  return std::nullopt;
}

std::optional<std::string> defaultExclusion(const diff::FileDiff& file) {
  const std::string& path = file.path();
  const std::string_view name = baseName(path);
  if (std::find(kLockFiles.begin(), kLockFiles.end(), name) != kLockFiles.end()) return "lock file";
  // Autotools' scripts, copied into a project as they are (linguist's vendored
  // list): redis's jemalloc upgrade sent 156 KB of config.guess and config.sub.
  for (auto script : {"config.guess", "config.sub", "ltmain.sh"})
    if (name == script) return "vendored build script (autotools' " + std::string(script) + ")";
  if (auto dir = builtDirectory(path)) return dir;
  for (auto suffix : {".min.js", ".min.mjs", ".min.css", "-min.js"})
    if (endsWith(name, suffix)) return "minified file (" + std::string(suffix) + ")";
  for (auto map : {".js.map", ".mjs.map", ".cjs.map", ".d.ts.map", ".css.map", ".jsx.map", ".tsx.map"})
    if (endsWith(name, map)) return "generated file (source map)";
  const bool script = endsWith(name, ".js") || endsWith(name, ".mjs") || endsWith(name, ".cjs") || endsWith(name, ".css");
  // A file that was there before is generated or minified only if it was so
  // before: a marker or a long line the change itself adds to a hand-written
  // file would take the file, and what else the change does to it, out of the
  // review (`# @generated` above a deleted authorization check).
  const bool isNew = file.status == diff::FileStatus::Added;
  bool longBefore = false, markedBefore = false;  // what the old side's lines in the diff show
  for (const auto& h : file.hunks)
    for (const auto& l : h.lines) {
      if (l.kind == diff::LineKind::Added) continue;
      longBefore = longBefore || l.text.size() > kMinifiedLineChars;
      markedBefore = markedBefore || (l.oldLine <= kGeneratedHeaderLines && generatedMarker(l.text));
    }
  if (auto binary = binaryContent(file); binary && !file.binary) return binary;
  for (const auto& h : file.hunks) {
    for (const auto& l : h.lines) {
      if (l.kind == diff::LineKind::Removed) continue;
      if ((isNew || markedBefore) && l.newLine <= kGeneratedHeaderLines && generatedMarker(l.text))
        return "generated file (line " + std::to_string(l.newLine) + " says it is generated)";
      if (script && l.kind == diff::LineKind::Added && l.text.size() > kMinifiedLineChars && (isNew || longBefore))
        return "minified file (a line of " + std::to_string(l.text.size()) + " characters)";
    }
  }
  return std::nullopt;
}

namespace {

// A Git LFS pointer on either side: git stores that text, not the file's
// content, and the work tree has the content. Diffed, the pointer's `oid` lines
// are what a finding would sit on, and with the LFS filter off (an untrusted
// repository's own) the pointer is "replaced" by the whole content: neither is
// a change a reviewer can read. A side is a pointer only when it is one whole,
// as the spec writes it: `version https://git-lfs.github.com/spec/v1` on line 1,
// then `ext-N-NAME sha256:HEX`, `oid sha256:HEX` and `size N` lines, nothing
// else, all shown. A hand-written script with a `version ...` line put on top
// (which the shell skips) was taken out of review by its first line alone.
bool pointerLine(std::string_view text, std::int64_t number) {
  auto hexTail = [](std::string_view rest) {
    return rest.size() == 64 && std::all_of(rest.begin(), rest.end(), [](char c) {
             return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
  };
  if (number == 1) return text == "version https://git-lfs.github.com/spec/v1";
  if (text.starts_with("oid sha256:")) return hexTail(text.substr(11));
  if (text.starts_with("size "))
    return text.size() > 5 && std::all_of(text.begin() + 5, text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (text.starts_with("ext-")) {
    const auto at = text.find(" sha256:");
    return at != std::string_view::npos && hexTail(text.substr(at + 8));
  }
  return false;
}

// A side of the diff that is a whole pointer: its oid (the content's SHA-256).
std::optional<std::string> pointerOid(const diff::FileDiff& file, diff::LineKind side) {
  constexpr std::int64_t kMostLines = 12;  // version, oid, size and a few extensions
  bool whole = true, version = false, size = false;
  std::optional<std::string> oid;
  for (const auto& h : file.hunks)
    for (const auto& l : h.lines) {
      if (l.kind != side && l.kind != diff::LineKind::Context) continue;
      const std::int64_t number = side == diff::LineKind::Removed ? l.oldLine : l.newLine;
      whole = whole && number <= kMostLines && pointerLine(l.text, number);
      version = version || number == 1;
      if (l.text.starts_with("oid sha256:")) oid = std::string(l.text.substr(11));
      size = size || l.text.starts_with("size ");
    }
  if (whole && version && oid && size) return oid;
  return std::nullopt;
}

// The new side's whole text, when the diff shows all of it (one hunk from line 1
// that replaced everything: a pointer's few lines share none with its content).
std::optional<std::string> wholeNewText(const diff::FileDiff& file) {
  if (file.hunks.size() != 1 || file.hunks[0].newStart > 1) return std::nullopt;
  std::string text;
  bool endsWithNewline = true;
  for (const auto& l : file.hunks[0].lines) {
    if (l.kind == diff::LineKind::Removed) continue;
    if (l.kind == diff::LineKind::Context) return std::nullopt;  // something of the pointer stayed
    text += l.text;
    text += '\n';
    endsWithNewline = !l.noNewlineAtEnd;
  }
  if (!endsWithNewline && !text.empty()) text.pop_back();
  return text;
}

bool lfsPointer(const diff::FileDiff& file) {
  const auto before = pointerOid(file, diff::LineKind::Removed);
  if (!file.newPath) return before.has_value();  // deleted
  if (pointerOid(file, diff::LineKind::Added)) return true;  // still a pointer, or a file moved into LFS
  // A pointer "replaced" by its own content: the work tree read with the LFS
  // filter off (an untrusted repository's own). Only that content, by its
  // SHA-256: a pull request that replaces a real pointer with code (or adds
  // code below its lines) is a change to review.
  if (!before) return false;
  const auto text = wholeNewText(file);
  return text && sha256Hex(*text) == *before;
}

// A name that says the file is a binary format: an image, a font, an archive,
// media, a document, compiled code, a database. Its change has nothing a
// reviewer reads, by its nature. Binary content under any other name is not by
// nature: one NUL byte in a comment makes git show a script ("deploy.sh",
// "lib/Util.pm", ".envrc") as "Binary files differ", and a UTF-16 PowerShell
// module reads as binary too, while the shell, perl or PowerShell still runs it;
// no line of that change reaches a review. (A list of text names missed .pm,
// .psm1, .envrc, .mts, .bashrc, .mk...: the formats that are binary are fewer.)
bool namedAsBinaryFormat(std::string_view path) {
  const std::string name = lower(baseName(path));
  static constexpr auto kExtensions = std::to_array<std::string_view>({
      // images
      ".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".icns", ".bmp", ".tif", ".tiff", ".psd", ".heic", ".avif",
      ".ai", ".eps", ".sketch",
      // fonts
      ".woff", ".woff2", ".ttf", ".otf", ".eot",
      // archives and packages
      ".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".tar", ".jar", ".war", ".ear", ".whl", ".nupkg",
      ".gem", ".deb", ".rpm", ".apk", ".aar", ".dmg", ".iso",
      // media
      ".mp3", ".mp4", ".m4a", ".wav", ".ogg", ".oga", ".webm", ".mov", ".avi", ".flac", ".mkv",
      // documents
      ".pdf", ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods",
      // compiled code and data
      ".class", ".pyc", ".o", ".a", ".so", ".dll", ".dylib", ".exe", ".wasm", ".sqlite", ".db", ".parquet"});
  return std::any_of(kExtensions.begin(), kExtensions.end(), [&](std::string_view e) { return endsWith(name, e); });
}

// A file the change makes executable, or that starts with "#!", or renamed from
// a name that is no binary format (deploy.sh to deploy.PNG): a program, whatever
// its name says (a `zz.png` a CI script runs with `sh scripts/*`).
bool runnable(const diff::FileDiff& f) {
  if (f.newMode == "100755") return true;
  if (f.oldPath && f.newPath && *f.oldPath != *f.newPath && !namedAsBinaryFormat(*f.oldPath)) return true;
  for (const auto& h : f.hunks)
    for (const auto& l : h.lines)
      if (l.kind != diff::LineKind::Removed && l.newLine == 1 && l.text.starts_with("#!")) return true;
  return false;
}

// The commit of "Subproject commit <sha>[-dirty]" on the diff's old or new side.
std::optional<std::string> submoduleCommit(const diff::FileDiff& f, diff::LineKind side) {
  constexpr std::string_view kPrefix = "Subproject commit ";
  for (const auto& h : f.hunks)
    for (const auto& l : h.lines)
      if (l.kind == side && l.text.starts_with(kPrefix)) return std::string(l.text.substr(kPrefix.size()));
  return std::nullopt;
}

bool isCommitId(std::string_view s) {
  return (s.size() == 40 || s.size() == 64) &&
         s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

// A submodule at the commit it was, with changes inside its work tree: git
// writes no index line (the commit did not move), so no mode says it is one;
// its one hunk does: "-Subproject commit X", "+Subproject commit X-dirty". A
// file holding that text has an index line (its blob changed).
bool onlyDirtied(const diff::FileDiff& f) {
  if (f.oldMode || f.newMode || f.oldBlob || f.newBlob || f.hunks.size() != 1 || f.hunks[0].lines.size() != 2)
    return false;
  const auto from = submoduleCommit(f, diff::LineKind::Removed);
  const auto to = submoduleCommit(f, diff::LineKind::Added);
  return from && to && isCommitId(*from) && *to == *from + "-dirty";
}

// A submodule's entry (mode 160000): its diff is one line naming a commit, not
// the code that commit brings in.
bool isSubmodule(const diff::FileDiff& f) {
  return f.oldMode == "160000" || f.newMode == "160000" || onlyDirtied(f);
}

std::string abbreviated(std::string commit) { return commit.substr(0, 12); }

// "abc123def456", or with " (with uncommitted changes in it)" for git's "<sha>-dirty".
std::string shortCommit(std::string commit) {
  const bool dirty = commit.ends_with("-dirty");
  if (dirty) commit.resize(commit.size() - 6);
  return abbreviated(std::move(commit)) + (dirty ? " (with uncommitted changes in it)" : "");
}

// Why a submodule's change is not reviewed here, and where it can be; unset for
// one removed (no code of it is added). `workTreeSide`: the diff's new side is
// the work tree, so the commit it shows is the one checked out there (a
// `git submodule update` would check the index's out again, undoing a move not
// staged yet).
std::optional<std::string> submoduleNotReviewed(const diff::FileDiff& f, bool workTreeSide) {
  const auto from = submoduleCommit(f, diff::LineKind::Removed);
  const auto to = submoduleCommit(f, diff::LineKind::Added);
  const std::string path = f.path();
  if (onlyDirtied(f))
    return "a submodule with uncommitted changes inside it (at commit " + abbreviated(*from) +
           "): they are its own repository's, not lines of this diff; not reviewed (review them there: cd " + path +
           " && revline review)";
  if (!to || f.newMode != "160000") return std::nullopt;
  if (!from || f.oldMode != "160000")
    return "a submodule added at commit " + shortCommit(*to) +
           ": its code is its own repository's, not lines of this diff; not reviewed (review it in " + path + ")";
  const std::string base = abbreviated(*from);
  const std::string there = workTreeSide ? "there: cd " + path + " && revline review --base " + base +
                                               " (if " + path + " is empty, git submodule update --init " + path +
                                               " first)"
                                         : "there, checked out: git submodule update --init " + path + " && cd " +
                                               path + " && revline review --base " + base;
  return "a submodule moved from commit " + shortCommit(*from) + " to " + shortCommit(*to) +
         ": what that brings in is the submodule's history, not lines of this diff; not reviewed (review it " + there +
         ")";
}

// Whether a glob names something, rather than taking everything: it holds a
// character other than '*', '?', '.' and '/' ("package-lock.json", "vendor/**",
// "src/**", "*.min.js"), not only wildcards ("**", "*", "**/*", "**/*.*"). Only a
// glob that names something brings back what the defaults leave out:
// `"include": ["**"]` meant "everything I write", and took in vendor/,
// node_modules/ and lock files.
bool namesFiles(std::string_view glob) { return glob.find_first_not_of("*?./") != std::string_view::npos; }

// Matched by an include glob, and by one that names it (so not left out by default).
struct Included {
  bool byAny = false;
  bool byName = false;
};
Included includedBy(const Config& config, const std::string& path) {
  Included out;
  for (const std::string& g : config.include) {
    if (!globMatches(g, path)) continue;
    out.byAny = true;
    out.byName = out.byName || namesFiles(g);
  }
  return out;
}

}  // namespace

std::optional<std::string> excludedByItsPath(const std::string& path, const Config& config) {
  const Included included = includedBy(config, path);
  if (!config.include.empty() && !included.byAny) return "not matched by the include setting";
  for (const std::string& glob : config.exclude)
    if (globMatches(glob, path)) return "excluded by the exclude setting (" + glob + ")";
  if (included.byName) return std::nullopt;
  diff::FileDiff byName;  // what the path alone says: no line of it is known
  byName.newPath = path;
  byName.status = diff::FileStatus::Added;
  if (auto reason = defaultExclusion(byName)) return *reason + "; name it in include to review it";
  return std::nullopt;
}

Selection selectFiles(diff::Diff diff, const Config& config, const std::map<std::string, std::string>& linguist,
                      bool newSideIsWorkTree) {
  Selection out;
  std::vector<diff::FileDiff> kept;
  for (auto& f : diff.files) {
    const std::string& path = f.path();
    if (isSubmodule(f)) {
      // Not by choice when it brings code in: the verdict cannot be APPROVE.
      if (auto why = submoduleNotReviewed(f, newSideIsWorkTree)) {
        review::SkippedFile notSeen{path, std::move(*why), review::changedLines(f)};
        notSeen.overLimit = notSeen.notInDiff = true;
        out.skipped.push_back(std::move(notSeen));
      } else {
        out.skipped.push_back({path, "a submodule removed (or no longer one): no code of it is added", review::changedLines(f)});
      }
      continue;
    }
    if (lfsPointer(f)) {  // whatever include says: the content is not in the diff to review
      out.skipped.push_back({path, "a Git LFS pointer: the file's content is stored outside git, so the diff holds no line of it",
                             review::changedLines(f)});
      continue;
    }
    std::optional<std::string> reason;
    const Included included = includedBy(config, path);
    if (!config.include.empty() && !included.byAny) {
      reason = "not matched by the include setting";
    } else if (auto g = std::find_if(config.exclude.begin(), config.exclude.end(),
                                     [&](const std::string& glob) { return globMatches(glob, path); });
               g != config.exclude.end()) {
      reason = "excluded by the exclude setting (" + *g + ")";
    } else if (!f.newPath && binaryContent(f)) {  // deleted (a binary one has status Binary)
      // Nothing of it is added: its deletion is the whole change, and there is no line to read.
      reason = "a binary file deleted: no line of it is added";
    } else if (const auto mark = linguist.find(path); !included.byName && mark != linguist.end()) {
      reason = mark->second + " file (its git attributes mark it linguist-" + mark->second + "); name it in include to review it";
    } else if (!included.byName && (reason = defaultExclusion(f)) && !reason->starts_with("binary content")) {
      *reason += "; name it in include to review it";  // a lock file, built or generated code
    } else if (const auto binary = binaryContent(f); binary && (!namedAsBinaryFormat(path) || runnable(f))) {
      // Not by choice: what it changed was not seen, so the verdict cannot be APPROVE.
      review::SkippedFile notSeen{path, *binary + " in a file whose name is no binary format; not reviewed",
                                  review::changedLines(f)};
      notSeen.overLimit = notSeen.notInDiff = true;
      out.skipped.push_back(std::move(notSeen));
      continue;
    } else if (reason) {
      *reason += "; name it in include to review it";  // binary content git took for text, in an asset
    }
    if (reason) {
      out.skipped.push_back({path, std::move(*reason), review::changedLines(f)});
    } else {
      kept.push_back(std::move(f));
    }
  }
  diff.files = std::move(kept);
  out.diff = std::move(diff);
  return out;
}

}  // namespace revline::config
