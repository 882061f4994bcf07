// Fuzzes the language server's input path end to end: bytes as they would
// arrive on stdin go through the Content-Length framing
// (FrameReader, fed in two reads so frames split across
// reads), then as batches through an in-memory transport to a real Server in
// deterministic (--sync) mode with the builtin reviewer (REVLINE_FUZZ_VERBOSE=1
// prints what the server sent). Checks: every server message is JSON, and
// unless the input stops the server with `exit`, every valid request is
// answered.
//
// Built twice:
//  - fuzz_jsonrpc: framing, JSON-RPC and dispatch at full speed. PATH points at
//    an empty directory, so git is "not found" without starting a process and
//    no file is ever in a repository (reviews fail cleanly).
//  - fuzz_lsp_review (REVLINE_FUZZ_WITH_GIT): the same, with reviews. The `git`
//    on PATH is a wrapper that only works inside the fixture workspace
//    /tmp/revline-fuzz-lsp/ws (the seed corpus uses that path): a repository
//    with a committed a.c and an uncommitted change the builtin rules flag. So
//    fuzzed URIs cannot make the server review (and write a cache into) a real
//    repository on this machine. Slower: a review runs git several times.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "core/builtin/builtin_provider.h"
#include "lsp/jsonrpc.h"
#include "lsp/server.h"
#include "lsp/transport.h"

using namespace revline;
namespace fs = std::filesystem;

namespace {
const fs::path kBase = "/tmp/revline-fuzz-lsp";
fs::path g_ws;

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

void sh(const std::string& command) {
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr, "fuzz_jsonrpc: setup failed: %s\n", command.c_str());
    std::exit(1);
  }
}

void makeWorkspace() {
#ifndef REVLINE_FUZZ_WITH_GIT
  ::setenv("PATH", (kBase / "no-programs").c_str(), 1);  // git is "not found"; nothing on disk is needed
  return;
#endif
  // One process at a time owns the fixed workspace (the replay test and a fuzzer may overlap).
  const int lock = ::open("/tmp/revline-fuzz-lsp.lock", O_CREAT | O_RDWR, 0600);
  if (lock < 0 || ::flock(lock, LOCK_EX) != 0) {
    std::fprintf(stderr, "fuzz_jsonrpc: cannot lock /tmp/revline-fuzz-lsp.lock\n");
    std::exit(1);
  }
  fs::remove_all(kBase);
  const fs::path ws = kBase / "ws";
  fs::create_directories(ws);
  g_ws = fs::canonical(ws);
  const std::string git = "/usr/bin/git -C '" + g_ws.string() + "' -c user.name=fuzz -c user.email=fuzz@example.com ";
  sh(git + "init -q");
  write(g_ws / "a.c", "#include <string.h>\nint main(int argc, char** argv) {\n  return 0;\n}\n");
  write(g_ws / "b.py", "def f(x):\n    return x\n");
  sh(git + "add -A && " + git + "commit -qm init");
  write(g_ws / "a.c",
        "#include <string.h>\nint main(int argc, char** argv) {\n  char buf[8];\n  strcpy(buf, argv[1]);\n"
        "  return 0;\n}\n");
  write(g_ws / "b.py", "def f(x):\n    return eval(x)\n");
  // git, but only inside the workspace.
  const fs::path bin = kBase / "bin";
  write(bin / "git",
        "#!/bin/sh\n"
        "case \"$(pwd -P)/\" in\n"
        "  '" + g_ws.string() + "/'*) exec /usr/bin/git \"$@\" ;;\n"
        "esac\n"
        "echo 'fatal: not a git repository (fuzz sandbox: only " + g_ws.string() + ")' >&2\n"
        "exit 128\n");
  fs::permissions(bin / "git", fs::perms::owner_all);
  const char* path = std::getenv("PATH");
  ::setenv("PATH", (bin.string() + ":" + (path ? path : "/usr/bin:/bin")).c_str(), 1);
  ::setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
}

bool validId(const json& id) { return id.is_number_integer() || id.is_string(); }

// In-memory transport that delivers prepared batches (each as if read at once)
// and keeps what the server writes.
class BatchTransport : public lsp::Transport {
 public:
  explicit BatchTransport(std::vector<std::vector<std::string>> batches) : batches_(std::move(batches)) {}
  std::vector<std::string> written;

 protected:
  bool readBatch(std::vector<std::string>& bodies) override {
    if (next_ < batches_.size()) {
      for (auto& b : batches_[next_]) bodies.push_back(std::move(b));
      ++next_;
    }
    return next_ < batches_.size();
  }
  void writeBody(const std::string& body) override { written.push_back(body); }
  void wake() override {}  // readBatch never blocks: posted work runs after each batch

 private:
  std::vector<std::vector<std::string>> batches_;
  std::size_t next_ = 0;
};
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  makeWorkspace();
  std::cerr.rdbuf(nullptr);  // the server logs every step to stderr; sanitizer reports use fd 2 directly
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!g_ws.empty()) {
    std::error_code ec;
    fs::remove_all(g_ws / ".git" / "revline", ec);  // no cache or dismissals carried between inputs
  }

  const std::string input(reinterpret_cast<const char*>(data), size);
  const auto quiet = [](const std::string&) {};
  std::vector<std::vector<std::string>> batches;
  lsp::FrameReader reader(1 << 16, quiet);
  for (const std::string& part : {input.substr(0, size / 2), input.substr(size / 2)}) {
    std::vector<std::string> bodies;
    std::vector<lsp::FrameReader::Oversized> oversized;
    reader.feed(part, bodies, oversized);
    if (!bodies.empty()) batches.push_back(std::move(bodies));
  }
  if (batches.empty()) return 0;

  // Requests the server must answer (when it is not told to exit).
  std::map<std::string, int> expected;
  bool exits = false;
  for (const auto& batch : batches) {
    for (const auto& body : batch) {
      const json j = json::parse(body, nullptr, false);
      if (j.is_discarded()) continue;
      const lsp::Message m = lsp::classify(j);
      if (const auto* r = std::get_if<lsp::Request>(&m); r && validId(r->id)) ++expected[r->id.dump()];
      if (const auto* n = std::get_if<lsp::Notification>(&m); n && n->method == "exit") exits = true;
    }
  }

  BatchTransport transport(std::move(batches));
  transport.log = quiet;
  {
    lsp::ServerOptions options;
    options.sync = true;
    options.providerFactory = [](const config::Config&, const diff::Diff& d, const fs::path&) {
      return std::make_unique<builtin::BuiltinProvider>(d);
    };
    lsp::Server server(transport, std::move(options));
    (void)server.run();
  }

  static const bool verbose = std::getenv("REVLINE_FUZZ_VERBOSE") != nullptr;  // to study one input
  std::map<std::string, int> answered;
  for (const std::string& body : transport.written) {
    if (verbose) std::fprintf(stderr, "server: %s\n", body.c_str());
    const json m = json::parse(body);  // throws (a crash) if the server wrote something that is not JSON
    if (m.contains("id") && !m.contains("method")) ++answered[m["id"].dump()];
  }
  if (!exits) {
    for (const auto& [id, n] : expected)
      if (answered[id] < n) {
        std::fprintf(stderr, "fuzz_jsonrpc: request %s sent %d times, answered %d times\n", id.c_str(), n,
                     answered[id]);
        std::abort();
      }
  }
  return 0;
}
