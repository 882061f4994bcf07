#include "core/cli/review_session.h"

#include "core/git/git.h"


namespace revline::cli {

const std::vector<OptionSpec>& reviewOptionSpecs() {
  static const std::vector<OptionSpec> specs = {
      {"provider", true},     {"model", true},        {"base-url", true},       {"api-key-env", true},
      {"cassette", true},     {"max-attempts", true}, {"max-tool-calls", true}, {"description", true},
  };
  return specs;
}

const char* const kReviewOptionsHelp =
    "  --provider P         builtin (default: offline rules), replay, openai, anthropic, ollama\n"
    "  --model M            model id for the provider\n"
    "  --base-url URL       provider endpoint (OpenAI-compatible servers: .../v1)\n"
    "  --api-key-env NAME   environment variable that holds the API key\n"
    "  --cassette FILE      recorded model replies for --provider replay\n"
    "  --max-attempts N     answers the model may give, retries included (default 2)\n"
    "  --max-tool-calls N   repository tool calls per review (default 5)\n"
    "  --description TEXT   what the change is for, shown to the model as the author's intent\n";

config::Config applyReviewFlags(config::Config config, const ParsedArgs& args) {
  if (auto v = args.value("provider")) config.provider = *v;
  if (auto v = args.value("model")) config.model = *v;
  if (auto v = args.value("base-url")) config.baseUrl = *v;
  if (auto v = args.value("api-key-env")) config.apiKeyEnv = *v;
  if (auto v = args.value("cassette")) {
    config.cassette = *v;
    if (!args.value("provider")) config.provider = "replay";  // a cassette only makes sense replayed
  }
  if (auto v = args.intValue("max-attempts", 1, 10)) config.review.maxAttempts = *v;
  if (auto v = args.intValue("max-tool-calls", 0, 100)) config.review.maxToolCalls = *v;
  if (auto v = args.value("description")) config.review.description = *v;
  return config;
}

session::ReviewRequest reviewRequestFor(DiffSource source, const ParsedArgs& args, const std::string& command,
                                        std::ostream& err) {
  std::vector<std::string> notices;
  const config::Config config = applyReviewFlags(
      source.root ? config::loadForRepository(*source.root, &notices) : config::loadWithoutRepository(), args);
  for (const auto& n : notices) err << command << ": warning: " << n << "\n";
  for (const auto& s : source.skipped) err << command << ": warning: " << s << "\n";
  // No repository (--stdin elsewhere): no root, so no tools and no file reads,
  // never the current directory (it may be $HOME).
  session::ReviewRequest request{std::move(source.diff), source.root.value_or(std::filesystem::path()), config, {}};
  // With --base, the branch's commits say what the change is for.
  if (auto base = args.value("base"); base && source.root) request.commitMessages = git::commitMessages(*source.root, *base);
  return request;
}

}  // namespace revline::cli
