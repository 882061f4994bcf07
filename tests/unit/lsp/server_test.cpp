// The server in-process, through the in-memory transport, with scripted
// providers: the asynchronous paths (debounce, the worker, cancellation of a
// review in flight) that the --sync transcripts cannot show.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <fstream>

#include "core/builtin/builtin_provider.h"
#include "lsp/protocol.h"
#include "tests/support/notebook.h"
#include "tests/support/temp_repo.h"
#include "tests/unit/lsp/lsp_client.h"

namespace revline::lsp {
namespace {

using revline::testing::TempRepo;
using testing::LspClient;
using namespace std::chrono_literals;

// A provider whose answers the test controls: it reports one finding on line 1
// of `file`, optionally after waiting for the test to open the gate.
struct Script {
  std::mutex mu;
  std::condition_variable cv;
  bool gateOpen = true;
  int calls = 0;
  int cancelled = 0;
  bool fail = false;
  std::string failure = "401 Unauthorized";  // what a failing call says (with fail)
  review::ProviderError::Kind failureKind = review::ProviderError::Kind::Auth;
  std::string file = "a.txt";

  // Every call fails with `kind` saying `what`.
  void failWith(review::ProviderError::Kind kind, std::string what) {
    fail = true;
    failureKind = kind;
    failure = std::move(what);
  }
  void close() { std::lock_guard<std::mutex> l(mu); gateOpen = false; }
  void open() { std::lock_guard<std::mutex> l(mu); gateOpen = true; cv.notify_all(); }
  bool waitForCalls(int n) {
    std::unique_lock<std::mutex> l(mu);
    return cv.wait_for(l, 10s, [&] { return calls >= n; });
  }
};

class ScriptedProvider : public review::Provider {
 public:
  explicit ScriptedProvider(Script& s) : s_(s) {}
  std::string name() const override { return "scripted"; }
  std::string model() const override { return "m1"; }
  bool metered() const override { return true; }  // a model behind an API: its calls are spent
  review::ModelResponse complete(const review::ModelRequest&, const CancelToken& cancel) override {
    std::unique_lock<std::mutex> l(s_.mu);
    ++s_.calls;
    s_.cv.notify_all();
    while (!s_.gateOpen) {
      if (cancel.cancelled()) {
        ++s_.cancelled;
        throw Cancelled();
      }
      s_.cv.wait_for(l, 5ms);
    }
    if (s_.fail) throw review::ProviderError(s_.failureKind, s_.failure);
    return findingOnFirstLineOf(s_.file);
  }

 protected:
  // An answer with one MINOR finding on line 1 of `file`.
  static review::ModelResponse findingOnFirstLineOf(const std::string& file) {
    review::ModelResponse r;
    r.text = json{{"summary", "s"},
                  {"verdict", "COMMENT"},
                  {"findings",
                   {{{"file", file}, {"line", 1}, {"endLine", nullptr}, {"severity", "MINOR"}, {"category", "STYLE"},
                     {"title", "Scripted finding"}, {"explanation", "Because."}, {"suggestedFix", nullptr},
                     {"edit", nullptr}, {"confidence", 0.9}}}}}
                 .dump();
    return r;
  }

 private:
  Script& s_;
};

ServerOptions scripted(Script& s, bool sync = false) {
  ServerOptions o;
  o.sync = sync;
  o.providerFactory = [&s](const config::Config&, const diff::Diff&, const std::filesystem::path&) {
    return std::make_unique<ScriptedProvider>(s);
  };
  return o;
}

// Synchronous and scripted, recording the max_attempts each review's settings allow.
ServerOptions recordingAttempts(Script& s, std::vector<int>& attemptsAllowed) {
  ServerOptions o = scripted(s, /*sync=*/true);
  o.providerFactory = [&s, &attemptsAllowed](const config::Config& config, const diff::Diff&, const std::filesystem::path&) {
    attemptsAllowed.push_back(config.review.maxAttempts);
    return std::make_unique<ScriptedProvider>(s);
  };
  return o;
}

struct Fixture : ::testing::Test {
  TempRepo repo;
  std::string uri;
  void SetUp() override {
    repo.write("a.txt", "one\ntwo\n");
    repo.commitAll("init");
    repo.write("a.txt", "one changed\ntwo\n");
    uri = uriFromPath((std::filesystem::canonical(repo.root()) / "a.txt").string());
  }
  std::string rootUri() { return uriFromPath(std::filesystem::canonical(repo.root()).string()); }
  void save(LspClient& c) { c.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}}); }
  // Saves `rel` in a client that takes progress: the message the review's progress ends with.
  std::string progressEndOfSaving(LspClient& c, const std::string& rel) {
    const std::string saved = uriFromPath((std::filesystem::canonical(repo.root()) / rel).string());
    c.notify("textDocument/didSave", {{"textDocument", {{"uri", saved}}}});
    c.acceptProgressCreate();
    return c.progressEnd().value("message", "");
  }
  // Edits and saves a.txt again; the message the save shows.
  std::string editSaveAndShown(LspClient& c) {
    repo.write("a.txt", "one changed again\ntwo\n");
    save(c);
    return c.notification("window/showMessage")["params"]["message"].get<std::string>();
  }
  // Every diagnostics published until the server is quiet (at least one) are empty.
  static void expectOnlyEmptyDiagnostics(LspClient& c) {
    int published = 0;
    for (auto m = c.transport().clientReceive(1s); m; m = c.transport().clientReceive(500ms)) {
      if (m->value("method", "") != "textDocument/publishDiagnostics") continue;
      ++published;
      EXPECT_TRUE((*m)["params"]["diagnostics"].empty()) << m->dump();
    }
    EXPECT_GE(published, 1);
  }
  // a.txt open as saved, then saved with no debounce: the review's model call waits on the script's gate.
  void startBlockedReviewOfOpenFile(Script& s, LspClient& c) {
    s.close();
    c.initialize(rootUri(), {{"debounce_ms", 0}});
    c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "text"}, {"version", 1},
                                                       {"text", "one changed\ntwo\n"}}}});
    save(c);
    ASSERT_TRUE(s.waitForCalls(1));
  }
  // Saved with no debounce: the review's model call is made and waits on the script's gate.
  void startBlockedReview(Script& s, LspClient& c) {
    s.close();
    c.initialize(rootUri(), {{"debounce_ms", 0}});
    save(c);
    ASSERT_TRUE(s.waitForCalls(1));
  }
};

TEST_F(Fixture, ReviewRunsOnTheWorkerAfterTheDebounceWhileRequestsAreAnswered) {
  Script s;
  s.close();
  LspClient c(scripted(s));
  c.initialize(rootUri(), {{"debounce_ms", 50}});
  save(c);
  ASSERT_TRUE(s.waitForCalls(1));  // the provider is working, and blocked
  const int hover = c.request("textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", {{"line", 0}, {"character", 0}}}});
  EXPECT_EQ(c.reply(hover)["result"], json(nullptr));  // answered during the review
  s.open();
  json d = c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(d["params"]["uri"], uri);
  ASSERT_EQ(d["params"]["diagnostics"].size(), 1u);
  EXPECT_EQ(d["params"]["diagnostics"][0]["severity"], 3);
  EXPECT_EQ(d["params"]["diagnostics"][0]["code"], "STYLE");
  EXPECT_EQ(c.stop(), 0);
}

TEST_F(Fixture, SavesWithinTheDebounceMakeOneReview) {
  Script s;
  LspClient c(scripted(s));
  c.initialize(rootUri(), {{"debounce_ms", 300}});
  for (int i = 0; i < 3; ++i) save(c);
  c.notification("textDocument/publishDiagnostics");
  c.expectQuiet(500ms);
  EXPECT_EQ(s.calls, 1);
  EXPECT_EQ(c.server().stats().reviewsStarted, 1);
  EXPECT_EQ(c.stop(), 0);
}

// The cancelled request was sent, and may be billed: the session's usage counts
// it as a request (its tokens are unknown: the model never answered).
TEST_F(Fixture, AReviewCancelledInFlightStillCountsAsARequest) {
  Script s;
  LspClient c(scripted(s));
  ASSERT_NO_FATAL_FAILURE(startBlockedReview(s, c));
  // "Review this file now" starts afresh: the review in flight is cancelled, the command's is blocked in turn.
  const int id = c.request("workspace/executeCommand",
                           {{"command", "revline.reviewFile"}, {"arguments", json::array({{{"uri", uri}}})}});
  ASSERT_TRUE(s.waitForCalls(2));
  EXPECT_EQ(s.cancelled, 1);
  s.open();
  c.reply(id);
  c.notification("textDocument/publishDiagnostics");
  c.expectQuiet();
  const json stats = c.reply(c.request("revline/stats", json::object()))["result"];
  EXPECT_EQ(stats["reviewsCancelled"], 1);
  EXPECT_EQ(stats["providerCalls"], 2);
  EXPECT_EQ(stats["usage"]["requests"], 2) << stats.dump();
  EXPECT_EQ(c.stop(), 0);
}

// A save with a change while the model answers the review of the file: that
// request is paid for, so it is not thrown away (a save every few seconds with
// a slow model paid for requests that never answered); its findings are
// published, and the change is reviewed after it.
TEST_F(Fixture, ASaveWithAChangeWhileTheModelAnswersLetsItFinishThenReviewsTheChange) {
  Script s;
  LspClient c(scripted(s));
  ASSERT_NO_FATAL_FAILURE(startBlockedReview(s, c));
  repo.write("a.txt", "one changed\ntwo changed\n");  // line 1, which the finding is on, as reviewed
  save(c);
  c.expectQuiet(300ms);  // the prober has read the change and let the review go on
  EXPECT_EQ(s.calls, 1);
  s.open();
  EXPECT_EQ(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].size(), 1u);
  ASSERT_TRUE(s.waitForCalls(2));  // the change, reviewed after
  EXPECT_EQ(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].size(), 1u);
  c.expectQuiet();
  EXPECT_EQ(s.cancelled, 0);
  const json stats = c.reply(c.request("revline/stats", json::object()))["result"];
  EXPECT_EQ(stats["reviewsCancelled"], 0);
  EXPECT_EQ(stats["providerCalls"], 2);
  EXPECT_EQ(c.stop(), 0);
}

