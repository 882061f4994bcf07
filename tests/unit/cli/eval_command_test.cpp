// `revline eval` as a user runs it: the bundled corpus with the builtin and
// replay providers, the builtin's figures against the committed baseline,
// --record then replay, --runs, --compare, and the errors.
#include <gtest/gtest.h>

#include <fstream>

#include "core/support/json.h"
#include "tests/support/temp_repo.h"

namespace revline {
namespace {

namespace fs = std::filesystem;
using testing::runRevline;
using testing::shellQuote;

const fs::path kSource = REVLINE_SOURCE_DIR;
const std::string kCorpus = shellQuote((kSource / "eval").string());

json readJson(const fs::path& file) {
  std::ifstream in(file);
  return json::parse(in);
}

// The scores of a report: what the baseline pins (not latency, not paths).
json scores(const json& report) {
  json metrics = report["metrics"];
  for (const char* k : {"latencyP50Ms", "latencyP95Ms"}) metrics.erase(k);
  json cases = json::object();
  for (const auto& c : report["cases"]) {
    json runs = json::array();
    for (const auto& r : c["runs"])
      runs.push_back({{"tp", r["tp"]}, {"fp", r["fp"]}, {"fn", r["fn"]}, {"verdict", r["verdict"]},
                      {"matched", r["matched"]}, {"falsePositives", r["falsePositives"]}});
    cases[c["id"].get<std::string>()] = runs;
  }
  return {{"metrics", metrics}, {"cases", cases}};
}

void expectReportShape(const json& r, std::size_t cases) {
  EXPECT_EQ(r["format"], "revline-eval");
  EXPECT_EQ(r["version"], 1);
  EXPECT_EQ(r["tolerance"], 2);
  for (const char* k : {"truePositives", "falsePositives", "falseNegatives", "precision", "recall", "f1", "f05",
                        "blockingPrecision", "cleanFalseBlockRate", "verdictAccuracy", "retryRate", "contractFailures",
                        "groundingRejections", "editsDropped", "requests", "inputTokens", "outputTokens", "toolCalls",
                        "latencyP50Ms", "latencyP95Ms"})
    EXPECT_TRUE(r["metrics"].contains(k)) << k;
  ASSERT_EQ(r["cases"].size(), cases);
  for (const auto& c : r["cases"]) {
    ASSERT_EQ(c["runs"].size(), r["runs"].get<std::size_t>()) << c["id"];
    for (const char* k : {"tp", "fp", "fn", "verdict", "verdictOk", "attempts", "requests", "matched", "missed"})
      EXPECT_TRUE(c["runs"][0].contains(k)) << c["id"] << " " << k;
  }
}

TEST(EvalCommand, BundledCorpusWithTheBuiltinMatchesTheBaseline) {
  testing::TempDir tmp;
  const fs::path out = tmp.path() / "builtin.json";
  auto r = runRevline("eval " + kCorpus + " --provider builtin --jobs 2 --format json --no-timings --out " + shellQuote(out.string()));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("precision"), std::string::npos) << r.out;  // the table still goes to stdout
  EXPECT_NE(r.err.find("[35/35]"), std::string::npos) << r.err;    // progress on stderr
  const json report = readJson(out);
  expectReportShape(report, 35);
  EXPECT_EQ(report["metrics"]["cases"], 35);
  EXPECT_EQ(report["metrics"]["contractFailures"], 0);

