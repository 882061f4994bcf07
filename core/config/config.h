// Configuration: `.revline.json` at the repository root, LSP
// initializationOptions / didChangeConfiguration, and command-line flags all
// use these keys. API keys are never stored: the config names the variable.
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/review/options.h"
#include "core/support/json.h"

namespace revline::config {

enum class StructuredOutput { Native, Prompt };

struct Config {
  std::string provider = "builtin";           // builtin | replay | openai | anthropic | ollama
  std::string model;                          // empty: the provider's default
  std::string baseUrl;                        // empty: the provider's default
  std::string apiKeyEnv;                      // empty: the provider's default variable
  std::string cassette;                       // replay provider: path of the cassette
  // The model provider that model, base_url and api_key_env were set for (the
  // provider of the layer that set them, or below it); empty: set with no model
  // provider named, they go with whichever is chosen. A later layer that names
  // another model provider without them does not send its requests, and the
  // key, to the host and model meant for this one: they are reset to its defaults.
  std::string routingProvider;
  // The model provider and model the prices (review.prices) were set with, as
  // "provider/model" (model empty: its default; empty: set with no model
  // provider chosen, they go with whichever is). A later layer or flag that
  // chooses another provider or model without prices of its own clears them: a
  // local Ollama review was costed at the prices set for Claude.
  std::string pricedModel;
  StructuredOutput structuredOutput = StructuredOutput::Native;
  std::chrono::milliseconds connectTimeout{std::chrono::seconds(10)};
  std::chrono::milliseconds readTimeout{std::chrono::seconds(120)};
  review::ReviewOptions review;               // max_attempts, max_tool_calls, policy, instructions
  std::vector<std::string> include;           // path globs; empty: everything
  std::vector<std::string> exclude;           // path globs
  std::string reviewScope = "file";           // language server: "file" (the open file) | "workspace"
  int debounceMs = 300;                       // language server: quiet time before a review starts
  bool debounceSet = false;                   // debounce_ms was given (else the server picks by provider)
  // The requests of one review (session/chunk_plan.h): the token budget of each
  // (0: the provider's and model's default, config::defaultInputTokens), how
  // many run at once, and how many at most (the rest is skipped and listed).
  std::int64_t maxInputTokens = 0;
  // Set when maxInputTokens came from an untrusted repository's file: the
  // budget of the layer below it (0: the model's default), which the session
  // caps it at once the provider is known (flags may choose it after the file
  // is read). Any later setting of max_input_tokens clears it.
  std::optional<std::int64_t> maxInputTokensCeiling;
  int maxParallelRequests = 4;
  int maxRequests = 10;
  // Not a key: the user trusts the repository (`revline trust`), so its git
  // config may name programs git runs (git::DiffRequest::trustRepositoryConfig).
  bool repositoryTrusted = false;
  // The same settings (the server keeps a review in flight only for them).
  friend bool operator==(const Config&, const Config&) = default;
};

// A key that is unknown or has the wrong type/value; what() names the key
// (as a dotted path like "policy.blocking_severity"), where it came from, and what is expected.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Applies the keys of `object` on top of `base`; absent keys keep their value.
// `origin` names the source in messages (".revline.json", "initializationOptions", ...).
// Throws ConfigError for an unknown key, a wrong type or value, or an `api_key`.
Config applyJson(const Config& base, const json& object, const std::string& origin);

// True for a top-level key of `.revline.json` ("provider", "policy", "$schema", ...).
bool isConfigKey(const std::string& name);

struct UserConfig;  // user_config.h

// The configuration of a repository, in layers: the defaults, the user's own
// config (user_config.h), then `<root>/.revline.json` if it exists. The
// repository's file is read through the confined read (a regular file inside
// the repository, at most 1 MiB). Unless the user trusts the repository, the
// keys that decide where code and credentials go (base_url, api_key_env, a
// remote provider, a cassette outside the repository) are ignored, and
// `notices` gets a message naming them, the file and how to trust it.
// Invalid JSON is a ConfigError naming the file, line and column.
Config loadForRepository(const std::filesystem::path& root, std::vector<std::string>* notices = nullptr);
// Outside any repository (`revline review --stdin`): the defaults and the user's own config.
Config loadWithoutRepository();
// The same with a given user config; `trusted` overrides its trust list
// (revline pr reads the default branch, which the pull request cannot change).
Config loadForRepository(const std::filesystem::path& root, const UserConfig& user,
                         std::vector<std::string>* notices, std::optional<bool> trusted = std::nullopt);

// The same with `.revline.json` as another revision has it (a pull request's
// base: a change in a repository that is not trusted is not judged by rules it
// sets itself): `text` its content, nullopt when that revision has none;
// `label` names it in messages ("origin/main:.revline.json").
Config loadForRepositoryFrom(const std::filesystem::path& root, const UserConfig& user,
                             const std::optional<std::string>& text, const std::string& label,
                             std::vector<std::string>* notices = nullptr);

// A provider that calls a model (openai, anthropic, ollama): not builtin or replay.
bool isModelProvider(const std::string& provider);

// The JSON Schema of `.revline.json` (shipped as docs/revline.schema.json).
json configSchema();

// True when a path (repository-relative) passes the include/exclude globs
// (see glob.h for the syntax): included by some include glob, or there are none,
// and excluded by no exclude glob.
bool pathSelected(const Config& config, const std::string& path);

}  // namespace revline::config