// Holds the review of a.txt at the script's gate; answers any other file at
// once, with a finding on its first line.
class HoldingProvider : public ScriptedProvider {
 public:
  using ScriptedProvider::ScriptedProvider;
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken& cancel) override {
    if (request.messages.at(0).text.find("File: a.txt") != std::string::npos) return ScriptedProvider::complete(request, cancel);
    return findingOnFirstLineOf("b.txt");
  }
};

// a.txt and b.txt both changed (b.txt committed first).
void changeAAndB(TempRepo& repo) {
  repo.write("b.txt", "x\n");
  repo.commitAll("b");
  repo.write("a.txt", "one changed twice\ntwo\n");
  repo.write("b.txt", "x changed\n");
}

// Scripted, with a.txt's reviews held at the gate (HoldingProvider).
ServerOptions holdingA(Script& s) {
  ServerOptions options = scripted(s);
  options.providerFactory = [&s](const config::Config&, const diff::Diff&, const std::filesystem::path&) {
    return std::make_unique<HoldingProvider>(s);
  };
  return options;
}

// A model that does not answer one file's review (slow, or hung until its
// timeout) holds up no other file's: the review of b.txt, saved while a.txt's
// waits, is published at once (before, it waited in line for minutes).
TEST_F(Fixture, ASlowReviewOfOneFileHoldsUpNoOtherFile) {
  changeAAndB(repo);
  Script s;
  LspClient c(holdingA(s));
  ASSERT_NO_FATAL_FAILURE(startBlockedReview(s, c));  // a.txt's review waits at the gate
  const std::string b = uriFromPath((std::filesystem::canonical(repo.root()) / "b.txt").string());
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", b}}}});
  const json d = c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(d["params"]["uri"], b);
  EXPECT_EQ(d["params"]["diagnostics"].size(), 1u);
  EXPECT_EQ(s.cancelled, 0);
  s.open();
  const json a = c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(a["params"]["uri"], uri);
  EXPECT_EQ(a["params"]["diagnostics"].size(), 1u);
  EXPECT_EQ(c.stop(), 0);
}

// Reviews of one repository held by the model (or by git) in every worker hold
// up no other repository's review: three saves whose reviews hang in one
// repository, and a file of another repository saved after them is reviewed
// at once. Before, it waited for the three (a git of 40 s: 39.6 s).
TEST_F(Fixture, SlowReviewsOfOneRepositoryHoldUpNoOtherRepository) {
  namespace fs = std::filesystem;
  class HeldInOneRepository : public ScriptedProvider {
   public:
    HeldInOneRepository(Script& s, bool held) : ScriptedProvider(s), held_(held) {}
    review::ModelResponse complete(const review::ModelRequest& request, const CancelToken& cancel) override {
      return held_ ? ScriptedProvider::complete(request, cancel) : findingOnFirstLineOf("b.txt");
    }
   private:
    bool held_;
  };
  TempRepo other;
  other.write("b.txt", "x\n");
  other.commitAll("b");
  other.write("b.txt", "x changed\n");
  const fs::path slow = fs::canonical(repo.root());
  for (const char* f : {"h1.txt", "h2.txt", "h3.txt"}) repo.write(f, "held\n");
  Script s;
  s.close();
  ServerOptions options = scripted(s);
  options.providerFactory = [&s, slow](const config::Config&, const diff::Diff&, const fs::path& root) {
    return std::make_unique<HeldInOneRepository>(s, fs::canonical(root) == slow);
  };
  LspClient c(std::move(options));
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  for (const char* f : {"h1.txt", "h2.txt", "h3.txt"})
    c.notify("textDocument/didSave", {{"textDocument", {{"uri", uriFromPath((slow / f).string())}}}});
  ASSERT_TRUE(s.waitForCalls(3));  // every worker waits on the model
  const std::string b = uriFromPath((fs::canonical(other.root()) / "b.txt").string());
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", b}}}});
  const json d = c.waitFor([&](const json& m) { return m.value("method", "") == "textDocument/publishDiagnostics" &&
                                                       m["params"]["uri"] == b; },
                           "b.txt's diagnostics while the other repository's reviews hang", 5s);
  ASSERT_TRUE(d.is_object());
  EXPECT_EQ(d["params"]["diagnostics"].size(), 1u) << d.dump();
  s.open();
  c.allOf("textDocument/publishDiagnostics");
  EXPECT_EQ(c.stop(), 0);
}

// A review's progress is cancellable: the editor's cancel button stops it where
// it is (a model that takes minutes, a long review of many requests), and the
// findings shown before stay. Before, the progress said `cancellable: false`
// and only a command's request could be cancelled, not a save's review.
TEST_F(Fixture, TheProgressCancelButtonStopsTheReview) {
  Script s;
  s.close();
  LspClient c(scripted(s));
  c.initialize(rootUri(), {{"debounce_ms", 0}}, {{"window", {{"workDoneProgress", true}}}});
  save(c);
  c.acceptProgressCreate();
  const json begin = c.notification("$/progress")["params"];
  EXPECT_EQ(begin["value"]["kind"], "begin");
  EXPECT_EQ(begin["value"]["cancellable"], true);
  ASSERT_TRUE(s.waitForCalls(1));
  c.notify("window/workDoneProgress/cancel", {{"token", begin["token"]}});
  const json end = c.progressEnd();
  EXPECT_EQ(end.value("message", "").rfind("cancelled from the editor", 0), 0u) << end.dump();
  EXPECT_EQ(s.cancelled, 1) << "the model's call was stopped, not waited for";
  EXPECT_EQ(c.log("cancelled from the editor").find("review of a.txt"), 0u + std::string("revline: ").size());
  s.open();
  save(c);  // the next save reviews as usual
  c.acceptProgressCreate();
  const json d = c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(d["params"]["diagnostics"].size(), 1u) << d.dump();
  EXPECT_EQ(c.progressEnd().value("message", "").rfind("1 finding, verdict COMMENT", 0), 0u);
  EXPECT_EQ(c.stop(), 0);
}

// The revline.cancelReviews command, for editors that show no cancel button on
// a server's progress (Neovim, Emacs): every review that would ask the model
// stops, the running one (its model call given up) and the one waiting for its
// turn, and each command waiting for one is answered ServerCancelled with data
// saying it was cancelled from the editor (not "superseded by a newer review";
// not RequestCancelled, whose reply Neovim drops without calling back).
TEST_F(Fixture, TheCancelReviewsCommandStopsRunningAndWaitingReviews) {
  changeAAndB(repo);
  Script s;
  LspClient c(holdingA(s));
  ASSERT_NO_FATAL_FAILURE(startBlockedReview(s, c));  // a.txt's review waits at the gate
  const int file = c.request("workspace/executeCommand",
                             {{"command", "revline.reviewFile"}, {"arguments", json::array({{{"uri", uri}}})}});
  ASSERT_TRUE(s.waitForCalls(2));  // the command's review took the save's place, and waits in turn
  const int workspace = c.request("workspace/executeCommand", {{"command", "revline.reviewWorkspace"}, {"arguments", json::array()}});
  c.expectQuiet(300ms);  // waits behind a.txt's review
  const int cancelledBefore = c.server().stats().reviewsCancelled;  // the save's review the command superseded
  const json cancelled = c.reply(c.request("workspace/executeCommand", {{"command", "revline.cancelReviews"}, {"arguments", json::array()}}));
  EXPECT_EQ(cancelled["result"]["cancelled"], 2) << cancelled.dump();
  const std::string name = std::filesystem::canonical(repo.root()).filename().string();
  EXPECT_EQ(cancelled["result"]["reviews"], json::array({"a.txt", "working tree of " + name})) << cancelled.dump();
  // Again at once, while the cancelled review may still be winding down: it is not counted twice.
  const json again = c.reply(c.request("workspace/executeCommand", {{"command", "revline.cancelReviews"}}));
  EXPECT_EQ(again["result"]["cancelled"], 0) << again.dump();
  for (int id : {file, workspace}) {
    const json r = c.reply(id);
    EXPECT_EQ(r["error"]["code"], -32802) << r.dump();
    EXPECT_EQ(r["error"]["message"], "review cancelled from the editor") << r.dump();
    EXPECT_EQ(r["error"]["data"], json({{"cancelledFromEditor", true}})) << r.dump();
  }
  EXPECT_EQ(s.cancelled, 2) << "the model's call was stopped, not waited for";
  EXPECT_EQ(s.calls, 2) << "the waiting workspace review asked the model nothing";
  // revline/stats counts both, as the command's answer does (it counted the running one only).
  for (int i = 0; i < 500 && c.server().stats().reviewsCancelled < cancelledBefore + 2; ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(c.reply(c.request("revline/stats", json::object()))["result"]["reviewsCancelled"], cancelledBefore + 2);
  const json none = c.reply(c.request("workspace/executeCommand", {{"command", "revline.cancelReviews"}}));
  EXPECT_EQ(none["result"]["cancelled"], 0) << none.dump();
  s.open();
  save(c);  // the next save reviews as usual
  EXPECT_EQ(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].size(), 1u);
  EXPECT_EQ(c.stop(), 0);
}

// A review of the whole repository asked for while a file's review runs waits
// for it, and saves made after it wait behind it: before, every later save's
// review started first, and a save every few seconds kept Review Workspace
// from starting at all.
TEST_F(Fixture, SavesAfterAWorkspaceReviewWaitBehindIt) {
  changeAAndB(repo);
  Script s;
  LspClient c(holdingA(s));
  ASSERT_NO_FATAL_FAILURE(startBlockedReview(s, c));  // a.txt's review waits at the gate
  const int workspace = c.request("workspace/executeCommand", {{"command", "revline.reviewWorkspace"}, {"arguments", json::array()}});
  const std::string b = uriFromPath((std::filesystem::canonical(repo.root()) / "b.txt").string());
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", b}}}});
  c.expectQuiet(500ms);  // b.txt's review waits behind the workspace review, which waits for a.txt's
  s.open();
  EXPECT_TRUE(c.reply(workspace).contains("result"));
  // a.txt's review and the workspace review published a.txt (b.txt, closed and
  // clean, has nothing to clear); then b.txt's own review (its hunk answered by
  // the workspace review's) publishes b.txt.
  for (const std::string& file : {uri, uri, b})
    c.waitFor([&](const json& m) {
      return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == file;
    }, "diagnostics of " + file);
  c.expectQuiet();
  EXPECT_EQ(s.cancelled, 0);
  EXPECT_EQ(c.stop(), 0);
}

