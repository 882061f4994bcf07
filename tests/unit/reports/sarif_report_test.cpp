#include "core/reports/sarif_report.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/temp_repo.h"
#include "core/reports/usage_report.h"
#include "tests/unit/reports/json_schema_check.h"
#include "tests/unit/reports/report_fixtures.h"

namespace revline::reports {
namespace {
using namespace testing;

const std::string kSchemaPath = std::string(REVLINE_SOURCE_DIR) + "/tests/fixtures/sarif-2.1.0.json";

json loadSchema() {
  std::ifstream in(kSchemaPath);
  if (!in) throw std::runtime_error("cannot read " + kSchemaPath);
  return json::parse(in);
}

const SchemaCheck& sarifSchema() {
  static const SchemaCheck check(loadSchema());
  return check;
}

std::string joined(const std::vector<std::string>& errors) {
  std::string s;
  for (const auto& e : errors) s += e + "\n";
  return s;
}

// Findings with and without edits, single- and multi-line, a unicode path with a space.
review::ReviewOutcome richOutcome() {
  auto o = outcome(Verdict::RequestChanges);
  auto withEdit = finding("src/Pay.java", 11, Severity::Major, Category::Correctness, "String compared by identity");
  withEdit.suggestedFix = "Compare with equals.";
  withEdit.edit = contract::Edit{"  if (x != \"NGN\") {", "  if (!\"NGN\".equals(x)) {"};
  o.findings.push_back(published(withEdit, "1111111111111111"));
  auto multi = finding("src/Pay.java", 11, Severity::Blocker, Category::Security, "Check spans lines", 13);
  multi.edit = contract::Edit{"  if (x != \"NGN\") {\n    throw new E();\n  }", "  requireNgn(x);"};
  o.findings.push_back(published(multi, "2222222222222222"));
  auto unicode = finding("docs/café notes.md", 2, Severity::Minor, Category::Security, "Hard-coded password");
  o.findings.push_back(published(unicode, "3333333333333333"));
  auto nit = finding("src/Pay.java", 41, Severity::Nit, Category::Style, "Rename g");
  nit.endLine = 42;
  o.findings.push_back(published(nit, "4444444444444444"));
  o.rejected.push_back({finding("src/Pay.java", 412, Severity::Major, Category::Correctness, "Far"), "not in diff"});
  o.warnings = {"request 2: 1 earlier turn was shortened to keep the request within max_input_tokens 8000"};
  return o;
}

TEST(SarifReport, ValidatesAgainstTheSchema) {
  const json sarif = renderSarif(richOutcome());
  const auto errors = sarifSchema().validate(sarif);
  EXPECT_TRUE(errors.empty()) << joined(errors) << sarif.dump(2);
}

TEST(SarifReport, EmptyRunValidatesToo) {
  const json sarif = renderSarif(outcome(Verdict::Approve), SarifOptions{"1.2.3", "https://example.invalid/revline", "/tmp/ré po"});
  const auto errors = sarifSchema().validate(sarif);
  EXPECT_TRUE(errors.empty()) << joined(errors) << sarif.dump(2);
  EXPECT_EQ(sarif["runs"][0]["results"], json::array());
  EXPECT_EQ(sarif["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"], "file:///tmp/r%C3%A9%20po/");
  EXPECT_EQ(sarif["runs"][0]["tool"]["driver"]["version"], "1.2.3");
}

TEST(SarifReport, TheReviewsWarningsAreNotificationsOfItsInvocation) {
  const json sarif = renderSarif(richOutcome());
  const json& invocation = sarif["runs"][0]["invocations"][0];
  EXPECT_EQ(invocation["executionSuccessful"], true);
  EXPECT_EQ(invocation["toolExecutionNotifications"],
            json::parse(R"([{"level": "warning", "message": {"text": "request 2: 1 earlier turn was shortened to keep )"
                        R"(the request within max_input_tokens 8000"}}])"));
  EXPECT_EQ(renderSarif(outcome(Verdict::Approve))["runs"][0]["invocations"][0]["toolExecutionNotifications"],
            json::array());
}

TEST(SarifReport, TheValidatorCatchesWhatGithubWouldReject) {
  json sarif = renderSarif(richOutcome());
  json bad = sarif;
  bad["runs"][0]["results"][0]["level"] = "fatal";
  EXPECT_FALSE(sarifSchema().validate(bad).empty());
  bad = sarif;
  bad["runs"][0]["results"][0].erase("message");
  EXPECT_FALSE(sarifSchema().validate(bad).empty());
  bad = sarif;
  bad["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0;
  EXPECT_FALSE(sarifSchema().validate(bad).empty());
  bad = sarif;
  bad["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] = "docs/café notes.md";
  EXPECT_FALSE(sarifSchema().validate(bad).empty());
  bad = sarif;
  bad["runs"][0]["tool"]["driver"]["unexpected"] = true;
  EXPECT_FALSE(sarifSchema().validate(bad).empty());
}

TEST(SarifReport, DriverHasOneRulePerCategory) {
  const json driver = renderSarif(outcome())["runs"][0]["tool"]["driver"];
  EXPECT_EQ(driver["name"], "revline");
  EXPECT_TRUE(driver.contains("version"));
  EXPECT_FALSE(driver.contains("informationUri"));  // no public home page to point at yet
  ASSERT_EQ(driver["rules"].size(), 8u);
  std::vector<std::string> ids;
  for (const auto& rule : driver["rules"]) {
    ids.push_back(rule["id"]);
    for (const char* key : {"name", "shortDescription", "fullDescription", "help"}) {
      EXPECT_TRUE(rule.contains(key)) << rule["id"] << " lacks " << key;
    }
    EXPECT_FALSE(rule["shortDescription"]["text"].get<std::string>().empty());
    EXPECT_FALSE(rule["help"]["text"].get<std::string>().empty());
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"CORRECTNESS", "SECURITY", "CONCURRENCY", "DATA_LOSS", "PERFORMANCE",
                                           "MAINTAINABILITY", "STYLE", "TESTING"}));
}

