#include "core/config/glob.h"

#include <gtest/gtest.h>

#include "core/config/config.h"

namespace revline::config {
namespace {

struct Case {
  const char* glob;
  const char* path;
  bool matches;
};

TEST(Glob, Matching) {
  const Case cases[] = {
      // `*` and `?` stay within a segment.
      {"src/*.cpp", "src/a.cpp", true},
      {"src/*.cpp", "src/sub/a.cpp", false},
      {"src/?.cpp", "src/a.cpp", true},
      {"src/?.cpp", "src/ab.cpp", false},
      {"src/a*b*c", "src/aXbYbc", true},
      {"src/a*b*c", "src/aXbY", false},
      // `**` spans zero or more segments.
      {"src/**/test.cpp", "src/test.cpp", true},
      {"src/**/test.cpp", "src/a/b/test.cpp", true},
      {"src/**", "src/a/b/c.cpp", true},
      {"src/**", "lib/src/a.cpp", false},
      {"**/*.md", "README.md", true},
      {"**/*.md", "docs/x/y.md", true},
      // A bare name matches at any depth; a leading '/' anchors it.
      {"*.lock", "Cargo.lock", true},
      {"*.lock", "sub/dir/yarn.lock", true},
      {"/*.lock", "sub/yarn.lock", false},
      {"/*.lock", "yarn.lock", true},
      // A matching directory matches its contents; a trailing '/' means directories only.
      {"vendor", "vendor/lib/a.c", true},
      {"vendor", "src/vendor/a.c", true},
      {"third_party/lib", "third_party/lib/x/y.c", true},
      {"third_party/lib", "third_party/library.c", false},
      {"build/", "build/out.o", true},
      {"build/", "build", false},
      {"build", "build", true},
      // Paths may start with "./".
      {"src/*.cpp", "./src/a.cpp", true},
      // Malformed globs never match.
      {"src/a**", "src/abc", false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(globMatches(c.glob, c.path), c.matches) << "glob \"" << c.glob << "\" path \"" << c.path << "\"";
  }
}

TEST(Glob, Problems) {
  EXPECT_FALSE(globProblem("src/**/x.cpp"));
  EXPECT_FALSE(globProblem("/build/"));
  EXPECT_TRUE(globProblem(""));
  EXPECT_TRUE(globProblem("a//b"));
  EXPECT_TRUE(globProblem("**.cpp"));
  // A glob that matches nothing for a reason the user cannot see is refused, naming it.
  EXPECT_TRUE(globProblem("[a-"));
  EXPECT_TRUE(globProblem("src/[abc/x.c"));
  EXPECT_TRUE(globProblem("*.{js,ts"));
  EXPECT_TRUE(globProblem("*.js}"));
  EXPECT_NE(globProblem("!vendor/keep.js").value_or("").find("does not negate"), std::string::npos);
  EXPECT_FALSE(globProblem("[]a]*.c"));
  EXPECT_FALSE(globProblem("[!.]*"));
  EXPECT_FALSE(globProblem("{src,lib}/**/*.{c,h}"));
}

TEST(PathSelected, IncludeThenExclude) {
  Config c;
  EXPECT_TRUE(pathSelected(c, "anything/at/all.txt"));
  c.include = {"src/**", "*.cmake"};
  c.exclude = {"**/*_generated.cpp", "src/vendor"};
  EXPECT_TRUE(pathSelected(c, "src/core/a.cpp"));
  EXPECT_TRUE(pathSelected(c, "cmake/deps.cmake"));
  EXPECT_FALSE(pathSelected(c, "docs/a.md"));
  EXPECT_FALSE(pathSelected(c, "src/core/parser_generated.cpp"));
  EXPECT_FALSE(pathSelected(c, "src/vendor/zlib/inflate.c"));
}

}  // namespace
}  // namespace revline::config

namespace revline::config {
namespace {
// The settings and the model's glob tool share one engine: what a user writes
// in `exclude` means what the model's glob("...") means.
TEST(Glob, SetsAndAlternativesAsTheToolsHaveThem) {
  EXPECT_TRUE(globMatches("*.{lock,min.js}", "web/app.min.js"));
  EXPECT_TRUE(globMatches("*.{lock,min.js}", "Cargo.lock"));
  EXPECT_FALSE(globMatches("*.{lock,min.js}", "app.js"));
  EXPECT_TRUE(globMatches("src/gen[0-9]/", "src/gen2/a.c"));
  EXPECT_FALSE(globMatches("src/gen[0-9]/", "src/genx/a.c"));
}
}  // namespace
}  // namespace revline::config
