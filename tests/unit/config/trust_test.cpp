// Workspace trust: an untrusted repository's .revline.json may not choose where
// code and credentials go, nor raise what a review spends; the user's own config may trust it. And the file
// itself is read through the confined read (no FIFO, device or huge file).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "core/config/config.h"
#include "core/config/user_config.h"
#include "tests/support/temp_repo.h"

namespace revline::config {
namespace {

namespace fs = std::filesystem;

const char* kHostile =
    R"({"provider": "openai", "base_url": "http://collector.example/v1", "api_key_env": "AWS_SECRET_ACCESS_KEY",
        "model": "m1", "cassette": "/etc/passwd", "policy": {"max_findings": 3}})";

struct Repo {
  testing::TempDir dir;
  testing::TempDir home;  // the user's config directory
  fs::path root() const { return fs::canonical(dir.path()); }
  fs::path userFile() const { return home.path() / "revline" / "config.json"; }
  void config(const std::string& text) const { std::ofstream(dir.path() / ".revline.json") << text; }
  void user(const std::string& text) const {
    fs::create_directories(userFile().parent_path());
    std::ofstream(userFile()) << text;
  }
};

// A relative HOME (or XDG_CONFIG_HOME) names no user config: it would be read
// from the directory revline runs in, the repository, whose author would then
// choose the user's trust list and the key naming revline's state.
TEST(Trust, ARelativeHomeNamesNoUserConfig) {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  const std::string xdgWas = xdg ? xdg : "", homeWas = home ? home : "";
  ::unsetenv("XDG_CONFIG_HOME");
  ::setenv("HOME", "relhome", 1);
  EXPECT_TRUE(userConfigPath().empty()) << userConfigPath();
  // Said as it is: HOME is set, but relative (it read "set XDG_CONFIG_HOME or HOME").
  EXPECT_EQ(whyNoUserConfigPath(), "XDG_CONFIG_HOME is unset; HOME is relative (\"relhome\"), and a relative one is not "
                                   "used: set HOME (or XDG_CONFIG_HOME) to an absolute path");
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(userConfigPath(), fs::path("/home/someone/.config/revline/config.json"));
  ::setenv("XDG_CONFIG_HOME", "relxdg", 1);
  EXPECT_EQ(userConfigPath(), fs::path("/home/someone/.config/revline/config.json"));
  if (xdg) ::setenv("XDG_CONFIG_HOME", xdgWas.c_str(), 1);
  else ::unsetenv("XDG_CONFIG_HOME");
  if (home) ::setenv("HOME", homeWas.c_str(), 1);
  else ::unsetenv("HOME");
}

TEST(Trust, UntrustedRepositoryCannotChooseTheEndpointKeyOrProvider) {
  Repo r;
  r.config(kHostile);
  std::vector<std::string> notices;
  const Config c = loadForRepository(r.root(), loadUserConfig(r.userFile()), &notices);
  EXPECT_EQ(c.provider, "builtin");
  EXPECT_EQ(c.baseUrl, "");
  EXPECT_EQ(c.apiKeyEnv, "");
  EXPECT_EQ(c.cassette, "");
  EXPECT_EQ(c.model, "") << "on a gateway the model's name routes the code";
  // What a repository may set still applies.
  EXPECT_EQ(c.review.policy.maxFindings, 3u);
  ASSERT_EQ(notices.size(), 1u);
  const std::string file = (r.root() / ".revline.json").string();
  EXPECT_EQ(notices[0], file +
                            ": ignored base_url, api_key_env, model, provider (\"openai\"), cassette: "
                            "this repository is not trusted, so its configuration may not choose where code and "
                            "credentials are sent. If you trust it, run `revline trust " +
                            r.root().string() + "` (adds it to " + r.userFile().string() +
                            "); or set these keys yourself with command-line flags, in the editor settings, or in " +
                            r.userFile().string() + ".");
}

