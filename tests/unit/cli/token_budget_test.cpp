// `revline review --max-input-tokens N` as a user runs it (cli::runMain, a
// patch on stdin, the OpenAI-compatible provider against a fake server on
// 127.0.0.1): a change larger than the budget goes out in several requests,
// none over it, every file in one of them, and the report states the coverage.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "core/cli/commands.h"
#include "core/support/json.h"
#include "tests/support/temp_repo.h"
#include "tests/unit/providers/fake_server.h"

namespace revline::cli {
namespace {
namespace fs = std::filesystem;

std::string patchOf(int files, int linesEach) {
  std::string p;
  for (int f = 0; f < files; ++f) {
    const std::string path = "pkg" + std::to_string(f % 3) + "/mod" + std::to_string(f) + ".py";
    p += "diff --git a/" + path + " b/" + path + "\nnew file mode 100644\n--- /dev/null\n+++ b/" + path + "\n@@ -0,0 +1," +
         std::to_string(linesEach) + " @@\n";
    for (int i = 0; i < linesEach; ++i) p += "+def handler_" + std::to_string(f) + "_" + std::to_string(i) + "(event): return event\n";
  }
  return p;
}

std::string approveReply() {
  const json answer = {{"summary", "Fine."}, {"findings", json::array()}, {"verdict", "APPROVE"}};
  return json{{"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", answer.dump()}}}, {"finish_reason", "stop"}}}},
              {"usage", {{"prompt_tokens", 1000}, {"completion_tokens", 20}}}}
      .dump();
}

// A state key that cannot be kept (the config directory is not writable) makes
// every cache this run writes unreadable to the next: said once. Before, the
// per-hunk cache was written on every run and never read, and nothing was said.
TEST(TokenBudgetCli, AStateKeyThatCannotBeKeptIsSaid) {
  testing::TempRepo repo;
  repo.write("a.py", "x = 1\n");
  repo.commitAll("init");
  repo.write("a.py", "x = 2\n");
  testing::TempDir dirs;
  std::ofstream(dirs.path() / "a-file") << "not a directory\n";
  for (const bool writable : {false, true}) {
    SCOPED_TRACE(writable);
    testing::FakeServer server;
    server.enqueue(testing::Reply::ok(approveReply()));
    const fs::path xdg = writable ? dirs.path() / "config" : dirs.path() / "a-file" / "config";
    const auto r = testing::runShell("XDG_CONFIG_HOME=" + testing::shellQuote(xdg.string()) + " OPENAI_API_KEY=test " +
                                         testing::shellQuote(REVLINE_BINARY) + " review --provider openai --model test " +
                                         "--base-url " + server.url("/v1"),
                                     repo.root());
    EXPECT_EQ(r.exitCode, 0) << r.err;
    const std::string said = "could not keep its state key at " + (xdg / "revline" / "state-key").string();
    EXPECT_EQ(r.err.find(said) != std::string::npos, !writable) << r.err;
  }
}

TEST(TokenBudgetCli, ALargeChangeGoesInRequestsWithinTheBudget) {
  testing::FakeServer server;
  server.expectAllRepliesUsed(false);
  for (int i = 0; i < 40; ++i) server.enqueue(testing::Reply::ok(approveReply()));
  std::istringstream in(patchOf(24, 30));
  std::ostringstream out, err;
  const int code = runMain({"review", "--stdin", "--format", "json", "--provider", "openai", "--model", "test",
                            "--base-url", server.url("/v1"), "--max-input-tokens", "6000", "--max-requests", "100"},
                           in, out, err);
  ASSERT_EQ(code, 0) << err.str();
  const auto requests = server.requests();
  ASSERT_GT(requests.size(), 2u);
  std::set<std::string> sent;
  for (const auto& r : requests) {
    EXPECT_LE(static_cast<std::int64_t>(r.body.size()), 6000 * 3) << "a request over the budget";
    const json body = r.parsed();
    for (const auto& m : body["messages"]) {
      if (m["role"] != "user") continue;
      std::istringstream text(m["content"].get<std::string>());
      for (std::string line; std::getline(text, line);)
        if (line.rfind("File: ", 0) == 0) sent.insert(line.substr(6, line.find(" (") - 6));
    }
  }
  EXPECT_EQ(sent.size(), 24u);
  const json report = json::parse(out.str());
  EXPECT_EQ(report["coverage"]["filesReviewed"], 24);
  EXPECT_EQ(report["coverage"]["filesTotal"], 24);
  EXPECT_EQ(report["verdict"], "APPROVE");
  EXPECT_EQ(report["chunking"]["requests"], static_cast<int>(requests.size()));
  EXPECT_EQ(report["usage"]["inputTokens"], 1000 * static_cast<int>(requests.size()));
  EXPECT_EQ(err.str().find(" requests done"), std::string::npos);  // no progress on a stream that is not a terminal
}

