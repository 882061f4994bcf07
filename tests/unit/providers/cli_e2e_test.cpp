// End to end: the revline binary reviewing a real repository against the fake
// provider server, once per wire format.
#include <gtest/gtest.h>

#include <set>

#include "tests/support/per_hunk_model.h"
#include "tests/support/temp_repo.h"
#include "tests/unit/providers/fake_server.h"

namespace revline {
namespace {

using testing::FakeServer;
using testing::Reply;

struct Repo {
  testing::TempRepo repo;
  Repo() {
    repo.write("src/Service.java", "class Service {\n  void a() {}\n}\n");
    repo.commitAll("base");
    repo.write("src/Service.java",
               "class Service {\n  void a() {}\n  boolean ok(String s) {\n    return s == \"OK\";\n  }\n}\n");
  }
};

void expectRequestChanges(const testing::CommandResult& r, const std::string& provider) {
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  json out = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(out.is_discarded()) << r.out << r.err;
  EXPECT_EQ(out["verdict"], "REQUEST_CHANGES") << r.out;
  EXPECT_EQ(out["provider"], provider);
  EXPECT_EQ(out["model"], "test");
  ASSERT_EQ(out["findings"].size(), 1u) << r.out;
  EXPECT_EQ(out["findings"][0]["file"], "src/Service.java");
  EXPECT_EQ(out["findings"][0]["line"], 4);
  EXPECT_GT(out["usage"]["inputTokens"].get<long>(), 0);
}

TEST(CliEndToEnd, OpenAi) {
  Repo r;
  FakeServer server;
  server.enqueue(Reply::fromFixture("openai_review.json"));
  auto result = testing::runRevline(
      "review --provider openai --base-url " + server.url("/v1") + " --model test --format json", r.repo.root());
  expectRequestChanges(result, "openai");
  ASSERT_EQ(server.requestCount(), 1u);
  EXPECT_EQ(server.requests()[0].path, "/v1/chat/completions");
  EXPECT_EQ(server.requests()[0].parsed()["response_format"]["json_schema"]["strict"], true);
}

// A change wholly left out (one generated file, a lock file): nothing is sent, and
// the report still says what the model review spent and why nothing, as every
// report of a model's review does (the text report had no Usage line).
TEST(CliEndToEnd, AChangeWhollyLeftOutSaysNothingWasSent) {
  testing::TempRepo repo;
  repo.write("package-lock.json", "{}\n");
  repo.commitAll("base");
  repo.write("package-lock.json", "{\"lockfileVersion\": 3}\n");
  FakeServer server;
  auto result = testing::runRevline(
      "review --provider openai --base-url " + server.url("/v1") + " --model test --format text", repo.root());
  ASSERT_EQ(result.exitCode, 0) << result.out << result.err;
  EXPECT_EQ(server.requestCount(), 0u);
  EXPECT_NE(result.out.find("Usage: 0 model requests: nothing was sent, nothing in the change is to be reviewed"),
            std::string::npos)
      << result.out;
}

TEST(CliEndToEnd, Anthropic) {
  Repo r;
  FakeServer server;
  server.enqueue(Reply::fromFixture("anthropic_review.json"));
  auto result = testing::runRevline(
      "review --provider anthropic --base-url " + server.url() + " --model test --format json", r.repo.root());
  expectRequestChanges(result, "anthropic");
  ASSERT_EQ(server.requestCount(), 1u);
  EXPECT_EQ(server.requests()[0].path, "/v1/messages");
}

TEST(CliEndToEnd, Ollama) {
  Repo r;
  FakeServer server;
  server.enqueue(Reply::fromFixture("ollama_review.json"));
  auto result = testing::runRevline(
      "review --provider ollama --base-url " + server.url() + " --model test --format json", r.repo.root());
  expectRequestChanges(result, "ollama");
  ASSERT_EQ(server.requestCount(), 1u);
  EXPECT_EQ(server.requests()[0].path, "/api/chat");
  // No budget configured: ollama's default 8,000 tokens plus the 8,192-token answer
  // cap sizes the window, so Ollama's small default cannot cut the prompt.
  EXPECT_EQ(server.requests()[0].parsed()["options"]["num_ctx"], 16384);
  EXPECT_EQ(server.requests()[0].parsed()["options"]["num_predict"], 8192);
}

TEST(CliEndToEnd, ProviderErrorsExitWithTwoAndSayWhy) {
  Repo r;
  FakeServer server;
  server.enqueue(Reply::fromFixture("openai_404.json", 404));
  auto result = testing::runRevline(
      "review --provider openai --base-url " + server.url("/v1") + " --model gpt-9-ultra --format json",
      r.repo.root());
  EXPECT_EQ(result.exitCode, 2) << result.out << result.err;
  EXPECT_NE(result.err.find("model \"gpt-9-ultra\""), std::string::npos) << result.err;
}

// A review that fails after paying for some model calls says what they cost:
// here a contract failure (prose twice), and a server error on the retry.
TEST(CliEndToEnd, AFailedReviewSaysWhatItSpent) {
  Repo r;
  FakeServer server;
  const std::string prose =
      json{{"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", "Looks fine to me."}}}, {"finish_reason", "stop"}}}},
           {"usage", {{"prompt_tokens", 1000}, {"completion_tokens", 7}}}}
          .dump();
  server.enqueue(Reply::ok(prose));
  server.enqueue(Reply::ok(prose));
  const std::string review = "review --provider openai --base-url " + server.url("/v1") + " --model test --no-cache";
  auto failed = testing::runRevline(review, r.repo.root());
  EXPECT_EQ(failed.exitCode, 2) << failed.out << failed.err;
  EXPECT_NE(failed.err.find("did not meet the review contract after 2 attempts"), std::string::npos) << failed.err;
  EXPECT_NE(failed.err.find("spent before the failure: 2 model requests, 2000 input tokens, 14 output tokens"),
            std::string::npos)
      << failed.err;

  server.enqueue(Reply::ok(prose));
  server.enqueue(Reply::fromFixture("openai_404.json", 404));
  auto broken = testing::runRevline(review, r.repo.root());
  EXPECT_EQ(broken.exitCode, 2) << broken.out << broken.err;
  EXPECT_NE(broken.err.find("spent before the failure: 1 model request, 1000 input tokens, 7 output tokens"),
            std::string::npos)
      << broken.err;
}