ServerOptions builtinReviewer() {
  ServerOptions options;
  options.sync = true;
  options.providerFactory = [](const config::Config&, const diff::Diff& d, const std::filesystem::path&) {
    return std::make_unique<builtin::BuiltinProvider>(d);
  };
  return options;
}

// The builtin reviewer asks no model: its reviews spend nothing, and the
// session's usage says so (before, each save counted "1 model request" and a
// tool-call budget in revline/stats, and a session that mixed it with a model
// overstated the model's requests).
TEST_F(Fixture, TheBuiltinReviewerAddsNothingToTheSessionsSpend) {
  LspClient c(builtinReviewer());
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  for (int i = 0; i < 2; ++i) {
    save(c);
    c.notification("textDocument/publishDiagnostics");
    repo.write("a.txt", "one changed " + std::to_string(i) + "\ntwo\n");
  }
  const json stats = c.reply(c.request("revline/stats", json::object()))["result"];
  EXPECT_EQ(stats["reviewsStarted"], 2) << stats.dump();
  EXPECT_EQ(stats["usage"]["requests"], 0) << stats.dump();
  EXPECT_EQ(stats["usage"]["toolCallBudget"], 0) << stats.dump();
  EXPECT_EQ(c.stop(), 0);
}

// A workspace review of a large change tells the client only about the files it
// shows something on, or clears: before, each clean closed file got an empty
// list (2,334 of them for a change of git's history with some 30 flagged).
TEST_F(Fixture, AWorkspaceReviewPublishesNoEmptyListForACleanClosedFile) {
  for (int i = 0; i < 20; ++i) repo.write("src/Clean" + std::to_string(i) + ".java", "class C {}\n");
  repo.write("src/Flagged.java", "class F {}\n");
  repo.commitAll("java");
  for (int i = 0; i < 20; ++i) repo.write("src/Clean" + std::to_string(i) + ".java", "class C { int x; }\n");
  repo.write("src/Flagged.java", "class F {\n  boolean ok(String s) { return s == \"OK\"; }\n}\n");
  const std::string flagged = uriFromPath((std::filesystem::canonical(repo.root()) / "src/Flagged.java").string());
  LspClient c(builtinReviewer());
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  auto reviewWorkspace = [&] {
    c.reply(c.request("workspace/executeCommand", {{"command", "revline.reviewWorkspace"}, {"arguments", json::array()}}));
    std::vector<json> published;
    for (const json& m : c.allOf("textDocument/publishDiagnostics")) published.push_back(m["params"]);
    return published;
  };
  std::vector<json> published = reviewWorkspace();
  ASSERT_EQ(published.size(), 1u) << json(published).dump();
  EXPECT_EQ(published[0]["uri"], flagged);
  EXPECT_EQ(published[0]["diagnostics"].size(), 1u);
  repo.write("src/Flagged.java", "class F {\n  boolean ok(String s) { return \"OK\".equals(s); }\n}\n");
  published = reviewWorkspace();
  ASSERT_EQ(published.size(), 1u) << "the fixed file's finding is cleared, once: " << json(published).dump();
  EXPECT_EQ(published[0]["uri"], flagged);
  EXPECT_TRUE(published[0]["diagnostics"].empty());
  EXPECT_TRUE(reviewWorkspace().empty()) << "nothing shown, nothing to clear";
  EXPECT_EQ(c.stop(), 0);
}

// The diagnostics the server publishes next for `uri`.
json nextDiagnosticsFor(LspClient& c, const std::string& uri) {
  return c.waitFor([&](const json& m) { return m.value("method", "") == "textDocument/publishDiagnostics" &&
                                               m["params"]["uri"] == uri; },
                   "diagnostics for " + uri)["params"]["diagnostics"];
}

// A notebook's diagnostics say which cell and cell line they are on, for a
// client that shows them on the cell (the VS Code extension).
TEST_F(Fixture, ANotebooksDiagnosticsSayWhichCellAndLine) {
  repo.write("nb.ipynb", revline::testing::jupyterNotebook({{"x = 1"}, "", {}, 1}, {"# T"}));
  repo.commitAll("notebook");
  const std::string text = revline::testing::jupyterNotebook(
      {{"x = 1\\n", "y = 2\\n", "token = 'ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5'"}, "", {}, 2}, {"# T"});
  repo.write("nb.ipynb", text);
  const std::string nb = uriFromPath((std::filesystem::canonical(repo.root()) / "nb.ipynb").string());
  LspClient c(builtinReviewer());
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", nb}}}});
  const json diagnostics = nextDiagnosticsFor(c, nb);
  ASSERT_EQ(diagnostics.size(), 1u) << diagnostics.dump();
  EXPECT_EQ(diagnostics[0]["data"]["cell"], 0) << diagnostics.dump();
  EXPECT_EQ(diagnostics[0]["data"]["cellLine"], 2) << diagnostics.dump();
  EXPECT_TRUE(diagnostics[0]["data"].contains("id"));
  EXPECT_EQ(c.stop(), 0);
}

// A notebook saved after a run: its review's progress ends naming the outputs
// left out after the verdict, as a workspace review and `revline review` do
// (it ended "0 findings, verdict APPROVE" with no word of them).
TEST_F(Fixture, ANotebooksSaveNamesTheOutputsLeftOut) {
  using revline::testing::base64Image;
  repo.write("nb.ipynb", revline::testing::jupyterNotebook({{"x = 1"}, base64Image(400, 1), {}, 1}));
  repo.commitAll("notebook");
  repo.write("nb.ipynb", revline::testing::jupyterNotebook({{"x = 2"}, base64Image(400, 2), {}, 2}));
  LspClient c(builtinReviewer());
  c.initialize(rootUri(), {{"debounce_ms", 0}}, {{"window", {{"workDoneProgress", true}}}});
  const std::string end = progressEndOfSaving(c, "nb.ipynb");
  EXPECT_EQ(end.rfind("0 findings, verdict APPROVE; left out: part of nb.ipynb: its outputs, execution counts and "
                      "metadata (", 0), 0u) << end;
  EXPECT_NE(end.find("the cells' source is reviewed"), std::string::npos) << end;
  EXPECT_TRUE(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].empty());
  EXPECT_EQ(c.stop(), 0);
}

// A folder of the repository becomes a repository of its own (`git init`, a
// clone into it) after the server saw it, and editors that register no file
// watchers (Neovim 0.7, revline.el) say nothing: the file was still reviewed in
// the outer repository, where git shows nothing of it ("0 findings, APPROVE").
// And the reverse: its .git removed, the finding went to "sub/sub/x.py".
TEST_F(Fixture, ARepositoryThatAppearsOrGoesUnderASeenFolderIsFound) {
  repo.write("sub/x.py", "x = 1\n");
  LspClient c(builtinReviewer());
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  const std::string dir = std::filesystem::canonical(repo.root()).string();
  const std::string x = uriFromPath(dir + "/sub/x.py");
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", x}}}});
  EXPECT_TRUE(nextDiagnosticsFor(c, x).empty());  // untracked in the outer repository, nothing to flag
  revline::testing::runShell("git init -q && git add . && git -c user.name=a -c user.email=a@b.c commit -qm inner",
                             repo.root() / "sub");
  repo.write("sub/x.py", "x = 1\ndb_password = \"hunter2secret\"\n");
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", x}}}});
  json d = nextDiagnosticsFor(c, x);
  ASSERT_EQ(d.size(), 1u) << d.dump();
  EXPECT_EQ(d[0]["range"]["start"]["line"], 1);
  std::filesystem::remove_all(repo.root() / "sub" / ".git");  // back to an untracked folder of the outer one
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", x}}}});
  d = nextDiagnosticsFor(c, x);
  ASSERT_EQ(d.size(), 1u) << d.dump();
  EXPECT_EQ(d[0]["range"]["start"]["line"], 1);
  c.expectQuiet();  // nothing published for sub/sub/x.py
  EXPECT_EQ(c.stop(), 0);
}

// `git commit -a` (or a checkout, a stash) with two files showing findings: the
// next save reviewed one of them, and the other's stayed on committed lines
// until it too was saved or reopened.
TEST_F(Fixture, AnotherFilesFindingsGoWhenItsDiffIsNoLongerTheReviewedOne) {
  repo.write("a.py", "a = 1\n");
  repo.write("b.py", "b = 1\n");
  repo.commitAll("two files");
  LspClient c(builtinReviewer());
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  const std::string dir = std::filesystem::canonical(repo.root()).string();
  const std::string a = uriFromPath(dir + "/a.py"), b = uriFromPath(dir + "/b.py");
  repo.write("a.py", "a = 1\ndb_password = \"hunter2secret\"\n");
  repo.write("b.py", "b = 1\napi_key = \"q8Zt4Rw9Lp2Xv7Nc\"\n");
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", a}}}});
  ASSERT_EQ(nextDiagnosticsFor(c, a).size(), 1u);
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", b}}}});
  ASSERT_EQ(nextDiagnosticsFor(c, b).size(), 1u);
  // An edit elsewhere in a.py keeps b.py's findings (its diff is the reviewed one).
  repo.write("a.py", "a = 2\ndb_password = \"hunter2secret\"\n");
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", a}}}});
  EXPECT_EQ(nextDiagnosticsFor(c, a).size(), 1u);
  c.expectQuiet();
  // Another hunk of b.py committed on its own (`git add -p`): its finding's line is still added, and stays.
  repo.write("b.py", "b = 2\n");
  repo.git("commit -q -m b2 -- b.py");
  repo.write("b.py", "b = 2\napi_key = \"q8Zt4Rw9Lp2Xv7Nc\"\n");
  repo.write("a.py", "a = 3\ndb_password = \"hunter2secret\"\n");
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", a}}}});
  EXPECT_EQ(nextDiagnosticsFor(c, a).size(), 1u);
  c.expectQuiet();
  repo.git("commit -q -a -m both");
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", a}}}});
  std::map<std::string, std::size_t> shown;
  for (int i = 0; i < 2; ++i) {
    const json m = c.notification("textDocument/publishDiagnostics");
    shown[m["params"]["uri"]] = m["params"]["diagnostics"].size();
  }
  EXPECT_EQ(shown, (std::map<std::string, std::size_t>{{a, 0}, {b, 0}}));
  EXPECT_EQ(c.stop(), 0);
}

