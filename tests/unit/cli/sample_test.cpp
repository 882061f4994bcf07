// The bundled sample, end to end through the binary: the builtin reviewer finds
// the four planted bugs on the right lines and approves the clean change.
#include <gtest/gtest.h>

#include <sstream>

#include "core/support/json.h"
#include "tests/support/temp_repo.h"

namespace revline {
namespace {

using testing::runRevline;
using testing::runShell;
using testing::shellQuote;
using testing::TempDir;

std::filesystem::path makeSample(const TempDir& dir, const std::string& variant) {
  const auto repo = dir.path() / "payments";
  const auto r = runShell(shellQuote(std::string(REVLINE_SOURCE_DIR) + "/samples/make-sample-repo.sh") + " " +
                          shellQuote(repo.string()) + " " + variant);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  return repo;
}

// 1-based number of the first line of `file` containing `needle`; 0 if none.
int lineOf(const std::filesystem::path& file, const std::string& needle) {
  const auto r = runShell("cat " + shellQuote(file.string()));
  std::istringstream in(r.out);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(needle) != std::string::npos) return n;
  return 0;
}

TEST(Sample, BuggyChangeShowsTheFourPlantedBugsOnTheirLines) {
  TempDir dir;
  const auto repo = makeSample(dir, "buggy");
  const auto r = runRevline("review --format json", repo);
  ASSERT_EQ(r.exitCode, 1) << r.err;  // request changes
  const json report = json::parse(r.out);
  EXPECT_EQ(report["verdict"], "REQUEST_CHANGES");
  EXPECT_TRUE(report["rejected"].empty());
  const std::string pkg = "src/main/java/com/example/payments/";
  struct Expected { std::string file, needle, category; };
  const std::vector<Expected> expected = {
      {pkg + "PaymentService.java", "!= \"NGN\"", "CORRECTNESS"},
      {pkg + "PaymentService.java", ".equals(BigDecimal.ZERO)", "CORRECTNESS"},
      {pkg + "ExchangeRates.java", "containsKey", "CONCURRENCY"},
      {pkg + "PaymentRepository.java", "executeQuery(sql)", "SECURITY"},
  };
  ASSERT_EQ(report["findings"].size(), expected.size()) << report.dump(2);
  for (const auto& e : expected) {
    const int line = lineOf(repo / e.file, e.needle);
    ASSERT_GT(line, 0) << e.needle << " not found in " << e.file;
    bool found = false;
    for (const auto& f : report["findings"]) {
      const int first = f["line"].get<int>();
      const int last = f["endLine"].is_null() ? first : f["endLine"].get<int>();
      if (f["file"] == e.file && f["category"] == e.category && first <= line && line <= last) found = true;
    }
    EXPECT_TRUE(found) << "no " << e.category << " finding covering " << e.file << ":" << line << "\n"
                       << report.dump(2);
  }
}

TEST(Sample, CleanChangeIsApproved) {
  TempDir dir;
  const auto repo = makeSample(dir, "clean");
  const auto r = runRevline("review --format json", repo);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json report = json::parse(r.out);
  EXPECT_EQ(report["verdict"], "APPROVE");
  EXPECT_TRUE(report["findings"].empty()) << report.dump(2);
  // The clean change is a real change, not an empty diff.
  EXPECT_NE(runRevline("diff", repo).out.find("+"), std::string::npos);
}

}  // namespace
}  // namespace revline