// A split review whose second request fails says that what the first answered is
// kept, and the next review sends only the rest (as after Ctrl-C).
TEST(CliEndToEnd, AReviewThatFailsPartwaySaysWhatWasKept) {
  testing::TempRepo repo;
  repo.write("a.txt", "start\n");
  repo.commitAll("init");
  std::string text = "start\n";
  for (int i = 0; i < 400; ++i) text += "a changed line of text number " + std::to_string(i) + "\n";
  repo.write("a.txt", text);
  FakeServer server;
  const std::string approve =
      json{{"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", R"({"summary":"ok","findings":[],"verdict":"APPROVE"})"}}}, {"finish_reason", "stop"}}}},
           {"usage", {{"prompt_tokens", 1000}, {"completion_tokens", 7}}}}
          .dump();
  server.enqueue(Reply::ok(approve));
  server.enqueue(Reply::fromFixture("openai_404.json", 404));
  const std::string review = "review --provider openai --base-url " + server.url("/v1") +
                             " --model test --max-input-tokens 4000 --max-tool-calls 0 --max-parallel-requests 1";
  const auto failed = testing::runRevline(review, repo.root());
  EXPECT_EQ(failed.exitCode, 2) << failed.out << failed.err;
  EXPECT_NE(failed.err.find("spent before the failure: 1 model request, 1000 input tokens, 7 output tokens."),
            std::string::npos)
      << failed.err;
  EXPECT_NE(failed.err.find("What the answered requests reviewed is kept: the next review sends only the rest."),
            std::string::npos)
      << failed.err;
  // And it is so: the rerun asks for one request fewer.
  const std::size_t before = server.requests().size();
  for (int i = 0; i < 3; ++i) server.enqueue(Reply::ok(approve));
  const auto rerun = testing::runRevline(review, repo.root());
  EXPECT_EQ(rerun.exitCode, 0) << rerun.out << rerun.err;
  EXPECT_EQ(server.requests().size() - before, 3u) << "four requests in all, the answered one not sent again";
}