// A project that is no longer a repository (`rm -rf .git`): its findings were
// kept for good (only revline.clearDiagnostics removed them).
TEST_F(Fixture, AFileInNoRepositoryNowLosesTheFindingsOfOne) {
  repo.write("a.py", "db_password = \"hunter2secret\"\n");
  LspClient c(builtinReviewer());
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  const std::string a = uriFromPath(std::filesystem::canonical(repo.root()).string() + "/a.py");
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", a}}}});
  ASSERT_EQ(nextDiagnosticsFor(c, a).size(), 1u);
  std::filesystem::remove_all(repo.root() / ".git");
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", a}}}});
  EXPECT_TRUE(nextDiagnosticsFor(c, a).empty());
  EXPECT_EQ(c.stop(), 0);
}

// :w again with nothing changed while the model answers: the same request must
// not be cancelled and sent again; the review in flight is the answer to both.
TEST_F(Fixture, ASaveWithoutAChangeKeepsTheReviewInFlight) {
  Script s;
  LspClient c(scripted(s));
  ASSERT_NO_FATAL_FAILURE(startBlockedReview(s, c));
  save(c);
  c.log("the review in flight goes on");
  s.open();
  EXPECT_EQ(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].size(), 1u);
  c.expectQuiet(300ms);
  EXPECT_EQ(s.calls, 1);
  EXPECT_EQ(s.cancelled, 0);
  const ServerStats stats = c.server().stats();
  EXPECT_EQ(stats.reviewsCancelled, 0);
  EXPECT_EQ(stats.providerCalls, 1);
  EXPECT_EQ(stats.usage.requests, 1);
  EXPECT_EQ(c.stop(), 0);
}

// Two didSave for one :w (Neovim 0.7 after a client restart sends both): the
// second came before the review in flight had read its diff, and cancelled it,
// so the model was asked twice. The probe now waits for that read.
TEST_F(Fixture, ASecondSaveBeforeTheReviewReadItsDiffKeepsTheReviewInFlight) {
  Script s;
  std::mutex mu;
  std::condition_variable cv;
  int gitCalls = 0;
  bool probeRead = false;
  ServerOptions options = scripted(s);
  const std::string diffText =
      "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+one changed\n two\n";
  options.gitDiff = [&](const std::filesystem::path&, const git::DiffRequest&) {
    std::unique_lock<std::mutex> l(mu);
    const int call = ++gitCalls;
    cv.notify_all();
    if (call == 1) {
      // The review's own read waits until the second save's probe has read, and a little more.
      cv.wait_for(l, 10s, [&] { return probeRead; });
      l.unlock();
      std::this_thread::sleep_for(300ms);
    } else if (call == 2) {
      probeRead = true;
      cv.notify_all();
    }
    return diffText;
  };
  LspClient c(std::move(options));
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  save(c);
  {
    std::unique_lock<std::mutex> l(mu);
    ASSERT_TRUE(cv.wait_for(l, 10s, [&] { return gitCalls == 1; }));
  }
  save(c);
  c.log("the review in flight goes on");
  EXPECT_EQ(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].size(), 1u);
  c.expectQuiet(300ms);
  EXPECT_EQ(s.calls, 1);
  const ServerStats stats = c.server().stats();
  EXPECT_EQ(stats.reviewsCancelled, 0);
  EXPECT_EQ(stats.providerCalls, 1);
  EXPECT_EQ(c.stop(), 0);
}

// Neovim and Emacs reload a file that `git stash` (or a checkout) rewrote as a
// close and an open. Before, a review in flight at the time then published its
// finding on the reloaded, reverted line (with the reopened version), where it
// stayed until the next save.
TEST_F(Fixture, AReloadDuringAReviewShowsNoFindingOnTheRevertedLine) {
  Script s;
  LspClient c(scripted(s));
  ASSERT_NO_FATAL_FAILURE(startBlockedReviewOfOpenFile(s, c));
  repo.git("stash -q");
  c.notify("textDocument/didClose", {{"textDocument", {{"uri", uri}}}});
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "text"}, {"version", 1},
                                                     {"text", "one\ntwo\n"}}}});
  c.reply(c.request("revline/stats", json::object()));  // the loop has taken the reload
  s.open();
  expectOnlyEmptyDiagnostics(c);
  EXPECT_EQ(c.stop(), 0);
}

// The same with the file closed, not reopened (a client that shows diagnostics
// of closed files): the file on disk, read after the review, decides.
TEST_F(Fixture, AFileClosedAndRewrittenDuringAReviewShowsNoFindingOnTheRevertedLine) {
  Script s;
  LspClient c(scripted(s));
  ASSERT_NO_FATAL_FAILURE(startBlockedReviewOfOpenFile(s, c));
  repo.git("stash -q");
  c.notify("textDocument/didClose", {{"textDocument", {{"uri", uri}}}});
  c.reply(c.request("revline/stats", json::object()));
  s.open();
  expectOnlyEmptyDiagnostics(c);
  EXPECT_EQ(c.stop(), 0);
}

// A reload that finds the text the review read (`:e` with nothing changed on
// disk) keeps the review's finding.
TEST_F(Fixture, AReloadDuringAReviewKeepsTheFindingOfTheReviewedText) {
  Script s;
  LspClient c(scripted(s));
  ASSERT_NO_FATAL_FAILURE(startBlockedReviewOfOpenFile(s, c));
  c.notify("textDocument/didClose", {{"textDocument", {{"uri", uri}}}});
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "text"}, {"version", 2},
                                                     {"text", "one changed\ntwo\n"}}}});
  c.reply(c.request("revline/stats", json::object()));
  s.open();
  EXPECT_EQ(c.waitFor([](const json& m) { return m.value("method", "") == "textDocument/publishDiagnostics" &&
                                                 !m["params"]["diagnostics"].empty(); },
                      "the finding")["params"]["diagnostics"].size(), 1u);
  EXPECT_EQ(c.stop(), 0);
}

// One cancellation, end to end: a newer save cancels the review in flight,
// down to the git call it is waiting on; meanwhile the loop thread, which owns
// the state, answers the editor.
TEST_F(Fixture, ANewSaveCancelsTheGitCallOfTheReviewInFlight) {
  Script s;
  std::mutex mu;
  std::condition_variable cv;
  int gitCalls = 0, gitCancelled = 0;
  ServerOptions options = scripted(s);
  options.gitDiff = [&](const std::filesystem::path&, const git::DiffRequest& request) {
    std::unique_lock<std::mutex> l(mu);
    const bool first = ++gitCalls == 1;
    cv.notify_all();
    if (first) {
      // A git that hangs until its review is cancelled (or 10 s, then fails the test).
      const auto until = std::chrono::steady_clock::now() + 10s;
      while (!request.cancel.cancelled() && std::chrono::steady_clock::now() < until) cv.wait_for(l, 5ms);
      if (request.cancel.cancelled()) {
        ++gitCancelled;
        throw Cancelled("git was cancelled");
      }
    }
    return std::string("diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+one changed\n two\n");
  };
  LspClient c(std::move(options));
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  save(c);
  {
    std::unique_lock<std::mutex> l(mu);
    ASSERT_TRUE(cv.wait_for(l, 10s, [&] { return gitCalls == 1; }));
  }
  const int hover = c.request("textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", {{"line", 0}, {"character", 0}}}});
  EXPECT_EQ(c.reply(hover)["result"], json(nullptr));  // answered while the worker waits on git
  save(c);
  {
    std::unique_lock<std::mutex> l(mu);
    ASSERT_TRUE(cv.wait_for(l, 10s, [&] { return gitCalls >= 2; }));
  }
  json d = c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(d["params"]["diagnostics"].size(), 1u);
  EXPECT_EQ(gitCancelled, 1);
  EXPECT_EQ(s.calls, 1);  // the cancelled review never reached the model
  c.expectQuiet();
  EXPECT_EQ(c.server().stats().reviewsCancelled, 1);
  EXPECT_EQ(c.stop(), 0);
}

TEST_F(Fixture, CancelRequestStopsACommandReviewInFlight) {
  Script s;
  s.close();
  LspClient c(scripted(s));
  c.initialize(rootUri());
  const int id = c.request("workspace/executeCommand",
                           {{"command", "revline.reviewFile"}, {"arguments", json::array({{{"uri", uri}}})}});
  ASSERT_TRUE(s.waitForCalls(1));
  c.notify("$/cancelRequest", {{"id", id}});
  json r = c.reply(id);
  EXPECT_EQ(r["error"]["code"], -32800);
  s.open();
  c.expectQuiet();
  EXPECT_EQ(c.stop(), 0);
}

TEST_F(Fixture, ProviderFailureIsShownOnceAndKeepsTheLastDiagnostics) {
  Script s;
  LspClient c(scripted(s, /*sync=*/true));
  c.initialize(rootUri());
  save(c);
  EXPECT_EQ(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].size(), 1u);
  s.fail = true;
  for (int i = 0; i < 3; ++i) {
    repo.write("a.txt", "one changed " + std::to_string(i) + "\ntwo\n");  // a new diff: no cache hit
    save(c);
  }
  json shown = c.notification("window/showMessage");
  EXPECT_EQ(shown["params"]["type"], 1);
  EXPECT_NE(shown["params"]["message"].get<std::string>().find("API key"), std::string::npos);
  // The finding still shown is from the review before: said at the first failure, not only a minute later.
  EXPECT_NE(shown["params"]["message"].get<std::string>().find("The diagnostics shown are from earlier reviews."),
            std::string::npos)
      << shown.dump();
  c.expectQuiet();  // no second showMessage, no publishDiagnostics clearing the old ones
  const int hover = c.request("textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", {{"line", 0}, {"character", 1}}}});
  EXPECT_NE(c.reply(hover)["result"]["contents"]["value"].get<std::string>().find("Scripted finding"), std::string::npos);
  EXPECT_EQ(c.server().stats().providerFailures, 3);
  EXPECT_EQ(c.stop(), 0);
}

// The message reads as sentences, and a failure on the provider's side does
// not send the user to their settings.
TEST_F(Fixture, AServerSideFailureSaysSoInSentences) {
  Script s;
  s.failWith(review::ProviderError::Kind::Server, "openai: server error HTTP 500 after 2 retries; try again later");
  LspClient c(scripted(s, /*sync=*/true));
  c.initialize(rootUri());
  save(c);
  const std::string shown = c.notification("window/showMessage")["params"]["message"].get<std::string>();
  EXPECT_EQ(shown, "revline: the review provider failed: openai: server error HTTP 500 after 2 retries; try again "
                   "later. The provider failed on its side (not a settings problem); the next save tries again.");
  EXPECT_EQ(c.stop(), 0);
}

