// How long shown findings live: a file reopened after its change went away (git
// stash) or changed on disk, a file deleted or renamed away. The server in
// process, as an editor drives it, with a provider that flags the first added
// line of every hunk it is shown. A commit, a stash or a checkout in a terminal,
// which the client reports as a change of git's index or HEAD.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <memory>

#include "lsp/protocol.h"
#include "tests/support/temp_repo.h"
#include "tests/unit/lsp/lsp_client.h"

namespace revline::lsp {
namespace {

using revline::testing::TempRepo;
using testing::LspClient;

// `onCall`, when given, runs at each model call (a test counts them, or holds the answer back).
class FirstAddedLineProvider : public review::Provider {
 public:
  explicit FirstAddedLineProvider(const diff::Diff& diff, std::function<void()> onCall = {}) : onCall_(std::move(onCall)) {
    for (const auto& file : diff.files) {
      for (const auto& hunk : file.hunks) {
        bool found = false;
        for (const auto& line : hunk.lines)
          if (!found && line.kind == diff::LineKind::Added) {
            findings_.push_back({{"file", file.path()}, {"line", line.newLine}, {"endLine", nullptr},
                                 {"severity", "MINOR"}, {"category", "STYLE"}, {"title", "Added line"},
                                 {"explanation", "Because."}, {"suggestedFix", nullptr}, {"edit", nullptr},
                                 {"confidence", 0.9}});
            found = true;
          }
      }
    }
  }
  std::string name() const override { return "first-added"; }
  std::string model() const override { return "m1"; }
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken&) override {
    if (onCall_) onCall_();
    // As a model would: only on the lines it was shown (an incremental review sends some hunks).
    json shown = json::array();
    for (const auto& f : findings_)
      if (request.messages.front().text.find("\n" + std::to_string(f["line"].get<int>()) + " + ") != std::string::npos ||
          request.messages.front().text.find(" " + std::to_string(f["line"].get<int>()) + " + ") != std::string::npos)
        shown.push_back(f);
    review::ModelResponse r;
    r.text = json{{"summary", "s"}, {"verdict", "COMMENT"}, {"findings", shown}}.dump();
    return r;
  }

 private:
  std::function<void()> onCall_;
  json findings_ = json::array();
};

struct FindingsLifetime : ::testing::Test {
  TempRepo repo;
  std::unique_ptr<LspClient> client;
  void SetUp() override {
    repo.write("a.txt", "one\ntwo\n");
    repo.write("b.txt", "uno\ndos\n");
    repo.commitAll("init");
  }
  std::string uriOf(const std::string& rel) {
    return uriFromPath((std::filesystem::canonical(repo.root()) / rel).string());
  }
  std::string rootUri() { return uriFromPath(std::filesystem::canonical(repo.root()).string()); }
  static ServerOptions options(std::function<void()> onCall = {}) {
    ServerOptions o;
    o.sync = true;
    o.providerFactory = [onCall](const config::Config&, const diff::Diff& diff, const std::filesystem::path&) {
      return std::make_unique<FirstAddedLineProvider>(diff, onCall);
    };
    return o;
  }
  void open(LspClient& c, const std::string& rel) {
    c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uriOf(rel)}, {"languageId", "text"}, {"version", 1},
                                                        {"text", repo.read(rel)}}}});
  }
  void close(LspClient& c, const std::string& rel) {
    c.notify("textDocument/didClose", {{"textDocument", {{"uri", uriOf(rel)}}}});
  }
  void save(LspClient& c, const std::string& rel) {
    c.notify("textDocument/didSave", {{"textDocument", {{"uri", uriOf(rel)}}}});
  }
  json published(LspClient& c, const std::string& rel) {
    const std::string uri = uriOf(rel);
    return c.waitFor(
        [&](const json& m) {
          return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri;
        },
        "publishDiagnostics for " + rel)["params"]["diagnostics"];
  }
  // a.txt changed, saved (opened in the editor first, with `opened`) and
  // reviewed: its finding is shown.
  LspClient& reviewed(bool opened) {
    repo.write("a.txt", "one changed\ntwo\n");
    client = std::make_unique<LspClient>(options());
    client->initialize(rootUri());
    if (opened) open(*client, "a.txt");
    save(*client, "a.txt");
    EXPECT_EQ(published(*client, "a.txt").size(), 1u);
    return *client;
  }
  // The client's watcher (registered by the server) reports git's index changed.
  void indexChanged(LspClient& c) {
    c.notify("workspace/didChangeWatchedFiles", {{"changes", {{{"uri", uriOf(".git/index")}, {"type", 2}}}}});
  }
  json hover(LspClient& c, const std::string& rel, int line) {
    const int id = c.request("textDocument/hover", {{"textDocument", {{"uri", uriOf(rel)}}},
                                                    {"position", {{"line", line}, {"character", 0}}}});
    return c.reply(id)["result"];
  }
};

