#include "core/config/keys.h"

#include <climits>

#include "core/config/glob.h"
#include "core/contract/enums.h"

namespace revline::config::detail {
namespace {

const std::string& str(const Value& v) { return std::get<std::string>(v); }
std::int64_t integer(const Value& v) { return std::get<std::int64_t>(v); }
const std::vector<std::string>& list(const Value& v) { return std::get<std::vector<std::string>>(v); }

template <contract::ContractEnum E>
std::vector<std::string> enumNames() {
  std::vector<std::string> out;
  for (const auto& [value, name] : contract::EnumTable<E>::names) out.emplace_back(name);
  return out;
}

template <contract::ContractEnum E>
E enumValue(const std::string& name) {
  return *contract::parseEnum<E>(name);  // the reader checked `name` against enumNames<E>()
}

std::optional<std::string> environmentVariableName(const std::string& s) {
  bool ok = !s.empty() && !(s[0] >= '0' && s[0] <= '9');
  for (char c : s) {
    ok = ok && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  }
  if (ok) return std::nullopt;
  // "$OPENAI_API_KEY", "${OPENAI_API_KEY}": a shell's way to read it; revline reads it itself.
  std::string bare = s.starts_with("${") && s.ends_with("}") ? s.substr(2, s.size() - 3) : s.starts_with("$") ? s.substr(1) : "";
  if (!bare.empty() && bare != s && !environmentVariableName(bare))
    return "the variable's name without the '$' (\"" + bare + "\"): revline reads the variable itself";
  return "the name of an environment variable (letters, digits and '_', like OPENAI_API_KEY) that holds "
         "the API key, not the key itself";
}

std::optional<std::string> glob(const std::string& s) {
  if (auto problem = globProblem(s)) return "a path glob (" + *problem + ")";
  return std::nullopt;
}

KeySpec stringKey(std::string name, std::string description, std::string Config::*field) {
  KeySpec k{.name = std::move(name), .type = KeyType::String, .description = std::move(description)};
  k.set = [field](Config& c, const Value& v) { c.*field = str(v); };
  k.get = [field](const Config& c) { return json(c.*field); };
  return k;
}

KeySpec integerKey(std::string name, std::string description, double minimum, double maximum,
                   std::function<void(Config&, std::int64_t)> set, std::function<json(const Config&)> get) {
  KeySpec k{.name = std::move(name), .type = KeyType::Integer, .description = std::move(description),
            .minimum = minimum, .maximum = maximum};
  k.set = [set = std::move(set)](Config& c, const Value& v) { set(c, integer(v)); };
  k.get = std::move(get);
  return k;
}

KeySpec globsKey(std::string name, std::string description, std::vector<std::string> Config::*field) {
  KeySpec k{.name = std::move(name), .type = KeyType::StringList, .description = std::move(description)};
  k.check = glob;
  k.set = [field](Config& c, const Value& v) { c.*field = list(v); };
  k.get = [field](const Config& c) { return json(c.*field); };
  return k;
}

std::vector<KeySpec> policyKeys() {
  std::vector<KeySpec> keys;

  KeySpec categories{.name = "blocking_categories", .type = KeyType::EnumList,
                     .description = "Categories whose findings can block the change (REQUEST_CHANGES) when they "
                                    "also reach blocking_severity and confidence_threshold. An empty list never "
                                    "blocks.",
                     .values = enumNames<contract::Category>()};
  categories.set = [](Config& c, const Value& v) {
    c.review.policy.blockingCategories.clear();
    for (const auto& name : list(v)) c.review.policy.blockingCategories.insert(enumValue<contract::Category>(name));
  };
  categories.get = [](const Config& c) {
    json out = json::array();
    for (auto cat : c.review.policy.blockingCategories) out.push_back(std::string(contract::enumName(cat)));
    return out;
  };
  keys.push_back(std::move(categories));

  KeySpec severity{.name = "blocking_severity", .type = KeyType::Enum,
                   .description = "The least severe severity that blocks: findings of this severity or worse "
                                  "(BLOCKER is the worst) in a blocking category block the change.",
                   .values = enumNames<contract::Severity>()};
  severity.set = [](Config& c, const Value& v) {
    c.review.policy.blockingSeverity = enumValue<contract::Severity>(str(v));
  };
  severity.get = [](const Config& c) { return json(std::string(contract::enumName(c.review.policy.blockingSeverity))); };
  keys.push_back(std::move(severity));

  KeySpec confidence{.name = "confidence_threshold", .type = KeyType::Number,
                     .description = "Findings below this confidence (0 to 1) never block; they are still reported.",
                     .minimum = 0, .maximum = 1};
  confidence.set = [](Config& c, const Value& v) { c.review.policy.confidenceThreshold = std::get<double>(v); };
  confidence.get = [](const Config& c) { return json(c.review.policy.confidenceThreshold); };
  keys.push_back(std::move(confidence));

  keys.push_back(integerKey(
      "max_findings",
      "At most this many findings are published, most severe and most confident first; the summary says how many "
      "more there were.",
      1,
      INT_MAX, [](Config& c, std::int64_t n) { c.review.policy.maxFindings = static_cast<std::size_t>(n); },
      [](const Config& c) { return json(c.review.policy.maxFindings); }));
  keys.push_back(integerKey(
      "max_explanation_chars", "Longer explanations are cut to this many characters and end with \"…\".", 1,
      INT_MAX, [](Config& c, std::int64_t n) { c.review.policy.maxExplanationChars = static_cast<std::size_t>(n); },
      [](const Config& c) { return json(c.review.policy.maxExplanationChars); }));
  return keys;
}

std::vector<KeySpec> buildKeys() {
  std::vector<KeySpec> keys;

  KeySpec schema{.name = "$schema", .type = KeyType::String,
                 .description = "The schema of this file, for editors (ignored by revline)."};
  keys.push_back(std::move(schema));

  KeySpec provider{.name = "provider", .type = KeyType::Enum,
                   .description = "Who reviews: builtin (offline rules), replay (a recorded cassette), openai "
                                  "(any OpenAI-compatible /chat/completions endpoint), anthropic, or ollama.",
                   .values = {"builtin", "replay", "openai", "anthropic", "ollama"}};
  provider.set = [](Config& c, const Value& v) { c.provider = str(v); };
  provider.get = [](const Config& c) { return json(c.provider); };
  keys.push_back(std::move(provider));

  keys.push_back(stringKey("model", "The model name sent to the provider; empty: the provider's default.",
                           &Config::model));
  keys.push_back(stringKey("base_url",
                           "The provider's endpoint, e.g. http://127.0.0.1:8080/v1; empty: the provider's default.",
                           &Config::baseUrl));

  KeySpec keyEnv = stringKey("api_key_env",
                             "The NAME of the environment variable that holds the API key (API keys are never "
                             "stored in this file); empty: the provider's default (OPENAI_API_KEY, "
                             "ANTHROPIC_API_KEY).",
                             &Config::apiKeyEnv);
  keyEnv.check = [](const std::string& s) { return s.empty() ? std::nullopt : environmentVariableName(s); };
  keyEnv.pattern = "^([A-Za-z_][A-Za-z0-9_]*)?$";
  keyEnv.echo = false;
  keys.push_back(std::move(keyEnv));

  keys.push_back(stringKey("cassette",
                           "The replay provider's cassette file (relative paths are taken from the repository root).",
                           &Config::cassette));

  KeySpec structured{.name = "structured_output", .type = KeyType::Enum,
                     .description = "native: ask the provider for JSON matching the review schema; prompt: describe "
                                    "the schema in the prompt (for servers without structured output).",
                     .values = {"native", "prompt"}};
  structured.set = [](Config& c, const Value& v) {
    c.structuredOutput = str(v) == "prompt" ? StructuredOutput::Prompt : StructuredOutput::Native;
  };
  structured.get = [](const Config& c) {
    return json(c.structuredOutput == StructuredOutput::Prompt ? "prompt" : "native");
  };
  keys.push_back(std::move(structured));

  keys.push_back(integerKey(
      "connect_timeout_ms", "Milliseconds to wait for a connection to the provider.", 1, INT_MAX,
      [](Config& c, std::int64_t n) { c.connectTimeout = std::chrono::milliseconds(n); },
      [](const Config& c) { return json(c.connectTimeout.count()); }));
  keys.push_back(integerKey(
      "read_timeout_ms", "Milliseconds to wait for the provider's answer.", 1, INT_MAX,
      [](Config& c, std::int64_t n) { c.readTimeout = std::chrono::milliseconds(n); },
      [](const Config& c) { return json(c.readTimeout.count()); }));
  keys.push_back(integerKey(
      "max_attempts",
      "Model answers tried per review: an answer that breaks the contract is retried with the problems listed.", 1,
      10, [](Config& c, std::int64_t n) { c.review.maxAttempts = static_cast<int>(n); },
      [](const Config& c) { return json(c.review.maxAttempts); }));
  keys.push_back(integerKey(
      "max_tool_calls",
      "Repository tool calls (reading files) the model may make per request: a review that fits one request has "
      "this many, and each request of a split review has its own. An untrusted repository may lower it, not raise it.",
      0, 100,
      [](Config& c, std::int64_t n) { c.review.maxToolCalls = static_cast<int>(n); },
      [](const Config& c) { return json(c.review.maxToolCalls); }));
  // Requests per review: budget, parallelism, cap (session/chunk_plan.h).
  keys.push_back(integerKey(
      "max_input_tokens",
      "Estimated input tokens per model request (3 bytes a token): a change that does not fit is reviewed in "
      "several requests, each within this budget (system prompt, schema, intent and room for tool results "
      "included). 0: the default for the provider and model (builtin and replay: no limit; Claude 150000; "
      "GPT-4o, GPT-4.1, GPT-5 and o-series 100000; Ollama 8000; other models 24000).",
      0, 100000000,
      [](Config& c, std::int64_t n) {
        c.maxInputTokens = n;
        c.maxInputTokensCeiling.reset();  // a later layer's own choice
      },
      [](const Config& c) { return json(c.maxInputTokens); }));
  keys.push_back(integerKey(
      "max_parallel_requests", "Requests of one review sent at the same time when it is split.", 1, 64,
      [](Config& c, std::int64_t n) { c.maxParallelRequests = static_cast<int>(n); },
      [](const Config& c) { return json(c.maxParallelRequests); }));
  keys.push_back(integerKey(
      "max_requests",
      "At most this many requests per review (each may take more model calls: tool rounds, a contract retry); the "
      "parts of a larger change that do not fit are not reviewed, listed in coverage.filesSkipped, and the verdict is "
      "not APPROVE. An untrusted repository may lower it, not raise it.",
      1, 10000, [](Config& c, std::int64_t n) { c.maxRequests = static_cast<int>(n); },
      [](const Config& c) { return json(c.maxRequests); }));

  // The model's prices, for the cost every report states (review/cost.h); unset: no cost is stated.
  auto price = [](std::string name, std::string description, std::optional<double> review::Prices::*field) {
    KeySpec k{.name = std::move(name), .type = KeyType::Number, .description = std::move(description),
              .minimum = 0, .maximum = 1e6};
    k.set = [field](Config& c, const Value& v) { c.review.prices.*field = std::get<double>(v); };
    return k;  // no default: an unset price is absent, not 0
  };
  keys.push_back(price("price_per_million_input",
                       "The model's price per million input tokens (any currency; reports state the cost in it). "
                       "Unset: reports state tokens but no cost.",
                       &review::Prices::input));
  keys.push_back(price("price_per_million_output", "The model's price per million output tokens.",
                       &review::Prices::output));
  keys.push_back(price("price_per_million_cached_input",
                       "The price per million input tokens read from the provider's prompt cache (e.g. 0.1x the "
                       "input price for Anthropic, 0.1x to 0.5x for OpenAI models). Unset: the input price.",
                       &review::Prices::cachedInput));
  keys.push_back(price("price_per_million_cache_write",
                       "The price per million input tokens written to the prompt cache (Anthropic: 1.25x the input "
                       "price). Unset: the input price.",
                       &review::Prices::cacheWrite));

  KeySpec instructions{.name = "instructions", .type = KeyType::String,
                       .description = "Project-specific review instructions appended to the system prompt."};
  instructions.set = [](Config& c, const Value& v) { c.review.extraInstructions = str(v); };
  instructions.get = [](const Config& c) { return json(c.review.extraInstructions); };
  keys.push_back(std::move(instructions));

  KeySpec description{.name = "description", .type = KeyType::String,
                      .description = "What the change under review is for (e.g. the branch's last commit message); "
                                     "shown to the model as the author's intent, as untrusted data."};
  description.set = [](Config& c, const Value& v) { c.review.description = str(v); };
  description.get = [](const Config& c) { return json(c.review.description); };
  keys.push_back(std::move(description));

  KeySpec context{.name = "context", .type = KeyType::Enum,
                  .description = "What the model sees around each hunk: hunk (git's three lines) or function (also "
                                 "the rest of the enclosing function or class member, marked ':', up to "
                                 "function_context_max_lines).",
                  .values = {"function", "hunk"}};
  context.set = [](Config& c, const Value& v) {
    c.review.context = str(v) == "hunk" ? review::ContextMode::Hunk : review::ContextMode::Function;
  };
  context.get = [](const Config& c) { return json(c.review.context == review::ContextMode::Hunk ? "hunk" : "function"); };
  keys.push_back(std::move(context));
  keys.push_back(integerKey(
      "function_context_max_lines",
      "The longest enclosing definition shown whole with context: function; a longer one shows only its first line.",
      1, 100000, [](Config& c, std::int64_t n) { c.review.functionContextMaxLines = static_cast<int>(n); },
      [](const Config& c) { return json(c.review.functionContextMaxLines); }));

  keys.push_back(globsKey("include",
                          "Only files matching one of these globs are reviewed (empty: all). '*' and '?' match "
                          "within a name, '[a-z]' one of a set, '{a,b}' either, '**' any number of directories "
                          "(the syntax of the model's glob tool); a glob without '/' matches a name at any "
                          "depth; a leading '/' anchors to the repository root; a directory matches its contents. A glob "
                          "that names something (not wildcards alone, as \"**\" or \"**/*.*\") also brings back what "
                          "is left out by default (lock files, vendor/, minified and generated files); no '!' negation.",
                          &Config::include));
  keys.push_back(globsKey("exclude", "Files matching one of these globs are not reviewed (same syntax as include).",
                          &Config::exclude));

  KeySpec policy{.name = "policy", .type = KeyType::Object,
                 .description = "How findings decide the verdict and what is published.",
                 .children = policyKeys()};
  policy.get = [](const Config& c) {
    json out = json::object();
    for (const auto& child : policyKeys()) out[child.name] = child.get(c);
    return out;
  };
  keys.push_back(std::move(policy));

  KeySpec scope{.name = "review_scope", .type = KeyType::Enum,
                .description = "Language server: review the saved file's changes only (file) or every change in "
                               "the work tree (workspace).",
                .values = {"file", "workspace"}};
  scope.set = [](Config& c, const Value& v) { c.reviewScope = str(v); };
  scope.get = [](const Config& c) { return json(c.reviewScope); };
  keys.push_back(std::move(scope));

  keys.push_back(integerKey(
      "debounce_ms",
      "Language server: milliseconds without edits before a review starts. Default: 300 for remote models; none "
      "for the builtin and replay providers (5 with review_scope \"workspace\", to coalesce a \"save all\").",
      0, 600000,
      [](Config& c, std::int64_t n) {
        c.debounceMs = static_cast<int>(n);
        c.debounceSet = true;
      },
      nullptr));  // no one default to state: it depends on the provider
  return keys;
}

}  // namespace

const std::vector<KeySpec>& configKeys() {
  static const std::vector<KeySpec> keys = buildKeys();
  return keys;
}

}  // namespace revline::config::detail