TEST(SarifReport, ResultsCarryLevelLocationFingerprintAndFix) {
  const json sarif = renderSarif(richOutcome());
  const json& rules = sarif["runs"][0]["tool"]["driver"]["rules"];
  const json& results = sarif["runs"][0]["results"];
  ASSERT_EQ(results.size(), 4u);

  const json& r0 = results[0];
  EXPECT_EQ(r0["ruleId"], "CORRECTNESS");
  EXPECT_EQ(rules[r0["ruleIndex"].get<int>()]["id"], "CORRECTNESS");
  EXPECT_EQ(r0["level"], "error");
  EXPECT_EQ(r0["message"]["text"],
            "String compared by identity\n\nBecause String compared by identity, the service misbehaves at run time."
            "\n\nSuggested fix: Compare with equals.");
  const json& loc = r0["locations"][0]["physicalLocation"];
  EXPECT_EQ(loc["artifactLocation"], json({{"uri", "src/Pay.java"}, {"uriBaseId", "%SRCROOT%"}}));
  EXPECT_EQ(loc["region"], json({{"startLine", 11}, {"endLine", 11}}));
  EXPECT_EQ(r0["partialFingerprints"], json({{"revlineFindingId/v1", "1111111111111111"}}));
  const json& change = r0["fixes"][0]["artifactChanges"][0];
  EXPECT_EQ(r0["fixes"][0]["description"]["text"], "Compare with equals.");
  EXPECT_EQ(change["artifactLocation"]["uri"], "src/Pay.java");
  EXPECT_EQ(change["replacements"][0]["deletedRegion"],
            json({{"startLine", 11}, {"startColumn", 1}, {"endLine", 11}, {"endColumn", 20}}));
  EXPECT_EQ(change["replacements"][0]["insertedContent"]["text"], "  if (!\"NGN\".equals(x)) {");

  // Multi-line with an edit: the region spans the lines, the last column is that of the last line.
  const json& r1 = results[1];
  EXPECT_EQ(r1["level"], "error");
  EXPECT_EQ(r1["ruleId"], "SECURITY");
  EXPECT_EQ(r1["locations"][0]["physicalLocation"]["region"], json({{"startLine", 11}, {"endLine", 13}}));
  EXPECT_EQ(r1["fixes"][0]["artifactChanges"][0]["replacements"][0]["deletedRegion"],
            json({{"startLine", 11}, {"startColumn", 1}, {"endLine", 13}, {"endColumn", 4}}));
  EXPECT_EQ(r1["fixes"][0]["description"]["text"], "Check spans lines");  // no suggestedFix: the title

  // Unicode path percent-encoded; no edit, no fixes.
  const json& r2 = results[2];
  EXPECT_EQ(r2["level"], "warning");
  EXPECT_EQ(r2["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "docs/caf%C3%A9%20notes.md");
  EXPECT_FALSE(r2.contains("fixes"));

  EXPECT_EQ(results[3]["level"], "note");
  EXPECT_EQ(results[3]["locations"][0]["physicalLocation"]["region"], json({{"startLine", 41}, {"endLine", 42}}));

  EXPECT_EQ(sarif["runs"][0]["properties"]["rejectedFindings"], 1);
  EXPECT_EQ(sarif["version"], "2.1.0");
}

// An edit that deletes its lines takes their newline too: the region ends at the
// start of the next line (before, an empty line was left where they were).
TEST(SarifReport, AFixThatDeletesLinesTakesTheirNewline) {
  review::ReviewOutcome o = richOutcome();
  o.findings.resize(1);
  o.findings[0].finding.edit = contract::Edit{"  if (x != \"NGN\") {", ""};
  const json sarif = renderSarif(o);
  const json& replacement = sarif["runs"][0]["results"][0]["fixes"][0]["artifactChanges"][0]["replacements"][0];
  EXPECT_EQ(replacement["deletedRegion"], json({{"startLine", 11}, {"startColumn", 1}, {"endLine", 12}, {"endColumn", 1}}));
  EXPECT_EQ(replacement["insertedContent"]["text"], "");
}

std::vector<std::string> fingerprints(const review::ReviewOutcome& o) {
  const json sarif = renderSarif(o);  // kept alive: a range-for would not extend it
  std::vector<std::string> out;
  for (const auto& r : sarif["runs"][0]["results"]) out.push_back(r["partialFingerprints"]["revlineFindingId/v1"]);
  return out;
}

// Code scanning makes one alert of results with equal fingerprints, and an id
// leaves the line out: the same statement added twice shares one id.
TEST(SarifReport, FindingsThatShareAnIdGetDistinctFingerprintsThatSurviveMovedLines) {
  auto o = outcome();
  o.findings.push_back(published(finding("src/Pay.java", 41, Severity::Minor, Category::Correctness, "Unchecked"), "aaaaaaaaaaaaaaaa"));
  o.findings.push_back(published(finding("src/Pay.java", 11, Severity::Minor, Category::Correctness, "Unchecked"), "aaaaaaaaaaaaaaaa"));
  o.findings.push_back(published(finding("src/Pay.java", 12, Severity::Major, Category::Security, "Unique"), "bbbbbbbbbbbbbbbb"));
  // Ordered by line within the file: the first keeps the bare id, a unique id is unchanged.
  const std::vector<std::string> expected = {"aaaaaaaaaaaaaaaa:2", "aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"};
  EXPECT_EQ(fingerprints(o), expected);

  for (auto& p : o.findings) p.finding.line += 7;  // lines added above all of them
  EXPECT_EQ(fingerprints(o), expected);
}

TEST(SarifReport, RunPropertiesStateWhatTheReviewSpent) {
  auto o = richOutcome();
  o.usage = {.inputTokens = 900, .outputTokens = 90, .cachedInputTokens = 500, .requests = 2, .toolCalls = 1,
             .toolCallBudget = 5};
  o.prices = {.input = 10.0, .output = 30.0};
  const json props = renderSarif(o)["runs"][0]["properties"];
  EXPECT_EQ(props["usage"]["requests"], 2);
  EXPECT_EQ(props["usage"]["cachedInputTokens"], 500);
  EXPECT_EQ(props["usage"]["toolCalls"], 1);
  EXPECT_EQ(props["usage"]["toolCallBudget"], 5);
  EXPECT_DOUBLE_EQ(props["usage"]["cost"]["total"].get<double>(), 900 * 10.0 / 1e6 + 90 * 30.0 / 1e6);
  o.prices = {};
  EXPECT_FALSE(renderSarif(o)["runs"][0]["properties"]["usage"].contains("cost"));
}

TEST(SarifReport, UtfColumnsCountUtf16CodeUnits) {
  auto o = outcome();
  auto f = finding("a.txt", 1, Severity::Minor, Category::Style, "Emoji");
  f.edit = contract::Edit{"é😀x", "y"};  // 1 + 2 + 1 UTF-16 code units
  o.findings.push_back(published(f, "5555555555555555"));
  const json sarif = renderSarif(o);
  EXPECT_EQ(sarif["runs"][0]["results"][0]["fixes"][0]["artifactChanges"][0]["replacements"][0]["deletedRegion"]["endColumn"], 5);
  EXPECT_EQ(sarif["runs"][0]["columnKind"], "utf16CodeUnits");
}

TEST(SarifReport, UriEncoding) {
  EXPECT_EQ(sarifUri("src/main/App.java"), "src/main/App.java");
  EXPECT_EQ(sarifUri("./a b/c#d?.txt"), "a%20b/c%23d%3F.txt");
  EXPECT_EQ(sarifUri("日本/ファイル.go"), "%E6%97%A5%E6%9C%AC/%E3%83%95%E3%82%A1%E3%82%A4%E3%83%AB.go");
  EXPECT_EQ(sarifUri("c:odd%name"), "c%3Aodd%25name");  // never read as a scheme; '%' itself escaped
}

// A second opinion from the reference Python implementation (Debian package
// python3-jsonschema) when it is installed; the C++ check above always runs.
TEST(SarifReport, PythonJsonschemaAgrees) {
  const revline::testing::CommandResult probe = revline::testing::runShell("python3 -c 'import jsonschema'");
  if (probe.exitCode != 0) GTEST_SKIP() << "python3-jsonschema is not installed";
  revline::testing::TempDir dir;
  const auto path = dir.path() / "out.sarif";
  {
    std::ofstream f(path);
    f << renderSarif(richOutcome()).dump(2);
  }
  const std::string script =
      "import json,sys,jsonschema\n"
      "schema=json.load(open(sys.argv[1]))\n"
      "doc=json.load(open(sys.argv[2]))\n"
      "errs=list(jsonschema.Draft4Validator(schema).iter_errors(doc))\n"
      "[print(e.json_path if hasattr(e,'json_path') else list(e.path), e.message) for e in errs]\n"
      "sys.exit(1 if errs else 0)\n";
  const auto r = revline::testing::runShell("python3 -c " + revline::testing::shellQuote(script) + " " +
                                            revline::testing::shellQuote(kSchemaPath) + " " +
                                            revline::testing::shellQuote(path.string()));
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
}

}  // namespace
}  // namespace revline::reports
