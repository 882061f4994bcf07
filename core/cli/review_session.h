// The review flags that `revline review`, `revline pr`, `revline eval` and
// `revline diff --prompt` share, and turning them into a Config. The review
// itself is session::ReviewService's.
#pragma once
#include <vector>

#include "core/cli/args.h"
#include "core/config/config.h"

namespace revline::cli {

// --provider --model --base-url --api-key-env --cassette --max-attempts --max-tool-calls --description
const std::vector<OptionSpec>& reviewOptionSpecs();
extern const char* const kReviewOptionsHelp;

// Flags override the configuration file.
config::Config applyReviewFlags(config::Config config, const ParsedArgs& args);

}  // namespace revline::cli
