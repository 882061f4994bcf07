// The redaction table on the wire: each credential format, in the diff and in a
// tool result, reviewed with the real pipeline and OpenAiProvider against a
// "remote" API reached through a proxy (the fake server). None may cross.
#include <gtest/gtest.h>

#include <map>

#include "core/providers/openai_provider.h"
#include "core/providers/redacting_provider.h"
#include "core/review/pipeline.h"
#include "core/tools/repository_tools.h"
#include "tests/support/temp_repo.h"
#include "tests/unit/providers/provider_test_util.h"

namespace revline::providers {
namespace {

using testing::FakeServer;
using testing::Reply;

struct Row {
  std::string file;     // added in the diff, and read by a tool
  std::string content;  // the file's text
  std::string secret;   // what must not go over the wire
};

std::string pemBody(int lines) {
  std::string out;
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (int i = 0; i < lines; ++i) {
    std::string line;
    for (int k = 0; k < 64; ++k) line += alphabet[(i * 7 + k * 13 + k * k) % 64];
    out += line + "\n";
  }
  return out;
}

// An RSA key's PEM text as base64, as kubeconfig's client-key-data holds it.
std::string encodedKey() {
  return "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVBdTFTVTFMZlZMUEhDb3pNeEgyTW80bGdPRWVQ"
         "ek5tMHRSZ2VMZXpWNmZmQXQwZ3VuCi0tLS0tRU5EIFJTQSBQUklWQVRFIEtFWS0tLS0tCg==";
}

const std::vector<Row>& table() {
  static const std::vector<Row> rows = {
      {".env", "DB_PASSWORD=hunter2xyz\n", "hunter2xyz"},
      {"aws.env", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq81KEYz\n", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq81KEYz"},
      {"api.env", "API_KEY=q8Zt4Rw9Lp2Xv7Nc\n", "q8Zt4Rw9Lp2Xv7Nc"},
      {"Maps.java", "String key = \"AIzaSyD9tSrke72PouQMnMXa7eZSW0jkFMBWYq1\";\n", "AIzaSyD9tSrke72PouQMnMXa7eZSW0jkFMBWYq1"},
      {"pay.py", "stripe.api_key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'\n", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"},
      {"auth.ts",
       "const t = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';\n",
       "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
      {"db.yml", "url: postgres://app:Sup3rS3cretPw@db.internal:5432/app\n", "Sup3rS3cretPw"},
      {"staging.yml", "url: postgres://app:St4g1ngPw9x@db.example.com:5432/app\n", "St4g1ngPw9x"},  // a real one at an example host
      {"kube/config", "    client-key-data: " + encodedKey() + "\n", encodedKey().substr(40, 40)},
      {"ci.sh", "export NPM=npm_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5\n", "npm_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"},
      {".npmrc", "//registry.npmjs.org/:_authToken=4f1d2c3b-9a8e-47f6-b5c4-d3e2f1a0b9c8\n",
       "4f1d2c3b-9a8e-47f6-b5c4-d3e2f1a0b9c8"},
      {"svc.env", "MY_SERVICE_TOKEN=Zx81Kq0pLm29Vn47Rt63\n", "Zx81Kq0pLm29Vn47Rt63"},
      {"app.yml", "  password: Tr0ub4dor-and-3\n", "Tr0ub4dor-and-3"},
      {"cfg.json", "{\"client_secret\": \"f00b4rb4zq1\"}\n", "f00b4rb4zq1"},
      {"keys.txt", pemBody(5), pemBody(5).substr(64 * 2 + 2, 64)},  // PEM-width lines, no BEGIN
  };
  return rows;
}

TEST(RedactionOnTheWire, EveryFormatInTheDiffAndInToolResults) {
  testing::TempRepo repo;
  // A committed private key whose change shows neither BEGIN nor END.
  const std::string body = pemBody(30);
  repo.write("deploy/server.pem", "-----BEGIN RSA PRIVATE KEY-----\n" + body + "-----END RSA PRIVATE KEY-----\n");
  repo.write("README.md", "docs\n");
  repo.commitAll("base");
  std::string changed = body;
  changed.replace(64 * 15 + 15 * 1, 64, std::string(60, 'Q') + "abc1");  // line 16 of the body
  repo.write("deploy/server.pem", "-----BEGIN RSA PRIVATE KEY-----\n" + changed + "-----END RSA PRIVATE KEY-----\n");
  for (const Row& row : table()) repo.write(row.file, row.content);
  repo.git("add -N .");
  const diff::Diff diff = diff::parse(repo.git("diff HEAD"));
  ASSERT_NE(diff.findFile("deploy/server.pem"), nullptr);
  const std::string keyLine = body.substr(64 * 17 + 17, 64);  // context near the change

  // The model reads every file with tools, eight per reply, then answers.
  std::vector<std::string> files{"deploy/server.pem"};
  for (const Row& row : table()) files.push_back(row.file);
  FakeServer proxy;
  int round = 0;
  for (std::size_t at = 0; at < files.size(); at += 8) {
    json calls = json::array();
    for (std::size_t i = at; i < std::min(files.size(), at + 8); ++i) {
      calls.push_back({{"id", "c" + std::to_string(i)}, {"type", "function"},
                       {"function", {{"name", "read_file"}, {"arguments", json{{"path", files[i]}}.dump()}}}});
    }
    proxy.enqueue(Reply::ok(json{{"choices", {{{"index", 0},
                                                {"message", {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", calls}}},
                                                {"finish_reason", "tool_calls"}}}}}
                                .dump()));
    ++round;
  }
  proxy.enqueue(Reply::ok(json{{"choices", {{{"index", 0},
                                              {"message", {{"role", "assistant"},
                                                           {"content", R"({"summary":"ok","findings":[],"verdict":"APPROVE"})"}}},
                                              {"finish_reason", "stop"}}}}}
                              .dump()));
  testing::SleepRecorder sleeps;
  auto settings = testing::settingsFor("http://api.example.test/v1", sleeps,
                                       {{"OPENAI_API_KEY", "sk-test"}, {"HTTP_PROXY", proxy.url()}});
  auto provider = redactIfRemote(std::make_unique<OpenAiProvider>(settings));
  ASSERT_TRUE(provider->remote());
  tools::RepositoryTools repoTools(repo.root());
  review::ReviewOptions options;
  options.maxToolCalls = static_cast<int>(files.size());
  const auto outcome = review::runReview(diff, *provider, options, &repoTools, CancelToken());
  EXPECT_EQ(outcome.toolCalls, static_cast<int>(files.size()));
  ASSERT_EQ(proxy.requestCount(), static_cast<std::size_t>(round + 1));

  const std::string wire = proxy.allBodies();
  // The first request carries the diff only; the last carries every tool result too.
  const std::string first = proxy.requests().front().body;
  for (const Row& row : table()) {
    EXPECT_EQ(first.find(row.secret), std::string::npos) << row.file << ": the diff sent " << row.secret;
    EXPECT_EQ(wire.find(row.secret), std::string::npos) << row.file << ": a tool result sent " << row.secret;
    EXPECT_NE(first.find(row.file), std::string::npos) << row.file << " is not in the diff at all";
  }
  EXPECT_EQ(first.find(keyLine), std::string::npos) << "a key body line without its BEGIN line went out";
  EXPECT_EQ(wire.find(keyLine), std::string::npos);
  EXPECT_NE(first.find("[REDACTED:private-key]"), std::string::npos);
}

json answerWith(const json& findings) {
  return json{{"choices", {{{"index", 0},
                            {"message", {{"role", "assistant"},
                                         {"content", json{{"summary", "s"}, {"findings", findings}, {"verdict", "COMMENT"}}
                                                         .dump()}}},
                            {"finish_reason", "stop"}}}}};
}

json toolCallsReply(const json& calls) {
  return json{{"choices", {{{"index", 0},
                            {"message", {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", calls}}},
                            {"finish_reason", "tool_calls"}}}}};
}

// Every line of `text`, without its '\n'.
std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find('\n', at);
    out.push_back(text.substr(at, end - at));
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

// `diff` reviewed, without tools, by a "remote" model reached through `proxy`.
review::ReviewOutcome reviewWithoutTools(const diff::Diff& diff, FakeServer& proxy) {
  testing::SleepRecorder sleeps;
  auto settings = testing::settingsFor("http://api.example.test/v1", sleeps,
                                       {{"OPENAI_API_KEY", "sk-test"}, {"HTTP_PROXY", proxy.url()}});
  auto provider = redactIfRemote(std::make_unique<OpenAiProvider>(settings));
  review::ReviewOptions options;
  options.maxToolCalls = 0;
  return review::runReview(diff, *provider, options, nullptr, CancelToken());
}

// A removed private key: shown redacted, line by line. A model that then puts
// findings on the key's OLD line numbers is told where removed lines' findings
// go, quoting each removed line: the quotes are of the redacted view too, or
// one reply would draw the whole key out, a line per finding.
TEST(RedactionOnTheWire, TheGroundingFeedbackQuotesRemovedLinesAsTheModelSawThem) {
  testing::TempRepo repo;
  std::string indented;
  for (const std::string& l : linesOf(pemBody(6))) indented += "    " + l + "\n";
  repo.write("config/service.yaml", "service: billing\nprivate_key: |\n    -----BEGIN RSA PRIVATE KEY-----\n" + indented +
                                        "    -----END RSA PRIVATE KEY-----\nport: 8080\n");
  repo.commitAll("base");
  repo.write("config/service.yaml", "service: billing\nport: 8080\n");
  const diff::Diff diff = diff::parse(repo.git("diff HEAD"));

  json findings = json::array();
  for (int oldLine = 4; oldLine <= 9; ++oldLine)  // the six body lines, without BEGIN or END around them
    findings.push_back({{"file", "config/service.yaml"}, {"line", oldLine}, {"endLine", nullptr},
                        {"severity", "MAJOR"}, {"category", "SECURITY"}, {"title", "key removed"},
                        {"explanation", "e"}, {"suggestion", nullptr}, {"edit", nullptr}, {"confidence", 0.9}});
  FakeServer proxy;
  proxy.enqueue(Reply::ok(answerWith(findings).dump()));
  proxy.enqueue(Reply::ok(answerWith(json::array()).dump()));
  const auto outcome = reviewWithoutTools(diff, proxy);
  ASSERT_EQ(proxy.requestCount(), 2u);
  const std::string feedback = proxy.requests().back().body;
  ASSERT_NE(feedback.find("cannot be placed on the diff"), std::string::npos) << feedback;
  EXPECT_NE(feedback.find(R"(if it is about the removed line \"    [REDACTED:private-key]\" (old line 5))"),
            std::string::npos)
      << feedback;
  for (const std::string& line : linesOf(pemBody(6)))
    EXPECT_EQ(proxy.allBodies().find(line), std::string::npos) << "a removed key line went out: " << line;
  // The report's rejections (JSON, a CI artifact) quote the lines as redacted too.
  ASSERT_FALSE(outcome.rejected.empty());
  for (const auto& r : outcome.rejected) {
    EXPECT_NE(r.reason.find("[REDACTED:private-key]"), std::string::npos) << r.reason;
    for (const std::string& line : linesOf(pemBody(6))) EXPECT_EQ(r.reason.find(line), std::string::npos) << r.reason;
  }
}

// A model that was shown a secret as its marker can still fix that line: an
// edit.original that quotes the marker means the line (the fix that moves the
// secret into the environment is the one a user wants). A replacement that
// keeps the marker would write it over the secret: dropped. And the reason a
// fix is withheld, printed in every report and posted to the pull request,
// quotes the line as the model saw it, never the secret.
TEST(RedactionOnTheWire, AnEditOfASecretsLineIsReadAsTheModelWasShownIt) {
  testing::TempRepo repo;
  repo.write("app/settings.py", "DEBUG = False\n");
  repo.commitAll("base");
  repo.write("app/settings.py",
             "DEBUG = False\nDB_PASSWORD = \"Xq7vL2pR9tKw\"\nADMIN_PASSWORD = \"Xq7vL2pR9tKw\"\nSTRIPE = \"sk_live_4eC39HqLyjWDarjtT1zdp7dc\"\n"
             "MASK = \"[REDACTED:api-key]\"\n");
  const diff::Diff diff = diff::parse(repo.git("diff HEAD"));
  auto finding = [](int line, const std::string& original, const std::string& replacement) {
    return json{{"file", "app/settings.py"}, {"line", line}, {"endLine", nullptr}, {"severity", "MAJOR"},
                {"category", "SECURITY"}, {"title", "hard-coded secret"}, {"explanation", "e"},
                {"suggestedFix", nullptr}, {"edit", {{"original", original}, {"replacement", replacement}}},
                {"confidence", 0.9}};
  };
  FakeServer proxy;
  proxy.enqueue(Reply::ok(answerWith(json::array({
      finding(2, "DB_PASSWORD = \"[REDACTED:password]\"", "DB_PASSWORD = os.environ[\"DB_PASSWORD\"]"),
      finding(3, "ADMIN_PASSWORD = \"[REDACTED:password]\"", "ADMIN_PASSWORD = \"[REDACTED:password]\".strip()"),
      finding(4, "STRIPE = 'something else'", "STRIPE = os.environ[\"STRIPE\"]"),
      finding(5, "MASK = \"[REDACTED:api-key]\"", "MASK = \"[REDACTED:api-key]\"  # what a scrubbed log shows")})).dump()));
  const auto outcome = reviewWithoutTools(diff, proxy);
  ASSERT_EQ(proxy.requestCount(), 1u);
  ASSERT_EQ(proxy.allBodies().find("Xq7vL2pR9tKw"), std::string::npos);
  ASSERT_EQ(outcome.findings.size(), 4u);
  std::map<std::int64_t, const review::PublishedFinding*> byLine;
  for (const auto& p : outcome.findings) byLine[p.finding.line] = &p;

  ASSERT_TRUE(byLine[2]->finding.edit.has_value()) << byLine[2]->editDroppedReason.value_or("");
  EXPECT_EQ(byLine[2]->finding.edit->original, "DB_PASSWORD = \"Xq7vL2pR9tKw\"");
  EXPECT_EQ(byLine[2]->finding.edit->replacement, "DB_PASSWORD = os.environ[\"DB_PASSWORD\"]");

  EXPECT_FALSE(byLine[3]->finding.edit.has_value());
  EXPECT_NE(byLine[3]->editDroppedReason.value_or("").find("keeps a secret's [REDACTED:...] marker"), std::string::npos)
      << byLine[3]->editDroppedReason.value_or("");

  EXPECT_FALSE(byLine[4]->finding.edit.has_value());
  const std::string reason = byLine[4]->editDroppedReason.value_or("");
  EXPECT_NE(reason.find("expected \"STRIPE = \\\"[REDACTED:"), std::string::npos) << reason;
  EXPECT_EQ(reason.find("sk_live_4eC39HqLyjWDarjtT1zdp7dc"), std::string::npos) << reason;

  // A marker the file itself holds (a log scrubber's text) may stay in a fix.
  ASSERT_TRUE(byLine[5]->finding.edit.has_value()) << byLine[5]->editDroppedReason.value_or("");
}

// A key a tool reads is redacted a line at a time: every line after it keeps
// its number, as the diff numbers it.
TEST(RedactionOnTheWire, AToolReadOfAFileWithAKeyKeepsItsLineNumbers) {
  testing::TempRepo repo;
  const std::string key = "KEY = \"\"\"-----BEGIN RSA PRIVATE KEY-----\n" + pemBody(20) + "-----END RSA PRIVATE KEY-----\"\"\"\n";
  repo.write("conf.py", "A = 1\n" + key + "DEBUG = False\n");
  repo.commitAll("base");
  repo.write("conf.py", "A = 1\n" + key + "DEBUG = True\n");
  const diff::Diff diff = diff::parse(repo.git("diff HEAD"));
  FakeServer proxy;
  proxy.enqueue(Reply::ok(toolCallsReply(json::array({{{"id", "c1"}, {"type", "function"},
                                                       {"function", {{"name", "read_file"},
                                                                     {"arguments", json{{"path", "conf.py"}}.dump()}}}}}))
                              .dump()));
  proxy.enqueue(Reply::ok(answerWith(json::array()).dump()));
  testing::SleepRecorder sleeps;
  auto settings = testing::settingsFor("http://api.example.test/v1", sleeps,
                                       {{"OPENAI_API_KEY", "sk-test"}, {"HTTP_PROXY", proxy.url()}});
  auto provider = redactIfRemote(std::make_unique<OpenAiProvider>(settings));
  tools::RepositoryTools repoTools(repo.root());
  review::ReviewOptions options;
  options.maxToolCalls = 1;
  review::runReview(diff, *provider, options, &repoTools, CancelToken());
  ASSERT_EQ(proxy.requestCount(), 2u);
  const std::string wire = proxy.requests().back().body;
  EXPECT_NE(wire.find("conf.py lines 1-24 of 24:"), std::string::npos) << wire;
  EXPECT_NE(wire.find("24: DEBUG = True"), std::string::npos) << wire;
  EXPECT_NE(wire.find("  24 + DEBUG = True"), std::string::npos) << "the diff numbers it so too: " << wire;
  for (const std::string& line : linesOf(pemBody(20))) EXPECT_EQ(wire.find(line), std::string::npos) << line;
}

}  // namespace
}  // namespace revline::providers
