// The language server on a repository nobody here wrote, with the default
// builtin reviewer: a workspace review with special files stays bounded in time
// and memory, and the repository's .revline.json cannot choose where code and
// credentials go (editor settings can, and win).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "lsp/protocol.h"
#include "tests/support/temp_repo.h"
#include "tests/unit/lsp/lsp_client.h"
#include "tests/unit/providers/fake_server.h"

namespace revline::lsp {
namespace {

namespace fs = std::filesystem;
using revline::testing::TempDir;
using revline::testing::TempRepo;
using testing::LspClient;
using namespace std::chrono_literals;

struct Hostile : ::testing::Test {
  TempRepo repo;
  TempDir xdg;
  std::string uri;
  void SetUp() override {
    ::setenv("XDG_CONFIG_HOME", xdg.path().c_str(), 1);  // never the real ~/.config
    repo.write("src/Service.java", "class Service {\n  void a() {}\n}\n");
    repo.commitAll("base");
    repo.write("src/Service.java",
               "class Service {\n  void a() {}\n  boolean ok(String s) {\n    return s == \"OK\";\n  }\n}\n");
    uri = uriFromPath((root() / "src/Service.java").string());
  }
  fs::path root() { return fs::canonical(repo.root()); }
  std::string rootUri() { return uriFromPath(root().string()); }
  void save(LspClient& c) { c.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}}); }

  // Every server message until the diagnostics of `uri` arrive, then whatever follows within 300 ms.
  std::vector<json> untilDiagnostics(LspClient& c) {
    std::vector<json> seen;
    bool done = false;
    const auto deadline = std::chrono::steady_clock::now() + 15s;
    while (std::chrono::steady_clock::now() < deadline) {
      auto m = c.transport().clientReceive(done ? 300ms : 1000ms);
      if (!m) {
        if (done) break;
        continue;
      }
      if (m->value("method", "") == "window/logMessage") continue;
      seen.push_back(*m);
      if (m->value("method", "") == "textDocument/publishDiagnostics" && (*m)["params"]["uri"] == uri) done = true;
    }
    EXPECT_TRUE(done) << "no diagnostics for " << uri;
    return seen;
  }
  json diagnosticsOf(const std::vector<json>& seen) {
    for (const auto& m : seen)
      if (m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri) return m;
    return json();
  }
  std::string shown(const std::vector<json>& seen) {
    std::string all;
    for (const auto& m : seen)
      if (m.value("method", "") == "window/showMessage") all += m["params"]["message"].get<std::string>() + "\n";
    return all;
  }
};

TEST_F(Hostile, WorkspaceReviewWithSpecialFilesIsBoundedInTimeAndMemory) {
  fs::create_symlink("/dev/zero", repo.root() / "Evil.java");
  ASSERT_EQ(::mkfifo((repo.root() / "Pipe.java").c_str(), 0600), 0);
  { std::ofstream(repo.root() / "Big.java"); }
  fs::resize_file(repo.root() / "Big.java", std::uintmax_t(2) << 30);
  TempDir outside;
  std::ofstream(outside.path() / "id_rsa") << "not yours\n";
  fs::create_symlink(outside.path() / "id_rsa", repo.root() / "Out.java");

  LspClient c(ServerOptions{});
  c.initialize(rootUri(), {{"review_scope", "workspace"}, {"debounce_ms", 0}});
  const auto start = std::chrono::steady_clock::now();
  save(c);
  const std::vector<json> seen = untilDiagnostics(c);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  EXPECT_LT(u.ru_maxrss, 512 * 1024) << "peak memory " << u.ru_maxrss / 1024 << " MB";
  const json d = diagnosticsOf(seen);
  ASSERT_FALSE(d.is_null());
  EXPECT_GE(d["params"]["diagnostics"].size(), 1u) << d.dump();  // the real change is still reviewed
  EXPECT_EQ(c.stop(), 0);
}