// Settings that cannot work (a budget too small for the prompt) are not the
// provider failing: the message says so, and where settings come from.
TEST_F(Fixture, SettingsThatCannotWorkAreNotCalledAProviderFailure) {
  Script s;
  s.failWith(review::ProviderError::Kind::Config, "max_input_tokens 2500 is too small for this review: use at least 2731");
  LspClient c(scripted(s, /*sync=*/true));
  c.initialize(rootUri());
  save(c);
  const std::string shown = c.notification("window/showMessage")["params"]["message"].get<std::string>();
  EXPECT_EQ(shown.rfind("revline: the review settings cannot work: max_input_tokens 2500 is too small for this "
                        "review: use at least 2731. Settings come from the editor's revline settings, the "
                        "repository's .revline.json and the user config",
                        0),
            0u)
      << shown;
  EXPECT_EQ(shown.find("provider failed"), std::string::npos) << shown;
  EXPECT_EQ(c.server().stats().providerFailures, 0);  // nor counted as one in revline/stats
  EXPECT_EQ(c.stop(), 0);
}

// A config file broken by an edit (a missing comma) keeps the settings read
// before: before, the review ran with the defaults, the offline reviewer, which
// cleared the model's diagnostics and approved.
TEST_F(Fixture, AConfigFileBrokenByAnEditKeepsTheSettingsReadBefore) {
  Script s;
  std::vector<int> attemptsAllowed;
  ServerOptions o = recordingAttempts(s, attemptsAllowed);
  repo.write(".revline.json", R"({"max_attempts": 1})");
  LspClient c(o);
  c.initialize(rootUri());
  save(c);
  EXPECT_EQ(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].size(), 1u);
  repo.write(".revline.json", R"({"max_attempts": 1,)");
  const std::string shown = editSaveAndShown(c);
  EXPECT_NE(shown.find(".revline.json: invalid JSON"), std::string::npos) << shown;
  EXPECT_NE(shown.find("the settings read before stay in use until the file is fixed"), std::string::npos) << shown;
  EXPECT_EQ(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].size(), 1u);
  EXPECT_EQ(attemptsAllowed, (std::vector<int>{1, 1}));
  EXPECT_EQ(c.stop(), 0);
}

// The same for the editor's settings (Neovim's setup{settings=...}, VS Code's):
// one misspelt key among them must not drop the provider and model they also
// hold. Before, every editor setting was dropped, the offline reviewer ran,
// cleared the model's diagnostics and approved. The settings sent before stay.
TEST_F(Fixture, EditorSettingsBrokenByAnEditKeepTheSettingsSentBefore) {
  Script s;
  std::vector<int> attemptsAllowed;
  ServerOptions o = recordingAttempts(s, attemptsAllowed);
  LspClient c(o);
  c.initialize(rootUri(), {{"max_attempts", 1}});
  save(c);
  EXPECT_EQ(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].size(), 1u);
  c.notify("workspace/didChangeConfiguration", {{"settings", {{"revline", {{"max_attempts", 1}, {"polcy", json::object()}}}}}});
  const std::string shown = editSaveAndShown(c);
  EXPECT_NE(shown.find("polcy"), std::string::npos) << shown;
  EXPECT_NE(shown.find("the editor settings sent before stay in use until these are fixed"), std::string::npos) << shown;
  EXPECT_EQ(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].size(), 1u);
  EXPECT_EQ(attemptsAllowed, (std::vector<int>{1, 1})) << "the model was asked with the settings sent before";
  EXPECT_EQ(c.stop(), 0);
}

// Broken from the start, they review nothing, and each save says why.
TEST_F(Fixture, EditorSettingsBrokenFromTheStartReviewNothingAndSayWhy) {
  Script s;
  LspClient c(scripted(s, /*sync=*/true));
  c.initialize(rootUri(), {{"provider", "opena1"}});
  save(c);
  const std::string shown = c.notification("window/showMessage")["params"]["message"].get<std::string>();
  EXPECT_NE(shown.find("opena1"), std::string::npos) << shown;
  EXPECT_NE(shown.find("nothing is reviewed until the editor settings are fixed"), std::string::npos) << shown;
  EXPECT_EQ(s.calls, 0);
  c.expectQuiet();
  EXPECT_EQ(c.stop(), 0);
}

// Review Workspace publishes a file not yet open under the server's spelling of
// its URI ("%28" for "("); the client opens it under its own ("(" as is, as
// Emacs and Neovim do). The findings move to the client's spelling and the
// other copy is cleared: a client keying diagnostics by the string kept it
// after the file's own findings were fixed.
TEST_F(Fixture, AFileOpenedUnderAnotherSpellingOfItsUriKeepsOneCopy) {
  Script s;
  s.file = "dir (copy)/b.txt";
  repo.write(s.file, "x\n");
  repo.commitAll("b");
  repo.write(s.file, "x changed\n");
  LspClient c(scripted(s, /*sync=*/true));
  c.initialize(rootUri());
  c.reply(c.request("workspace/executeCommand", {{"command", "revline.reviewWorkspace"}, {"arguments", json::array()}}));
  const std::string dir = std::filesystem::canonical(repo.root()).string();
  const std::string server = uriFromPath(dir + "/" + s.file), client = uriFromPath(dir) + "/dir%20(copy)/b.txt";
  ASSERT_NE(server, client);
  auto publishedFor = [&](const std::string& target) {
    return c.waitFor([&](const json& m) { return m.value("method", "") == "textDocument/publishDiagnostics" &&
                                                 m["params"]["uri"] == target; },
                     "diagnostics for " + target)["params"]["diagnostics"];
  };
  EXPECT_EQ(publishedFor(server).size(), 1u);
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", client}, {"languageId", "text"}, {"version", 1},
                                                      {"text", "x changed\n"}}}});
  EXPECT_EQ(publishedFor(server).size(), 0u) << "the copy under the server's spelling is cleared";
  EXPECT_EQ(publishedFor(client).size(), 1u);
  EXPECT_EQ(c.stop(), 0);
}

// A config file broken from the start: nothing is reviewed (as `revline review`
// refuses to run), and the save says why, as settings that cannot work.
TEST_F(Fixture, AConfigFileBrokenFromTheStartReviewsNothingAndSaysWhy) {
  Script s;
  repo.write(".revline.json", R"({"provider": "opneai"})");
  LspClient c(scripted(s, /*sync=*/true));
  c.initialize(rootUri());
  save(c);
  const std::string shown = c.notification("window/showMessage")["params"]["message"].get<std::string>();
  EXPECT_EQ(shown.rfind("revline: the review settings cannot work: ", 0), 0u) << shown;
  EXPECT_NE(shown.find("opneai"), std::string::npos) << shown;
  EXPECT_EQ(s.calls, 0);
  c.expectQuiet();  // no diagnostics published (nothing was reviewed), no second message
  // Fixed on disk: the next save reviews.
  repo.write(".revline.json", R"({"provider": "builtin"})");
  repo.write("a.txt", "one changed again\ntwo\n");
  save(c);
  c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(c.stop(), 0);
}

// Saving a file git ignores (a log, build output) says it is not reviewed:
// before, its review ended "0 findings, verdict APPROVE" and nothing said why.
TEST_F(Fixture, SavingAFileGitIgnoresSaysItIsNotReviewed) {
  Script s;
  repo.write(".gitignore", "*.log\n");
  repo.commitAll("ignore logs");
  repo.write("debug.log", "x\n");
  LspClient c(scripted(s, /*sync=*/true));
  c.initialize(rootUri(), json::object(), {{"window", {{"workDoneProgress", true}}}});
  EXPECT_EQ(progressEndOfSaving(c, "debug.log"), "not reviewed: debug.log is ignored by git");
  EXPECT_EQ(s.calls, 0);
  EXPECT_TRUE(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].empty());
  EXPECT_EQ(c.stop(), 0);
}

// Saving a file the selection leaves out (a minified bundle, a lock file): its
// review ended "0 findings, verdict APPROVE" with no word of why nothing was
// found, while `revline review` lists it as skipped.
TEST_F(Fixture, SavingAFileTheSelectionLeavesOutSaysItIsNotReviewed) {
  Script s;
  LspClient c(scripted(s, /*sync=*/true));
  c.initialize(rootUri(), json::object(), {{"window", {{"workDoneProgress", true}}}});
  const std::string bundle(3000, 'x');
  repo.write("vendor.js", "var a=1;" + bundle + "eval(window.name);\n");
  const std::string end = progressEndOfSaving(c, "vendor.js");
  EXPECT_EQ(end.rfind("not reviewed: vendor.js: minified file (a line of 3026 characters); name it in include", 0), 0u)
      << end;
  EXPECT_EQ(end.find("APPROVE"), std::string::npos) << end;
  EXPECT_EQ(s.calls, 0);
  EXPECT_TRUE(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].empty());
  EXPECT_EQ(c.stop(), 0);
}

// A workspace review that left files out by choice (a lock file) ended
// "N findings, verdict ..." with no word of them (with the lock file the only
// change: "0 findings, verdict APPROVE").
TEST_F(Fixture, AWorkspaceReviewNamesTheFilesItLeftOut) {
  Script s;
  LspClient c(scripted(s, /*sync=*/true));
  c.initialize(rootUri(), {{"review_scope", "workspace"}}, {{"window", {{"workDoneProgress", true}}}});
  repo.write("package-lock.json", "{\"lockfileVersion\": 3}\n");
  const std::string end = progressEndOfSaving(c, "package-lock.json");
  EXPECT_NE(end.find("; left out: package-lock.json: lock file"), std::string::npos) << end;
  c.notification("textDocument/publishDiagnostics");  // a.txt's, reviewed
  EXPECT_EQ(c.stop(), 0);
}

// `:e new/dir/x.py` before the folders exist: the warning "nothing here is
// reviewed: ... does not exist" was shown, though the file is reviewed once written.
TEST_F(Fixture, ANewFileInFoldersNotMadeYetBelongsToTheRepositoryAbove) {
  LspClient c(builtinReviewer());
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  const std::filesystem::path file = std::filesystem::canonical(repo.root()) / "brand" / "new" / "x.py";
  const std::string x = uriFromPath(file.string());
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", x}, {"languageId", "python"}, {"version", 1}, {"text", ""}}}});
  for (auto m = c.transport().clientReceive(500ms); m; m = c.transport().clientReceive(300ms))
    EXPECT_NE(m->value("method", ""), "window/showMessage") << m->dump();
  const std::string text = "db_password = \"hunter2secret\"\n";
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", x}, {"version", 2}}}, {"contentChanges", {{{"text", text}}}}});
  repo.write("brand/new/x.py", text);
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", x}}}});
  EXPECT_EQ(nextDiagnosticsFor(c, x).size(), 1u);
  EXPECT_EQ(c.stop(), 0);
}