  const fs::path baseline = kSource / "eval" / "baseline-builtin.json";
  const json expected = scores(readJson(baseline)), actual = scores(report);
  if (expected != actual) {
    const auto diff = runRevline("eval --compare " + shellQuote(baseline.string()) + " " + shellQuote(out.string()));
    ADD_FAILURE() << "The builtin reviewer's scores on eval/ changed. If the change is intended, regenerate the "
                     "baseline from the source root and commit it with the change:\n"
                     "  build/revline eval eval --provider builtin --format json --no-timings --out eval/baseline-builtin.json\n"
                  << diff.out;
  }
}

TEST(EvalCommand, BundledCorpusReplaysEndToEnd) {
  auto r = runRevline("eval " + kCorpus + " --provider replay --jobs 2 --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json report = json::parse(r.out);
  expectReportShape(report, 35);
  const json& m = report["metrics"];
  // The cassettes' answers (eval/README.md): every path of the harness is exercised.
  EXPECT_EQ(m["truePositives"], 27);
  EXPECT_EQ(m["falsePositives"], 1);        // go-clean-wrap-errors: a NIT on a clean change
  EXPECT_EQ(m["falseNegatives"], 0);
  EXPECT_EQ(m["verdictMatches"], 35);
  // python-wrong-comparison: "HIGH" is not a severity (contract retry); java-pagination-off-by-one: line 18
  // is not in the diff, so grounding feedback asks again and the model withdraws it (grounding retry).
  EXPECT_EQ(m["retriedReviews"], 2);
  EXPECT_EQ(m["groundingRejections"], 0);   // the withdrawn finding leaves nothing rejected
  EXPECT_EQ(m["editsDropped"], 0);          // go-ignored-error: the unindented original is re-indented, kept
  EXPECT_EQ(m["toolCalls"], 2);
  EXPECT_EQ(m["requests"], 39);             // 35 answers + 2 retries + 2 tool-call turns
  EXPECT_EQ(m["cleanFalseBlocks"], 0);
  EXPECT_EQ(m["mustNotCommentViolations"], 0);
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;  // every cassette is walked to its end
}

// A small corpus: two bundled cases copied into a temporary directory.
fs::path smallCorpus(const fs::path& dir) {
  fs::create_directories(dir / "corpus");
  for (const char* id : {"java-sql-injection", "go-clean-rename-receiver"})
    fs::copy(kSource / "eval" / id, dir / "corpus" / id, fs::copy_options::recursive);
  return dir / "corpus";
}

TEST(EvalCommand, RecordedRunReplaysToTheSameScores) {
  testing::TempDir tmp;
  const fs::path corpus = smallCorpus(tmp.path()), cassettes = tmp.path() / "frozen";
  auto live = runRevline("eval " + shellQuote(corpus.string()) + " --format json --record " + shellQuote(cassettes.string()));
  ASSERT_EQ(live.exitCode, 0) << live.err;
  ASSERT_TRUE(fs::exists(cassettes / "java-sql-injection.json"));
  const json cassette = readJson(cassettes / "java-sql-injection.json");
  ASSERT_EQ(cassette["interactions"].size(), 1u);
  EXPECT_NE(cassette["interactions"][0]["reply"].get<std::string>().find("SQL"), std::string::npos);

  auto replayed = runRevline("eval " + shellQuote(corpus.string()) + " --format json --provider replay --cassettes " +
                             shellQuote(cassettes.string()));
  ASSERT_EQ(replayed.exitCode, 0) << replayed.err;
  const json a = json::parse(live.out), b = json::parse(replayed.out);
  EXPECT_EQ(b["provider"], "replay");
  EXPECT_EQ(scores(a), scores(b));
  EXPECT_EQ(a["metrics"]["truePositives"], 1);
}

TEST(EvalCommand, RunsReportTheSpread) {
  testing::TempDir tmp;
  const fs::path corpus = smallCorpus(tmp.path());
  auto r = runRevline("eval " + shellQuote(corpus.string()) + " --runs 3 --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json report = json::parse(r.out);
  expectReportShape(report, 2);
  EXPECT_EQ(report["metrics"]["reviews"], 6);
  ASSERT_EQ(report["perRun"].size(), 3u);
  EXPECT_EQ(report["spread"]["precision"]["stddev"], 0.0);  // the builtin is deterministic
  EXPECT_TRUE(report["spread"]["unstableCases"].empty());
  EXPECT_NE(r.err.find("run 3"), std::string::npos) << r.err;
  auto text = runRevline("eval " + shellQuote(corpus.string()) + " --runs 2");
  EXPECT_NE(text.out.find("spread over 2 runs"), std::string::npos) << text.out;
}

TEST(EvalCommand, CompareShowsMovedMetricsAndFlippedCases) {
  testing::TempDir tmp;
  const fs::path corpus = smallCorpus(tmp.path());
  const fs::path a = tmp.path() / "a.json", b = tmp.path() / "b.json";
  ASSERT_EQ(runRevline("eval " + shellQuote(corpus.string()) + " --format json --out " + shellQuote(a.string())).exitCode, 0);
  // The same corpus with a strict tolerance and an expectation moved off the finding's line.
  json c = readJson(corpus / "java-sql-injection" / "case.json");
  c["expected"][0]["line"] = c["expected"][0]["line"].get<int>() + 1;
  std::ofstream(corpus / "java-sql-injection" / "case.json") << c.dump();
  ASSERT_EQ(runRevline("eval " + shellQuote(corpus.string()) + " --tolerance 0 --format json --out " + shellQuote(b.string())).exitCode, 0);
  auto r = runRevline("eval --compare " + shellQuote(a.string()) + " " + shellQuote(b.string()));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("recall"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("java-sql-injection"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no longer caught"), std::string::npos) << r.out;
  r = runRevline("eval --compare " + shellQuote(a.string()) + " " + shellQuote(b.string()) + " --format json");
  EXPECT_EQ(json::parse(r.out)["cases"][0]["id"], "java-sql-injection");
  r = runRevline("eval --compare " + shellQuote(a.string()) + " " + shellQuote(a.string()));
  EXPECT_NE(r.out.find("no differences"), std::string::npos) << r.out;
  r = runRevline("eval --compare " + shellQuote(a.string()) + " " + shellQuote((corpus / "java-sql-injection" / "case.json").string()));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("not a revline eval report"), std::string::npos) << r.err;
}

TEST(EvalCommand, ClearErrors) {
  testing::TempDir tmp;
  auto r = runRevline("eval");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("missing CORPUS"), std::string::npos) << r.err;
  r = runRevline("eval " + shellQuote(tmp.path().string()));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("no cases"), std::string::npos) << r.err;
  const fs::path corpus = smallCorpus(tmp.path());
  r = runRevline("eval " + shellQuote(corpus.string()) + " --provider replay --cassettes " + shellQuote(tmp.path().string()));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("needs a cassette per case; missing:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("java-sql-injection.json"), std::string::npos) << r.err;
  r = runRevline("eval " + shellQuote(corpus.string()) + " --cassette x.json");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--cassette names one file"), std::string::npos) << r.err;
  r = runRevline("eval " + shellQuote(corpus.string()) + " --runs 0");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--runs"), std::string::npos) << r.err;
  // A patch that does not apply names the case.
  std::ofstream(corpus / "java-sql-injection" / "change.patch") << "--- a/nope.java\n+++ b/nope.java\n@@ -1 +1 @@\n-x\n+y\n";
  r = runRevline("eval " + shellQuote(corpus.string()));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("case \"java-sql-injection\": applying change.patch"), std::string::npos) << r.err;
  r = runRevline("eval " + shellQuote(corpus.string()) + " --config " + shellQuote((tmp.path() / "none.json").string()));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("cannot read the --config file"), std::string::npos) << r.err;
  r = runRevline("eval --schema");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(json::parse(r.out)["title"], "revline eval case (case.json)");
}

TEST(EvalCommand, ConfigFileSetsTheProviderAndPolicy) {
  testing::TempDir tmp;
  const fs::path corpus = smallCorpus(tmp.path()), config = tmp.path() / "eval.json";
  std::ofstream(config) << R"({"provider": "replay", "policy": {"confidence_threshold": 0.99}})";
  auto r = runRevline("eval " + shellQuote(corpus.string()) + " --format json --config " + shellQuote(config.string()));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json report = json::parse(r.out);
  EXPECT_EQ(report["provider"], "replay");
  // The cassette's SQL-injection finding has confidence 0.95: under a 0.99 threshold it no longer blocks.
  EXPECT_EQ(report["metrics"]["truePositives"], 1);
  EXPECT_EQ(report["metrics"]["blockingFindings"], 0);
  EXPECT_EQ(report["cases"][1]["id"], "java-sql-injection");
  EXPECT_EQ(report["cases"][1]["runs"][0]["verdict"], "COMMENT");
  std::ofstream(config) << R"({"polcy": {}})";
  r = runRevline("eval " + shellQuote(corpus.string()) + " --config " + shellQuote(config.string()));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("polcy"), std::string::npos) << r.err;
}