// A dismissed.json planted under `.git/revline/` (a finding's id is computable:
// the builtin reviewer's are deterministic) hides nothing: the file holds ids
// keyed with the user's secret. Before, the planted id hid the finding.
TEST_F(Hostile, APlantedDismissalHidesNothing) {
  std::string id;
  {
    LspClient c(ServerOptions{});
    c.initialize(rootUri(), {{"debounce_ms", 0}});
    save(c);
    const json d = diagnosticsOf(untilDiagnostics(c));
    ASSERT_GE(d["params"]["diagnostics"].size(), 1u) << d.dump();
    id = d["params"]["diagnostics"][0]["data"]["id"].get<std::string>();
    EXPECT_EQ(c.stop(), 0);
  }
  fs::remove_all(repo.root() / ".git" / "revline");  // a fresh review, nothing cached
  repo.write(".git/revline/dismissed.json", json{{"dismissed", {id}}}.dump());
  LspClient c(ServerOptions{});
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  save(c);
  const json d = diagnosticsOf(untilDiagnostics(c));
  bool shownAgain = false;
  for (const auto& diagnostic : d["params"]["diagnostics"]) shownAgain |= diagnostic["data"]["id"] == id;
  EXPECT_TRUE(shownAgain) << d.dump();
  EXPECT_EQ(c.stop(), 0);
}

// A dismissal the file cannot keep (`dismissed.json` a directory) is said, and
// holds for the session: before, it was lost at the next start in silence.
TEST_F(Hostile, ADismissalThatCannotBeSavedIsSaid) {
  LspClient c(ServerOptions{});
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  save(c);
  const json d = diagnosticsOf(untilDiagnostics(c));
  ASSERT_GE(d["params"]["diagnostics"].size(), 1u) << d.dump();
  const std::string id = d["params"]["diagnostics"][0]["data"]["id"];
  fs::create_directories(repo.root() / ".git" / "revline" / "dismissed.json");
  const int r = c.request("workspace/executeCommand",
                          {{"command", "revline.dismissFinding"}, {"arguments", json::array({{{"uri", uri}, {"id", id}}})}});
  const json shown = c.notification("window/showMessage");
  EXPECT_NE(shown["params"]["message"].get<std::string>().find("could not be saved in "), std::string::npos)
      << shown.dump();
  EXPECT_EQ(c.reply(r)["result"], json(nullptr));
  const json after = c.notification("textDocument/publishDiagnostics");
  for (const auto& diagnostic : after["params"]["diagnostics"]) EXPECT_NE(diagnostic["data"]["id"], id);
  EXPECT_EQ(c.stop(), 0);
}

TEST_F(Hostile, ItsGitConfigRunsNoProgramOnSaveAndIsNamedOnce) {
  TempDir markers;
  const std::string touch = "touch '" + (markers.path() / "ran").string() + "'";
  repo.git("config core.fsmonitor \"" + touch + "; false\"");
  repo.write(".git/hooks/post-index-change", "#!/bin/sh\n" + touch + "\n");
  fs::permissions(repo.root() / ".git/hooks/post-index-change", fs::perms::owner_all);
  repo.write("src/New.java", "class New {}\n");  // untracked: revline's `git add -N` on its private index

  LspClient c(ServerOptions{});
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  save(c);
  std::string messages = shown(untilDiagnostics(c));
  EXPECT_NE(messages.find("revline: " + root().string() + ": the repository's own git config names programs for "
                          "git to run (core.fsmonitor); revline did not let them run. If you trust this repository, "
                          "run `revline trust " + root().string() + "`"),
            std::string::npos)
      << messages;
  repo.write("src/Service.java", repo.read("src/Service.java") + "// again\n");
  save(c);
  messages = shown(untilDiagnostics(c));
  EXPECT_EQ(messages.find("names programs"), std::string::npos) << "said again on the next save: " << messages;
  EXPECT_FALSE(fs::exists(markers.path() / "ran")) << "a save ran a program of the repository's git config";
  EXPECT_EQ(c.stop(), 0);
}