// Files git has nothing to say of, named as the editor has them: COMMIT_EDITMSG
// (was "not in a git repository") and a link to a file outside any repository.
TEST_F(Fixture, AFileNoRepositoryHoldsIsNamedAsTheEditorHasIt) {
  revline::testing::TempDir outside;  // no repository there
  const std::filesystem::path elsewhere = outside.path();
  { std::ofstream(elsewhere / "ext.py") << "x = 1\n"; }
  const std::filesystem::path root = std::filesystem::canonical(repo.root());
  std::filesystem::create_symlink(elsewhere / "ext.py", root / "ext_link.py");
  repo.write(".git/COMMIT_EDITMSG", "message\n");
  LspClient c(builtinReviewer());
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", uriFromPath((root / ".git" / "COMMIT_EDITMSG").string())}}}});
  c.log("COMMIT_EDITMSG is in a repository's git directory, not its work tree; not reviewed");
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", uriFromPath((root / "ext_link.py").string())}}}});
  c.log("ext_link.py (a link to " + std::filesystem::canonical(elsewhere / "ext.py").string() +
        ") is not in a git repository; not reviewed");
  EXPECT_EQ(c.stop(), 0);
}

// More findings than max_findings: the editor showed the first ones and nothing
// else, so the lines past the cap read as clean. The review's end and a warning
// (once while the cap holds) say how many were left out.
TEST_F(Fixture, FindingsPastTheCapAreSaidInTheEditor) {
  LspClient c(builtinReviewer());
  c.initialize(rootUri(), {{"policy", {{"max_findings", 2}}}}, {{"window", {{"workDoneProgress", true}}}});
  const std::string file = uriFromPath((std::filesystem::canonical(repo.root()) / "copy.c").string());
  auto saveWith = [&](int calls) {
    std::string text = "void f(char* d, const char* s) {\n";
    for (int i = 0; i < calls; ++i) text += "  strcpy(d, s + " + std::to_string(i) + ");\n";
    repo.write("copy.c", text + "}\n");
    c.notify("textDocument/didSave", {{"textDocument", {{"uri", file}}}});
    c.acceptProgressCreate();
    return c.progressEnd().value("message", "");
  };
  EXPECT_NE(saveWith(5).find("2 findings, verdict COMMENT; 3 more not shown, past the max_findings cap of 2"),
            std::string::npos);
  const json warning = c.notification("window/showMessage");
  EXPECT_EQ(warning["params"]["type"], 2);
  EXPECT_EQ(warning["params"]["message"],
            "revline: 3 findings not shown, past the max_findings cap of 2 (the most severe and most confident are "
            "shown; raise policy.max_findings to see more)");
  EXPECT_EQ(nextDiagnosticsFor(c, file).size(), 2u);
  // Still over the cap: the end says so, the warning is not repeated.
  EXPECT_NE(saveWith(6).find("; 4 more not shown"), std::string::npos);
  EXPECT_EQ(nextDiagnosticsFor(c, file).size(), 2u);
  c.expectQuiet();
  EXPECT_EQ(c.stop(), 0);
}

// A tracked settings file kept with local edits through `git update-index
// --skip-worktree` (or --assume-unchanged): git shows none of its edits. Before,
// its save ended "0 findings, verdict APPROVE" and cleared its findings.
TEST_F(Fixture, SavingAFileTheIndexHidesSaysItIsNotReviewed) {
  Script s;
  for (const std::string flag : {"--skip-worktree", "--assume-unchanged"}) {
    SCOPED_TRACE(flag);
    repo.git("checkout -q -- a.txt");
    repo.git("update-index " + flag + " a.txt");
    repo.write("a.txt", "one changed\ntwo\n");
    LspClient c(scripted(s, /*sync=*/true));
    c.initialize(rootUri(), json::object(), {{"window", {{"workDoneProgress", true}}}});
    save(c);
    c.acceptProgressCreate();
    EXPECT_EQ(c.progressEnd().value("message", ""),
              "not reviewed: a.txt is marked skip-worktree or assume-unchanged in git's index");
    EXPECT_NE(c.log("which hides its edits from git").find("git update-index --no-skip-worktree a.txt`, or --no-assume-unchanged"),
              std::string::npos);
    EXPECT_EQ(s.calls, 0);
    c.notification("textDocument/publishDiagnostics");
    EXPECT_EQ(c.stop(), 0);
    repo.git("update-index --no-skip-worktree a.txt");
    repo.git("update-index --no-assume-unchanged a.txt");
  }
}

// A file saved inside a submodule's directory that holds no checkout (never
// initialised, `submodule deinit`): git shows no file there. Its review ended
// "0 findings, verdict APPROVE", as if its secret had been read and passed.
TEST_F(Fixture, SavingAFileInASubmoduleNotCheckedOutSaysItIsNotReviewed) {
  Script s;
  TempRepo sub;
  sub.write("s.txt", "s\n");
  sub.commitAll("sub");
  repo.git("-c protocol.file.allow=always submodule add -q " + revline::testing::shellQuote(sub.root().string()) + " mods/lib");
  repo.commitAll("with submodule");
  repo.git("submodule deinit -q -f mods/lib");
  repo.write("mods/lib/new.py", "TOKEN = 1\n");
  LspClient c(scripted(s, /*sync=*/true));
  c.initialize(rootUri(), json::object(), {{"window", {{"workDoneProgress", true}}}});
  const std::string inside = uriFromPath((std::filesystem::canonical(repo.root()) / "mods/lib/new.py").string());
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", inside}}}});
  c.acceptProgressCreate();
  EXPECT_EQ(c.progressEnd().value("message", ""),
            "not reviewed: mods/lib/new.py is inside the submodule mods/lib, which is not checked out");
  EXPECT_NE(c.log("a submodule that is not checked out").find("git submodule update --init mods/lib"), std::string::npos);
  EXPECT_EQ(s.calls, 0);
  EXPECT_TRUE(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].empty());
  EXPECT_EQ(c.stop(), 0);
}

// A failed review's progress ends with the reason, not only "failed": a client
// may show the end over the error message (Emacs's echo area did), and a
// failure repeated within a minute is not shown again.
TEST_F(Fixture, AFailedReviewsProgressEndSaysWhy) {
  Script s;
  s.failWith(review::ProviderError::Kind::Server, "openai: server error HTTP 500 after 2 retries; try again later");
  LspClient c(scripted(s, /*sync=*/true));
  c.initialize(rootUri(), json::object(), {{"window", {{"workDoneProgress", true}}}});
  save(c);
  const json create =
      c.waitFor([](const json& m) { return m.value("method", "") == "window/workDoneProgress/create"; }, "create");
  c.transport().clientSend(json{{"jsonrpc", "2.0"}, {"id", create["id"]}, {"result", nullptr}});
  json end;
  for (json v; end.is_null();)
    if ((v = c.notification("$/progress")["params"]["value"]).value("kind", "") == "end") end = v;
  EXPECT_EQ(end.value("message", "").rfind("failed: the review provider failed: openai: server error HTTP 500", 0), 0u)
      << end.dump();
  EXPECT_EQ(end.value("message", "").find(".;"), std::string::npos) << end.dump();
  c.notification("window/showMessage");
  EXPECT_EQ(c.stop(), 0);
}

// The clock is injected: "a minute later" is a step of the test's clock, not a wait.
TEST_F(Fixture, TheSameFailureIsShownAgainAfterAMinuteAndANewOneAtOnce) {
  Script s;
  s.fail = true;
  std::atomic<std::int64_t> seconds{1000};
  ServerOptions options = scripted(s, /*sync=*/true);
  options.clock = [&seconds] { return std::chrono::steady_clock::time_point(std::chrono::seconds(seconds.load())); };
  LspClient c(std::move(options));
  c.initialize(rootUri());
  int edit = 0;
  auto failOnce = [&] {  // a new diff each time: no cache hit, the provider is called
    repo.write("a.txt", "one changed " + std::to_string(++edit) + "\ntwo\n");
    save(c);
  };
  auto shown = [&] { return c.notification("window/showMessage")["params"]["message"].get<std::string>(); };
  failOnce();
  const std::string first = shown();
  EXPECT_NE(first.find("401 Unauthorized"), std::string::npos);
  EXPECT_EQ(first.find("still failing"), std::string::npos);
  seconds += 59;
  failOnce();
  c.expectQuiet();  // the same failure within the minute: logged only
  seconds += 1;
  failOnce();
  const std::string again = shown();  // a minute after it was shown
  EXPECT_EQ(again.rfind(first, 0), 0u) << again;
  EXPECT_NE(again.find("(still failing)"), std::string::npos) << again;
  EXPECT_EQ(again.find("diagnostics shown"), std::string::npos) << "no review has succeeded: none are shown";
  seconds += 10;
  failOnce();
  c.expectQuiet();  // the minute starts again from the re-show
  s.failure = "403 Forbidden";
  failOnce();
  const std::string other = shown();  // a different failure: at once
  EXPECT_NE(other.find("403 Forbidden"), std::string::npos);
  EXPECT_EQ(other.find("still failing"), std::string::npos);
  failOnce();
  c.expectQuiet();
  EXPECT_EQ(c.server().stats().providerFailures, 6);
  // Once a review has published its findings, the repeat says they are what is shown.
  s.fail = false;
  failOnce();
  EXPECT_FALSE(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].empty());
  s.fail = true;
  failOnce();  // new after a success: shown at once
  EXPECT_NE(shown().find("The diagnostics shown are from earlier reviews."), std::string::npos);
  seconds += 60;
  failOnce();
  EXPECT_NE(shown().find("(still failing; the diagnostics shown are from earlier reviews)"), std::string::npos);
  EXPECT_EQ(c.stop(), 0);
}

TEST_F(Fixture, RejectedFindingsAreNeverShown) {
  Script s;
  s.file = "not-in-the-diff.txt";  // ungrounded: rejected by the pipeline
  LspClient c(scripted(s, true));
  c.initialize(rootUri(), {{"max_attempts", 1}});
  save(c);
  json d = c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(d["params"]["uri"], uri);
  EXPECT_TRUE(d["params"]["diagnostics"].empty());
  EXPECT_EQ(c.stop(), 0);
}

