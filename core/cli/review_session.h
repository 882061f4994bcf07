// What `revline review` and `revline pr` share: the review flags, turning them
// into a Config, and running one review of a diff with the configured provider.
#pragma once
#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include "core/cli/args.h"
#include "core/config/config.h"
#include "core/config/selection.h"
#include "core/diff/diff.h"
#include "core/review/pipeline.h"

namespace revline::cli {

// --provider --model --base-url --api-key-env --cassette --max-attempts --max-tool-calls --description
const std::vector<OptionSpec>& reviewOptionSpecs();
extern const char* const kReviewOptionsHelp;

// Flags override the configuration file.
config::Config applyReviewFlags(config::Config config, const ParsedArgs& args);

// Wraps the configured provider for one review (`revline eval` meters and
// records it); an empty wrapper leaves it as it is.
using ProviderWrapper = std::function<std::unique_ptr<review::Provider>(std::unique_ptr<review::Provider>)>;

// One review of `diff` with the configured provider, repository tools confined
// to `root` (none when `root` is empty: no repository), and the configured
// policy; `inputs` carries the commit messages and the files the selection
// (config/selection.h) left out.
review::ReviewOutcome reviewDiff(const diff::Diff& diff, const config::Config& config,
                                 const std::filesystem::path& root, const review::ReviewInputs& inputs = {},
                                 const ProviderWrapper& wrap = {});

}  // namespace revline::cli
