#include "core/config/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "core/config/selection.h"
#include "tests/support/temp_repo.h"

namespace revline::config {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using contract::Category;
using contract::Severity;

std::string errorOf(const json& object, const std::string& origin = ".revline.json") {
  try {
    applyJson(Config{}, object, origin);
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a ConfigError for " << object.dump();
  return "";
}

TEST(ApplyJson, EmptyObjectKeepsDefaults) {
  const Config c = applyJson(Config{}, json::object(), ".revline.json");
  EXPECT_EQ(c.provider, "builtin");
  EXPECT_EQ(c.structuredOutput, StructuredOutput::Native);
  EXPECT_EQ(c.review.maxAttempts, 2);
  EXPECT_EQ(c.reviewScope, "file");
  EXPECT_EQ(c.debounceMs, 300);
}

TEST(ApplyJson, EveryKey) {
  const json file = json::parse(R"({
    "$schema": "./docs/revline.schema.json",
    "provider": "openai", "model": "gpt-4o-mini", "base_url": "http://127.0.0.1:8080/v1",
    "api_key_env": "MY_KEY", "cassette": "tests/c.json", "structured_output": "prompt",
    "connect_timeout_ms": 1500, "read_timeout_ms": 60000, "max_attempts": 3, "max_tool_calls": 0,
    "instructions": "Prefer std::span.", "include": ["src/**"], "exclude": ["**/*_generated.cpp", "vendor"],
    "policy": {"blocking_categories": ["SECURITY", "DATA_LOSS"], "blocking_severity": "BLOCKER",
               "confidence_threshold": 0.9, "max_findings": 7, "max_explanation_chars": 400},
    "review_scope": "workspace", "debounce_ms": 0
  })");
  const Config c = applyJson(Config{}, file, ".revline.json");
  EXPECT_EQ(c.provider, "openai");
  EXPECT_EQ(c.model, "gpt-4o-mini");
  EXPECT_EQ(c.baseUrl, "http://127.0.0.1:8080/v1");
  EXPECT_EQ(c.apiKeyEnv, "MY_KEY");
  EXPECT_EQ(c.cassette, "tests/c.json");
  EXPECT_EQ(c.structuredOutput, StructuredOutput::Prompt);
  EXPECT_EQ(c.connectTimeout, std::chrono::milliseconds(1500));
  EXPECT_EQ(c.readTimeout, std::chrono::milliseconds(60000));
  EXPECT_EQ(c.review.maxAttempts, 3);
  EXPECT_EQ(c.review.maxToolCalls, 0);
  EXPECT_EQ(c.review.extraInstructions, "Prefer std::span.");
  EXPECT_EQ(c.include, std::vector<std::string>{"src/**"});
  EXPECT_EQ(c.exclude, (std::vector<std::string>{"**/*_generated.cpp", "vendor"}));
  EXPECT_EQ(c.review.policy.blockingCategories, (std::set<Category>{Category::Security, Category::DataLoss}));
  EXPECT_EQ(c.review.policy.blockingSeverity, Severity::Blocker);
  EXPECT_DOUBLE_EQ(c.review.policy.confidenceThreshold, 0.9);
  EXPECT_EQ(c.review.policy.maxFindings, 7u);
  EXPECT_EQ(c.review.policy.maxExplanationChars, 400u);
  EXPECT_EQ(c.reviewScope, "workspace");
  EXPECT_EQ(c.debounceMs, 0);
}

TEST(ApplyJson, LayersOnTopOfTheBase) {
  Config base;
  base.model = "from-file";
  base.review.policy.maxFindings = 3;
  const Config c = applyJson(base, json{{"provider", "ollama"}, {"policy", {{"blocking_severity", "MINOR"}}}},
                             "initializationOptions");
  EXPECT_EQ(c.provider, "ollama");
  EXPECT_EQ(c.model, "from-file");
  EXPECT_EQ(c.review.policy.maxFindings, 3u);
  EXPECT_EQ(c.review.policy.blockingSeverity, Severity::Minor);
}

// model, base_url and api_key_env go with the model provider they were set
// for: another one named by a later layer (a trusted .revline.json, the editor's
// settings, a flag) without them takes its own defaults, never that host.
TEST(ApplyJson, ModelHostAndKeyVariableGoWithTheirProvider) {
  const Config user = applyJson(Config{}, json{{"provider", "ollama"}, {"base_url", "http://gpu-box.lan:11434"},
                                               {"model", "qwen2.5-coder:7b"}, {"api_key_env", "BOX_KEY"}},
                                "user config");
  const Config openai = applyJson(user, json{{"provider", "openai"}}, "option --provider");
  EXPECT_EQ(openai.baseUrl, "");
  EXPECT_EQ(openai.model, "");
  EXPECT_EQ(openai.apiKeyEnv, "");
  EXPECT_EQ(applyJson(openai, json{{"model", "gpt-4.1-mini"}}, "option --model").model, "gpt-4.1-mini");
  // The same provider again (the editor's settings repeat it) keeps them.
  EXPECT_EQ(applyJson(user, json{{"provider", "ollama"}}, "editor").baseUrl, "http://gpu-box.lan:11434");
  // Through a layer that picks the offline reviewer, and back.
  const Config offline = applyJson(user, json{{"provider", "builtin"}}, ".revline.json");
  EXPECT_EQ(applyJson(offline, json{{"provider", "ollama"}}, "editor").baseUrl, "http://gpu-box.lan:11434");
  EXPECT_EQ(applyJson(offline, json{{"provider", "anthropic"}}, "option --provider").baseUrl, "");
  // Named with its own host, that host; the rest are the new provider's defaults.
  const Config gateway =
      applyJson(user, json{{"provider", "openai"}, {"base_url", "https://gw.corp.example/v1"}}, ".revline.json");
  EXPECT_EQ(gateway.baseUrl, "https://gw.corp.example/v1");
  EXPECT_EQ(gateway.model, "");
  EXPECT_EQ(applyJson(gateway, json{{"provider", "anthropic"}}, "editor").baseUrl, "");
  // Set with no model provider named, they go with whichever is chosen.
  const Config local = applyJson(Config{}, json{{"base_url", "http://127.0.0.1:8080/v1"}}, "user config");
  EXPECT_EQ(applyJson(local, json{{"provider", "openai"}}, "option --provider").baseUrl, "http://127.0.0.1:8080/v1");
}

// Prices are the model's they were set with: `--provider ollama` over a user
// config for Claude with its prices costed a local review at Claude's prices.
TEST(ApplyJson, PricesGoWithTheModelTheyWereSetFor) {
  const Config user = applyJson(Config{}, json{{"provider", "anthropic"}, {"model", "claude-sonnet-4-5"},
                                               {"price_per_million_input", 3}, {"price_per_million_output", 15}},
                                "user config");
  ASSERT_EQ(user.review.prices.input, 3.0);
  EXPECT_FALSE(applyJson(user, json{{"provider", "ollama"}}, "option --provider").review.prices.input);
  EXPECT_FALSE(applyJson(user, json{{"model", "claude-opus-4-1"}}, "option --model").review.prices.output);
  // The same provider and model again (the editor repeats them) keep them; so does a
  // layer that picks the offline reviewer, for a later one that picks the model again.
  EXPECT_EQ(applyJson(user, json{{"provider", "anthropic"}, {"model", "claude-sonnet-4-5"}}, "editor").review.prices.input, 3.0);
  const Config offline = applyJson(user, json{{"provider", "builtin"}}, ".revline.json");
  EXPECT_EQ(applyJson(offline, json{{"provider", "anthropic"}}, "editor").review.prices.output, 15.0);
  // Another model with its own prices: those.
  const Config mini = applyJson(user, json{{"model", "claude-haiku-4-5"}, {"price_per_million_input", 1}}, "editor");
  EXPECT_EQ(mini.review.prices.input, 1.0);
  EXPECT_FALSE(mini.review.prices.output) << "Sonnet's output price is not Haiku's";
  // Set with the provider's default model, they do not hold for a model named later.
  const Config byDefault = applyJson(Config{}, json{{"provider", "openai"}, {"price_per_million_input", 2.5}}, "user config");
  EXPECT_FALSE(applyJson(byDefault, json{{"model", "o3"}}, "option --model").review.prices.input);
  // Set with no model provider chosen (a team's file that gives prices only): they go with the one flags choose.
  const Config team = applyJson(Config{}, json{{"price_per_million_input", 3}}, ".revline.json");
  EXPECT_EQ(applyJson(team, json{{"provider", "anthropic"}, {"model", "test"}}, "flags").review.prices.input, 3.0);
}

TEST(ApplyJson, EmptyCategoryListNeverBlocks) {
  const Config c = applyJson(Config{}, json{{"policy", {{"blocking_categories", json::array()}}}}, "x");
  EXPECT_TRUE(c.review.policy.blockingCategories.empty());
}

TEST(ApplyJsonErrors, BadEnumValueNamesKeyOriginAndChoices) {
  EXPECT_EQ(errorOf({{"policy", {{"blocking_severity", "HIGH"}}}}),
            ".revline.json: key \"policy.blocking_severity\": expected one of BLOCKER, MAJOR, MINOR, NIT, got \"HIGH\"");
  EXPECT_EQ(errorOf({{"structured_output", "json"}}, "initializationOptions"),
            "initializationOptions: key \"structured_output\": expected one of native, prompt, got \"json\"");
  EXPECT_THAT(errorOf({{"provider", "gpt"}}),
              HasSubstr("key \"provider\": expected one of builtin, replay, openai, anthropic, ollama, got \"gpt\""));
}

TEST(ApplyJsonErrors, UnknownKeysSuggestTheNearestAndListTheKnown) {
  const std::string top = errorOf({{"modle", "x"}});
  EXPECT_THAT(top, HasSubstr(".revline.json: unknown key \"modle\" (did you mean \"model\"?) (known keys: $schema, "
                             "provider, model, base_url,"));
  EXPECT_THAT(top, HasSubstr("review_scope, debounce_ms)"));

  const std::string nested = errorOf({{"policy", {{"max_finding", 3}}}});
  EXPECT_THAT(nested, HasSubstr("unknown key \"policy.max_finding\" (did you mean \"policy.max_findings\"?)"));
  EXPECT_THAT(nested, HasSubstr("(known keys: blocking_categories, blocking_severity, confidence_threshold, "
                                "max_findings, max_explanation_chars)"));

  EXPECT_THAT(errorOf({{"colour", true}}), Not(HasSubstr("did you mean")));
  // The editor settings' camelCase copied into the file: a near miss too.
  for (const auto& [camel, snake] : std::vector<std::pair<std::string, std::string>>{
           {"apiKeyEnv", "api_key_env"}, {"maxToolCalls", "max_tool_calls"}, {"baseURL", "base_url"},
           {"readTimeoutMs", "read_timeout_ms"}, {"maxInputTokens", "max_input_tokens"}})
    EXPECT_THAT(errorOf({{camel, 1}}), HasSubstr("(did you mean \"" + snake + "\"?)")) << camel;
}

TEST(ApplyJsonErrors, WrongTypes) {
  EXPECT_EQ(errorOf({{"model", 42}}), ".revline.json: key \"model\": expected a string, got 42");
  EXPECT_EQ(errorOf({{"model", nullptr}}), ".revline.json: key \"model\": expected a string, got null");
  EXPECT_EQ(errorOf({{"policy", "strict"}}), ".revline.json: key \"policy\": expected an object, got \"strict\"");
  EXPECT_EQ(errorOf({{"include", "src/**"}}), ".revline.json: key \"include\": expected an array of strings, got \"src/**\"");
  EXPECT_EQ(errorOf({{"exclude", {"a", 1}}}), ".revline.json: key \"exclude[1]\": expected a string, got 1");
  EXPECT_EQ(errorOf({{"$schema", 5}}), ".revline.json: key \"$schema\": expected a string, got 5");
  EXPECT_THAT(errorOf(json::array()), HasSubstr(".revline.json: expected a JSON object"));
}

TEST(ApplyJsonErrors, NumbersOutOfRange) {
  EXPECT_EQ(errorOf({{"max_attempts", 0}}), ".revline.json: key \"max_attempts\": expected an integer from 1 to 10, got 0");
  EXPECT_THAT(errorOf({{"max_attempts", 2.5}}), HasSubstr("expected an integer from 1 to 10, got 2.5"));
  EXPECT_THAT(errorOf({{"max_attempts", "3"}}), HasSubstr("expected an integer from 1 to 10, got \"3\""));
  EXPECT_THAT(errorOf({{"max_tool_calls", -1}}), HasSubstr("key \"max_tool_calls\": expected an integer from 0 to 100"));
  EXPECT_EQ(errorOf({{"read_timeout_ms", 18446744073709551615ull}}),
            ".revline.json: key \"read_timeout_ms\": expected an integer from 1 to 2147483647, got 18446744073709551615");
  EXPECT_THAT(errorOf({{"policy", {{"max_findings", 0}}}}), HasSubstr("key \"policy.max_findings\": expected an integer from 1"));
  EXPECT_EQ(errorOf({{"policy", {{"confidence_threshold", 1.5}}}}),
            ".revline.json: key \"policy.confidence_threshold\": expected a number from 0 to 1, got 1.5");
  EXPECT_DOUBLE_EQ(applyJson(Config{}, {{"policy", {{"confidence_threshold", 1}}}}, "x").review.policy.confidenceThreshold, 1.0);
  // A number without a fraction is an integer to JSON Schema (and to an editor checking the file): taken.
  EXPECT_EQ(applyJson(Config{}, json::parse(R"({"max_attempts": 3.0})"), "x").review.maxAttempts, 3);
  EXPECT_EQ(applyJson(Config{}, json::parse(R"({"max_tool_calls": 1e1})"), "x").review.maxToolCalls, 10);
  EXPECT_THAT(errorOf(json::parse(R"({"max_attempts": 1e300})")), HasSubstr("expected an integer from 1 to 10"));
}

TEST(ApplyJson, PricesAreSetOnlyWhenGiven) {
  EXPECT_FALSE(Config{}.review.prices.input.has_value()) << "no default price: no cost is stated";
  const Config c = applyJson(Config{}, json::parse(R"({"price_per_million_input": 3, "price_per_million_output": 15.5,
      "price_per_million_cached_input": 0.3, "price_per_million_cache_write": 3.75})"), ".revline.json");
  EXPECT_EQ(c.review.prices.input, 3.0);
  EXPECT_EQ(c.review.prices.output, 15.5);
  EXPECT_EQ(c.review.prices.cachedInput, 0.3);
  EXPECT_EQ(c.review.prices.cacheWrite, 3.75);
  EXPECT_THAT(errorOf({{"price_per_million_input", -1}}),
              HasSubstr(".revline.json: key \"price_per_million_input\": expected a number from 0 to"));
  EXPECT_THAT(errorOf({{"price_per_million_output", "3$"}}), HasSubstr("expected a number"));
}

TEST(ApplyJsonErrors, BadCategoryInListNamesTheIndex) {
  EXPECT_EQ(errorOf({{"policy", {{"blocking_categories", {"SECURITY", "BUGS"}}}}}),
            ".revline.json: key \"policy.blocking_categories[1]\": expected one of CORRECTNESS, SECURITY, CONCURRENCY, "
            "DATA_LOSS, PERFORMANCE, MAINTAINABILITY, STYLE, TESTING, got \"BUGS\"");
}

TEST(ApplyJsonErrors, ApiKeysAreRefusedWithoutEchoingThem) {
  const std::string secret = "sk-live-0123456789abcdef";
  const std::string message = errorOf({{"api_key", secret}});
  EXPECT_THAT(message, HasSubstr(".revline.json: key \"api_key\": API keys are never stored in configuration"));
  EXPECT_THAT(message, HasSubstr("set \"api_key_env\" to that variable's name"));
  EXPECT_THAT(message, Not(HasSubstr(secret)));

  const std::string misplaced = errorOf({{"api_key_env", secret}});
  EXPECT_THAT(misplaced, HasSubstr("key \"api_key_env\": expected the name of an environment variable"));
  EXPECT_THAT(misplaced, HasSubstr("not the key itself"));
  EXPECT_THAT(misplaced, Not(HasSubstr(secret)));

  // A shell's spelling of the variable: not "not the key itself", but the name without the '$'.
  for (const char* shell : {"$OPENAI_API_KEY", "${OPENAI_API_KEY}"})
    EXPECT_THAT(errorOf({{"api_key_env", shell}}),
                HasSubstr("expected the variable's name without the '$' (\"OPENAI_API_KEY\"): revline reads the "
                          "variable itself"))
        << shell;
}

TEST(ApplyJsonErrors, MalformedGlobs) {
  EXPECT_EQ(errorOf({{"include", {"src/a**"}}}),
            ".revline.json: key \"include[0]\": expected a path glob ('**' must be a whole path segment, as in "
            "\"src/**/test\" or \"**/*.md\"; use '*' within a name), got \"src/a**\"");
  EXPECT_THAT(errorOf({{"exclude", {""}}}), HasSubstr("key \"exclude[0]\": expected a path glob (a glob must not be empty)"));
}

TEST(LoadForRepository, MissingFileGivesDefaults) {
  testing::TempDir dir;
  EXPECT_EQ(loadForRepository(dir.path()).provider, "builtin");
}

TEST(LoadForRepository, ReadsTheFile) {
  testing::TempDir dir;
  std::ofstream(dir.path() / ".revline.json") << R"({"max_attempts": 1, "policy": {"max_findings": 7}})";
  const Config c = loadForRepository(dir.path());
  EXPECT_EQ(c.review.maxAttempts, 1);
  EXPECT_EQ(c.review.policy.maxFindings, 7u);
}

// The ConfigError a repository whose .revline.json holds `text` is loaded with ("" when none).
std::string loadErrorOf(const testing::TempDir& dir, const std::string& text) {
  std::ofstream(dir.path() / ".revline.json") << text;
  try {
    loadForRepository(dir.path());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(LoadForRepository, InvalidJsonNamesFileLineAndColumn) {
  testing::TempDir dir;
  const std::string message = loadErrorOf(dir, "{\n  \"provider\": \"openai\",\n}\n");
  EXPECT_THAT(message, HasSubstr((dir.path() / ".revline.json").string() + ": invalid JSON: parse error at line 3, column 1"));
  EXPECT_THAT(message, Not(HasSubstr("[json.exception")));
}

// A number past what a double holds is invalid JSON of the file too: before, it
// was "internal error: [json.exception.out_of_range.406] number overflow".
TEST(LoadForRepository, ANumberTooLargeIsInvalidJsonOfTheFile) {
  testing::TempDir dir;
  const std::string message = loadErrorOf(dir, R"({"max_requests": 1e400})");
  EXPECT_THAT(message, HasSubstr((dir.path() / ".revline.json").string() + ": invalid JSON: number overflow"));
  EXPECT_THAT(message, Not(HasSubstr("[json.exception")));
}

TEST(LoadForRepository, KeyErrorsNameTheFile) {
  testing::TempDir dir;
  std::ofstream(dir.path() / ".revline.json") << R"({"max_attempts": 0})";
  try {
    loadForRepository(dir.path());
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr((dir.path() / ".revline.json").string() + ": key \"max_attempts\""));
  }
}

// Source maps of every kind are generated: `.d.ts.map`, `.mjs.map` and
// `.cjs.map` were reviewed as code (665 of them in a vendored package took
// requests ahead of the code), only `.js.map` and `.css.map` were left out.
TEST(DefaultExclusion, EverySourceMapIsGenerated) {
  for (const std::string name : {"a.js.map", "a.mjs.map", "a.cjs.map", "types/a.d.ts.map", "a.css.map", "a.tsx.map"}) {
    const diff::Diff d = diff::parse("diff --git a/" + name + " b/" + name + "\nnew file mode 100644\n--- /dev/null\n+++ b/" +
                                     name + "\n@@ -0,0 +1 @@\n+{\"version\":3,\"sources\":[\"a.ts\"]}\n");
    ASSERT_EQ(d.files.size(), 1u);
    EXPECT_EQ(defaultExclusion(d.files[0]), std::optional<std::string>("generated file (source map)")) << name;
  }
  const diff::Diff road = diff::parse("diff --git a/road.map b/road.map\nnew file mode 100644\n--- /dev/null\n+++ b/road.map\n"
                                      "@@ -0,0 +1 @@\n+north\n");
  EXPECT_EQ(defaultExclusion(road.files[0]), std::nullopt);
}

// Vendored directories as linguist marks them: a library bumped under
// third_party/ (20,000 lines nobody here wrote) went to the model ahead of the code.
TEST(DefaultExclusion, VendoredDirectoriesAreLeftOut) {
  for (const std::string path : {"third_party/zlib/inflate.c", "src/third-party/x.js", "deps/thirdparty/a.go",
                                 "web/bower_components/jquery/jquery.js", "jspm_packages/npm/a.js", "vendor/a.rb",
                                 "app/node_modules/p/index.js", "dist/bundle.js"}) {
    const diff::Diff d = diff::parse("diff --git a/" + path + " b/" + path + "\nnew file mode 100644\n--- /dev/null\n+++ b/" +
                                     path + "\n@@ -0,0 +1 @@\n+int x;\n");
    ASSERT_EQ(d.files.size(), 1u);
    const auto why = defaultExclusion(d.files[0]);
    ASSERT_TRUE(why.has_value()) << path;
    EXPECT_THAT(*why, HasSubstr("directory (built or vendored code)")) << path;
  }
  // A name that only contains one (third_party_notes/, a file called vendor) is code.
  for (const std::string path : {"third_party_notes/a.c", "src/vendor", "src/vendors/a.c", "my-dist/a.js"}) {
    const diff::Diff d = diff::parse("diff --git a/" + path + " b/" + path + "\nnew file mode 100644\n--- /dev/null\n+++ b/" +
                                     path + "\n@@ -0,0 +1 @@\n+int x;\n");
    ASSERT_EQ(d.files.size(), 1u);
    EXPECT_EQ(defaultExclusion(d.files[0]), std::nullopt) << path;
  }
}

// Autotools' scripts are copied into a project as they are: redis's jemalloc
// upgrade sent 156 KB of config.guess and config.sub to the model.
TEST(DefaultExclusion, AutotoolsScriptsAreVendored) {
  for (const std::string path : {"deps/jemalloc/build-aux/config.guess", "config.sub", "build-aux/ltmain.sh"}) {
    const diff::Diff d = diff::parse("diff --git a/" + path + " b/" + path + "\n--- a/" + path + "\n+++ b/" + path +
                                     "\n@@ -1 +1 @@\n-timestamp='2021-01-01'\n+timestamp='2022-01-01'\n");
    ASSERT_EQ(d.files.size(), 1u);
    const auto why = defaultExclusion(d.files[0]);
    ASSERT_TRUE(why.has_value()) << path;
    EXPECT_THAT(*why, HasSubstr("vendored build script (autotools'")) << path;
  }
  const diff::Diff own = diff::parse("diff --git a/configure.ac b/configure.ac\n--- a/configure.ac\n+++ b/configure.ac\n"
                                     "@@ -1 +1 @@\n-AC_INIT([a])\n+AC_INIT([b])\n");
  EXPECT_EQ(defaultExclusion(own.files[0]), std::nullopt);
}

}  // namespace
}  // namespace revline::config