// A finding on a symlink that leads out of the repository: its range is measured
// without reading the file behind it (the server reads files inside the repository only).
TEST_F(Hostile, AFindingOnASymlinkOutOfTheRepositoryReadsNothingOutside) {
  TempDir outside;
  std::ofstream(outside.path() / "secret.py") << std::string(57, 'x') << "\n";
  fs::create_symlink(outside.path() / "secret.py", repo.root() / "link.py");
  revline::testing::FakeServer model;
  const json finding = {{"file", "link.py"}, {"line", 1}, {"endLine", nullptr}, {"severity", "MINOR"},
                        {"category", "STYLE"}, {"title", "A link"}, {"explanation", "Points elsewhere."},
                        {"suggestedFix", nullptr}, {"edit", nullptr}, {"confidence", 0.9}};
  model.enqueue(revline::testing::Reply::openAiAnswer(
      json{{"summary", "s"}, {"verdict", "COMMENT"}, {"findings", {finding}}}.dump()));
  LspClient c(ServerOptions{});
  c.initialize(rootUri(), {{"debounce_ms", 0}, {"provider", "openai"}, {"base_url", model.url("/v1")}, {"model", "m"},
                           {"api_key_env", "HOME"}, {"review_scope", "workspace"}});
  save(c);  // the workspace's diff holds the symlink (untracked: added)
  // (Service.java, closed and without a finding, gets no empty list: only the link is published.)
  const json onLink = c.waitFor([&](const json& m) {
    return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] != uri;
  }, "diagnostics on the symlink");
  ASSERT_FALSE(onLink["params"]["diagnostics"].empty()) << onLink.dump();
  EXPECT_NE(onLink["params"]["diagnostics"][0]["range"]["end"]["character"], 57)
      << "the range was measured on the file outside the repository";
  EXPECT_EQ(c.stop(), 0);
}

// A named pipe where git expects a file kept every save waiting for the git
// timeout (2 minutes), and one under .git/config kept the whole server waiting
// (the repository is found on the main loop). Now each save ends at once with
// a message naming the file, and removing it brings the reviews back.
TEST_F(Hostile, ANamedPipeWhereGitExpectsAFileIsNamedAndNothingWaits) {
  // The first message whose text has `needle`, within 10 s (a hang fails here).
  auto messageWith = [](LspClient& c, const std::string& needle) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      auto m = c.transport().clientReceive(200ms);
      if (m && m->value("method", "") == "window/showMessage" &&
          (*m)["params"]["message"].get<std::string>().find(needle) != std::string::npos)
        return (*m)["params"]["message"].get<std::string>();
    }
    return std::string("no message with: ") + needle;
  };
  struct Planted {
    std::string file;      // repository-relative, made a named pipe
    std::string message;   // what the save shows
  };
  const Planted cases[] = {
      // git diff reads it: the review fails at once.
      {"src/.gitattributes",
       "revline: review of src/Service.java failed: git was stopped: 'src/.gitattributes' is a named pipe (FIFO) "
       "where git expects a file (attributes git reads): git would wait on it forever. Remove it, or replace it "
       "with a regular file"},
      // The repository's own config: the server cannot even find the repository.
      {".git/config",
       "revline: nothing here is reviewed: git was not run: '.git/config' is a named pipe (FIFO) where git expects "
       "a file (the repository's git config): git would wait on it forever. Remove it, or replace it with a "
       "regular file"},
  };
  for (const Planted& planted : cases) {
    SCOPED_TRACE(planted.file);
    const fs::path pipe = repo.root() / planted.file;
    const std::string before = fs::exists(pipe) ? repo.read(planted.file) : std::string();
    fs::remove(pipe);
    ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
    LspClient c(ServerOptions{});
    c.initialize(rootUri(), {{"debounce_ms", 0}});
    save(c);
    EXPECT_EQ(messageWith(c, planted.file), planted.message);
    fs::remove(pipe);
    if (!before.empty()) repo.write(planted.file, before);
    save(c);
    EXPECT_FALSE(diagnosticsOf(untilDiagnostics(c)).is_null());
    EXPECT_EQ(c.stop(), 0);
  }
}