TEST(EvalCommand, ReplayWarnsAboutCassettesNotUsedToTheEnd) {
  testing::TempDir tmp;
  const fs::path corpus = smallCorpus(tmp.path());
  const fs::path cassette = corpus / "go-clean-rename-receiver" / "cassette.json";
  json c = readJson(cassette);
  c["interactions"].push_back(c["interactions"][0]);
  std::ofstream(cassette) << c.dump();
  auto r = runRevline("eval " + shellQuote(corpus.string()) + " --provider replay");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("1 cassettes have interactions the review did not use"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("go-clean-rename-receiver"), std::string::npos) << r.err;
}

TEST(EvalCommand, ProviderFailuresAreListedAndExitOne) {
  testing::TempDir tmp;
  const fs::path corpus = smallCorpus(tmp.path());
  // A cassette with no interactions: the provider fails (not a contract failure), the other case still runs.
  std::ofstream(corpus / "go-clean-rename-receiver" / "cassette.json") << R"({"interactions": []})";
  auto r = runRevline("eval " + shellQuote(corpus.string()) + " --provider replay --format json");
  EXPECT_EQ(r.exitCode, 1) << r.err;
  const json report = json::parse(r.out);
  EXPECT_EQ(report["metrics"]["providerFailures"], 1);
  EXPECT_EQ(report["metrics"]["reviews"], 1);
  EXPECT_EQ(report["cases"][0]["runs"][0]["failure"]["kind"], "provider");
  EXPECT_NE(r.err.find("provider failure"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace revline

// A remote provider end to end: an OpenAI-compatible fake server on 127.0.0.1,
// recorded with --record and replayed offline to the same scores and usage.
#include "tests/unit/providers/fake_server.h"

namespace revline {
namespace {

std::string chatReply(const json& report, int promptTokens, int completionTokens) {
  return json{{"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", report.dump()}}}, {"finish_reason", "stop"}}}},
              {"usage", {{"prompt_tokens", promptTokens}, {"completion_tokens", completionTokens}}}}
      .dump();
}

