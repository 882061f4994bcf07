// Shared by the builtin tests: real `git diff` output from a temporary
// repository, parsed by diff::parse, reviewed by the builtin rules.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/builtin/rules.h"
#include "core/diff/diff.h"
#include "tests/support/temp_repo.h"

namespace revline::builtin::testing {

// `git diff` of one file changed from `before` to `after` (added when `before`
// is empty), parsed.
inline diff::Diff diffOf(const std::string& path, const std::string& before, const std::string& after) {
  revline::testing::TempRepo repo;
  repo.write("README", "base\n");
  if (!before.empty()) repo.write(path, before);
  repo.commitAll("base");
  repo.write(path, after);
  repo.git("add -N .");  // so an added file shows in `git diff` (a throwaway repository)
  return diff::parse(repo.git("diff"));
}

inline std::vector<contract::Finding> review(const std::string& path, const std::string& before, const std::string& after) {
  return reviewDiff(diffOf(path, before, after));
}

// As review(), with the whole new file available to the rules.
inline std::vector<contract::Finding> reviewWithSource(const std::string& path, const std::string& before,
                                                       const std::string& after) {
  return reviewDiff(diffOf(path, before, after), [&](const std::string& p) -> std::optional<std::string> {
    if (p == path) return after;
    return std::nullopt;
  });
}

// The text of 1-based line `n` of `text`.
inline std::string lineOf(const std::string& text, int n) {
  std::size_t start = 0;
  for (int i = 1; i < n; ++i) start = text.find('\n', start) + 1;
  return text.substr(start, text.find('\n', start) - start);
}

}  // namespace revline::builtin::testing
