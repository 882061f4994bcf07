// docs/CI.md's build recipes are copied into users' pipelines as they are: each
// `cmake -S SRC -B BUILD <flags>` configures this source tree with those flags,
// and the `install -m 755 PATH` after it names the binary that configuration
// builds (CMake's file API says where, without building it).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "core/support/json.h"
#include "tests/support/temp_repo.h"

namespace revline::testing {
namespace {

struct Recipe {
  int line = 0;
  std::string buildDir;  // as the doc writes it
  std::string flags;     // after -B BUILD
  std::string installed; // the path the install line copies
};

std::vector<Recipe> recipesOf(const std::string& doc) {
  std::vector<Recipe> recipes;
  std::istringstream in(doc);
  const std::regex configure(R"(cmake -S \S+ -B (\S+)(.*)$)");
  const std::regex install(R"(install -m 755 (\S+) )");
  std::smatch m;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (std::regex_search(line, m, configure)) recipes.push_back({n, m[1], m[2], ""});
    else if (std::regex_search(line, m, install) && !recipes.empty() && recipes.back().installed.empty())
      recipes.back().installed = m[1];
  }
  return recipes;
}

// Where the `revline` target's binary goes in a build configured with `flags`,
// relative to the build directory.
std::string binaryOfAConfiguration(const std::string& flags) {
  TempDir build;
  std::filesystem::create_directories(build.path() / ".cmake/api/v1/query");
  std::ofstream(build.path() / ".cmake/api/v1/query/codemodel-v2").put('\n');
  const CommandResult configured = runShell("cmake -S " + shellQuote(REVLINE_SOURCE_DIR) + " -B " +
                                            shellQuote(build.path().string()) + flags + " > /dev/null");
  EXPECT_EQ(configured.exitCode, 0) << "cmake -S . -B BUILD" << flags << ":\n" << configured.err;
  if (configured.exitCode != 0) return "";
  const auto reply = build.path() / ".cmake/api/v1/reply";
  for (const auto& entry : std::filesystem::directory_iterator(reply)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("target-revline-") || name.starts_with("target-revline_")) continue;
    const json target = json::parse(std::ifstream(entry.path()));
    if (target.value("name", "") != "revline") continue;
    return target.at("artifacts").at(0).at("path").get<std::string>();
  }
  ADD_FAILURE() << "the configuration has no revline target";
  return "";
}

TEST(CiRecipes, EachInstallsTheBinaryItsConfigurationBuilds) {
  std::ifstream in(std::string(REVLINE_SOURCE_DIR) + "/docs/CI.md");
  ASSERT_TRUE(in);
  const std::string doc{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::vector<Recipe> recipes = recipesOf(doc);
  ASSERT_GE(recipes.size(), 3u) << "the GitHub, pr and GitLab jobs each build revline";
  std::map<std::string, std::string> built;  // flags -> binary
  for (const Recipe& r : recipes) {
    if (!built.count(r.flags)) built[r.flags] = binaryOfAConfiguration(r.flags);
    EXPECT_EQ(r.installed, r.buildDir + "/" + built[r.flags]) << "docs/CI.md:" << r.line;
  }
}

}  // namespace
}  // namespace revline::testing