// The commands a user tries next say the same reason as the save's message; they
// said "is not in a git repository" of a repository git refused to read.
TEST_F(Hostile, AReviewCommandInARepositoryGitCannotReadSaysWhy) {
  const fs::path config = repo.root() / ".git" / "config";
  const std::string before = repo.read(".git/config");
  fs::remove(config);
  ASSERT_EQ(::mkfifo(config.c_str(), 0600), 0);
  LspClient c(ServerOptions{});
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  const auto errorOf = [&c](const std::string& command, const json& arguments) {
    const json r = c.reply(c.request("workspace/executeCommand", {{"command", command}, {"arguments", arguments}}));
    return r.contains("error") ? r["error"].value("message", r.dump()) : r.dump();
  };
  const std::string why = "git was not run: '.git/config' is a named pipe (FIFO) where git expects a file";
  EXPECT_NE(errorOf("revline.reviewFile", {{{"uri", uri}}}).find("cannot be reviewed: " + why), std::string::npos);
  EXPECT_NE(errorOf("revline.reviewWorkspace", json::array()).find("nothing here can be reviewed: " + why), std::string::npos);
  c.notification("window/showMessage");  // shown once, for the first of them
  fs::remove(config);
  repo.write(".git/config", before);
  EXPECT_EQ(c.stop(), 0);
}

// "Review workspace" in the editor: an untracked file over the 8 MiB cap is
// not in the diff, so the change was not all reviewed and is not approved.
TEST_F(Hostile, AWorkspaceReviewWithAnUntrackedFileOverTheCapIsNotApproved) {
  repo.write("src/Service.java", "class Service {\n  void a() {}\n  void b() {}\n}\n");  // nothing to find
  LspClient c(ServerOptions{});
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  auto verdict = [&c] {
    const int id = c.request("workspace/executeCommand", {{"command", "revline.reviewWorkspace"}, {"arguments", json::array()}});
    const json r = c.reply(id);  // (Service.java, closed and clean, gets no empty list)
    return r["result"].value("verdict", r.dump());
  };
  EXPECT_EQ(verdict(), "APPROVE");  // the change alone
  { std::ofstream(repo.root() / "dump.sql"); }
  fs::resize_file(repo.root() / "dump.sql", 9u << 20);
  EXPECT_EQ(verdict(), "COMMENT");
  EXPECT_NE(c.log("dump.sql: untracked, 9437184 bytes, over the 8 MiB limit (8388608 bytes) for untracked files; "
                  "not reviewed"),
            "");
  // ...and the user is shown it: no diagnostic on dump.sql does not mean it was looked at.
  const std::string warning = c.notification("window/showMessage")["params"]["message"];
  EXPECT_NE(warning.find("part of the change was not reviewed"), std::string::npos) << warning;
  EXPECT_NE(warning.find("left out: dump.sql: untracked, 9437184 bytes"), std::string::npos) << warning;
  EXPECT_EQ(c.stop(), 0);
}

// `git commit` opens .git/COMMIT_EDITMSG in the editor: a file of no work tree,
// not reviewed, and no warning about it either (it is no broken repository).
TEST_F(Hostile, TheCommitMessageFileIsNotReviewedAndNotWarnedAbout) {
  repo.write(".git/COMMIT_EDITMSG", "Fix the check\n");
  const std::string message = uriFromPath((root() / ".git" / "COMMIT_EDITMSG").string());
  LspClient c(ServerOptions{});
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", message}, {"languageId", "gitcommit"}, {"version", 1},
                                                      {"text", "Fix the check\n"}}}});
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", message}}}});
  save(c);  // a real save after it, to know the server got that far
  const std::string messages = shown(untilDiagnostics(c));
  EXPECT_EQ(messages, "") << messages;
  EXPECT_EQ(c.stop(), 0);
}

