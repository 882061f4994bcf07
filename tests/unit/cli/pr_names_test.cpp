// `revline pr` keeps changed file names exactly as gh prints them: a name that
// begins with a space is still matched to its diff (it used to be trimmed, then
// warned about as having no diff).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "tests/support/temp_repo.h"

namespace revline {
namespace {
namespace fs = std::filesystem;
using revline::testing::shellQuote;

// `revline pr` with the fixtures' pull request plus one file: `diffPart` appended to
// its diff, `nameLine` to gh's --name-only list. Returns revline's stderr.
std::string prWithAnExtraFile(const std::string& diffPart, const std::string& nameLine) {
  const fs::path fixtures = fs::path(REVLINE_SOURCE_DIR) / "tests" / "fixtures" / "pr";
  revline::testing::TempDir dir;
  const fs::path copy = dir.path() / "fixtures", bin = dir.path() / "bin", work = dir.path() / "work";
  fs::copy(fixtures, copy, fs::copy_options::recursive);
  fs::create_directories(bin);
  fs::create_directories(work);
  fs::copy_file(fixtures / "gh", bin / "gh");
  fs::permissions(bin / "gh", fs::perms::owner_all);
  std::ofstream(copy / "pr.diff", std::ios::app) << diffPart;
  std::ofstream(copy / "pr_names.txt", std::ios::app) << nameLine << "\n";
  const char* systemPath = std::getenv("PATH");
  const auto r = revline::testing::runShell(
      "env PATH=" + shellQuote(bin.string() + ":" + (systemPath ? systemPath : "/usr/bin:/bin")) +
          " FAKE_GH_FIXTURES=" + shellQuote(copy.string()) + " " + shellQuote(REVLINE_BINARY) +
          " pr octo-org/payments 42 --format json --provider replay --cassette " +
          shellQuote((fixtures / "cassette.json").string()),
      work);
  EXPECT_NE(r.exitCode, 2) << r.err;
  return r.err;
}

// gh prints git's C-quoted form of an unusual name, quotes kept; each such file
// was warned about as having no diff, although it was reviewed.
TEST(PrFileNames, QuotedNamesAreReadAsGitWritesThem) {
  const std::string err = prWithAnExtraFile(
      "diff --git \"a/caf\\303\\251 notes.md\" \"b/caf\\303\\251 notes.md\"\nnew file mode 100644\nindex 0000000..ce01362\n"
      "--- /dev/null\n+++ \"b/caf\\303\\251 notes.md\"\n@@ -0,0 +1 @@\n+hello\n",
      "\"caf\\303\\251 notes.md\"");
  EXPECT_EQ(err.find("have no diff to review"), std::string::npos) << err;
}

TEST(PrFileNames, LeadingSpacesAreKept) {
  const std::string err = prWithAnExtraFile(
      "diff --git a/ notes.md b/ notes.md\nnew file mode 100644\nindex 0000000..ce01362\n--- /dev/null\n"
      "+++ b/ notes.md\n@@ -0,0 +1 @@\n+hello\n",
      " notes.md");
  EXPECT_EQ(err.find("have no diff to review"), std::string::npos) << err;
}

}  // namespace
}  // namespace revline
