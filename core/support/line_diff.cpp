#include "core/support/line_diff.h"

#include <algorithm>
#include <functional>

namespace revline {

std::optional<std::vector<DifferingLines>> differingLines(const std::vector<std::string_view>& before,
                                                          const std::vector<std::string_view>& after,
                                                          std::size_t maxChanged) {
  const long n = static_cast<long>(before.size()), m = static_cast<long>(after.size());
  // Lines are compared many times over: by hash first.
  std::vector<std::size_t> hashBefore(before.size()), hashAfter(after.size());
  std::transform(before.begin(), before.end(), hashBefore.begin(), std::hash<std::string_view>{});
  std::transform(after.begin(), after.end(), hashAfter.begin(), std::hash<std::string_view>{});
  const auto same = [&](long x, long y) { return hashBefore[x] == hashAfter[y] && before[x] == after[y]; };

  const long most = std::min(n + m, static_cast<long>(maxChanged));
  // furthest[k + most + 1]: how far into `before` the path with d changes gets on
  // diagonal k (x - y = k); rounds[d] keeps it for k in [-d, d] after round d.
  std::vector<long> furthest(static_cast<std::size_t>(2 * most + 3), 0);
  const auto at = [&](long k) -> long& { return furthest[static_cast<std::size_t>(k + most + 1)]; };
  std::vector<std::vector<long>> rounds;
  long found = -1;
  for (long d = 0; d <= most && found < 0; ++d) {
    for (long k = -d; k <= d; k += 2) {
      long x = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? at(k + 1) : at(k - 1) + 1;
      long y = x - k;
      while (x < n && y < m && same(x, y)) ++x, ++y;
      at(k) = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
    rounds.emplace_back(furthest.begin() + (most + 1 - d), furthest.begin() + (most + 2 + d));
  }
  if (found < 0) return std::nullopt;

  // Back from the end: each round's change, then the lines both keep before it.
  std::vector<std::pair<long, long>> kept;  // (x, y) pairs, last first
  long x = n, y = m;
  for (long d = found; d > 0; --d) {
    const std::vector<long>& previous = rounds[static_cast<std::size_t>(d - 1)];
    const auto prevAt = [&](long k) { return previous[static_cast<std::size_t>(k + d - 1)]; };
    const long k = x - y;
    const long prevK = (k == -d || (k != d && prevAt(k - 1) < prevAt(k + 1))) ? k + 1 : k - 1;
    const long prevX = prevAt(prevK), prevY = prevX - prevK;
    while (x > prevX && y > prevY) kept.emplace_back(--x, --y);
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) kept.emplace_back(--x, --y);

  std::vector<DifferingLines> runs;
  long i = 0, j = 0;
  const auto runTo = [&](long x2, long y2) {
    if (x2 > i || y2 > j)
      runs.push_back({static_cast<std::size_t>(i), static_cast<std::size_t>(x2), static_cast<std::size_t>(j),
                      static_cast<std::size_t>(y2)});
  };
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) {
    runTo(it->first, it->second);
    i = it->first + 1;
    j = it->second + 1;
  }
  runTo(n, m);
  return runs;
}

}  // namespace revline