TEST(CliEndToEnd, MissingKeyForTheRealApi) {
  Repo r;
  auto result = testing::runRevline("review --provider openai --api-key-env REVLINE_TEST_UNSET_KEY", r.repo.root());
  EXPECT_EQ(result.exitCode, 2) << result.out << result.err;
  EXPECT_NE(result.err.find("REVLINE_TEST_UNSET_KEY"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("revline review: configuration error: "), std::string::npos) << result.err;  // the user's to fix
}


std::string chatReply(const json& findings) {
  const json report{{"summary", "Reviewed."}, {"findings", findings}, {"verdict", "COMMENT"}};
  return json{{"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", report.dump()}}}, {"finish_reason", "stop"}}}},
              {"usage", {{"prompt_tokens", 100}, {"completion_tokens", 10}}}}
      .dump();
}

json minorAt(int line) {
  return {{"file", "a.py"}, {"line", line}, {"endLine", nullptr}, {"severity", "MINOR"}, {"category", "CORRECTNESS"},
          {"title", "Check this change"}, {"explanation", "It needs a second look."}, {"suggestedFix", nullptr},
          {"edit", nullptr}, {"confidence", 0.8}};
}

// The hunk headers of the diff a chat request carried.
int hunksIn(const testing::Received& request) {
  int n = 0;
  const json body = request.parsed();
  for (const auto& m : body["messages"]) {
    const std::string text = m.value("content", "");
    for (std::size_t at = text.find("\n@@ "); at != std::string::npos; at = text.find("\n@@ ", at + 1)) ++n;
  }
  return n;
}

// a.py with its five functions committed, then each changed in the work tree.
void fiveChangedFunctions(testing::TempRepo& repo) {
  repo.write("a.py", testing::fiveFunctions());
  repo.commitAll("init");
  repo.write("a.py", testing::fiveFunctions(testing::allChanged()));
}

// A MINOR finding on the changed line of each of the five functions.
json findingOnEachFunction() {
  json five = json::array();
  for (int i = 0; i < 5; ++i) five.push_back(minorAt(13 * i + 7));
  return five;
}

// `revline review` run again after editing one hunk of five sends only that hunk
// (the per-hunk cache under .git/revline/hunks/ is the server's too) and still
// reports all five findings, the four carried over at their moved lines;
// --no-cache sends everything.
TEST(CliEndToEnd, ARerunAfterEditingOneHunkSendsOnlyThatHunk) {
  testing::TempRepo repo;
  fiveChangedFunctions(repo);
  FakeServer server;
  server.enqueue(Reply::ok(chatReply(findingOnEachFunction())));
  const std::string review = "review --provider openai --base-url " + server.url("/v1") +
                             " --model test --max-tool-calls 0 --format json";
  auto first = testing::runRevline(review, repo.root());
  ASSERT_EQ(first.exitCode, 0) << first.out << first.err;
  ASSERT_EQ(server.requestCount(), 1u);
  EXPECT_EQ(hunksIn(server.requests()[0]), 5);

  std::vector<std::string> changed = testing::allChanged();
  changed[0] = "    v5 = x * 20\n    w = v5 + 1\n    v5 = w - 1";
  repo.write("a.py", testing::fiveFunctions(changed));
  server.enqueue(Reply::ok(chatReply(json::array({minorAt(7)}))));
  auto second = testing::runRevline(review, repo.root());
  ASSERT_EQ(second.exitCode, 0) << second.out << second.err;
  ASSERT_EQ(server.requestCount(), 2u);
  EXPECT_EQ(hunksIn(server.requests()[1]), 1);
  EXPECT_NE(server.requests()[1].body.find("w = v5 + 1"), std::string::npos);
  const json out = json::parse(second.out);
  ASSERT_EQ(out["findings"].size(), 5u) << second.out;
  std::set<int> lines;
  for (const auto& f : out["findings"]) lines.insert(f["line"].get<int>());
  EXPECT_EQ(lines, (std::set<int>{7, 22, 35, 48, 61}));  // four carried over, two lines down
  EXPECT_EQ(out["verdict"], "COMMENT");

  // Unchanged: nothing is sent, and the text and GitHub reports say so (every report states what was spent).
  for (const char* format : {"text", "github"}) {
    auto again = testing::runRevline("review --provider openai --base-url " + server.url("/v1") +
                                         " --model test --max-tool-calls 0 --format " + format,
                                     repo.root());
    ASSERT_EQ(again.exitCode, 0) << again.out << again.err;
    EXPECT_NE(again.out.find("Usage: 0 model requests: nothing was sent, every part of the change was reviewed before"),
              std::string::npos)
        << format << ": " << again.out;
  }
  ASSERT_EQ(server.requestCount(), 2u);

  server.enqueue(Reply::ok(chatReply(json::array({minorAt(7)}))));
  auto full = testing::runRevline(review + " --no-cache", repo.root());
  ASSERT_EQ(full.exitCode, 0) << full.out << full.err;
  ASSERT_EQ(server.requestCount(), 3u);
  EXPECT_EQ(hunksIn(server.requests()[2]), 5);
}

