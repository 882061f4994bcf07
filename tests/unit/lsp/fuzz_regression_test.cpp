// Regressions found by the fuzz and soak runs (scripts/fuzz, tests/soak).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>

#include "core/builtin/builtin_provider.h"
#include "lsp/protocol.h"
#include "tests/support/temp_repo.h"
#include "tests/unit/lsp/lsp_client.h"

namespace revline::lsp {
namespace {
namespace fs = std::filesystem;

// Sanitized suite (heap-use-after-free in Server::workerLoop): the worker waited
// for a pending job's debounce with condition_variable::wait_until(lock,
// job->due), a reference into the job; a save arriving meanwhile replaced that
// job (freeing it) and the waking worker read the freed deadline. Saves in
// quick succession within the debounce reproduce it (under AddressSanitizer).
TEST(FuzzRegression, SavesReplacingAJobWhileTheWorkerWaitsOnItsDebounce) {
  revline::testing::TempRepo repo;
  repo.write("a.c", "int main(void) {\n  return 0;\n}\n");
  repo.commitAll("init");
  repo.write("a.c", "#include <string.h>\nint main(int argc, char** argv) {\n  char b[4];\n  strcpy(b, argv[1]);\n"
                    "  return 0;\n}\n");
  const fs::path root = fs::canonical(repo.root());
  ServerOptions options;
  options.providerFactory = [](const config::Config&, const diff::Diff& d, const fs::path&) {
    return std::make_unique<builtin::BuiltinProvider>(d);
  };
  lsp::testing::LspClient c(std::move(options));
  c.initialize(uriFromPath(root.string()), {{"debounce_ms", 40}});
  const std::string uri = uriFromPath((root / "a.c").string());
  for (int i = 0; i < 30; ++i) {
    c.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
  json d = c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(d["params"]["uri"], uri);
  c.expectQuiet(std::chrono::milliseconds(300));
  EXPECT_EQ(c.server().stats().reviewsStarted, 1);
  EXPECT_EQ(c.stop(), 0);
}

// An integer field of a request holding 1e300 was converted by nlohmann's own cast,
// undefined behaviour (UBSan: "outside the range of representable values of type
// 'int'"); 3.7 was cut to 3. Now it is InvalidParams naming the field, and a whole
// 3.0 is still 3.
TEST(FuzzRegression, AnIntegerFieldOutOfRangeIsInvalidParams) {
  revline::testing::TempRepo repo;
  repo.write("a.c", "int x;\n");
  repo.commitAll("init");
  const fs::path root = fs::canonical(repo.root());
  lsp::testing::LspClient c{ServerOptions()};
  c.initialize(uriFromPath(root.string()));
  const std::string uri = uriFromPath((root / "a.c").string());
  const auto codeAction = [&](const json& line) {
    const json position = {{"line", line}, {"character", 0}};
    return c.reply(c.request("textDocument/codeAction", {{"textDocument", {{"uri", uri}}},
                                                          {"range", {{"start", position}, {"end", position}}},
                                                          {"context", {{"diagnostics", json::array()}}}}));
  };
  for (const json& bad : {json(1e300), json(-1e300), json(3.7), json(4294967296LL)}) {
    const json r = codeAction(bad);
    ASSERT_TRUE(r.contains("error")) << r.dump();
    EXPECT_EQ(r["error"]["code"], -32602) << r.dump();
    const std::string message = r["error"]["message"];
    EXPECT_NE(message.find("range.start.line"), std::string::npos) << message;
  }
  EXPECT_NE(codeAction(json(1e300))["error"]["message"].get<std::string>().find("is out of range, expected -2147483648..2147483647"),
            std::string::npos);
  EXPECT_NE(codeAction(json(3.7))["error"]["message"].get<std::string>().find("expected a whole number, got 3.7"),
            std::string::npos);
  const json whole = codeAction(json(3.0));
  EXPECT_FALSE(whole.contains("error")) << whole.dump();
  EXPECT_EQ(c.stop(), 0);
}

}  // namespace
}  // namespace revline::lsp