// What the model reads of a request as sent (bytes): every message's content and
// the tools' specs; not Ollama's `format`, which constrains sampling and is not
// shown to the model.
std::size_t modelVisibleBytes(const json& body) {
  std::size_t bytes = 0;
  for (const auto& m : body["messages"])
    if (m.contains("content") && m["content"].is_string()) bytes += m["content"].get<std::string>().size();
  if (body.contains("tools")) bytes += body["tools"].dump().size();
  if (body.contains("response_format")) bytes += body["response_format"].dump().size();
  return bytes;
}

// Where the schema goes into the system prompt (Ollama always, any provider with
// structured_output "prompt"), the requests still fit the budget. Before, the
// prompt held the schema indented, twice the size the estimate counted: at
// Ollama's default budget most requests of a split review were over it.
TEST(TokenBudgetCli, RequestsThatShowTheSchemaInThePromptStayWithinTheBudget) {
  const std::string ollamaAnswer =
      json{{"model", "test"},
           {"message", {{"role", "assistant"},
                        {"content", json{{"summary", "Fine."}, {"findings", json::array()}, {"verdict", "APPROVE"}}.dump()}}},
           {"done", true},
           {"done_reason", "stop"},
           {"prompt_eval_count", 1000},
           {"eval_count", 20}}
          .dump();
  struct Case {
    std::vector<std::string> args;
    std::string reply, path;
  };
  const std::vector<Case> cases = {
      {{"--provider", "ollama", "--max-tool-calls", "0"}, ollamaAnswer, ""},
      {{"--provider", "ollama"}, ollamaAnswer, ""},
      {{"--provider", "openai"}, approveReply(), "/v1"},
  };
  for (const Case& c : cases) {
    testing::FakeServer server;
    server.expectAllRepliesUsed(false);
    for (int i = 0; i < 100; ++i) server.enqueue(testing::Reply::ok(c.reply));
    // structured_output is a setting of the config files only: the user's, for the OpenAI case.
    testing::TempDir xdg;
    fs::create_directories(xdg.path() / "revline");
    std::ofstream(xdg.path() / "revline" / "config.json") << R"({"structured_output": "prompt"})";
    const char* before = std::getenv("XDG_CONFIG_HOME");
    const std::string restore = before ? before : "";
    if (c.path == "/v1") ::setenv("XDG_CONFIG_HOME", xdg.path().c_str(), 1);
    std::istringstream in(patchOf(150, 3));
    std::ostringstream out, err;
    std::vector<std::string> args = {"review", "--stdin", "--format", "json", "--model", "test", "--base-url",
                                     server.url(c.path), "--max-input-tokens", "6000", "--max-requests", "100"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const int code = runMain(args, in, out, err);
    ::setenv("XDG_CONFIG_HOME", restore.c_str(), 1);
    ASSERT_EQ(code, 0) << err.str();
    const auto requests = server.requests();
    ASSERT_GT(requests.size(), 2u);
    for (const auto& r : requests) {
      const json body = r.parsed();
      const std::string system = body["messages"][0]["content"];
      ASSERT_NE(system.find("Reply with only one JSON object"), std::string::npos) << c.args[1];
      EXPECT_LE(modelVisibleBytes(body), 6000u * 3) << c.args[1] << ": a request over the budget";
    }
  }
}

// On a terminal (a pseudo-terminal from script(1)), the real binary shows how
// far a review in several requests has got: one line rewritten in place,
// ended when the last request is answered.
TEST(TokenBudgetCli, ALongReviewShowsItsProgressOnATerminal) {
  if (testing::runShell("script -qec true /dev/null").exitCode != 0) GTEST_SKIP() << "no pseudo-terminal here";
  testing::FakeServer server;
  server.expectAllRepliesUsed(false);
  for (int i = 0; i < 80; ++i) server.enqueue(testing::Reply::ok(approveReply()));  // two reviews
  testing::TempDir dir;
  std::ofstream(dir.path() / "change.diff") << patchOf(24, 30);
  const std::string command = testing::shellQuote(REVLINE_BINARY) +
                              " review --stdin --provider openai --model test --max-parallel-requests 1 --base-url " +
                              server.url("/v1") + " --max-input-tokens 6000 --max-requests 100 < change.diff";
  const auto r = testing::runShell("script -qec " + testing::shellQuote(command) + " /dev/null", dir.path());
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  const std::size_t total = server.requestCount();
  ASSERT_GT(total, 2u);
  const std::string all = std::to_string(total);
  EXPECT_NE(r.out.find("\rrevline review: 1 of " + all + " requests done, 1020 tokens so far"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\rrevline review: " + all + " of " + all + " requests done, " + std::to_string(1020 * total) +
                       " tokens so far\r\n"),
            std::string::npos)
      << r.out;
  // Piped, the same review prints no progress.
  const auto piped = testing::runShell(command + " 2>&1", dir.path());
  EXPECT_EQ(piped.exitCode, 0) << piped.out;
  EXPECT_EQ(server.requestCount(), 2 * total);
  EXPECT_EQ(piped.out.find("requests done"), std::string::npos) << piped.out;

  // A review failing part-way ends the progress line before the error (it was glued to it).
  testing::FakeServer failing;
  failing.enqueue(testing::Reply::ok(approveReply()));
  failing.enqueue(testing::Reply::ok(approveReply()));
  failing.enqueue(testing::Reply{400, R"({"error":{"message":"bad request for the test"}})", {}, {}});
  std::string failingCommand = command;
  failingCommand.replace(failingCommand.find(server.url("/v1")), server.url("/v1").size(), failing.url("/v1"));
  const auto failed = testing::runShell("script -qec " + testing::shellQuote(failingCommand) + " /dev/null", dir.path());
  EXPECT_EQ(failed.exitCode, 2) << failed.out;
  EXPECT_NE(failed.out.find("\rrevline review: 2 of " + all + " requests done, 2040 tokens so far\r\nrevline review: "),
            std::string::npos)
      << failed.out;
}

// Ctrl-C or SIGTERM during a review in several requests, on the real binary:
// the exit is the signal's, stderr says what the answered requests spent, and
// what they reviewed is kept, so the next review sends only the rest. Before,
// the signal ended the process: nothing was said and everything was paid twice.
// 24 new files of 30 lines, in a repository with one commit.
void twentyFourNewFiles(const testing::TempRepo& repo) {
  repo.write("README", "x\n");
  repo.commitAll("init");
  for (int f = 0; f < 24; ++f) {
    std::string text;
    for (int i = 0; i < 30; ++i) text += "def handler_" + std::to_string(f) + "_" + std::to_string(i) + "(event): return event\n";
    repo.write("pkg" + std::to_string(f % 3) + "/mod" + std::to_string(f) + ".py", text);
  }
}

// `revline review` (the real binary) against `url`, one request at a time.
std::string reviewAgainst(const std::string& url) {
  return testing::shellQuote(REVLINE_BINARY) +
         " review --format json --provider openai --model test --max-parallel-requests 1"
         " --max-input-tokens 6000 --max-requests 100 --base-url " + url;
}

// A server answering two requests at once, then a third only after 3 s (it is
// interrupted), then any number at once.
void twoAnsweredThenSlow(testing::FakeServer& server) {
  server.expectAllRepliesUsed(false);
  server.enqueue(testing::Reply::ok(approveReply()));
  server.enqueue(testing::Reply::ok(approveReply()));
  server.enqueue(testing::Reply{200, approveReply(), {}, std::chrono::milliseconds(3000)});
  for (int i = 0; i < 30; ++i) server.enqueue(testing::Reply::ok(approveReply()));
}

struct Interrupted {
  int exitCode = -1;
  std::string out, err;
};

// `review` run in the background in `repo`, sent `signal` once `server` has its
// third request. A shell starts a background job with SIGINT ignored; `env
// --default-signal=INT` gives it back, as a command run from a terminal has it.
// Its pid, output and exit code go to files outside the work tree (exec keeps
// the pid).
// What a backgrounded run wrote to `file` so far.
std::string fileText(const std::filesystem::path& file) {
  std::ifstream in(file);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Polls `done` for up to 15 s.
template <class Done>
bool waitFor(Done done) {
  for (int i = 0; i < 300 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  return done();
}

Interrupted interruptAtTheThirdRequest(const testing::TempRepo& repo, const testing::FakeServer& server,
                                       const std::string& review, int signal) {
  testing::TempDir run;
  const std::string at = testing::shellQuote(run.path().string()) + "/";
  testing::runShell("(sh -c 'echo $$ > " + at + "pid; exec env --default-signal=INT " + review + " > " + at + "out 2> " + at +
                        "err'; echo $? > " + at + "rc) > /dev/null 2>&1 &",
                    repo.root());
  auto read = [&](const char* name) { return fileText(run.path() / name); };
  Interrupted result;
  if (!waitFor([&] { return server.requestCount() >= 3; })) {
    ADD_FAILURE() << "the third request never came";
    return result;
  }
  if (!waitFor([&] { return !read("pid").empty(); }) || ::kill(std::stoi(read("pid")), signal) != 0) {
    ADD_FAILURE() << "no process to signal";
    return result;
  }
  if (!waitFor([&] { return !read("rc").empty(); })) {
    ADD_FAILURE() << "still running";
    return result;
  }
  return {std::stoi(read("rc")), read("out"), read("err")};
}

TEST(TokenBudgetCli, AnInterruptedReviewSaysWhatItSpentAndKeepsWhatWasAnswered) {
  testing::TempRepo repo;
  twentyFourNewFiles(repo);
  testing::FakeServer slow;
  twoAnsweredThenSlow(slow);
  const std::string review = reviewAgainst(slow.url("/v1"));
  const Interrupted stopped = interruptAtTheThirdRequest(repo, slow, review, SIGTERM);
  EXPECT_EQ(stopped.exitCode, 143);
  const std::string& err = stopped.err;
  // The third request was sent and cancelled unanswered: counted, and said to leave the figures low.
  EXPECT_NE(err.find("revline review: spent before the interruption: 3 model requests (missing token counts for 1 of "
                     "them: answered without some or all of them, or cancelled or given up on in flight; so the figures below are low), 2000 input "
                     "tokens"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("revline review: interrupted"), std::string::npos) << err;
  EXPECT_EQ(stopped.out, "");

  const std::size_t before = slow.requestCount();
  const auto rerun = testing::runShell(review, repo.root());
  ASSERT_EQ(rerun.exitCode, 0) << rerun.err;
  const json report = json::parse(rerun.out);
  EXPECT_EQ(report["coverage"]["filesReviewed"], 24);
  EXPECT_NE(report["summary"].get<std::string>().find("unchanged since an earlier review and not sent again"),
            std::string::npos)
      << report["summary"];
  const std::size_t rest = slow.requestCount() - before;
  // The same review from scratch, for the count: the two answered requests are not sent again.
  testing::FakeServer full;
  full.expectAllRepliesUsed(false);
  for (int i = 0; i < 30; ++i) full.enqueue(testing::Reply::ok(approveReply()));
  ASSERT_EQ(testing::runShell(reviewAgainst(full.url("/v1")) + " --no-cache", repo.root()).exitCode, 0);
  EXPECT_EQ(rest + 2, full.requestCount());
}

// Ctrl-C, as a user at a terminal sends it: the same, with the exit code of SIGINT.
TEST(TokenBudgetCli, CtrlCDuringAReviewSaysWhatItSpentAndExits130) {
  testing::TempRepo repo;
  twentyFourNewFiles(repo);
  testing::FakeServer slow;
  twoAnsweredThenSlow(slow);
  const Interrupted stopped = interruptAtTheThirdRequest(repo, slow, reviewAgainst(slow.url("/v1")), SIGINT);
  EXPECT_EQ(stopped.exitCode, 130) << stopped.err;
  EXPECT_NE(stopped.err.find("revline review: spent before the interruption: 3 model requests (missing token counts for 1"),
            std::string::npos)
      << stopped.err;
  EXPECT_NE(stopped.err.find("What the answered requests reviewed is kept"), std::string::npos) << stopped.err;
}

// Ctrl-C while git is still diffing (a big repository, a partial clone's
// fetch) ends git's processes as well as revline's. Before, the handlers were
// installed only once the model was asked: revline died, and git, in a process
// group of its own, ran on.
TEST(TokenBudgetCli, CtrlCWhileGitDiffsEndsGitToo) {
  testing::TempRepo repo;
  repo.write("a.txt", "one\n");
  repo.commitAll("base");
  repo.write("a.txt", "two\n");
  testing::TempDir bin, run;
  const std::string at = testing::shellQuote(run.path().string()) + "/";
  {  // a git whose diff takes forever, and says which process it is
    std::ofstream git(bin.path() / "git");
    git << "#!/bin/sh\ncase \" $* \" in *\" diff \"*) echo $$ > " << at << "gitpid; exec sleep 60;; esac\n"
        << "PATH=" << testing::shellQuote(std::getenv("PATH")) << " exec git \"$@\"\n";
  }
  std::filesystem::permissions(bin.path() / "git", std::filesystem::perms::owner_all);
  testing::runShell("(sh -c 'echo $$ > " + at + "pid; exec env --default-signal=INT PATH=" +
                        testing::shellQuote(bin.path().string()) + ":\"$PATH\" " +
                        testing::shellQuote(REVLINE_BINARY) + " review > " + at + "out 2> " + at + "err'; echo $? > " +
                        at + "rc) > /dev/null 2>&1 &",
                    repo.root());
  auto read = [&](const char* name) { return fileText(run.path() / name); };
  ASSERT_TRUE(waitFor([&] { return !read("gitpid").empty() && !read("pid").empty(); })) << read("err");
  const int gitPid = std::stoi(read("gitpid"));
  ASSERT_EQ(::kill(std::stoi(read("pid")), SIGINT), 0);
  ASSERT_TRUE(waitFor([&] { return !read("rc").empty(); })) << "still running";
  EXPECT_EQ(std::stoi(read("rc")), 130) << read("err");
  EXPECT_NE(read("err").find("revline review: interrupted"), std::string::npos) << read("err");
  EXPECT_TRUE(waitFor([&] { return ::kill(gitPid, 0) != 0; })) << "git's diff still runs";
  ::kill(gitPid, SIGKILL);
}

TEST(TokenBudgetCli, TheRequestCapIsReportedAndTheVerdictIsNotApprove) {
  testing::FakeServer server;
  server.expectAllRepliesUsed(false);
  for (int i = 0; i < 4; ++i) server.enqueue(testing::Reply::ok(approveReply()));
  std::istringstream in(patchOf(24, 30));
  std::ostringstream out, err;
  const int code = runMain({"review", "--stdin", "--provider", "openai", "--model", "test", "--base-url",
                            server.url("/v1"), "--max-input-tokens", "6000", "--max-requests", "2"},
                           in, out, err);
  EXPECT_EQ(code, 0) << err.str();  // COMMENT
  EXPECT_EQ(server.requestCount(), 2u);
  const std::string text = out.str();
  EXPECT_NE(text.find("revline: COMMENT"), std::string::npos) << text;
  EXPECT_NE(text.find("past the max_requests cap of 2"), std::string::npos) << text;
  EXPECT_NE(text.find("of 24 files ("), std::string::npos) << text;
  EXPECT_NE(text.find("so the verdict cannot be APPROVE"), std::string::npos) << text;
}

TEST(TokenBudgetCli, FlagsAreChecked) {
  std::istringstream in("");
  std::ostringstream out, err;
  EXPECT_EQ(runMain({"review", "--stdin", "--max-input-tokens", "lots"}, in, out, err), 2);
  EXPECT_NE(err.str().find("--max-input-tokens"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace revline::cli