// `revline review --base main` run again after a commit: the hunks of the files
// that commit changed are sent again (their intent now holds its message); the
// other files' are carried over. Before, every hunk's key held every message of
// the branch, and each new commit sent the whole branch again.
TEST(CliEndToEnd, ARerunWithBaseAfterACommitSendsOnlyTheFilesItChanged) {
  testing::TempRepo repo;
  repo.write("a.py", testing::fiveFunctions());
  repo.write("b.py", testing::fiveFunctions());
  repo.commitAll("init");
  repo.git("branch -M main");
  repo.git("checkout -q -b feature");
  repo.write("a.py", testing::fiveFunctions(testing::allChanged()));
  repo.write("b.py", testing::fiveFunctions(testing::allChanged()));
  repo.commitAll("Scale both modules");
  FakeServer server;
  server.enqueue(Reply::ok(chatReply(findingOnEachFunction())));
  const std::string review = "review --base main --provider openai --base-url " + server.url("/v1") +
                             " --model test --max-tool-calls 0 --format json";
  auto first = testing::runRevline(review, repo.root());
  ASSERT_EQ(first.exitCode, 0) << first.out << first.err;
  ASSERT_EQ(server.requestCount(), 1u);
  EXPECT_EQ(hunksIn(server.requests()[0]), 10);

  std::vector<std::string> changed = testing::allChanged();
  changed[0] = "    v5 = x * 20\n    w = v5 + 1\n    v5 = w - 1";
  repo.write("b.py", testing::fiveFunctions(changed));
  repo.commitAll("Tune b's first function");
  server.enqueue(Reply::ok(chatReply(json::array())));
  auto second = testing::runRevline(review, repo.root());
  ASSERT_EQ(second.exitCode, 0) << second.out << second.err;
  ASSERT_EQ(server.requestCount(), 2u);
  const std::string sent = server.requests()[1].body;
  EXPECT_EQ(hunksIn(server.requests()[1]), 5);
  EXPECT_NE(sent.find("File: b.py"), std::string::npos);
  EXPECT_EQ(sent.find("File: a.py"), std::string::npos);
  // The model is still told every commit of the branch.
  EXPECT_NE(sent.find("Scale both modules"), std::string::npos);
  EXPECT_NE(sent.find("Tune b's first function"), std::string::npos);
  const json out = json::parse(second.out);
  EXPECT_EQ(out["findings"].size(), 5u) << second.out;  // a.py's, carried over
  for (const auto& f : out["findings"]) EXPECT_EQ(f["file"], "a.py");
}