// git stash while the file is open: the editor reloads it (didClose, didOpen)
// and it equals HEAD. The old finding goes, and typing does not bring it back.
TEST_F(FindingsLifetime, AFileReopenedAtHeadIsCleared) {
  LspClient& c = reviewed(/*opened=*/true);
  repo.git("stash -q");
  close(c, "a.txt");
  open(c, "a.txt");
  EXPECT_TRUE(published(c, "a.txt").empty());
  c.notify("textDocument/didChange",
           {{"textDocument", {{"uri", uriOf("a.txt")}, {"version", 2}}},
            {"contentChanges", {{{"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}}},
                                 {"text", "zero\n"}}}}});
  // No finding comes back on a committed line: the clear is only sent again at the
  // edit's version (a client that drops another version's diagnostics may have).
  const json again = c.notification("textDocument/publishDiagnostics")["params"];
  EXPECT_EQ(again["version"], 2);
  EXPECT_TRUE(again["diagnostics"].empty());
  c.expectQuiet();
  EXPECT_EQ(hover(c, "a.txt", 1), json(nullptr));
  EXPECT_EQ(c.stop(), 0);
}

// Lines typed above the finding, then the buffer closed without saving (":q!",
// "Don't Save"): the file on disk still has the finding's line where it was
// reviewed. It was left published at the moved line (a client that keeps a
// closed file's diagnostics, VS Code's Problems panel, showed it there); a
// deleted line left it gone while the disk still has it.
TEST_F(FindingsLifetime, ClosingWithoutSavingPlacesTheFindingOnTheFileOnDiskAgain) {
  LspClient& c = reviewed(/*opened=*/true);
  auto insertAbove = [&](int version, const std::string& text) {
    c.notify("textDocument/didChange",
             {{"textDocument", {{"uri", uriOf("a.txt")}, {"version", version}}},
              {"contentChanges", {{{"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}}},
                                   {"text", text}}}}});
  };
  insertAbove(2, "x\ny\nz\n");
  ASSERT_EQ(published(c, "a.txt")[0]["range"]["start"]["line"], 3);  // moved with the unsaved edit
  close(c, "a.txt");
  json onDisk = published(c, "a.txt");
  ASSERT_EQ(onDisk.size(), 1u);
  EXPECT_EQ(onDisk[0]["range"]["start"]["line"], 0);
  EXPECT_EQ(hover(c, "a.txt", 3), json(nullptr));
  EXPECT_NE(hover(c, "a.txt", 0), json(nullptr));

  open(c, "a.txt");  // the cached review, shown again
  ASSERT_EQ(published(c, "a.txt").size(), 1u);
  c.notify("textDocument/didChange",  // the finding's line deleted, not saved
           {{"textDocument", {{"uri", uriOf("a.txt")}, {"version", 3}}},
            {"contentChanges", {{{"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 1}, {"character", 0}}}}},
                                 {"text", ""}}}}});
  EXPECT_TRUE(published(c, "a.txt").empty());
  close(c, "a.txt");
  onDisk = published(c, "a.txt");
  ASSERT_EQ(onDisk.size(), 1u);
  EXPECT_EQ(onDisk[0]["range"]["start"]["line"], 0);
  EXPECT_EQ(c.stop(), 0);
}

// Opened with text that is not the file on disk, no edit recorded: VS Code's hot
// exit restores an unsaved buffer, and the cached review of the disk's diff is
// shown. Its finding went on the disk's line number, over whatever the buffer
// has there (an unrelated line, when lines were typed above it). Now it is kept
// only where the buffer reads as the reviewed line.
TEST_F(FindingsLifetime, ABufferOpenedWithOtherTextThanTheDiskShowsNoFindingOnAnotherLine) {
  LspClient& c = reviewed(/*opened=*/true);
  close(c, "a.txt");
  auto openWith = [&](const std::string& text) {
    c.notify("textDocument/didOpen",
             {{"textDocument", {{"uri", uriOf("a.txt")}, {"languageId", "text"}, {"version", 1}, {"text", text}}}});
  };
  openWith("zero\none changed\ntwo\n");  // a line typed above it, never saved
  EXPECT_TRUE(published(c, "a.txt").empty());
  EXPECT_EQ(hover(c, "a.txt", 0), json(nullptr));
  close(c, "a.txt");
  openWith("one changed\ntwo\nthree\n");  // edited below it: the line still reads as reviewed
  const json kept = published(c, "a.txt");
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0]["range"]["start"]["line"], 0);
  EXPECT_EQ(c.stop(), 0);
}

// Changed on disk by another tool, then reopened: findings of the diff they were
// computed on are not shown on another diff; the cached review of a diff is.
TEST_F(FindingsLifetime, AFileReopenedWithAnotherDiffShowsOnlyThatDiffsReview) {
  LspClient& c = reviewed(/*opened=*/true);
  repo.write("a.txt", "one\ntwo\nthree\n");  // not reviewed yet
  close(c, "a.txt");
  open(c, "a.txt");
  EXPECT_TRUE(published(c, "a.txt").empty());
  repo.write("a.txt", "one changed\ntwo\n");  // the reviewed diff again: its cached review
  close(c, "a.txt");
  open(c, "a.txt");
  const json back = published(c, "a.txt");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0]["range"]["start"]["line"], 0);
  EXPECT_EQ(c.stop(), 0);
}

