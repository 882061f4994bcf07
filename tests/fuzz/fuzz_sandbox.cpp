// Fuzzes the tools' sandbox: path resolution (Sandbox::resolve), pattern checks,
// glob matching, and the repository tools on model-supplied arguments, in a
// fixture tree with symlinks that lead inside, outside, into .git, to nowhere
// and to themselves. Whatever the input, nothing outside the root is resolved
// or read: the file outside holds a random marker that must never appear in a
// result. The marker is made at start-up and looked for by its hash, so that
// libFuzzer's comparison tracing cannot learn it and echo it back through an
// error message (the first version of this harness fell for exactly that).
//
// Input: the first byte picks what to do, the rest is the path / pattern /
// tool arguments (JSON when it parses, else used as the tool's string field).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "core/tools/repository_tools.h"
#include "core/tools/sandbox.h"

using namespace revline;
namespace fs = std::filesystem;

namespace {
constexpr std::size_t kSecretLength = 32;
std::uint64_t g_secretHash = 0;

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string randomMarker() {
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  std::string marker;
  const char* hex = "0123456789abcdef";
  for (std::size_t i = 0; i < kSecretLength; ++i) marker += hex[static_cast<unsigned char>(urandom.get()) % 16];
  return marker;
}

fs::path g_root;
tools::RepositoryTools* g_tools = nullptr;

void write(const fs::path& p, std::string_view text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

fs::path g_base;  // the fixture's temporary directory, removed at exit (each CTest run made one more)

void makeFixture() {
  char tmpl[] = "/tmp/revline-fuzz-sandbox-XXXXXX";
  if (!::mkdtemp(tmpl)) std::abort();
  g_base = tmpl;
  std::atexit([] {
    std::error_code ec;
    fs::remove_all(g_base, ec);
  });
  const fs::path& base = g_base;
  g_root = base / "repo";
  const std::string secret = randomMarker();
  g_secretHash = fnv1a(secret);
  write(base / "outside" / "secret.txt", secret + "\n");
  write(g_root / "src" / "main.c", "int main(void) {\n  return 0;\n}\n");
  write(g_root / "src" / "util" / "strings.h", "#pragma once\nint length(const char* s);\n");
  write(g_root / "README.md", "# fixture\nsee src/main.c\n");
  write(g_root / "bin.dat", std::string("\x7f" "ELF\0\0\0binary", 13));
  write(g_root / "node_modules" / "x" / "index.js", "module.exports = 1;\n");
  write(g_root / "build" / "out.txt", "built\n");
  write(g_root / ".git" / "config", "[core]\n");
  write(g_root / "a b" / "spaced file.txt", "spaces\n");
  std::error_code ec;
  fs::create_symlink("src/main.c", g_root / "link_in", ec);
  fs::create_symlink("../outside/secret.txt", g_root / "link_out", ec);
  fs::create_symlink("..", g_root / "link_parent", ec);
  fs::create_symlink("../outside", g_root / "src" / "link_outdir", ec);
  fs::create_symlink("/etc", g_root / "link_abs", ec);
  fs::create_symlink("nowhere", g_root / "link_dangling", ec);
  fs::create_symlink("link_loop", g_root / "link_loop", ec);
  fs::create_symlink(".git/config", g_root / "link_git", ec);
  fs::create_symlink("node_modules", g_root / "link_nm", ec);
  fs::create_symlink(".", g_root / "link_self", ec);
}

void checkResolved(const tools::ResolvedPath& r) {
  const std::string abs = r.absolute.string();
  const std::string root = g_root.string() + "/";
  if (abs.compare(0, root.size(), root) != 0) std::abort();  // escaped the root
  for (const auto& part : fs::path(r.relative))
    if (part == ".." || part == "." || tools::skippedDirectory(part.string())) std::abort();
  for (const auto& part : r.absolute.lexically_relative(g_root))
    if (part == ".." || tools::skippedDirectory(part.string())) std::abort();
}

void checkNoSecret(std::string_view text) {
  for (std::size_t i = 0; i + kSecretLength <= text.size(); ++i)
    if (fnv1a(text.substr(i, kSecretLength)) == g_secretHash) std::abort();  // read from outside the root
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  makeFixture();
  static tools::RepositoryTools repositoryTools(g_root);
  g_tools = &repositoryTools;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned op = data[0] % 6;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const tools::Sandbox& sandbox = g_tools->sandbox();
  switch (op) {
    case 0: {  // path resolution, then reading what resolved
      auto r = sandbox.resolve(rest);
      if (auto* ok = std::get_if<tools::ResolvedPath>(&r)) {
        checkResolved(*ok);
        auto text = sandbox.readText(*ok);
        if (auto* t = std::get_if<std::string>(&text)) checkNoSecret(*t);
      }
      break;
    }
    case 1: {  // pattern check
      (void)sandbox.checkPattern(rest, "pattern");
      break;
    }
    case 2: {  // glob matching: pattern NUL-or-newline path
      const std::size_t cut = rest.find_first_of(std::string_view("\0\n", 2));
      const std::string_view pattern = rest.substr(0, cut);
      const std::string_view path = cut == std::string_view::npos ? std::string_view() : rest.substr(cut + 1);
      (void)tools::toolGlob(pattern).matches(path);
      break;
    }
    default: {  // the tools, as a model would call them
      static const char* const kNames[] = {"read_file", "search_text", "glob", "find_usages"};
      static const char* const kField[] = {"path", "query", "pattern", "symbol"};
      const unsigned tool = (data[0] / 6) % 4;
      review::ToolCall call;
      call.id = "fuzz";
      call.name = kNames[tool];
      call.arguments = json::parse(rest.begin(), rest.end(), nullptr, false);
      if (call.arguments.is_discarded()) call.arguments = json{{kField[tool], std::string(rest)}};
      const review::ToolResult result = g_tools->execute(call, CancelToken());
      checkNoSecret(result.content);
      break;
    }
  }
  return 0;
}