TEST_F(Hostile, UntrustedConfigIsIgnoredWithAMessageAndEditorSettingsWin) {
  revline::testing::FakeServer collector, mine;
  repo.write(".revline.json", R"({"provider": "openai", "base_url": ")" + collector.url("/v1") +
                                  R"(", "api_key_env": "HOME", "model": "test"})");
  {
    LspClient c(ServerOptions{});
    c.initialize(rootUri(), {{"debounce_ms", 0}});
    save(c);
    const std::vector<json> seen = untilDiagnostics(c);
    const std::string messages = shown(seen);
    EXPECT_NE(messages.find("revline: " + (root() / ".revline.json").string() +
                            ": ignored base_url, api_key_env, model, provider (\"openai\"): this repository is not trusted"),
              std::string::npos)
        << messages;
    EXPECT_EQ(collector.requestCount(), 0u);
    EXPECT_EQ(c.stop(), 0);
  }
  {
    mine.enqueue(revline::testing::Reply::fromFixture("openai_review.json"));
    LspClient c(ServerOptions{});
    c.initialize(rootUri(), {{"debounce_ms", 0}, {"provider", "openai"}, {"base_url", mine.url("/v1")}, {"model", "test"}});
    save(c);
    untilDiagnostics(c);
    EXPECT_EQ(collector.requestCount(), 0u);
    EXPECT_EQ(mine.requestCount(), 1u) << "the editor settings choose the endpoint";
    EXPECT_EQ(c.stop(), 0);
  }
}

}  // namespace
}  // namespace revline::lsp

namespace revline::lsp {
namespace {

TEST(OversizedMessage, IsLoggedOnceNotOncePerChunk) {
  // 64 MiB is the cap: announce more, then send 8 MiB of body, then end the input.
  const std::string input = "Content-Length: 99999999999\r\n\r\n" + std::string(8u << 20, 'x');
  revline::testing::TempDir dir;
  const auto r = revline::testing::runRevline("lsp", dir.path(), input);
  std::size_t lines = 0;
  for (char ch : r.err) lines += ch == '\n';
  EXPECT_LE(lines, 6u) << r.err.substr(0, 2000);
  EXPECT_NE(r.err.find("exceeds the limit"), std::string::npos) << r.err.substr(0, 2000);
  // The body is skipped by its length (not dropped as headerless junk, chunk by chunk).
  EXPECT_NE(r.err.find("input ended inside a message over the size limit"), std::string::npos) << r.err.substr(0, 2000);
}

std::string framed(const std::string& body) { return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body; }

TEST(OversizedMessage, IsAnsweredWhereverItsIdIsAndTheServerStaysInSync) {
  // The real binary with a 64 KiB limit: a request with its id after 2 MiB of
  // params, one with its id first, then a request the server must still read.
  const std::string padding(2u << 20, 'x');
  const std::string input =
      framed(R"({"jsonrpc":"2.0","method":"textDocument/formatting","params":{"id":7,"t":"Content-Length: 3 )" + padding +
             R"("},"id":41})") +
      framed(R"({"jsonrpc":"2.0","id":"first","method":"textDocument/formatting","params":{"t":")" + padding + R"("}})") +
      framed(R"({"jsonrpc":"2.0","id":43,"method":"shutdown"})") + framed(R"({"jsonrpc":"2.0","method":"exit"})");
  revline::testing::TempDir dir;
  const auto r = revline::testing::runRevline("lsp --max-message-bytes 65536", dir.path(), input);
  std::vector<std::string> bodies, logs;
  std::vector<FrameReader::Oversized> oversized;
  FrameReader(1u << 20, [&](const std::string& l) { logs.push_back(l); }).feed(r.out, bodies, oversized);
  ASSERT_EQ(bodies.size(), 3u) << r.out.substr(0, 2000);
  const json late = json::parse(bodies[0]), first = json::parse(bodies[1]), next = json::parse(bodies[2]);
  EXPECT_EQ(late["id"], 41);
  EXPECT_EQ(late["error"]["code"], -32600);
  EXPECT_NE(late["error"]["message"].get<std::string>().find("exceeds the limit of 65536 bytes"), std::string::npos);
  EXPECT_NE(late["error"]["message"].get<std::string>().find("--max-message-bytes"), std::string::npos);
  EXPECT_EQ(first["id"], "first");
  EXPECT_EQ(first["error"]["code"], -32600);
  EXPECT_EQ(next["id"], 43);  // read whole and answered (before initialize: -32002)
  EXPECT_EQ(next["error"]["code"], -32002);
  EXPECT_TRUE(logs.empty());
}

}  // namespace
}  // namespace revline::lsp