// The buffer stays open (Neovim keeps it), the file is gone: the watcher says so.
TEST_F(FindingsLifetime, AFileTheWatcherReportsDeletedIsCleared) {
  LspClient& c = reviewed(/*opened=*/true);
  repo.remove("a.txt");
  c.notify("workspace/didChangeWatchedFiles", {{"changes", {{{"uri", uriOf("a.txt")}, {"type", 3}}}}});
  EXPECT_TRUE(published(c, "a.txt").empty());
  EXPECT_EQ(hover(c, "a.txt", 0), json(nullptr));
  EXPECT_EQ(c.stop(), 0);
}

// An atomic save reports a delete, then the file is there again: nothing to clear.
TEST_F(FindingsLifetime, ADeleteEventForAFileThatIsThereKeepsItsFindings) {
  LspClient& c = reviewed(/*opened=*/false);
  c.notify("workspace/didChangeWatchedFiles", {{"changes", {{{"uri", uriOf("a.txt")}, {"type", 3}}}}});
  c.expectQuiet();
  EXPECT_NE(hover(c, "a.txt", 0), json(nullptr));
  EXPECT_EQ(c.stop(), 0);
}

// Deleted, and its buffer closed (as editors do): cleared then.
TEST_F(FindingsLifetime, ADeletedFileIsClearedWhenItsBufferCloses) {
  LspClient& c = reviewed(/*opened=*/true);
  repo.remove("a.txt");
  close(c, "a.txt");
  EXPECT_TRUE(published(c, "a.txt").empty());
  EXPECT_EQ(c.stop(), 0);
}

// Renamed away with no event (mv in a terminal): the next review, of another
// file, finds it gone and clears it.
TEST_F(FindingsLifetime, AFileRenamedAwayIsClearedByTheNextReview) {
  LspClient& c = reviewed(/*opened=*/false);
  std::filesystem::rename(repo.root() / "a.txt", repo.root() / "c.txt");
  save(c, "c.txt");
  EXPECT_EQ(published(c, "c.txt").size(), 1u);
  EXPECT_TRUE(published(c, "a.txt").empty());
  EXPECT_EQ(hover(c, "a.txt", 0), json(nullptr));
  EXPECT_EQ(c.stop(), 0);
}

// Committed in a terminal (or the editor's git view): nothing of it is in the
// change any more, and the client reports git's index changed. The closed file's
// findings (VS Code's Problems panel lists them) go without a save.
TEST_F(FindingsLifetime, ACommitClearsTheFindingsOfAClosedFile) {
  LspClient& c = reviewed(/*opened=*/false);
  repo.commitAll("done");
  indexChanged(c);
  EXPECT_TRUE(published(c, "a.txt").empty());
  EXPECT_EQ(hover(c, "a.txt", 0), json(nullptr));
  EXPECT_EQ(c.stop(), 0);
}

// The change committed on a new branch, then a checkout back to the branch
// without it: no line of the change is left, and the file's findings go. A
// checkout writes HEAD, which is watched too. (`git stash`: below.)
TEST_F(FindingsLifetime, ACheckoutClearsTheFindingsItTakesOutOfTheChange) {
  LspClient& c = reviewed(/*opened=*/false);
  repo.git("checkout -q -b topic");
  repo.commitAll("on topic");
  repo.git("checkout -q -");  // back to the branch without it: a.txt as it was, no change
  c.notify("workspace/didChangeWatchedFiles", {{"changes", {{{"uri", uriOf(".git/HEAD")}, {"type", 2}}}}});
  EXPECT_TRUE(published(c, "a.txt").empty());
  EXPECT_EQ(c.stop(), 0);
}