// A second repository, b.txt changed in its work tree, as the workspace folder "two".
struct SecondFolder {
  TempRepo repo;
  json folder;
  std::string fileUri;  // its b.txt
  SecondFolder() {
    repo.write("b.txt", "x\n");
    repo.commitAll("init");
    repo.write("b.txt", "y\n");
    const std::filesystem::path root = std::filesystem::canonical(repo.root());
    folder = {{"uri", uriFromPath(root.string())}, {"name", "two"}};
    fileUri = uriFromPath((root / "b.txt").string());
  }
};

TEST_F(Fixture, SeveralWorkspaceFoldersAreSeparateRepositories) {
  SecondFolder second;
  const TempRepo& other = second.repo;
  const std::string& otherUri = second.fileUri;
  const json& two = second.folder;
  Script s;
  LspClient c(scripted(s, true));
  const int id = c.request("initialize", {{"processId", nullptr}, {"capabilities", json::object()},
                                          {"workspaceFolders", {{{"uri", rootUri()}, {"name", "one"}}, two}}});
  c.reply(id);
  s.file = "b.txt";
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", otherUri}}}});
  json d = c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(d["params"]["uri"], otherUri);
  EXPECT_EQ(d["params"]["diagnostics"].size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(other.root() / ".git" / "revline" / "cache"));
  EXPECT_FALSE(std::filesystem::exists(repo.root() / ".git" / "revline" / "cache"));
  // The folder removed from the workspace: its files' findings go with it (they
  // stayed in the Problems panel), except an open document's.
  c.notify("workspace/didChangeWorkspaceFolders",
           {{"event", {{"added", json::array()}, {"removed", json::array({two})}}}});
  d = c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(d["params"]["uri"], otherUri);
  EXPECT_TRUE(d["params"]["diagnostics"].empty());
  c.notify("workspace/didChangeWorkspaceFolders",
           {{"event", {{"added", json::array({two})}, {"removed", json::array()}}}});
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", otherUri}, {"languageId", "text"}, {"version", 1},
                                                     {"text", "y\n"}}}});
  EXPECT_EQ(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].size(), 1u);
  c.notify("workspace/didChangeWorkspaceFolders",
           {{"event", {{"added", json::array()}, {"removed", json::array({two})}}}});
  c.expectQuiet();
  // Its buffer closed: no buffer and no folder hold the file now.
  c.notify("textDocument/didClose", {{"textDocument", {{"uri", otherUri}}}});
  d = c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(d["params"]["uri"], otherUri);
  EXPECT_TRUE(d["params"]["diagnostics"].empty());
  EXPECT_EQ(c.stop(), 0);
}

// A folder removed while a review of its file runs: the review's findings,
// published when it ends, do not stay for a file no folder holds.
TEST_F(Fixture, AFolderRemovedWhileItsReviewRunsLeavesNoFindings) {
  SecondFolder second;
  const std::string& otherUri = second.fileUri;
  const json& two = second.folder;
  Script s;
  s.file = "b.txt";
  LspClient c(scripted(s));
  c.reply(c.request("initialize", {{"processId", nullptr}, {"capabilities", json::object()},
                                   {"initializationOptions", {{"debounce_ms", 0}}},
                                   {"workspaceFolders", {{{"uri", rootUri()}, {"name", "one"}}, two}}}));
  s.close();
  const int id = c.request("workspace/executeCommand",
                           {{"command", "revline.reviewFile"}, {"arguments", json::array({{{"uri", otherUri}}})}});
  ASSERT_TRUE(s.waitForCalls(1));  // the model is answering
  c.notify("workspace/didChangeWorkspaceFolders",
           {{"event", {{"added", json::array()}, {"removed", json::array({two})}}}});
  c.reply(c.request("revline/stats", json::object()));  // the loop has taken the removal (messages go in order)
  s.open();
  c.reply(id);  // answered once the review's outcome is applied
  // Not published, then cleared in the same instant (a client showed them for that moment).
  for (const json& d : c.allOf("textDocument/publishDiagnostics"))
    EXPECT_TRUE(d["params"]["diagnostics"].empty()) << d.dump();
  EXPECT_EQ(c.stop(), 0);
}

// A file deleted (or renamed away) while its review runs, the model answering:
// none of its findings is shown. They were published on a file that no longer
// existed, and stayed in the editor's problem list until a later review.
TEST_F(Fixture, AFileDeletedWhileItsReviewRunsGetsNoFindings) {
  Script s;
  LspClient c(scripted(s));
  s.close();
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  const int id = c.request("workspace/executeCommand",
                           {{"command", "revline.reviewFile"}, {"arguments", json::array({{{"uri", uri}}})}});
  ASSERT_TRUE(s.waitForCalls(1));  // git read the file; the model is answering
  repo.remove("a.txt");
  s.open();
  c.reply(id);
  for (const json& d : c.allOf("textDocument/publishDiagnostics"))
    EXPECT_TRUE(d["params"]["diagnostics"].empty()) << d.dump();
  EXPECT_EQ(c.stop(), 0);
}

// The same folder in the workspace twice (through a link, or spelt
// file://localhost/): removing one spelling leaves the folder in the workspace,
// and its findings shown (both entries were dropped, and its findings cleared).
TEST_F(Fixture, AFolderInTheWorkspaceTwiceStaysWhenOneIsRemoved) {
  Script s;
  LspClient c(scripted(s, true));
  const std::string path = std::filesystem::canonical(repo.root()).string();
  const json second = {{"uri", "file://localhost" + path}, {"name", "again"}};
  c.reply(c.request("initialize", {{"processId", nullptr}, {"capabilities", json::object()},
                                   {"workspaceFolders", {{{"uri", rootUri()}, {"name", "one"}}, second}}}));
  c.notify("initialized", json::object());
  save(c);
  EXPECT_EQ(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].size(), 1u);
  c.notify("workspace/didChangeWorkspaceFolders",
           {{"event", {{"added", json::array()}, {"removed", json::array({second})}}}});
  c.expectQuiet();
  EXPECT_EQ(c.stop(), 0);
}

// eglot sends every server the project's whole workspace configuration, one
// section per server. Sections of other servers alone are not revline's
// settings: before, "unknown key pylsp" stopped every review, and dropped the
// initializationOptions that applied (their check waited for the first review).
TEST_F(Fixture, OtherServersSettingsLeaveRevlinesAlone) {
  Script s;
  std::vector<int> attemptsAllowed;
  ServerOptions o = recordingAttempts(s, attemptsAllowed);
  LspClient c(o);
  c.initialize(rootUri(), {{"max_attempts", 1}});
  c.notify("workspace/didChangeConfiguration",
           {{"settings", {{"pylsp", {{"plugins", {{"ruff", {{"enabled", true}}}}}}}, {"gopls", json::object()}}}});
  EXPECT_NE(c.log("no revline settings in it (sections gopls, pylsp").find("the settings in use stay"), std::string::npos);
  save(c);
  EXPECT_EQ(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].size(), 1u);
  // A misspelt key of revline's beside its own is still said, and the initializationOptions stay.
  c.notify("workspace/didChangeConfiguration", {{"settings", {{"max_attempts", 1}, {"polcy", json::object()}}}});
  const std::string shown = editSaveAndShown(c);
  EXPECT_NE(shown.find("polcy"), std::string::npos) << shown;
  EXPECT_NE(shown.find("the editor settings sent before stay in use"), std::string::npos) << shown;
  EXPECT_EQ(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].size(), 1u);
  EXPECT_EQ(attemptsAllowed, (std::vector<int>{1, 1}));
  EXPECT_EQ(c.stop(), 0);
}

// initializationOptions as clients send them: the {"revline": {...}} section
// didChangeConfiguration takes (Sublime, coc, Zed and Kate never send that
// notification), and a value that is no object, which is ignored rather than
// leaving the editor without a server.
TEST_F(Fixture, InitializationOptionsInARevlineSectionOrOfAnotherType) {
  Script s;
  std::vector<int> attemptsAllowed;
  ServerOptions o = recordingAttempts(s, attemptsAllowed);
  {
    LspClient c(o);
    c.initialize(rootUri(), {{"revline", {{"max_attempts", 1}}}});
    save(c);
    EXPECT_EQ(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].size(), 1u);
    EXPECT_EQ(c.stop(), 0);
  }
  EXPECT_EQ(attemptsAllowed, (std::vector<int>{1}));
  // Other servers' sections alone, or a null revline section: no settings, and reviews go on.
  for (const json& options : {json{{"pylsp", {{"plugins", json::object()}}}}, json{{"revline", nullptr}}}) {
    LspClient c(o);
    c.initialize(rootUri(), options);
    save(c);
    EXPECT_EQ(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].size(), 1u) << options.dump();
    EXPECT_EQ(c.stop(), 0);
  }
  LspClient c(o);
  const json init = c.initialize(rootUri(), false);
  EXPECT_TRUE(init.contains("result")) << init.dump();
  EXPECT_NE(c.log("initializationOptions: expected an object").find("ignored"), std::string::npos);
  save(c);
  EXPECT_EQ(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].size(), 1u);
  EXPECT_EQ(c.stop(), 0);
}

