// The commands run in process, with their standard input given as a stream
// (runMain's `in`): no binary to spawn for a patch on stdin.
#include <gtest/gtest.h>

#include <sstream>

#include "core/cli/commands.h"
#include "core/support/json.h"

namespace revline::cli {
namespace {

const char* const kPatch =
    "diff --git a/a.txt b/a.txt\n"
    "new file mode 100644\n"
    "--- /dev/null\n"
    "+++ b/a.txt\n"
    "@@ -0,0 +1,2 @@\n"
    "+one\n"
    "+two\n";

TEST(InProcess, DiffReadsThePatchFromTheGivenStream) {
  std::istringstream in(kPatch);
  std::ostringstream out, err;
  ASSERT_EQ(runMain({"diff", "--numstat", "--stdin"}, in, out, err), 0) << err.str();
  EXPECT_EQ(out.str(), "2\t0\ta.txt\n");

  std::istringstream again(kPatch);
  std::ostringstream json, jerr;
  ASSERT_EQ(runMain({"diff", "--json", "--stdin"}, again, json, jerr), 0) << jerr.str();
  EXPECT_EQ(json::parse(json.str())["files"][0]["path"], "a.txt");
}

TEST(InProcess, AMalformedPatchOnTheStreamNamesTheLine) {
  std::istringstream in("diff --git a/a b/a\n@@ -x +1 @@\n");
  std::ostringstream out, err;
  EXPECT_EQ(runMain({"diff", "--json", "--stdin"}, in, out, err), 2);
  EXPECT_NE(err.str().find("malformed diff"), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("line 2"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace revline::cli
