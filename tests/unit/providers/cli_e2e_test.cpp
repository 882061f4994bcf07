// End to end: the revline binary reviewing a real repository against the fake
// provider server, once per wire format.
#include <gtest/gtest.h>

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

TEST(CliEndToEnd, MissingKeyForTheRealApi) {
  Repo r;
  auto result = testing::runRevline("review --provider openai --api-key-env REVLINE_TEST_UNSET_KEY", r.repo.root());
  EXPECT_EQ(result.exitCode, 2) << result.out << result.err;
  EXPECT_NE(result.err.find("REVLINE_TEST_UNSET_KEY"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace revline
