// Function context: each hunk's, as a request holding only that hunk shows it,
// computed for all the hunks of a file at once.
#include "core/diff/function_context.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "core/diff/diff.h"

namespace revline::diff {
namespace {

bool sameLines(const std::vector<ContextLine>& a, const std::vector<ContextLine>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].newLine != b[i].newLine || a[i].text != b[i].text) return false;
  return true;
}

// Random lines added into nested definitions (git diff -U0): for every hunk,
// functionContextOfEachAlone gives what functionContext gives for the file with
// that hunk alone, whether the definitions fit maxLines or only their first
// line is shown. It reads the file once where that read it once a hunk (a
// 63,000-line change priced for a small budget spent 5 s there).
TEST(FunctionContext, EachHunkAloneAsForAFileOfThatHunk) {
  std::mt19937 random(20261207);
  for (int round = 0; round < 40; ++round) {
    std::vector<std::string> lines;
    for (int c = 0; c < 4; ++c) {
      lines.push_back("class C" + std::to_string(c) + ":");
      for (int m = 0; m < 3; ++m) {
        lines.push_back("    def m" + std::to_string(m) + "(self):");
        for (int s = 0; s < static_cast<int>(random() % 6); ++s) lines.push_back("        x = " + std::to_string(s));
        lines.push_back("        return x");
        lines.push_back("");
      }
    }
    // Insert lines at a few places, last first so the earlier places hold.
    std::vector<std::size_t> at;
    for (int k = 0; k < 1 + static_cast<int>(random() % 6); ++k) at.push_back(1 + random() % (lines.size() - 1));
    std::sort(at.begin(), at.end());
    at.erase(std::unique(at.begin(), at.end()), at.end());
    std::string patch = "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n";
    int shift = 0;
    for (std::size_t k = 0; k < at.size(); ++k) {
      const std::size_t old = at[k];  // inserted after old line `old` (1-based), before the next
      patch += "@@ -" + std::to_string(old) + ",0 +" + std::to_string(old + 1 + shift) + ",1 @@\n+        y = " +
               std::to_string(k) + "\n";
      ++shift;
    }
    std::vector<std::string> after = lines;
    for (std::size_t k = at.size(); k-- > 0;)
      after.insert(after.begin() + static_cast<long>(at[k]), "        y = " + std::to_string(k));
    std::string text;
    for (const auto& l : after) text += l + "\n";
    const Diff d = parse(patch);
    ASSERT_EQ(d.files.size(), 1u);
    for (const int maxLines : {200, 3}) {
      const std::vector<HunkContext> each = functionContextOfEachAlone(d.files[0], text, maxLines);
      ASSERT_EQ(each.size(), d.files[0].hunks.size());
      bool someShown = false;
      for (std::size_t h = 0; h < each.size(); ++h) {
        FileDiff one = d.files[0];
        one.hunks = {d.files[0].hunks[h]};
        const std::vector<HunkContext> alone = functionContext(one, text, maxLines);
        ASSERT_EQ(alone.size(), 1u);
        EXPECT_TRUE(sameLines(each[h].before, alone[0].before)) << "round " << round << " hunk " << h;
        EXPECT_TRUE(sameLines(each[h].after, alone[0].after)) << "round " << round << " hunk " << h;
        someShown = someShown || !each[h].before.empty();
      }
      EXPECT_TRUE(someShown) << "round " << round << ": the rule added nothing, so nothing was compared";
    }
  }
}

}  // namespace
}  // namespace revline::diff