// Folders as other clients name them: RFC 8089's "file:/path" (Java's
// File.toURI()), a folder that is no local file beside a local one, and only
// the deprecated rootPath. None may fail initialize (the client then gives up
// on the server), and the local ones are reviewed.
TEST_F(Fixture, FoldersOfOtherSpellingsAndSchemesDoNotFailInitialize) {
  Script s;
  const std::string path = std::filesystem::canonical(repo.root()).string();
  for (const json& init : {json{{"rootUri", "file:" + path}},
                           json{{"workspaceFolders", {{{"uri", "vscode-vfs://github/o/r"}, {"name", "remote"}},
                                                      {{"uri", rootUri()}, {"name", "local"}}}}},
                           // A Windows client's drive, beside the local folder.
                           json{{"workspaceFolders", {{{"uri", "file:///c%3A/Users/u/repo"}, {"name", "windows"}},
                                                      {{"uri", rootUri()}, {"name", "local"}}}}},
                           json{{"rootUri", nullptr}, {"rootPath", path}}}) {
    LspClient c(scripted(s, true));
    json params = init;
    params["processId"] = nullptr;
    params["capabilities"] = json::object();
    const json r = c.reply(c.request("initialize", params));
    ASSERT_TRUE(r.contains("result")) << init.dump() << " -> " << r.dump();
    c.notify("initialized", json::object());
    const json review = c.reply(c.request("workspace/executeCommand", {{"command", "revline.reviewWorkspace"}}));
    EXPECT_TRUE(review.contains("result")) << init.dump() << " -> " << review.dump();
    EXPECT_EQ(c.notification("textDocument/publishDiagnostics")["params"]["diagnostics"].size(), 1u) << init.dump();
    EXPECT_EQ(c.stop(), 0);
  }
  // No folder at all (Sublime with one file): the repositories of the open documents.
  LspClient c(scripted(s, true));
  c.reply(c.request("initialize", {{"processId", nullptr}, {"rootUri", nullptr}, {"capabilities", json::object()}}));
  c.notify("initialized", json::object());
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "text"}, {"version", 1},
                                                     {"text", "one changed\ntwo\n"}}}});
  const json review = c.reply(c.request("workspace/executeCommand", {{"command", "revline.reviewWorkspace"}}));
  EXPECT_TRUE(review.contains("result")) << review.dump();
  EXPECT_EQ(c.lastDiagnostics().size(), 1u);
  // A folder named that is in no repository is named in the error (it said "no
  // workspace folder ... is inside a git repository", with the workspace's in one).
  revline::testing::TempDir plain;
  const json refused = c.reply(c.request(
      "workspace/executeCommand",
      {{"command", "revline.reviewWorkspace"}, {"arguments", {uriFromPath(plain.path().string())}}}));
  EXPECT_EQ(refused["error"]["message"], plain.path().string() + " is not in a git repository")
      << refused.dump();
  // A Windows path is said to be one (it read as "/c:/Users/u/repo is not in a git repository").
  const json windows = c.reply(c.request(
      "workspace/executeCommand", {{"command", "revline.reviewWorkspace"}, {"arguments", {"file:///c%3A/Users/u/repo"}}}));
  EXPECT_NE(windows["error"].value("message", "").find("a Windows path"), std::string::npos) << windows.dump();
  EXPECT_EQ(c.stop(), 0);
}

// A workspace folder that holds repositories without being one (~/src, a clone
// in each directory): "Review Workspace" reviews the repositories of the open
// documents in it. It failed with "no workspace folder (or, without one, no open
// document) is inside a git repository", the user's open file's reviews shown.
TEST_F(Fixture, AFolderOfRepositoriesReviewsThoseOfItsOpenDocuments) {
  revline::testing::TempDir parent;
  const std::filesystem::path top = std::filesystem::canonical(parent.path());
  ASSERT_EQ(revline::testing::runShell("git init -q x && cd x && printf 'one\\ntwo\\n' > a.txt && "
                                       "git -c user.name=t -c user.email=t@t add a.txt && "
                                       "git -c user.name=t -c user.email=t@t commit -q -m i && "
                                       "printf 'one changed\\ntwo\\n' > a.txt && mkdir -p ../y",
                                       top)
                .exitCode,
            0);
  Script s;
  LspClient c(scripted(s, true));
  c.reply(c.request("initialize", {{"processId", nullptr}, {"capabilities", json::object()},
                                   {"workspaceFolders", {{{"uri", uriFromPath(top.string())}, {"name", "src"}}}}}));
  c.notify("initialized", json::object());
  const json none = c.reply(c.request("workspace/executeCommand", {{"command", "revline.reviewWorkspace"}}));
  EXPECT_EQ(none["error"].value("message", ""),
            "no workspace folder is inside a git repository, and no open document is: open a file of a repository "
            "(its repository is then reviewed), or the repository's folder as the workspace")
      << none.dump();
  const std::string opened = uriFromPath((top / "x" / "a.txt").string());
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", opened}, {"languageId", "text"}, {"version", 1},
                                                     {"text", "one changed\ntwo\n"}}}});
  const json review = c.reply(c.request("workspace/executeCommand", {{"command", "revline.reviewWorkspace"}}));
  EXPECT_TRUE(review.contains("result")) << review.dump();
  const json published = c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(published["params"]["uri"], opened);
  EXPECT_EQ(published["params"]["diagnostics"].size(), 1u) << published.dump();
  // Named as the argument, the same.
  const json named = c.reply(c.request("workspace/executeCommand", {{"command", "revline.reviewWorkspace"},
                                                                    {"arguments", {uriFromPath(top.string())}}}));
  EXPECT_TRUE(named.contains("result")) << named.dump();
  c.allOf("textDocument/publishDiagnostics");
  EXPECT_EQ(c.stop(), 0);

  // Beside a folder that is a repository (a multi-root workspace): its open documents' too.
  LspClient both(scripted(s, true));
  both.reply(both.request("initialize", {{"processId", nullptr}, {"capabilities", json::object()},
                                         {"workspaceFolders", {{{"uri", rootUri()}, {"name", "repo"}},
                                                               {{"uri", uriFromPath(top.string())}, {"name", "src"}}}}}));
  both.notify("initialized", json::object());
  both.notify("textDocument/didOpen", {{"textDocument", {{"uri", opened}, {"languageId", "text"}, {"version", 1},
                                                         {"text", "one changed\ntwo\n"}}}});
  EXPECT_EQ(both.reply(both.request("workspace/executeCommand", {{"command", "revline.reviewWorkspace"}}))["result"],
            json(nullptr));  // two repositories: each reviewed, the reply at once
  std::set<std::string> uris;
  for (const json& d : both.allOf("textDocument/publishDiagnostics", 2s)) uris.insert(d["params"]["uri"]);
  EXPECT_TRUE(uris.count(opened)) << "the open document under the folder of repositories was reviewed";
  EXPECT_TRUE(uris.count(uri)) << "and the repository folder's file";
  EXPECT_EQ(both.stop(), 0);
}

// Helix and eglot drop diagnostics published for another version than the
// buffer's. A review that ends while the user types after saving is published
// at the version before the typing; the next didChange publishes again, at its
// version, even when the edit is far from every finding.
TEST_F(Fixture, DiagnosticsPublishedBehindTheEditorsVersionAreSentAgainOnce) {
  Script s;
  LspClient c(scripted(s, /*sync=*/true));
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  repo.write("a.txt", "one changed\ntwo\nthree\n");
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "text"}, {"version", 1},
                                                     {"text", "one changed\ntwo\nthree\n"}}}});
  save(c);
  json d = c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(d["params"]["version"], 1);
  ASSERT_EQ(d["params"]["diagnostics"].size(), 1u);
  const auto type = [&](int version) {
    c.notify("textDocument/didChange",
             {{"textDocument", {{"uri", uri}, {"version", version}}},
              {"contentChanges", {{{"range", {{"start", {{"line", 2}, {"character", 5}}}, {"end", {{"line", 2}, {"character", 5}}}}},
                                   {"text", "!"}}}}});
  };
  type(2);
  d = c.notification("textDocument/publishDiagnostics");
  EXPECT_EQ(d["params"]["version"], 2);
  EXPECT_EQ(d["params"]["diagnostics"].size(), 1u);
  type(3);  // the publish at version 2 came after its change: nothing to send again
  c.expectQuiet();
  EXPECT_EQ(c.stop(), 0);
}

// "Review this file now" as a code action runs in the background: eglot and
// lsp-mode wait for the command's reply with the editor blocked (lsp-mode
// cancels it after 10 s). Asked without the flag, the reply is the outcome.
TEST_F(Fixture, TheReviewNowCodeActionIsAnsweredAtOnce) {
  Script s;
  s.close();
  LspClient c(scripted(s));
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "text"}, {"version", 1},
                                                     {"text", "one changed\ntwo\n"}}}});
  const json actions = c.reply(c.request("textDocument/codeAction",
                                         {{"textDocument", {{"uri", uri}}},
                                          {"range", {{"start", {{"line", 1}, {"character", 0}}}, {"end", {{"line", 1}, {"character", 0}}}}},
                                          {"context", {{"diagnostics", json::array()}}}}))["result"];
  json command;
  for (const json& a : actions)
    if (a.value("title", "") == "Review this file now") command = a["command"];
  ASSERT_FALSE(command.is_null()) << actions.dump();
  EXPECT_EQ(command["arguments"][0]["background"], true);
  const int id = c.request("workspace/executeCommand", command);
  EXPECT_EQ(c.reply(id)["result"], json(nullptr)) << "answered while the model is still working";
  ASSERT_TRUE(s.waitForCalls(1));
  s.open();
  EXPECT_EQ(c.lastDiagnostics().size(), 1u);
  EXPECT_EQ(c.stop(), 0);
}

// A client whose hover shows only plain text (eglot without markdown-mode
// announces contentFormat ["plaintext"]) gets no markdown markers to read.
TEST_F(Fixture, HoverIsPlainTextForAClientThatShowsNoMarkdown) {
  Script s;
  for (const bool markdown : {true, false}) {
    LspClient c(scripted(s, true));
    const json formats = markdown ? json{"markdown", "plaintext"} : json{"plaintext"};
    c.initialize(rootUri(), json::object(), {{"textDocument", {{"hover", {{"contentFormat", formats}}}}}});
    save(c);
    c.notification("textDocument/publishDiagnostics");
    const json contents =
        c.reply(c.request("textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", {{"line", 0}, {"character", 0}}}}))
            ["result"]["contents"];
    EXPECT_EQ(contents["kind"], markdown ? "markdown" : "plaintext");
    const std::string value = contents["value"];
    EXPECT_EQ(value.find("**revline: Scripted finding**") != std::string::npos, markdown) << value;
    EXPECT_NE(value.find("revline: Scripted finding"), std::string::npos) << value;
    EXPECT_NE(value.find(markdown ? "*MINOR* · STYLE · confidence 0.90" : "\nMINOR · STYLE · confidence 0.90"), std::string::npos) << value;
    EXPECT_EQ(c.stop(), 0);
  }
}

TEST_F(Fixture, ExitWithoutShutdownIsCodeOne) {
  Script s;
  MemoryTransport t;
  Server server(t, scripted(s, true));
  t.clientSend(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", {{"capabilities", json::object()}}}});
  t.clientSend(json{{"jsonrpc", "2.0"}, {"method", "exit"}});
  EXPECT_EQ(server.run(), 1);
}

}  // namespace
}  // namespace revline::lsp