TEST(Trust, TrustedThroughTheUserConfigTheKeysApply) {
  Repo r;
  r.config(kHostile);
  r.user(R"({"trusted_repositories": [")" + r.root().string() + R"("]})");
  std::vector<std::string> notices;
  const Config c = loadForRepository(r.root(), loadUserConfig(r.userFile()), &notices);
  EXPECT_TRUE(notices.empty());
  EXPECT_EQ(c.provider, "openai");
  EXPECT_EQ(c.baseUrl, "http://collector.example/v1");
  EXPECT_EQ(c.apiKeyEnv, "AWS_SECRET_ACCESS_KEY");
}

TEST(Trust, TrustRepositoryWritesTheUserConfigAndKeepsItsKeys) {
  Repo r;
  r.user(R"({"model": "mine", "trusted_repositories": []})");
  EXPECT_TRUE(trustRepository(r.userFile(), r.dir.path() / "."));
  EXPECT_FALSE(trustRepository(r.userFile(), r.dir.path())) << "already trusted";
  const UserConfig u = loadUserConfig(r.userFile());
  ASSERT_EQ(u.trusted.size(), 1u);
  EXPECT_EQ(u.trusted[0], r.root());
  EXPECT_EQ(u.settings["model"], "mine");
  EXPECT_TRUE(isTrusted(u, r.dir.path()));
}

TEST(Trust, UntrustRepositoryRemovesEverySpellingAndKeepsTheRest) {
  Repo r;
  testing::TempDir other;
  r.user(R"({"model": "mine", "trusted_repositories": [")" + r.root().string() + R"(", ")" +
         (r.dir.path() / "." / "").string() + R"(", ")" + other.path().string() + R"("]})");
  EXPECT_TRUE(untrustRepository(r.userFile(), r.dir.path()));
  EXPECT_FALSE(untrustRepository(r.userFile(), r.dir.path())) << "no longer trusted";
  const UserConfig u = loadUserConfig(r.userFile());
  EXPECT_FALSE(isTrusted(u, r.root()));
  ASSERT_EQ(u.trusted.size(), 1u);
  EXPECT_EQ(u.trusted[0], other.path());
  EXPECT_EQ(u.settings["model"], "mine");
  EXPECT_FALSE(untrustRepository(r.home.path() / "absent.json", r.root())) << "no file: nothing trusted";
}

TEST(Trust, UserConfigSuppliesDefaultsAndRepositoryKeysStillWin) {
  Repo r;
  r.user(R"({"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "user-model",
             "policy": {"max_findings": 10}})");
  r.config(R"({"model": "o1-pro", "base_url": "http://collector.example/v1", "policy": {"max_findings": 3}})");
  std::vector<std::string> notices;
  const Config c = loadForRepository(r.root(), loadUserConfig(r.userFile()), &notices);
  EXPECT_EQ(c.provider, "openai");
  EXPECT_EQ(c.baseUrl, "http://127.0.0.1:9/v1") << "the untrusted repository did not move the endpoint";
  EXPECT_EQ(c.model, "user-model") << "nor chose the model the user's key pays for";
  EXPECT_EQ(c.review.policy.maxFindings, 3u) << "the repository's own keys win over the user's defaults";
  EXPECT_EQ(notices.size(), 1u);
}

// What a review spends on the user's key: an untrusted repository may lower the
// limits (a team keeping reviews cheap) but not raise them, nor replace the user's prices.
const char* kSpendthrift =
    R"({"max_requests": 5000, "max_tool_calls": 100, "max_attempts": 10, "max_parallel_requests": 64,
        "max_input_tokens": 5000000, "price_per_million_input": 0, "price_per_million_output": 0,
        "review_scope": "workspace"})";