// `git pull --autostash` brings a line above the uncommitted change: the
// finding's line is still added, one line down. The client reports git's index
// and HEAD, then reloads the buffer (the order is the editor's). The finding
// stays, on its line in the reloaded buffer; before, the recheck compared the
// line it had moved to with the reviewed file's line of that number, and cleared
// it (or, before the reload, placed it on the file's new number over a buffer
// that did not have it there yet).
TEST_F(FindingsLifetime, APullThatMovesTheChangedLineKeepsItsFinding) {
  LspClient& c = reviewed(/*opened=*/true);
  repo.write("a.txt", "zero\none\ntwo\n");  // what the pull fast-forwards to, with the change put back
  repo.commitAll("upstream");
  repo.write("a.txt", "zero\none changed\ntwo\n");
  indexChanged(c);
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", uriOf("a.txt")}, {"version", 2}}},
                                      {"contentChanges", {{{"text", repo.read("a.txt")}}}}});
  c.notify("workspace/didChangeWatchedFiles", {{"changes", {{{"uri", uriOf(".git/HEAD")}, {"type", 2}}}}});
  // What the editor shows once the rechecks (due after git settles) are done.
  const json last = c.lastDiagnostics(std::chrono::milliseconds(1000));
  ASSERT_EQ(last.size(), 1u) << last.dump();
  EXPECT_EQ(last[0]["range"]["start"]["line"], 1);
  EXPECT_NE(hover(c, "a.txt", 1), json(nullptr));
  EXPECT_EQ(hover(c, "a.txt", 0), json(nullptr));
  EXPECT_EQ(hover(c, "a.txt", 2), json(nullptr));
  EXPECT_EQ(c.stop(), 0);
}

// a.txt of twenty lines ("line 0" to "line 19"), committed; its text.
std::string committedTwentyLines(TempRepo& repo) {
  std::string base;
  for (int i = 0; i < 20; ++i) base += "line " + std::to_string(i) + "\n";
  repo.write("a.txt", base);
  repo.commitAll("base");
  return base;
}

// `text` with "line 3" and "line 15" changed: two hunks, far enough apart for git to show them apart.
std::string withLines3And15Changed(std::string text) {
  for (const std::string n : {"line 3\n", "line 15\n"}) text.replace(text.find(n), n.size() - 1, n.substr(0, n.size() - 1) + " changed");
  return text;
}

// `git checkout -m` (or a pull with --autostash) that brings upstream lines
// above and below two changed lines, and the editor's reload as one new text
// (as a client that sends the whole text does, and as VS Code's range over all
// of it): both findings stay, moved with their lines. Before, everything from
// the first line that differed to the last was one edit, and both were dropped
// until the next save.
void reloadChangingLinesAboveAndBelow(FindingsLifetime& f, bool ranged) {
  auto& repo = f.repo;
  const std::string base = committedTwentyLines(repo);
  repo.write("a.txt", withLines3And15Changed(base));
  LspClient c(FindingsLifetime::options());
  c.initialize(f.rootUri());
  f.open(c, "a.txt");
  f.save(c, "a.txt");
  ASSERT_EQ(f.published(c, "a.txt").size(), 2u);
  const std::string upstream = "new first\n" + base.substr(0, base.size() - std::string("line 19\n").size()) + "line 19 upstream\n";
  repo.write("a.txt", upstream);
  repo.commitAll("upstream");
  const std::string reloaded = withLines3And15Changed(upstream);
  repo.write("a.txt", reloaded);
  f.indexChanged(c);
  json change = {{"text", reloaded}};
  if (ranged) change["range"] = {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 20}, {"character", 0}}}};
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", f.uriOf("a.txt")}, {"version", 2}}},
                                      {"contentChanges", json::array({change})}});
  c.notify("workspace/didChangeWatchedFiles", {{"changes", {{{"uri", f.uriOf(".git/HEAD")}, {"type", 2}}}}});
  const json last = c.lastDiagnostics(std::chrono::milliseconds(1000));
  ASSERT_EQ(last.size(), 2u) << last.dump();
  EXPECT_EQ(last[0]["range"]["start"]["line"], 4);
  EXPECT_EQ(last[1]["range"]["start"]["line"], 16);
  EXPECT_EQ(c.stop(), 0);
}

TEST_F(FindingsLifetime, AReloadAsOneNewTextThatChangesLinesAboveAndBelowKeepsTheFindingsBetween) {
  reloadChangingLinesAboveAndBelow(*this, /*ranged=*/false);
}

TEST_F(FindingsLifetime, AReloadAsARangeOverTheWholeFileThatChangesLinesAboveAndBelowKeepsTheFindingsBetween) {
  reloadChangingLinesAboveAndBelow(*this, /*ranged=*/true);
}