TEST(EvalCommand, RemoteProviderIsMeteredRecordedAndReplayed) {
  testing::TempDir tmp;
  const fs::path corpus = smallCorpus(tmp.path()), frozen = tmp.path() / "frozen";
  testing::FakeServer server;
  // Cases run in name order with one job: the clean Go rename, then the SQL injection.
  server.enqueue(testing::Reply::ok(chatReply({{"summary", "Renames the receiver."}, {"findings", json::array()}, {"verdict", "APPROVE"}}, 900, 40)));
  server.enqueue(testing::Reply::ok(chatReply(
      {{"summary", "Concatenates the e-mail into SQL."},
       {"findings", {{{"file", "src/main/java/users/UserDao.java"}, {"line", 18}, {"endLine", nullptr}, {"severity", "BLOCKER"},
                      {"category", "SECURITY"}, {"title", "SQL injection"}, {"explanation", "The e-mail is concatenated into the query."},
                      {"suggestedFix", nullptr}, {"edit", nullptr}, {"confidence", 0.9}}}},
       {"verdict", "REQUEST_CHANGES"}},
      1200, 80)));
  auto live = runRevline("eval " + shellQuote(corpus.string()) + " --provider openai --model fake-model --base-url " +
                         server.url("/v1") + " --max-tool-calls 0 --format json --record " + shellQuote(frozen.string()));
  ASSERT_EQ(live.exitCode, 0) << live.err;
  const json a = json::parse(live.out);
  EXPECT_EQ(a["provider"], "openai");
  EXPECT_EQ(a["model"], "fake-model");
  EXPECT_EQ(a["metrics"]["truePositives"], 1);
  EXPECT_EQ(a["metrics"]["falsePositives"], 0);
  EXPECT_EQ(a["metrics"]["requests"], 2);
  EXPECT_EQ(a["metrics"]["inputTokens"], 2100);
  EXPECT_EQ(a["metrics"]["outputTokens"], 120);
  // What went over the wire is the normal review prompt: the line-numbered diff of the case.
  const auto sent = server.requests();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_NE(sent[1].body.find("SELECT id FROM users WHERE email"), std::string::npos);
  EXPECT_EQ(sent[1].path, "/v1/chat/completions");

  auto replayed = runRevline("eval " + shellQuote(corpus.string()) + " --provider replay --format json --cassettes " +
                             shellQuote(frozen.string()));
  ASSERT_EQ(replayed.exitCode, 0) << replayed.err;
  const json b = json::parse(replayed.out);
  EXPECT_EQ(scores(a), scores(b));
  EXPECT_EQ(b["metrics"]["inputTokens"], 2100);  // the cassette keeps the usage the provider reported
}

}  // namespace
}  // namespace revline