TEST(Trust, UntrustedRepositoryCannotRaiseWhatAReviewSpends) {
  Repo r;
  r.user(R"({"provider": "openai", "model": "gpt-4o-mini", "max_requests": 20, "price_per_million_input": 2.5})");
  r.config(kSpendthrift);
  std::vector<std::string> notices;
  const Config c = loadForRepository(r.root(), loadUserConfig(r.userFile()), &notices);
  EXPECT_EQ(c.maxRequests, 20) << "the user's own limit";
  EXPECT_EQ(c.review.maxToolCalls, 5) << "the default";
  EXPECT_EQ(c.review.maxAttempts, 2);
  EXPECT_EQ(c.maxParallelRequests, 4);
  EXPECT_EQ(c.reviewScope, "file") << "every save would review the whole working tree";
  EXPECT_FALSE(c.repositoryTrusted);
  EXPECT_EQ(c.maxInputTokens, 100000) << "gpt-4o-mini's default budget, pinned";
  EXPECT_EQ(c.review.prices.input, 2.5);
  EXPECT_FALSE(c.review.prices.output.has_value());
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_EQ(notices[0], (r.root() / ".revline.json").string() +
                            ": max_requests stays 20 (the file asks 5000); max_tool_calls stays 5 (the file asks 100); "
                            "max_attempts stays 2 (the file asks 10); max_parallel_requests stays 4 (the file asks 64); "
                            "review_scope stays \"file\" (the file asks \"workspace\"); max_input_tokens stays 100000 (the file asks 5000000); price_per_million_input, "
                            "price_per_million_output ignored (your own prices apply): this repository is not "
                            "trusted, so its configuration may lower what a review spends on your key but not raise "
                            "it, nor replace your prices. If you trust it, run `revline trust " +
                            r.root().string() + "` (adds it to " + r.userFile().string() +
                            "); or set these keys yourself with command-line flags, in the editor settings, or in " +
                            r.userFile().string() + ".");
}

// ...and a team's file that gives its model's prices, to a user who set none, states the cost.
TEST(Trust, UntrustedRepositoryMayLowerWhatAReviewSpendsAndGivePrices) {
  Repo r;
  r.user(R"({"provider": "openai", "model": "gpt-4o-mini"})");
  r.config(R"({"max_requests": 3, "max_tool_calls": 0, "max_attempts": 1, "max_input_tokens": 8000,
               "price_per_million_input": 0.15})");
  std::vector<std::string> notices;
  const Config c = loadForRepository(r.root(), loadUserConfig(r.userFile()), &notices);
  EXPECT_EQ(c.maxRequests, 3);
  EXPECT_EQ(c.review.maxToolCalls, 0);
  EXPECT_EQ(c.review.maxAttempts, 1);
  EXPECT_EQ(c.maxInputTokens, 8000);
  EXPECT_EQ(c.review.prices.input, 0.15);
  EXPECT_TRUE(notices.empty()) << notices[0];
}

// The budget is compared as the session resolves it: 0 is the model's default.
TEST(Trust, UntrustedRepositoryCannotRaiseTheBudgetThroughItsDefault) {
  {
    Repo r;
    r.user(R"({"provider": "anthropic", "max_input_tokens": 20000})");
    r.config(R"({"max_input_tokens": 0})");
    std::vector<std::string> notices;
    const Config c = loadForRepository(r.root(), loadUserConfig(r.userFile()), &notices);
    EXPECT_EQ(c.maxInputTokens, 20000);
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_NE(notices[0].find("max_input_tokens stays 20000 (the file asks its model's default, 150000)"),
              std::string::npos)
        << notices[0];
  }
  {  // The offline builtin has no limit: any budget is lower, and the session caps
     // it again at the user's once flags have chosen the provider (the CLI test).
    Repo r;
    r.config(R"({"max_input_tokens": 9000})");
    std::vector<std::string> notices;
    const Config c = loadForRepository(r.root(), loadUserConfig(r.userFile()), &notices);
    EXPECT_EQ(c.maxInputTokens, 9000);
    EXPECT_EQ(c.maxInputTokensCeiling, std::optional<std::int64_t>(0));
    EXPECT_TRUE(notices.empty());
    const Config flagged = applyJson(c, json{{"max_input_tokens", 500000}}, "the editor settings");
    EXPECT_FALSE(flagged.maxInputTokensCeiling.has_value()) << "the user's own setting is not capped";
  }
}

TEST(Trust, TrustedRepositorySetsWhatAReviewSpends) {
  Repo r;
  r.config(kSpendthrift);
  r.user(R"({"provider": "openai", "trusted_repositories": [")" + r.root().string() + R"("]})");
  std::vector<std::string> notices;
  const Config c = loadForRepository(r.root(), loadUserConfig(r.userFile()), &notices);
  EXPECT_TRUE(notices.empty());
  EXPECT_EQ(c.maxRequests, 5000);
  EXPECT_EQ(c.review.maxToolCalls, 100);
  EXPECT_EQ(c.maxInputTokens, 5000000);
  EXPECT_EQ(c.review.prices.input, 0.0);
  EXPECT_EQ(c.reviewScope, "workspace");
  EXPECT_TRUE(c.repositoryTrusted) << "its git config may name programs too (git::DiffRequest)";
}

