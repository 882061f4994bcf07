#include "core/git/special_files.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <system_error>
#include <vector>

#include "core/git/git_directory.h"

namespace revline::git {
namespace {

namespace fs = std::filesystem;

// Where git keeps what it reads: the work tree's top, its own git directory
// (per work tree: HEAD, index) and the common one (config, refs, objects).
struct Layout {
  fs::path workTree;
  fs::path gitDir;
  fs::path commonDir;
};

// A small file's first `limit` bytes (a .git file, commondir, HEAD): never more,
// whatever is there. Only called on regular files.
std::string head(const fs::path& file, std::size_t limit = 4096) {
  std::ifstream in(file, std::ios::binary);
  std::string text(limit, '\0');
  in.read(text.data(), static_cast<std::streamsize>(limit));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

std::string firstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

bool regular(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// The repository holding `from`, as git finds it: the nearest `.git` (a
// directory, or a file naming one) walking up. Without one, nothing to check.
std::optional<Layout> locate(const fs::path& from) {
  std::error_code ec;
  fs::path dir = fs::absolute(from, ec).lexically_normal();
  if (ec) return std::nullopt;
  for (;;) {
    const fs::path dotGit = dir / ".git";
    if (fs::is_directory(dotGit, ec) || regular(dotGit)) {
      Layout layout{dir, gitDirectory(dir), {}};
      layout.commonDir = layout.gitDir;
      const fs::path commondir = layout.gitDir / "commondir";
      if (regular(commondir)) {
        const fs::path named(firstLine(head(commondir)));
        if (!named.empty()) layout.commonDir = named.is_absolute() ? named : layout.gitDir / named;
      }
      return layout;
    }
    if (!dir.has_relative_path()) return std::nullopt;
    dir = dir.parent_path();
  }
}

// How `p` is shown: relative to the work tree when inside it.
std::string shown(const fs::path& p, const Layout& layout) {
  const fs::path rel = p.lexically_normal().lexically_relative(layout.workTree);
  return rel.empty() || *rel.begin() == ".." ? p.string() : rel.string();
}

// What is wrong with `p` standing where git expects a file, or "". `follow`:
// git opens it through a symlink (an in-tree .gitignore it does not).
std::string problemWith(const fs::path& p, bool follow, const std::string& role, const Layout& layout) {
  std::error_code ec;
  const fs::file_status linkStatus = fs::symlink_status(p, ec);
  if (ec || !fs::exists(linkStatus)) return {};
  const fs::file_status status = follow ? fs::status(p, ec) : linkStatus;
  if (ec) return {};
  // A socket is left out: opening one fails at once, git does not wait on it.
  const fs::file_type type = status.type();
  if (type != fs::file_type::fifo && type != fs::file_type::character && type != fs::file_type::block) return {};
  const std::string consequence =
      type == fs::file_type::fifo ? "git would wait on it forever" : "git would wait on it or read it without end";
  std::string name = "'" + shown(p, layout) + "'";
  if (fs::is_symlink(linkStatus)) {
    const fs::path target = fs::read_symlink(p, ec);
    name += " (a symlink to " + (ec ? std::string("?") : target.string()) + ")";
  }
  return name + " is " + specialFileKind(type) + " where git expects a file (" + role + "): " + consequence +
         ". Remove it, or replace it with a regular file";
}

// A config value as git reads it: quotes removed, escapes resolved, a comment
// (# or ;) outside quotes ending it, surrounding spaces trimmed.
std::string configValue(const std::string& raw) {
  std::string out;
  bool quoted = false;
  std::size_t keep = 0;  // out's length up to the last character that is not trailing space
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (c == '"') {
      quoted = !quoted;
      keep = out.size();
      continue;
    }
    if (!quoted && (c == '#' || c == ';')) break;
    if (c == '\\' && i + 1 < raw.size()) {
      const char e = raw[++i];
      out += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'b' ? '\b' : e;
      keep = out.size();
      continue;
    }
    if (!quoted && out.empty() && (c == ' ' || c == '\t')) continue;
    out += c;
    if (quoted || (c != ' ' && c != '\t' && c != '\r')) keep = out.size();
  }
  out.resize(keep);
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A path-valued setting as git expands it: `~/` is the home directory; a
// relative include is relative to the file that includes it, any other
// relative path to the work tree (where git runs).
std::optional<fs::path> expand(const std::string& value, const fs::path& relativeTo) {
  if (value.empty()) return std::nullopt;
  if (value.rfind("~/", 0) == 0) {
    const char* home = std::getenv("HOME");
    if (!home || !*home) return std::nullopt;
    return fs::path(home) / value.substr(2);
  }
  if (value[0] == '~') return std::nullopt;  // ~user/: whoever that is, not the repository's doing
  const fs::path p(value);
  return p.is_absolute() ? p : relativeTo / p;
}

// The files `config` (and what it includes, to git's own depth limit) names:
// each checked, the includes read in turn. includeIf conditions are not
// evaluated: a named pipe behind any of them is checked all the same.
std::string checkConfig(const fs::path& config, const std::string& role, const Layout& layout, int depth) {
  if (std::string problem = problemWith(config, true, role, layout); !problem.empty()) return problem;
  if (depth > 10 || !regular(config)) return {};
  std::error_code ec;
  if (fs::file_size(config, ec) > 4 * 1024 * 1024 || ec) return {};  // not a config git would get through either
  std::ifstream in(config, std::ios::binary);
  std::string section;
  std::string line;
  while (std::getline(in, line)) {
    std::size_t at = line.find_first_not_of(" \t");
    if (at == std::string::npos || line[at] == '#' || line[at] == ';') continue;
    if (line[at] == '[') {
      const std::size_t close = line.find(']', at);
      if (close == std::string::npos) continue;
      const std::string header = line.substr(at + 1, close - at - 1);
      section = lower(header.substr(0, header.find_first_of(" \t\".")));
      at = line.find_first_not_of(" \t", close + 1);  // a key may follow on the same line
      if (at == std::string::npos || line[at] == '#' || line[at] == ';') continue;
    }
    const std::size_t eq = line.find('=', at);
    if (eq == std::string::npos) continue;
    std::string key = line.substr(at, eq - at);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    key = lower(key);
    const std::string value = configValue(line.substr(eq + 1));
    const bool include = (section == "include" || section == "includeif") && key == "path";
    const bool named = section == "core" && (key == "excludesfile" || key == "attributesfile");
    if (!include && !named) continue;
    const auto path = expand(value, include ? config.parent_path() : layout.workTree);
    if (!path) continue;
    const std::string setting = include ? (section == "include" ? "include.path" : "includeIf.path")
                                        : (key == "excludesfile" ? "core.excludesFile" : "core.attributesFile");
    const std::string what = setting + " in " + shown(config, layout);
    const std::string problem = include ? checkConfig(*path, what, layout, depth + 1) : problemWith(*path, true, what, layout);
    if (!problem.empty()) return problem;
  }
  return {};
}

// `dir` holds a repository of its own, which git passes over (a `.git` file,
// or a `.git` directory with a HEAD): an empty `.git` does not make one.
bool nestedRepository(const fs::path& dir) {
  std::error_code ec;
  return regular(dir / ".git") || (fs::is_directory(dir / ".git", ec) && fs::exists(dir / ".git" / "HEAD", ec));
}

std::string checkBeforeGit(const Layout& layout) {
  const fs::path& git = layout.gitDir;
  const fs::path& common = layout.commonDir;
  if (std::string p = checkConfig(common / "config", "the repository's git config", layout, 0); !p.empty()) return p;
  if (std::string p = checkConfig(git / "config.worktree", "the work tree's git config", layout, 0); !p.empty())
    return p;
  const std::pair<fs::path, const char*> files[] = {
      {git / "HEAD", "HEAD, the current branch"},
      {git / "commondir", "commondir, where a linked work tree's repository is"},
      {git / "index", "the index"},
      {common / "packed-refs", "packed-refs"},
      {common / "shallow", "shallow, the commits a shallow clone stops at"},
      {common / "info" / "exclude", "info/exclude, the repository's ignore rules"},
      {common / "info" / "attributes", "info/attributes, the repository's attributes"},
      {common / "info" / "grafts", "info/grafts"},
      {common / "objects" / "info" / "alternates", "objects/info/alternates, other object stores"},
  };
  for (const auto& [file, role] : files)
    if (std::string p = problemWith(file, true, role, layout); !p.empty()) return p;
  // The branch HEAD names ("ref: refs/heads/main"), read before anything else.
  if (regular(git / "HEAD")) {
    const std::string line = firstLine(head(git / "HEAD", 1024));
    if (line.rfind("ref: ", 0) == 0) {
      const fs::path ref = fs::path(line.substr(5)).lexically_normal();
      if (!ref.empty() && ref.is_relative() && *ref.begin() != "..") {
        for (const fs::path& base : {git, common})
          if (std::string p = problemWith(base / ref, true, "the branch HEAD names", layout); !p.empty()) return p;
      }
    }
  }
  return {};
}

}  // namespace

std::string specialFileKind(fs::file_type type) {
  switch (type) {
    case fs::file_type::fifo: return "a named pipe (FIFO)";
    case fs::file_type::socket: return "a socket";
    case fs::file_type::character: return "a character device";
    case fs::file_type::block: return "a block device";
    default: return {};
  }
}

std::string specialFileBeforeGit(const fs::path& from) {
  const std::optional<Layout> layout = locate(from);
  return layout ? checkBeforeGit(*layout) : std::string();
}

std::string specialFileGitWaitsOn(const fs::path& from, std::size_t maxEntries) {
  const std::optional<Layout> layout = locate(from);
  if (!layout) return {};
  if (std::string p = checkBeforeGit(*layout); !p.empty()) return p;
  std::size_t walked = 0;
  std::error_code ec;
  // Every ref: a branch the diff's base names, a tag git looks through.
  for (const fs::path& refs : {layout->gitDir / "refs", layout->commonDir / "refs"}) {
    for (fs::recursive_directory_iterator it(refs, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end && walked < maxEntries; it.increment(ec), ++walked) {
      if (std::string p = problemWith(it->path(), true, "a ref", *layout); !p.empty()) return p;
    }
    ec.clear();
  }
  // The work tree's ignore and attribute files, as git reads them while it
  // walks: never through a symlink, never inside a nested repository.
  for (fs::recursive_directory_iterator it(layout->workTree, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end && walked < maxEntries; it.increment(ec), ++walked) {
    const fs::path& path = it->path();
    const std::string name = path.filename().string();
    if (name == ".gitignore" || name == ".gitattributes") {
      const std::string role = name == ".gitignore" ? "ignore rules git reads" : "attributes git reads";
      if (std::string p = problemWith(path, false, role, *layout); !p.empty()) return p;
    } else if (std::error_code entry; it->is_directory(entry) && !it->is_symlink(entry) &&
                                       (name == ".git" || nestedRepository(path))) {
      it.disable_recursion_pending();
    }
  }
  return {};
}

}  // namespace revline::git