// Whoever hands a repository over can write its `.git/revline/`: reviews cached
// there by another user (the author's own run, or entries forged to say a hunk
// was reviewed and fine) are not the user's, and are never read. The cache is
// named with each user's secret key (config/state_key.h); before, a planted
// entry with no findings made a hunk APPROVE without any model seeing it.
TEST(CliEndToEnd, ReviewsCachedByAnotherUserAreNotTrusted) {
  testing::TempRepo repo;
  fiveChangedFunctions(repo);
  FakeServer server;
  server.enqueue(Reply::ok(chatReply(json::array())));  // the author's run: nothing found
  server.enqueue(Reply::ok(chatReply(findingOnEachFunction())));
  testing::TempDir author, user;
  auto run = [&](const testing::TempDir& home) {
    return testing::runShell("XDG_CONFIG_HOME=" + testing::shellQuote(home.path().string()) + " " +
                                 testing::shellQuote(REVLINE_BINARY) + " review --provider openai --base-url " +
                                 server.url("/v1") + " --model test --max-tool-calls 0 --format json",
                             repo.root());
  };
  ASSERT_EQ(run(author).exitCode, 0);
  ASSERT_EQ(server.requestCount(), 1u);
  const auto mine = run(user);
  ASSERT_EQ(mine.exitCode, 0) << mine.out << mine.err;
  ASSERT_EQ(server.requestCount(), 2u) << "the author's cached reviews were taken for the user's";
  EXPECT_EQ(hunksIn(server.requests()[1]), 5);
  EXPECT_EQ(json::parse(mine.out)["findings"].size(), 5u) << mine.out;
  // The user's own cache still serves the user: nothing is sent again.
  ASSERT_EQ(run(user).exitCode, 0);
  EXPECT_EQ(server.requestCount(), 2u);
  namespace fs = std::filesystem;
  EXPECT_TRUE(fs::exists(user.path() / "revline" / "state-key"));
  // An empty key file (a crash between creating and writing it) is replaced, not
  // left to make every run's key its own (the cache then missed for good).
  testing::TempDir damaged;
  fs::create_directories(damaged.path() / "revline");
  std::ofstream(damaged.path() / "revline" / "state-key").flush();
  server.enqueue(Reply::ok(chatReply(findingOnEachFunction())));
  ASSERT_EQ(run(damaged).exitCode, 0);
  ASSERT_EQ(run(damaged).exitCode, 0);
  EXPECT_EQ(server.requestCount(), 3u) << "the second run with the repaired key is served from the cache";
  EXPECT_EQ(fs::file_size(damaged.path() / "revline" / "state-key"), 65u);
  EXPECT_EQ(fs::status(user.path() / "revline" / "state-key").permissions() & fs::perms::others_read, fs::perms::none);
}

// The key revline sends is a secret like any other: a repository that holds it
// (a script, a pasted CI log) never shows it to the remote model, in the diff
// or in a file a tool reads; it goes only in the request's header.
TEST(CliEndToEnd, TheApiKeyItselfIsRedactedFromWhatIsSent) {
  const std::string key = "Zq81LmWv9Tn4Kd8Hc3Jg6";  // no shape the secret detector knows
  testing::TempRepo repo;
  repo.write("notes.txt", "debug log\n");
  repo.commitAll("base");
  repo.write("notes.txt", "debug log\ncalled upstream with " + key + " and got 200\n");
  FakeServer proxy;  // the "remote" API, reached through it as a proxy
  proxy.enqueue(Reply::ok(chatReply(json::array())));
  testing::TempDir home;
  const auto r = testing::runShell("XDG_CONFIG_HOME=" + testing::shellQuote(home.path().string()) +
                                       " OPENAI_API_KEY=" + key + " HTTP_PROXY=" + proxy.url() + " " +
                                       testing::shellQuote(REVLINE_BINARY) +
                                       " review --provider openai --base-url http://api.example.test/v1 --model test "
                                       "--format json",
                                   repo.root());
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  ASSERT_EQ(proxy.requestCount(), 1u);
  EXPECT_EQ(proxy.requests()[0].body.find(key), std::string::npos) << proxy.requests()[0].body;
  EXPECT_NE(proxy.requests()[0].body.find("called upstream with [REDACTED:api-key] and got 200"), std::string::npos);
}

}  // namespace
}  // namespace revline
