#include "tests/support/temp_repo.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace revline::testing {
namespace fs = std::filesystem;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''"; else out += c;
  }
  return out + "'";
}

CommandResult runShell(const std::string& command, const fs::path& cwd, const std::string& input) {
  TempDir io;
  const fs::path in = io.path() / "in", out = io.path() / "out", err = io.path() / "err";
  { std::ofstream f(in, std::ios::binary); f << input; }
  const std::string full = "cd " + shellQuote(cwd.string()) + " && ( " + command + " ) <" + shellQuote(in.string()) +
                           " >" + shellQuote(out.string()) + " 2>" + shellQuote(err.string());
  const int status = std::system(full.c_str());
  CommandResult r;
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

CommandResult runRevline(const std::string& args, const fs::path& cwd, const std::string& input) {
  return runShell(shellQuote(REVLINE_BINARY) + " " + args, cwd, input);
}

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "revline-test-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

TempRepo::TempRepo() {
  git("init -q -b main");
  git("config user.name 'revline test'");
  git("config user.email test@revline.invalid");
  git("config commit.gpgsign false");
  git("config core.autocrlf false");
}

void TempRepo::write(const std::string& relPath, const std::string& content) const {
  const fs::path p = root() / relPath;
  fs::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << content;
}

std::string TempRepo::read(const std::string& relPath) const { return slurp(root() / relPath); }

void TempRepo::remove(const std::string& relPath) const { fs::remove(root() / relPath); }

std::string TempRepo::git(const std::string& args, bool allowFailure) const {
  // Isolate from the machine's git configuration so tests are deterministic.
  const auto r = runShell("GIT_CONFIG_NOSYSTEM=1 HOME=" + shellQuote(root().string()) + " git " + args, root());
  if (r.exitCode != 0 && !allowFailure) {
    ADD_FAILURE() << "git " << args << " failed (" << r.exitCode << "): " << r.err;
  }
  return r.out;
}

std::string TempRepo::commitAll(const std::string& message) const {
  git("add -A");
  git("commit -q --allow-empty -m " + shellQuote(message));
  std::string id = git("rev-parse HEAD");
  while (!id.empty() && (id.back() == '\n' || id.back() == '\r')) id.pop_back();
  return id;
}

}  // namespace revline::testing
