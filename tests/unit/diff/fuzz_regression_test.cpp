// Inputs the fuzzer found (tests/fuzz/corpus/diff/regression-*), pinned as tests.
#include <gtest/gtest.h>

#include "core/diff/diff.h"

namespace revline::diff {
namespace {

// A hand-made header whose new name starts with "./": every file must still be
// found by its own path (grounding looks findings up this way).
TEST(DiffFuzzRegression, FileWithDotSlashNameIsFoundByItsOwnPath) {
  const Diff d = parse("diff --git a/.revline.jsont a/./evline.js\xefn\n");
  ASSERT_EQ(d.files.size(), 1u);
  EXPECT_NE(d.findFile(d.files[0].path()), nullptr) << d.files[0].path();
  EXPECT_EQ(d.findFile(d.files[0].path()), d.findFile(normalizePath(d.files[0].path())));
}

}  // namespace
}  // namespace revline::diff