// a.txt, `base` with lines 3 and 15 changed, opened, saved and reviewed (two
// findings); then `upstream` committed under the change, the file rewritten as
// `reopened`, and the editor's reload as Neovim's :checktime and Emacs's
// revert-buffer do it: the file closed and opened again. What the open shows.
json reviewedThenReopened(FindingsLifetime& f, LspClient& c, const std::string& base, const std::string& upstream,
                          const std::string& reopened) {
  f.repo.write("a.txt", withLines3And15Changed(base));
  c.initialize(f.rootUri());
  f.open(c, "a.txt");
  f.save(c, "a.txt");
  EXPECT_EQ(f.published(c, "a.txt").size(), 2u);
  f.repo.write("a.txt", upstream);
  f.repo.commitAll("upstream");
  f.repo.write("a.txt", reopened);
  f.close(c, "a.txt");
  f.open(c, "a.txt");
  return c.lastDiagnostics(std::chrono::milliseconds(1000));
}

// The same checkout, reloaded by closing and opening. The diff is not one
// reviewed before (its hunks moved), but every hunk of it was: their findings
// are shown on their moved lines, and no model is asked. Before, nothing was
// shown until the next save (which then asked no model either).
TEST_F(FindingsLifetime, AFileReopenedAfterACheckoutThatMovedItsHunksShowsTheirFindings) {
  const std::string base = committedTwentyLines(repo);
  int calls = 0;
  LspClient c(options([&calls] { ++calls; }));
  // A blank line above: git names no other section for the first hunk (a text file's line would be its
  // "function" in the hunk header, which is part of what the model was shown).
  const std::string upstream = "\n" + base.substr(0, base.size() - std::string("line 19\n").size()) + "line 19 upstream\n";
  const json shown = reviewedThenReopened(*this, c, base, upstream, withLines3And15Changed(upstream));
  ASSERT_EQ(shown.size(), 2u) << shown.dump();
  EXPECT_EQ(shown[0]["range"]["start"]["line"], 4);
  EXPECT_EQ(shown[1]["range"]["start"]["line"], 16);
  EXPECT_EQ(calls, 1) << "no model asked on opening";
  EXPECT_EQ(c.stop(), 0);
}

// The same reopen after a pull that also changed one of the hunks: the hunk
// reviewed before shows its finding on its moved line, the changed one none
// until the save, which sends it alone. Before, nothing was shown until the save.
TEST_F(FindingsLifetime, AFileReopenedAfterAPullThatChangedOneOfItsHunksShowsTheOthersFindings) {
  const std::string base = committedTwentyLines(repo);
  int calls = 0;
  LspClient c(options([&calls] { ++calls; }));
  const std::string upstream = "\n" + base;
  std::string reopened = withLines3And15Changed(upstream);
  reopened.replace(reopened.find("line 15 changed"), 15, "line 15 changed again");
  const json shown = reviewedThenReopened(*this, c, base, upstream, reopened);
  ASSERT_EQ(shown.size(), 1u) << shown.dump();
  EXPECT_EQ(shown[0]["range"]["start"]["line"], 4);
  EXPECT_EQ(calls, 1) << "no model asked on opening";
  save(c, "a.txt");
  const json saved = published(c, "a.txt");
  ASSERT_EQ(saved.size(), 2u) << saved.dump();
  EXPECT_EQ(saved[1]["range"]["start"]["line"], 16);
  EXPECT_EQ(calls, 2) << "the changed hunk sent, once";
  EXPECT_EQ(c.stop(), 0);
}

// The same pull into a closed file (VS Code's Problems panel lists it): the
// finding went, though its line is still added, one line down. It moves there.
// A line the change adds more than once (which one?) still takes it away.
TEST_F(FindingsLifetime, APullThatMovesTheChangedLineOfAClosedFileMovesItsFinding) {
  LspClient& c = reviewed(/*opened=*/false);
  repo.write("a.txt", "zero\none\ntwo\n");
  repo.commitAll("upstream");
  repo.write("a.txt", "zero\none changed\ntwo\n");
  indexChanged(c);
  const json moved = published(c, "a.txt");
  ASSERT_EQ(moved.size(), 1u) << moved.dump();
  EXPECT_EQ(moved[0]["range"]["start"]["line"], 1);
  EXPECT_NE(hover(c, "a.txt", 1), json(nullptr));
  repo.write("a.txt", "zero\ntwo\n");
  repo.commitAll("the line removed upstream");
  repo.write("a.txt", "one changed\nzero\none changed\ntwo\n");  // added twice, neither where it was
  indexChanged(c);
  EXPECT_TRUE(published(c, "a.txt").empty());
  EXPECT_EQ(c.stop(), 0);
}

