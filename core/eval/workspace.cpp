#include "core/eval/workspace.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "core/process/process.h"

namespace revline::eval {
namespace {

namespace fs = std::filesystem;

// The user's git configuration must not shape a case (hooks, signing, autocrlf).
const std::map<std::string, std::optional<std::string>>& gitEnv() {
  static const std::map<std::string, std::optional<std::string>> env = {
      {"GIT_CONFIG_GLOBAL", "/dev/null"},      {"GIT_CONFIG_NOSYSTEM", "1"},
      {"GIT_AUTHOR_NAME", "revline eval"},     {"GIT_AUTHOR_EMAIL", "eval@revline.invalid"},
      {"GIT_COMMITTER_NAME", "revline eval"},  {"GIT_COMMITTER_EMAIL", "eval@revline.invalid"},
      {"GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z"}, {"GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z"},
      {"GIT_DIR", std::nullopt},               {"GIT_WORK_TREE", std::nullopt},
      {"GIT_INDEX_FILE", std::nullopt},
  };
  return env;
}

void git(const fs::path& root, const std::vector<std::string>& args, const EvalCase& c, const std::string& what) {
  std::vector<std::string> argv = {"git", "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false"};
  argv.insert(argv.end(), args.begin(), args.end());
  process::Options options;
  options.cwd = root;
  options.env = gitEnv();
  const process::Result r = process::run(argv, options);
  if (r.exitCode != 0) {
    throw CorpusError("case \"" + c.id + "\": " + what + " failed: " + (r.err.empty() ? r.out : r.err));
  }
}

}  // namespace

Workspace::Workspace(const EvalCase& evalCase) {
  std::string pattern = (fs::temp_directory_path() / "revline-eval-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw CorpusError("cannot create a temporary directory for case \"" + evalCase.id + "\"");
  root_ = pattern;
  try {
    // Symlinks stay symlinks: a corpus is data, and a link in base/ must not pull in files from outside it.
    fs::copy(evalCase.dir / "base", root_, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    git(root_, {"init", "-q"}, evalCase, "git init");
    git(root_, {"add", "-A"}, evalCase, "adding base/");
    git(root_, {"commit", "-q", "--allow-empty", "-m", "base"}, evalCase, "committing base/");
    git(root_, {"apply", "--whitespace=nowarn", fs::absolute(evalCase.patch).string()}, evalCase,
        "applying " + evalCase.patch.filename().string() + " to base/ (is it a diff against base/?)");
  } catch (...) {
    std::error_code ec;
    fs::remove_all(root_, ec);
    throw;
  }
}

Workspace::~Workspace() {
  std::error_code ec;
  fs::remove_all(root_, ec);
}

}  // namespace revline::eval