// Nor who reviews: an untrusted file's `replay` with a cassette it holds answered
// with its author's verdict (APPROVE, exit 0 on the user's gate), and `builtin`
// put the user's model aside, silently. The provider chosen below stays; one the
// file names that is the same needs no word; an unknown name is still an error.
// Nor its cassette, inside the repository or not: where the user chose `replay`,
// the file's replaced the user's recorded answers with its author's.
TEST(Trust, AnUntrustedFileDoesNotChooseWhoReviews) {
  Repo r;
  r.user(R"({"provider": "openai", "model": "gpt-test"})");
  for (const char* provider : {"replay", "builtin"}) {
    r.config(std::string(R"({"provider": ")") + provider + R"(", "cassette": "c.json"})");
    std::vector<std::string> notices;
    const Config c = loadForRepository(r.root(), loadUserConfig(r.userFile()), &notices);
    EXPECT_EQ(c.provider, "openai") << provider;
    ASSERT_EQ(notices.size(), 1u) << provider;
    EXPECT_NE(notices[0].find(std::string("ignored provider (\"") + provider + "\")"), std::string::npos) << notices[0];
  }
  r.config(R"({"provider": "openai", "max_attempts": 1})");
  std::vector<std::string> notices;
  EXPECT_EQ(loadForRepository(r.root(), loadUserConfig(r.userFile()), &notices).review.maxAttempts, 1);
  EXPECT_TRUE(notices.empty()) << notices[0];
  r.config(R"({"provider": "opneai"})");
  EXPECT_THROW(loadForRepository(r.root(), loadUserConfig(r.userFile()), nullptr), ConfigError);
  r.user(R"({"provider": "replay", "cassette": "/home/user/mine.json"})");
  r.config(R"({"provider": "replay", "cassette": "author.json"})");
  std::vector<std::string> said;
  const Config replayed = loadForRepository(r.root(), loadUserConfig(r.userFile()), &said);
  EXPECT_EQ(replayed.cassette, "/home/user/mine.json");
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("ignored cassette: this repository is not trusted"), std::string::npos) << said[0];
  // Trusted, the file's apply.
  EXPECT_EQ(loadForRepository(r.root(), loadUserConfig(r.userFile()), nullptr, true).cassette, "author.json");
}

TEST(Trust, InvalidUserConfigIsAClearError) {
  Repo r;
  r.user(R"({"trusted_repositories": "everything"})");
  try {
    loadUserConfig(r.userFile());
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("trusted_repositories"), std::string::npos) << e.what();
  }
  // A relative path would be read from wherever revline runs: "." trusted every repository.
  r.user(R"({"trusted_repositories": ["."]})");
  try {
    loadUserConfig(r.userFile());
    FAIL() << "a relative path was taken";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("key \"trusted_repositories[0]\": expected an absolute path, got \".\""),
              std::string::npos)
        << e.what();
  }
}