// `git stash`, something else, `git stash pop`: the change is back as it was
// reviewed, and so are its findings, from the cache (nothing sent), without a
// save; before, a closed file showed none until its next review.
TEST_F(FindingsLifetime, AStashPoppedShowsItsFindingsAgain) {
  auto calls = std::make_shared<int>(0);
  repo.write("a.txt", "one changed\ntwo\n");
  client = std::make_unique<LspClient>(options([calls] { ++*calls; }));
  LspClient& c = *client;
  c.initialize(rootUri());
  save(c, "a.txt");
  ASSERT_EQ(published(c, "a.txt").size(), 1u);
  repo.git("stash -q");
  indexChanged(c);
  EXPECT_TRUE(published(c, "a.txt").empty());
  repo.git("status --porcelain");  // the editor's git view, meanwhile: nothing to show
  indexChanged(c);
  c.expectQuiet();
  repo.git("stash pop -q");
  indexChanged(c);
  const json back = published(c, "a.txt");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0]["range"]["start"]["line"], 0);
  EXPECT_EQ(*calls, 1) << "shown from the cache";
  EXPECT_EQ(c.stop(), 0);
}

// The same with the file open, in an editor that reloads a file git rewrote as
// an edit (VS Code: a full-text didChange) right after git's event: the stash's
// reload took the finding as an edit, and the pop's brought nothing back until
// a save. Now the cached review of the diff is shown again. (A reload that comes
// before the event is the recheck's to bring back: restoreClearedFindings.)
TEST_F(FindingsLifetime, AStashPoppedIntoAnOpenBufferShowsItsFindingsAgain) {
  LspClient& c = reviewed(/*opened=*/true);
  int version = 1;
  auto gitThenReload = [&](const std::string& command) {
    repo.git(command);
    indexChanged(c);
    c.notify("textDocument/didChange", {{"textDocument", {{"uri", uriOf("a.txt")}, {"version", ++version}}},
                                        {"contentChanges", {{{"text", repo.read("a.txt")}}}}});
    // What the editor shows once the server is quiet (the recheck and the lookup it makes).
    json last;
    for (auto m = c.transport().clientReceive(std::chrono::seconds(3)); m;
         m = c.transport().clientReceive(std::chrono::milliseconds(1000)))
      if (m->value("method", "") == "textDocument/publishDiagnostics") last = (*m)["params"]["diagnostics"];
    return last;
  };
  const json stashed = gitThenReload("stash -q");
  EXPECT_TRUE(stashed.is_null() || stashed.empty()) << stashed.dump();
  const json popped = gitThenReload("stash pop -q");
  ASSERT_EQ(popped.size(), 1u) << popped.dump();
  EXPECT_EQ(popped[0]["range"]["start"]["line"], 0);
  EXPECT_EQ(c.stop(), 0);
}

// The same in a submodule or a linked work tree, whose index event does not
// name its work tree; and for a new file `git stash -u` took away whole.
TEST_F(FindingsLifetime, AStashPoppedInASubmoduleOrOfANewFileShowsItsFindingsAgain) {
  LspClient& c = reviewed(/*opened=*/false);
  const auto modulesIndexChanged = [&] {
    c.notify("workspace/didChangeWatchedFiles", {{"changes", {{{"uri", uriOf(".git/modules/lib/index")}, {"type", 2}}}}});
  };
  repo.git("stash -q");
  modulesIndexChanged();
  EXPECT_TRUE(published(c, "a.txt").empty());
  repo.git("stash pop -q");
  modulesIndexChanged();
  EXPECT_EQ(published(c, "a.txt").size(), 1u);

  repo.write("n.txt", "new\n");  // untracked
  save(c, "n.txt");
  ASSERT_EQ(published(c, "n.txt").size(), 1u);
  repo.git("stash -u -q");
  indexChanged(c);
  EXPECT_TRUE(published(c, "n.txt").empty());
  EXPECT_TRUE(published(c, "a.txt").empty());
  repo.git("stash pop -q");
  indexChanged(c);
  EXPECT_EQ(published(c, "n.txt").size(), 1u);
  EXPECT_EQ(published(c, "a.txt").size(), 1u);
  EXPECT_EQ(c.stop(), 0);
}

// `git add -p` of one hunk and a commit: the finding on the other hunk stays,
// at its line; the one on the committed hunk goes.
TEST_F(FindingsLifetime, AHunkCommittedOnItsOwnTakesOnlyItsFindings) {
  std::string before, after;
  for (int i = 1; i <= 20; ++i) before += "line " + std::to_string(i) + "\n";
  repo.write("c.txt", before);
  repo.commitAll("c");
  after = "first\n" + before + "last\n";
  repo.write("c.txt", after);
  client = std::make_unique<LspClient>(options());
  LspClient& c = *client;
  c.initialize(rootUri());
  save(c, "c.txt");
  ASSERT_EQ(published(c, "c.txt").size(), 2u);
  repo.write("c.txt", "first\n" + before);  // stage the first hunk only
  repo.git("add c.txt");
  repo.git("commit -q -m first");
  repo.write("c.txt", after);
  indexChanged(c);
  const json left = published(c, "c.txt");
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0]["range"]["start"]["line"], 21);
  EXPECT_EQ(c.stop(), 0);
}

