// differingLines: the runs of lines two texts differ in, fewest lines changed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/support/line_diff.h"

namespace revline {
namespace {

std::vector<std::string_view> lines(const std::vector<std::string>& held) { return {held.begin(), held.end()}; }

TEST(DifferingLines, RunsBetweenTheLinesBothKeep) {
  const std::vector<std::string> a = {"a", "b", "c", "d", "e", "f"}, b = {"a", "X", "c", "d", "new", "e"};
  const auto runs = differingLines(lines(a), lines(b), 100);
  ASSERT_TRUE(runs);
  EXPECT_EQ(*runs, (std::vector<DifferingLines>{{1, 2, 1, 2}, {4, 4, 4, 5}, {5, 6, 6, 6}}));
}

TEST(DifferingLines, EmptySidesAndNoDifference) {
  const std::vector<std::string> some = {"a", "b"}, none;
  EXPECT_EQ(*differingLines(lines(some), lines(some), 0), std::vector<DifferingLines>{});
  EXPECT_EQ(*differingLines(lines(none), lines(some), 10), (std::vector<DifferingLines>{{0, 0, 0, 2}}));
  EXPECT_EQ(*differingLines(lines(some), lines(none), 10), (std::vector<DifferingLines>{{0, 2, 0, 0}}));
}

// Repeated lines match as few changes as possible (here one line added, not a rewrite of three).
TEST(DifferingLines, RepeatedLinesTakeTheShortestScript) {
  const std::vector<std::string> a = {"}", "}", "}"}, b = {"}", "}", "x", "}"};
  const auto runs = differingLines(lines(a), lines(b), 100);
  ASSERT_TRUE(runs);
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].oldEnd - (*runs)[0].oldBegin, 0u);
  EXPECT_EQ((*runs)[0].newEnd - (*runs)[0].newBegin, 1u);
}

// Past the limit the search stops (its work grows with the square of the lines changed).
TEST(DifferingLines, MoreChangedThanTheLimitIsNoAnswer) {
  std::vector<std::string> a, b;
  for (int i = 0; i < 50; ++i) a.push_back("a" + std::to_string(i)), b.push_back("b" + std::to_string(i));
  EXPECT_FALSE(differingLines(lines(a), lines(b), 99));
  EXPECT_TRUE(differingLines(lines(a), lines(b), 100));
}

}  // namespace
}  // namespace revline
