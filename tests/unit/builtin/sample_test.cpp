// The bundled payments sample (samples/): the buggy change yields exactly its
// four planted bugs on the right lines; the clean change yields nothing.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/builtin/rule_catalog.h"
#include "tests/unit/builtin/review_fixture.h"

namespace revline::builtin::testing {
namespace {

using contract::Category;
using contract::Severity;
using revline::testing::runShell;
using revline::testing::shellQuote;
using revline::testing::TempDir;

const std::string kDir = "src/main/java/com/example/payments/";

struct Sample {
  TempDir dir;
  std::filesystem::path repo = dir.path() / "payments";
  diff::Diff diff;

  explicit Sample(const std::string& variant) {
    const auto made = runShell(shellQuote(std::string(REVLINE_SOURCE_DIR) + "/samples/make-sample-repo.sh") + " " +
                               shellQuote(repo.string()) + " " + variant);
    EXPECT_EQ(made.exitCode, 0) << made.err;
    const auto log = runShell("git log --format=%s", repo);
    EXPECT_EQ(log.out, "Payments service: base version\n");
    const auto d = runShell("git -c core.quotepath=off diff", repo);
    EXPECT_EQ(d.exitCode, 0) << d.err;
    diff = diff::parse(d.out);
  }

  std::string read(const std::string& path) const {
    return runShell("cat " + shellQuote(path), repo).out;
  }
};

TEST(Sample, BuggyChangeHasExactlyTheFourPlantedBugs) {
  const Sample s("buggy");
  ASSERT_EQ(s.diff.files.size(), 4u);
  const auto f = reviewDiff(s.diff);
  ASSERT_EQ(f.size(), 4u);

  // Files in diff order: ExchangeRates, Payment, PaymentRepository, PaymentService.
  EXPECT_EQ(f[0].file, kDir + "ExchangeRates.java");
  EXPECT_EQ(f[0].line, 29);
  EXPECT_EQ(f[0].endLine, 30);
  EXPECT_EQ(f[0].category, Category::Concurrency);
  EXPECT_EQ(f[0].severity, Severity::Minor);  // the rules below the blocking bar comment (PERFORMANCE.md)
  EXPECT_FALSE(f[0].edit);

  EXPECT_EQ(f[1].file, kDir + "PaymentRepository.java");
  EXPECT_EQ(f[1].line, 51);
  EXPECT_EQ(f[1].endLine, 54);
  EXPECT_EQ(f[1].category, Category::Security);
  EXPECT_EQ(f[1].severity, Severity::Minor);
  EXPECT_NE(f[1].title.find("executeQuery"), std::string::npos);

  EXPECT_EQ(f[2].file, kDir + "PaymentService.java");
  EXPECT_EQ(f[2].line, 26);
  EXPECT_EQ(f[2].category, Category::Correctness);
  ASSERT_TRUE(f[2].edit);
  EXPECT_EQ(f[2].edit->replacement, "        if (amount.compareTo(BigDecimal.ZERO) == 0) {");

  EXPECT_EQ(f[3].file, kDir + "PaymentService.java");
  EXPECT_EQ(f[3].line, 59);
  EXPECT_EQ(f[3].category, Category::Correctness);
  ASSERT_TRUE(f[3].edit);
  EXPECT_EQ(f[3].edit->replacement, "        if (!\"NGN\".equals(currency)) {");

  for (const auto& finding : f) {
    // Grounded: every line of the range is a RIGHT-side line of the diff, and
    // an edit's original is exactly the text of its line in the new file.
    const diff::FileDiff* file = s.diff.findFile(finding.file);
    ASSERT_NE(file, nullptr) << finding.file;
    for (auto n = finding.line; n <= finding.lastLine(); ++n) EXPECT_TRUE(file->isRightSideLine(static_cast<int>(n)));
    if (finding.edit) {
      EXPECT_EQ(finding.edit->original, lineOf(s.read(finding.file), static_cast<int>(finding.line)));
      EXPECT_EQ(finding.edit->original, std::string(*file->newLineText(static_cast<int>(finding.line))));
    }
  }
  EXPECT_NE(lineOf(s.read(kDir + "ExchangeRates.java"), 29).find("containsKey"), std::string::npos);
  EXPECT_NE(lineOf(s.read(kDir + "PaymentRepository.java"), 54).find("executeQuery(sql)"), std::string::npos);
}

TEST(Sample, WithTheWholeFilesTheSingletonIsRecognised) {
  const Sample s("buggy");
  const auto f = reviewDiff(s.diff, [&](const std::string& path) -> std::optional<std::string> { return s.read(path); });
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].category, Category::Concurrency);
  // getInstance()/INSTANCE are outside the hunk: the explanation says singleton.
  // The confidence is the rule's measured precision, whatever the context.
  EXPECT_DOUBLE_EQ(f[0].confidence, ruleInfo(RuleId::CheckThenAct).precision);
  EXPECT_NE(f[0].explanation.find("singleton"), std::string::npos);
}

TEST(Sample, CleanChangeHasNoFindings) {
  const Sample s("clean");
  ASSERT_EQ(s.diff.files.size(), 4u);
  for (const bool wholeFiles : {false, true}) {
    SourceLookup lookup;
    if (wholeFiles) lookup = [&](const std::string& path) -> std::optional<std::string> { return s.read(path); };
    for (const auto& finding : reviewDiff(s.diff, lookup))
      ADD_FAILURE() << finding.file << ":" << finding.line << " " << finding.title << " (whole files: " << wholeFiles << ")";
  }
}

TEST(Sample, ScriptRejectsABadVariantAndANonEmptyDirectory) {
  TempDir dir;
  const std::string script = shellQuote(std::string(REVLINE_SOURCE_DIR) + "/samples/make-sample-repo.sh");
  EXPECT_EQ(runShell(script + " " + shellQuote((dir.path() / "x").string()) + " sloppy").exitCode, 2);
  runShell("touch occupied", dir.path());
  EXPECT_EQ(runShell(script + " " + shellQuote(dir.path().string()) + " clean").exitCode, 2);
}

}  // namespace
}  // namespace revline::builtin::testing