// A submodule's index is in the superproject's .git (.git/modules/NAME/index),
// a linked work tree's in .git/worktrees/NAME/index: the path does not tell
// whose work tree changed, so every repository with findings is checked again.
TEST_F(FindingsLifetime, AnIndexOfASubmoduleOrLinkedWorkTreeChecksEveryRepositoryAgain) {
  LspClient& c = reviewed(/*opened=*/false);
  repo.commitAll("done");
  c.notify("workspace/didChangeWatchedFiles", {{"changes", {{{"uri", uriOf(".git/modules/lib/index")}, {"type", 2}}}}});
  EXPECT_TRUE(published(c, "a.txt").empty());
  EXPECT_EQ(c.stop(), 0);
}

// The commit came while the model was answering: the review, which read the diff
// before it, published its finding on a line the commit had taken out of the
// change, and it stayed there (the index event had found nothing to check yet).
TEST_F(FindingsLifetime, AReviewThatEndsAfterACommitIsCheckedAgainstTheDiffNow) {
  struct Gate {
    std::promise<void> entered, release;
    std::shared_future<void> released = release.get_future().share();
  };
  auto gate = std::make_shared<Gate>();
  ServerOptions o = options([gate] {
    gate->entered.set_value();
    gate->released.wait();
  });
  o.sync = false;
  repo.write("a.txt", "one changed\ntwo\n");
  client = std::make_unique<LspClient>(o);
  LspClient& c = *client;
  c.initialize(rootUri(), {{"debounce_ms", 0}});
  save(c, "a.txt");
  gate->entered.get_future().wait();
  repo.commitAll("done while the model answers");
  indexChanged(c);
  EXPECT_EQ(hover(c, "a.txt", 0), json(nullptr));  // the loop has taken the event
  gate->release.set_value();
  EXPECT_EQ(published(c, "a.txt").size(), 1u);  // the review's, on the line it read
  EXPECT_TRUE(published(c, "a.txt").empty());   // then checked against the diff now
  EXPECT_EQ(c.stop(), 0);
}

// git rewrites the index without changing anything (`git status` refreshes its
// file times; an editor's git view runs it all the time): the findings stay, and
// nothing is published.
TEST_F(FindingsLifetime, AnIndexRewriteThatChangesNothingKeepsTheFindings) {
  LspClient& c = reviewed(/*opened=*/false);
  repo.git("status --porcelain");
  indexChanged(c);
  c.expectQuiet();
  EXPECT_NE(hover(c, "a.txt", 0), json(nullptr));
  EXPECT_EQ(c.stop(), 0);
}

