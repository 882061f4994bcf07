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

TEST(PrFileNames, LeadingSpacesAreKept) {
  const fs::path fixtures = fs::path(REVLINE_SOURCE_DIR) / "tests" / "fixtures" / "pr";
  revline::testing::TempDir dir;
  const fs::path copy = dir.path() / "fixtures", bin = dir.path() / "bin", work = dir.path() / "work";
  fs::copy(fixtures, copy, fs::copy_options::recursive);
  fs::create_directories(bin);
  fs::create_directories(work);
  fs::copy_file(fixtures / "gh", bin / "gh");
  fs::permissions(bin / "gh", fs::perms::owner_all);
  std::ofstream(copy / "pr.diff", std::ios::app)
      << "diff --git a/ notes.md b/ notes.md\nnew file mode 100644\nindex 0000000..ce01362\n--- /dev/null\n"
         "+++ b/ notes.md\n@@ -0,0 +1 @@\n+hello\n";
  std::ofstream(copy / "pr_names.txt", std::ios::app) << " notes.md\n";
  const char* systemPath = std::getenv("PATH");
  const auto r = revline::testing::runShell(
      "env PATH=" + shellQuote(bin.string() + ":" + (systemPath ? systemPath : "/usr/bin:/bin")) +
          " FAKE_GH_FIXTURES=" + shellQuote(copy.string()) + " " + shellQuote(REVLINE_BINARY) +
          " pr octo-org/payments 42 --format json --provider replay --cassette " +
          shellQuote((fixtures / "cassette.json").string()),
      work);
  EXPECT_NE(r.exitCode, 2) << r.err;
  EXPECT_EQ(r.err.find("have no diff to review"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace revline
