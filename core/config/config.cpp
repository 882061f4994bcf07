#include "core/config/config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/config/input_budget.h"
#include "core/config/keys.h"
#include "core/config/user_config.h"
#include "core/support/repo_file.h"

namespace revline::config {
namespace {

using detail::KeySpec;
using detail::KeyType;
using detail::Value;

// Written where a value is shown in a message: long values are cut.
std::string shown(const json& v) {
  std::string s = v.dump();
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

class Reader {
 public:
  explicit Reader(const std::string& origin) : origin_(origin) {}

  void object(Config& config, const json& object, const std::vector<KeySpec>& keys, const std::string& prefix) const {
    for (const auto& [name, value] : object.items()) {
      const std::string dotted = prefix.empty() ? name : prefix + "." + name;
      if (name == "api_key" || name == "apiKey") {
        throw ConfigError(origin_ + ": key \"" + dotted +
                          "\": API keys are never stored in configuration; put the key in an environment variable "
                          "and set \"api_key_env\" to that variable's name (e.g. \"OPENAI_API_KEY\")");
      }
      const auto spec = std::find_if(keys.begin(), keys.end(), [&key = name](const KeySpec& k) { return k.name == key; });
      if (spec == keys.end()) throw ConfigError(unknownKey(dotted, name, keys));
      apply(config, *spec, value, dotted);
    }
  }

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& expected, const json& got,
                         bool echo = true) const {
    throw ConfigError(origin_ + ": key \"" + key + "\": expected " + expected +
                      (echo ? ", got " + shown(got) : std::string()));
  }

  std::string unknownKey(const std::string& dotted, const std::string& name, const std::vector<KeySpec>& keys) const {
    std::vector<std::string> known;
    const KeySpec* closest = nullptr;
    std::size_t best = 3;  // suggest only near misses (typos), not unrelated names
    // As spelled, and with case, '_' and '-' set aside: the editor settings'
    // camelCase (apiKeyEnv, maxToolCalls, baseURL) copied into a file is a near miss too.
    const auto squashed = [](const std::string& key) {
      std::string out;
      for (const char c : key)
        if (c != '_' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return out;
    };
    for (const auto& k : keys) {
      known.push_back(k.name);
      const std::size_t d = std::min(editDistance(name, k.name), editDistance(squashed(name), squashed(k.name)));
      if (d < best) best = d, closest = &k;
    }
    const std::string parent = dotted.substr(0, dotted.size() - name.size());
    return origin_ + ": unknown key \"" + dotted + "\"" +
           (closest ? " (did you mean \"" + parent + closest->name + "\"?)" : std::string()) +
           " (known keys: " + joined(known) + ")";
  }

  std::string checkedString(const KeySpec& spec, const json& v, const std::string& key) const {
    const std::string s = v.get<std::string>();
    if (spec.check) {
      if (auto problem = spec.check(s)) fail(key, *problem, v, spec.echo);
    }
    return s;
  }

  static std::string range(const KeySpec& spec) {
    if (spec.type == KeyType::Integer) {
      return "an integer from " + std::to_string(static_cast<std::int64_t>(spec.minimum)) + " to " +
             std::to_string(static_cast<std::int64_t>(spec.maximum));
    }
    std::ostringstream out;
    out << "a number from " << spec.minimum << " to " << spec.maximum;
    return out.str();
  }

  void apply(Config& config, const KeySpec& spec, const json& v, const std::string& key) const {
    Value value;
    switch (spec.type) {
      case KeyType::Object:
        if (!v.is_object()) fail(key, "an object", v);
        object(config, v, spec.children, key);
        return;
      case KeyType::String:
        if (!v.is_string()) fail(key, "a string", v, spec.echo);
        value = checkedString(spec, v, key);
        break;
      case KeyType::Enum:
        if (!v.is_string() || std::find(spec.values.begin(), spec.values.end(), v.get<std::string>()) ==
                                  spec.values.end()) {
          fail(key, "one of " + joined(spec.values), v);
        }
        value = v.get<std::string>();
        break;
      case KeyType::Integer: {
        // 10.0 and 1e1 are integers to JSON Schema (a number without a fraction),
        // as an editor checking the file against the schema says; 3.5 is not:
        // its fraction would be silently cut.
        bool inRange = false;
        std::int64_t n = 0;
        if (v.is_number_unsigned()) {
          inRange = static_cast<double>(v.get<std::uint64_t>()) <= spec.maximum &&
                    static_cast<double>(v.get<std::uint64_t>()) >= spec.minimum;
          if (inRange) n = static_cast<std::int64_t>(v.get<std::uint64_t>());
        } else if (v.is_number_integer()) {
          n = v.get<std::int64_t>();
          inRange = static_cast<double>(n) <= spec.maximum && static_cast<double>(n) >= spec.minimum;
        } else if (v.is_number_float()) {
          const double d = v.get<double>();
          inRange = std::isfinite(d) && std::floor(d) == d && d <= spec.maximum && d >= spec.minimum;
          if (inRange) n = static_cast<std::int64_t>(d);
        }
        if (!inRange) fail(key, range(spec), v);
        value = n;
        break;
      }
      case KeyType::Number:
        if (!v.is_number() || v.get<double>() < spec.minimum || v.get<double>() > spec.maximum) {
          fail(key, range(spec), v);
        }
        value = v.get<double>();
        break;
      case KeyType::StringList:
      case KeyType::EnumList: {
        const bool enums = spec.type == KeyType::EnumList;
        if (!v.is_array()) fail(key, enums ? "an array of names from " + joined(spec.values) : "an array of strings", v);
        std::vector<std::string> items;
        for (std::size_t i = 0; i < v.size(); ++i) {
          const std::string itemKey = key + "[" + std::to_string(i) + "]";
          const json& item = v[i];
          if (enums) {
            if (!item.is_string() || std::find(spec.values.begin(), spec.values.end(), item.get<std::string>()) ==
                                         spec.values.end()) {
              fail(itemKey, "one of " + joined(spec.values), item);
            }
            items.push_back(item.get<std::string>());
          } else {
            if (!item.is_string()) fail(itemKey, "a string", item);
            items.push_back(checkedString(spec, item, itemKey));
          }
        }
        value = std::move(items);
        break;
      }
    }
    if (spec.set) spec.set(config, value);
  }

  const std::string& origin_;
};

}  // namespace

bool isModelProvider(const std::string& provider) {
  return provider == "openai" || provider == "anthropic" || provider == "ollama";
}

namespace {

// model, base_url and api_key_env go with the model provider they were set for:
// a user config for Ollama on a LAN box, then `--provider openai`, sent
// OPENAI_API_KEY over plain HTTP to that box (and asked it for the Ollama model).
void bindRoutingToProvider(const Config& base, Config& out, const json& object) {
  const bool namesAnother = object.contains("provider") && isModelProvider(out.provider) &&
                            !base.routingProvider.empty() && base.routingProvider != out.provider;
  if (namesAnother) {
    if (!object.contains("model")) out.model.clear();
    if (!object.contains("base_url")) out.baseUrl.clear();
    if (!object.contains("api_key_env")) out.apiKeyEnv.clear();
    out.routingProvider.clear();
  }
  if (object.contains("model") || object.contains("base_url") || object.contains("api_key_env")) {
    if (isModelProvider(out.provider)) out.routingProvider = out.provider;
  }
}

// Prices are a model's: set in a layer, they hold for the provider and model
// chosen with them, not for another one a later layer or flag chooses (a layer
// that picks the offline reviewer costs nothing, and leaves them for a later
// one; set with no model provider chosen, they go with whichever is).
void bindPricesToModel(const Config& base, Config& out, const json& object) {
  const std::string chosen = out.provider + "/" + out.model;
  review::Prices& p = out.review.prices;
  const std::pair<const char*, std::optional<double>*> fields[] = {{"price_per_million_input", &p.input},
                                                                   {"price_per_million_output", &p.output},
                                                                   {"price_per_million_cached_input", &p.cachedInput},
                                                                   {"price_per_million_cache_write", &p.cacheWrite}};
  bool setsPrices = false;
  for (const auto& [key, field] : fields) setsPrices = setsPrices || object.contains(key);
  if (setsPrices) {
    // Some prices of another model: the others are not that model's either.
    if (!base.pricedModel.empty() && base.pricedModel != chosen)
      for (const auto& [key, field] : fields)
        if (!object.contains(key)) field->reset();
    // Set with no model provider chosen (a team's file that names none), they go with whichever is.
    out.pricedModel = isModelProvider(out.provider) ? chosen : "";
  } else if (!out.pricedModel.empty() && isModelProvider(out.provider) && out.pricedModel != chosen) {
    out.review.prices = {};
    out.pricedModel.clear();
  }
}

}  // namespace

bool isConfigKey(const std::string& name) {
  for (const detail::KeySpec& key : detail::configKeys())
    if (key.name == name) return true;
  return false;
}

Config applyJson(const Config& base, const json& object, const std::string& origin) {
  if (!object.is_object()) {
    throw ConfigError(origin + ": expected a JSON object ({\"key\": value, ...}) at the top level, got " +
                      std::string(object.type_name()));
  }
  // A copy returned by name (not the by-value parameter moved out): GCC 12
  // warns of the moved-from parameter's std::set at every call otherwise.
  Config out = base;
  Reader(origin).object(out, object, detail::configKeys(), "");
  bindRoutingToProvider(base, out, object);
  bindPricesToModel(base, out, object);
  return out;
}

namespace {

// Keys of an untrusted repository's file that would decide where code and
// credentials are sent: removed from `object`, and named in the returned list.
std::vector<std::string> withoutRoutingKeys(json& object, const Config& below) {
  std::vector<std::string> ignored;
  // The model too: on a gateway its name routes the code to a company
  // ("anthropic/...", "openai/..."), and it sets the price of every token.
  for (const char* key : {"base_url", "api_key_env", "model"}) {
    if (object.contains(key)) ignored.push_back(key), object.erase(key);
  }
  // Nor who reviews: a remote provider routes the code; `replay` with a cassette
  // the repository holds answers with its author's verdict (APPROVE on the user's
  // gate), and `builtin` puts the user's model aside. The one chosen below stays.
  if (object.contains("provider") && object["provider"].is_string()) {
    const std::string p = object["provider"].get<std::string>();
    // An unknown name stays, for the error that names the key and the choices.
    const auto& keys = detail::configKeys();
    const auto spec = std::find_if(keys.begin(), keys.end(), [](const KeySpec& k) { return k.name == "provider"; });
    const bool known = std::find(spec->values.begin(), spec->values.end(), p) != spec->values.end();
    if (known && p != below.provider) {
      ignored.push_back("provider (\"" + p + "\")");
      object.erase("provider");
    }
  }
  // Nor the recorded answers a review replays: a cassette the repository holds is
  // its author's verdict (where the user chose `replay`, it replaced theirs).
  if (object.contains("cassette")) ignored.push_back("cassette"), object.erase("cassette");
  return ignored;
}

// What an untrusted repository's file may change of what a review spends on
// the user's key: it may lower the limits, never raise them above the layer
// below (the user's own config, or the defaults), and it may not replace the
// prices the user set. `c` is that layer with the file applied; what the file
// raised is put back, and named in the returned list.
std::vector<std::string> withinTheUsersSpend(const Config& below, Config& c, const json& object) {
  std::vector<std::string> kept;
  auto keep = [&](const char* key, auto& value, auto limit) {
    if (value <= limit) return;
    kept.push_back(std::string(key) + " stays " + std::to_string(limit) + " (the file asks " + std::to_string(value) + ")");
    value = limit;
  };
  keep("max_requests", c.maxRequests, below.maxRequests);
  keep("max_tool_calls", c.review.maxToolCalls, below.review.maxToolCalls);
  keep("max_attempts", c.review.maxAttempts, below.review.maxAttempts);
  keep("max_parallel_requests", c.maxParallelRequests, below.maxParallelRequests);
  // The server reviews the whole working tree on every save under "workspace".
  if (below.reviewScope == "file" && c.reviewScope == "workspace") {
    kept.push_back("review_scope stays \"file\" (the file asks \"workspace\")");
    c.reviewScope = below.reviewScope;
  }
  // The budget of a request as the session resolves it (0 there: no limit);
  // the file's model may change the default, so both sides are resolved.
  auto budget = [](const Config& x) {
    const std::int64_t b = x.maxInputTokens > 0 ? x.maxInputTokens : defaultInputTokens(x.provider, x.model);
    return b > 0 ? b : std::numeric_limits<std::int64_t>::max();
  };
  if (budget(c) > budget(below)) {
    kept.push_back("max_input_tokens stays " + std::to_string(budget(below)) + " (the file asks " +
                   (c.maxInputTokens > 0 ? std::to_string(c.maxInputTokens) : std::string("its model's default, ") +
                                                                                   std::to_string(budget(c))) +
                   ")");
    c.maxInputTokens = budget(below);
  } else if (object.contains("max_input_tokens") && c.maxInputTokens > 0) {
    // Lower than the user's budget for the provider known now; flags may still
    // choose another provider: the session caps it again then.
    c.maxInputTokensCeiling = below.maxInputTokens;
  }
  // Prices only state the cost: a team's file may give them, but not replace the user's own.
  const review::Prices& own = below.review.prices;
  if (own.input || own.output || own.cachedInput || own.cacheWrite) {
    std::string prices;
    for (const char* key : {"price_per_million_input", "price_per_million_output", "price_per_million_cached_input",
                            "price_per_million_cache_write"}) {
      if (object.contains(key)) prices += (prices.empty() ? "" : ", ") + std::string(key);
    }
    if (!prices.empty()) {
      kept.push_back(prices + " ignored (your own prices apply)");
      c.review.prices = own;
    }
  }
  return kept;
}

// "FILE: WHAT: this repository is not trusted, so WHY. If you trust it, ..." (`what` joined by `separator`).
std::string untrustedNotice(const std::filesystem::path& file, const std::filesystem::path& root,
                            const std::string& lead, const std::vector<std::string>& what, const char* separator,
                            const std::string& why, const std::filesystem::path& userFile) {
  std::string items;
  for (const auto& w : what) items += (items.empty() ? "" : separator) + w;
  const std::string where = userFile.empty() ? std::string("the user configuration") : userFile.string();
  return file.string() + ": " + lead + items + ": this repository is not trusted, so " + why +
         ". If you trust it, run `revline trust " + root.string() + "` (adds it to " + where +
         "); or set these keys yourself with command-line flags, in the editor settings, or in " + where + ".";
}

// The user's own settings over the defaults.
Config userLayer(const UserConfig& user) {
  static const Config defaults;  // (not a temporary: GCC 12 warns of its std::set, bug 105562)
  if (user.settings.empty()) return defaults;
  return applyJson(defaults, user.settings, user.file.string());
}

}  // namespace

Config loadWithoutRepository() { return userLayer(loadUserConfig()); }

Config loadForRepository(const std::filesystem::path& root, std::vector<std::string>* notices) {
  return loadForRepository(root, loadUserConfig(), notices);
}

namespace {

// The repository's layer over the user's: `text` is `.revline.json`'s content
// (nullopt: the repository has none), `file` names it in messages.
Config repositoryLayer(const std::filesystem::path& where, const UserConfig& user, std::vector<std::string>* notices,
                       bool trust, const std::optional<std::string>& text, const std::filesystem::path& file) {
  Config below = userLayer(user);
  below.repositoryTrusted = trust;
  if (!text) return below;
  json parsed;
  try {
    parsed = json::parse(*text);
  } catch (const json::exception& e) {  // a syntax error, or a number past a double (406, `1e400`)
    // nlohmann's text is "[json.exception.parse_error.101] parse error at line L, column C: ...".
    std::string what = e.what();
    if (const auto bracket = what.find("] "); what.rfind("[json.exception.", 0) == 0 && bracket != std::string::npos) {
      what.erase(0, bracket + 2);
    }
    throw ConfigError(file.string() + ": invalid JSON: " + what);
  }
  if (!parsed.is_object() || trust) return applyJson(below, parsed, file.string());
  // The model the file's prices are for, though the file may not choose it:
  // they hold only where that model is the one chosen (flags, the user's config).
  const auto named = [&](const char* key) {
    return parsed.contains(key) && parsed[key].is_string() ? std::optional(parsed[key].get<std::string>()) : std::nullopt;
  };
  const std::optional<std::string> fileProvider = named("provider"), fileModel = named("model");
  std::vector<std::string> ignored = withoutRoutingKeys(parsed, below);
  std::erase_if(ignored, [&](const std::string& item) { return user.setAbove.count(item.substr(0, item.find(' '))) > 0; });
  if (!ignored.empty() && notices)
    notices->push_back(untrustedNotice(file, where, "ignored ", ignored, ", ",
                                       "its configuration may not choose where code and credentials are sent",
                                       user.file));
  Config c = applyJson(below, parsed, file.string());
  const std::vector<std::string> kept = withinTheUsersSpend(below, c, parsed);
  // The file's own prices (the user set none), for the model it named: not the
  // model chosen here when that is another (the user's config), nor one flags choose later.
  const std::string pricedFor = (fileProvider && isModelProvider(*fileProvider) ? *fileProvider : c.provider) + "/" +
                                fileModel.value_or("");
  if ((fileModel || (fileProvider && isModelProvider(*fileProvider))) && c.review.prices != below.review.prices &&
      isModelProvider(pricedFor.substr(0, pricedFor.find('/')))) {
    c.pricedModel = pricedFor;
    if (isModelProvider(c.provider) && c.provider + "/" + c.model != pricedFor) {
      c.review.prices = below.review.prices;
      c.pricedModel = below.pricedModel;
    }
  }
  if (!kept.empty() && notices)
    notices->push_back(untrustedNotice(file, where, "", kept, "; ",
                                       "its configuration may lower what a review spends on your key but not raise "
                                       "it, nor replace your prices",
                                       user.file));
  return c;
}

}  // namespace

Config loadForRepository(const std::filesystem::path& root, const UserConfig& user,
                         std::vector<std::string>* notices, std::optional<bool> trusted) {
  std::error_code ec;
  const std::filesystem::path canonicalRoot = std::filesystem::weakly_canonical(root, ec);
  const std::filesystem::path where = ec ? root : canonicalRoot;
  const std::filesystem::path file = where / ".revline.json";
  const bool trust = trusted.value_or(isTrusted(user, root));
  if (!std::filesystem::exists(std::filesystem::symlink_status(file, ec)))
    return repositoryLayer(where, user, notices, trust, std::nullopt, file);
  // The one confined read: a .revline.json that is a symlink out of the
  // repository, a FIFO, a device or a huge file is refused before it is read.
  support::RepoFileRead read = support::readRepositoryFile(root, ".revline.json");
  if (!read) {
    if (read.skipped->reason == support::RepoFileSkip::Reason::NotRegular &&
        std::filesystem::is_directory(file, ec)) {
      throw ConfigError(file.string() + ": is a directory; the configuration must be a JSON file");
    }
    throw ConfigError(file.string() + ": " + read.skipped->why + "; the configuration must be a regular JSON file (at most " +
                      std::to_string(support::kMaxRepositoryFileBytes / 1024) + " KB) inside the repository");
  }
  return repositoryLayer(where, user, notices, trust, read.content, file);
}

Config loadForRepositoryFrom(const std::filesystem::path& root, const UserConfig& user,
                             const std::optional<std::string>& text, const std::string& label,
                             std::vector<std::string>* notices) {
  std::error_code ec;
  const std::filesystem::path canonicalRoot = std::filesystem::weakly_canonical(root, ec);
  return repositoryLayer(ec ? root : canonicalRoot, user, notices, isTrusted(user, root), text, label);
}

}  // namespace revline::config