// A buffer with unsaved edits keeps what it shows: its findings are placed on
// the buffer, which the diff on disk does not describe. Its next save reviews it.
TEST_F(FindingsLifetime, ABufferWithUnsavedEditsIsLeftToItsNextSave) {
  LspClient& c = reviewed(/*opened=*/true);
  c.notify("textDocument/didChange",
           {{"textDocument", {{"uri", uriOf("a.txt")}, {"version", 2}}},
            {"contentChanges", {{{"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}}},
                                 {"text", "x\n"}}}}});
  ASSERT_EQ(published(c, "a.txt")[0]["range"]["start"]["line"], 1);
  repo.commitAll("done");
  indexChanged(c);
  c.expectQuiet();
  EXPECT_NE(hover(c, "a.txt", 1), json(nullptr));
  EXPECT_EQ(c.stop(), 0);
}

// A client that registers no file watchers (Neovim on Linux) never reports git's
// index or HEAD: the server looks at them itself. A commit in a terminal clears
// the findings without a save; `git reset --soft` (which leaves the index and
// moves only the branch) brings the change back, and its findings from the
// cache; a stash and its pop likewise. Nothing is sent to the model again.
TEST_F(FindingsLifetime, WithoutWatchersTheServerLooksAtGitsStateItself) {
  auto calls = std::make_shared<int>(0);
  ServerOptions o = options([calls] { ++*calls; });
  o.gitStatePoll = std::chrono::milliseconds(20);
  repo.write("a.txt", "one changed\ntwo\n");
  client = std::make_unique<LspClient>(o);
  LspClient& c = *client;
  c.initialize(rootUri());  // no capabilities: no watchers
  save(c, "a.txt");
  ASSERT_EQ(published(c, "a.txt").size(), 1u);
  repo.commitAll("done");
  EXPECT_TRUE(published(c, "a.txt").empty());
  repo.git("reset -q --soft HEAD~1");
  EXPECT_EQ(published(c, "a.txt").size(), 1u);
  repo.git("stash -q");
  EXPECT_TRUE(published(c, "a.txt").empty());
  repo.git("stash pop -q");
  EXPECT_EQ(published(c, "a.txt").size(), 1u);
  EXPECT_EQ(*calls, 1) << "shown from the cache";
  EXPECT_EQ(c.stop(), 0);
}

// A client that registers watchers is told by them: the server does not look.
TEST_F(FindingsLifetime, AClientWithWatchersIsNotPolled) {
  ServerOptions o = options();
  o.gitStatePoll = std::chrono::milliseconds(20);
  repo.write("a.txt", "one changed\ntwo\n");
  client = std::make_unique<LspClient>(o);
  LspClient& c = *client;
  c.initialize(rootUri(), json::object(), {{"workspace", {{"didChangeWatchedFiles", {{"dynamicRegistration", true}}}}}});
  c.waitFor([](const json& m) { return m.value("method", "") == "client/registerCapability"; }, "the watchers' registration");
  save(c, "a.txt");
  ASSERT_EQ(published(c, "a.txt").size(), 1u);
  repo.commitAll("done");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // ten polls' time, were there a poller
  c.expectQuiet();
  indexChanged(c);  // the client's watcher tells
  EXPECT_TRUE(published(c, "a.txt").empty());
  EXPECT_EQ(c.stop(), 0);
}

// A client's watchers see only inside its folders: a linked work tree opened
// alone keeps its index in the main repository's .git/worktrees/, which VS
// Code's patterns never match. The server looks at that git directory itself:
// a commit in the work tree clears its findings with no event from the client.
TEST_F(FindingsLifetime, AWorkTreeWhoseGitDirectoryNoFolderHoldsIsPolledDespiteWatchers) {
  revline::testing::TempDir outside;
  const std::filesystem::path wt = outside.path() / "wt";
  repo.git("worktree add -q " + revline::testing::shellQuote(wt.string()));
  const std::filesystem::path root = std::filesystem::canonical(wt);
  {
    std::ofstream(root / "a.txt") << "one changed\ntwo\n";
  }
  const std::string uri = uriFromPath((root / "a.txt").string());
  ServerOptions o = options();
  o.gitStatePoll = std::chrono::milliseconds(20);
  client = std::make_unique<LspClient>(o);
  LspClient& c = *client;
  c.initialize(uriFromPath(root.string()), json::object(),
               {{"workspace", {{"didChangeWatchedFiles", {{"dynamicRegistration", true}}}}}});
  c.waitFor([](const json& m) { return m.value("method", "") == "client/registerCapability"; }, "the watchers' registration");
  auto diagnostics = [&] {
    return c.waitFor([&](const json& m) {
      return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri;
    }, "publishDiagnostics for the work tree's a.txt")["params"]["diagnostics"];
  };
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", uri}}}});
  ASSERT_EQ(diagnostics().size(), 1u);
  EXPECT_EQ(revline::testing::runShell("git commit -qam done", root).exitCode, 0);
  EXPECT_TRUE(diagnostics().empty()) << "cleared by the server's own look at the work tree's index";
  EXPECT_EQ(c.stop(), 0);
}

// A workspace opened through a symlink: the findings of a file never opened go
// under the folder's spelling, as the client lists its files, not under the
// link's target (a path outside the workspace the client showed as another file).
TEST_F(FindingsLifetime, AClosedFileOfAFolderOpenedThroughASymlinkIsNamedAsTheFolderIs) {
  revline::testing::TempDir outside;
  const std::filesystem::path link = outside.path() / "link";
  std::filesystem::create_directory_symlink(std::filesystem::canonical(repo.root()), link);
  repo.write("a.txt", "one changed\ntwo\n");
  repo.write("b.txt", "uno changed\ndos\n");
  client = std::make_unique<LspClient>(options());
  LspClient& c = *client;
  c.initialize(uriFromPath(link.string()));
  const std::string opened = uriFromPath((link / "a.txt").string());
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", opened}, {"languageId", "text"}, {"version", 1},
                                                      {"text", repo.read("a.txt")}}}});
  const int id = c.request("workspace/executeCommand", {{"command", "revline.reviewWorkspace"}, {"arguments", json::array()}});
  c.reply(id);
  std::map<std::string, std::size_t> shown;
  for (int i = 0; i < 2; ++i) {
    const json m = c.waitFor([](const json& n) { return n.value("method", "") == "textDocument/publishDiagnostics"; },
                             "publishDiagnostics");
    shown[m["params"]["uri"]] = m["params"]["diagnostics"].size();
  }
  EXPECT_EQ(shown, (std::map<std::string, std::size_t>{{opened, 1}, {uriFromPath((link / "b.txt").string()), 1}}));
  EXPECT_EQ(c.stop(), 0);
}

}  // namespace
}  // namespace revline::lsp