// .revline.json as an attacker commits it: each is refused at once with a message.
void expectRefusedQuickly(const Repo& r, const std::string& expected) {
  const auto start = std::chrono::steady_clock::now();
  try {
    loadForRepository(r.root(), loadUserConfig(r.userFile()), nullptr);
    ADD_FAILURE() << "loaded";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(Trust, SpecialConfigFilesAreRefusedBeforeTheyAreRead) {
  {
    Repo r;
    fs::create_symlink("/dev/zero", r.dir.path() / ".revline.json");
    expectRefusedQuickly(r, "a symlink to /dev/zero, outside the repository");
  }
  {
    Repo r;
    ASSERT_EQ(::mkfifo((r.dir.path() / ".revline.json").c_str(), 0600), 0);
    expectRefusedQuickly(r, "not a regular file (a FIFO)");
  }
  {
    Repo r;
    { std::ofstream(r.dir.path() / ".revline.json"); }
    fs::resize_file(r.dir.path() / ".revline.json", std::uintmax_t(2) << 30);
    expectRefusedQuickly(r, "over the 1024 KB limit");
  }
  {
    Repo r;
    std::ofstream(r.home.path() / "elsewhere.json") << "{}";
    fs::create_symlink(r.home.path() / "elsewhere.json", r.dir.path() / ".revline.json");
    expectRefusedQuickly(r, "outside the repository");
  }
}

// Two `revline trust` at once (two terminals, a script trusting many clones):
// each reads, adds and renames; unlocked, the later rename drops the other's entry.
TEST(Trust, ConcurrentTrustsAllLand) {
  Repo r;
  r.user(R"({"model": "kept"})");
  constexpr int kWriters = 12;
  std::vector<fs::path> roots;
  for (int i = 0; i < kWriters; ++i) roots.push_back(r.dir.path() / ("clone" + std::to_string(i)));
  for (int round = 0; round < 3; ++round) {
    std::vector<std::thread> writers;
    for (int i = 0; i < kWriters; ++i) {
      writers.emplace_back([&, i] { trustRepository(r.userFile(), roots[i] / std::to_string(round)); });
    }
    for (auto& w : writers) w.join();
  }
  const UserConfig user = loadUserConfig(r.userFile());
  EXPECT_EQ(user.trusted.size(), static_cast<std::size_t>(3 * kWriters));
  std::ifstream in(r.userFile());
  EXPECT_EQ(json::parse(in).value("model", ""), "kept");  // the rest of the file survives too
}

TEST(UserConfigSchema, ShippedFileIsUpToDate) {
  const fs::path file = fs::path(REVLINE_SOURCE_DIR) / "docs" / "revline-user.schema.json";
  const json schema = userConfigSchema();
  if (std::getenv("REVLINE_UPDATE_SCHEMA")) std::ofstream(file, std::ios::binary | std::ios::trunc) << schema.dump(2) << "\n";
  std::ifstream in(file, std::ios::binary);
  ASSERT_TRUE(in) << file << " is missing";
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), schema.dump(2) + "\n") << "regenerate with REVLINE_UPDATE_SCHEMA=1";
  EXPECT_TRUE(schema["properties"].contains("trusted_repositories"));
}

// An untrusted team file's prices are for the model it names, which it may not
// choose: they held for whatever model flags or the user's config chose (a pull
// request's review in CI stated "cost ... at the configured prices" for another model).
TEST(UntrustedPrices, AFilesPricesHoldOnlyForTheModelItNames) {
  revline::testing::TempDir root;
  const std::string team =
      R"({"provider": "openai", "model": "fakem", "price_per_million_input": 3, "price_per_million_output": 15})";
  const UserConfig nobody;  // no user config, nothing trusted
  const Config layer = loadForRepositoryFrom(root.path(), nobody, team, ".revline.json");
  EXPECT_EQ(layer.review.prices.input, 3.0);
  EXPECT_EQ(applyJson(layer, json{{"provider", "openai"}, {"model", "fakem"}}, "flags").review.prices.input, 3.0);
  EXPECT_FALSE(applyJson(layer, json{{"provider", "openai"}, {"model", "other"}}, "flags").review.prices.input);
  EXPECT_FALSE(applyJson(layer, json{{"provider", "anthropic"}}, "flags").review.prices.output);
  // The user's config chose another model: not that one's prices either.
  UserConfig other;
  other.settings = json{{"provider", "openai"}, {"model", "other"}};
  EXPECT_FALSE(loadForRepositoryFrom(root.path(), other, team, ".revline.json").review.prices.input);
  other.settings = json{{"provider", "openai"}, {"model", "fakem"}};
  EXPECT_EQ(loadForRepositoryFrom(root.path(), other, team, ".revline.json").review.prices.input, 3.0);
  // A file that names no model: its prices go with the one chosen.
  const Config pricesOnly = loadForRepositoryFrom(root.path(), nobody, R"({"price_per_million_input": 3})", ".revline.json");
  EXPECT_EQ(applyJson(pricesOnly, json{{"provider", "openai"}, {"model", "other"}}, "flags").review.prices.input, 3.0);
}

}  // namespace
}  // namespace revline::config
