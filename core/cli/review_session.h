// The review flags that `revline review`, `revline pr`, `revline eval` and
// `revline diff --prompt` share, and turning them into a Config. The review
// itself is session::ReviewService's.
#pragma once
#include <vector>

#include "core/cli/args.h"
#include "core/cli/diff_source.h"
#include "core/config/config.h"
#include "core/session/review_service.h"

namespace revline::cli {

// --provider --model --base-url --api-key-env --cassette --max-attempts --max-tool-calls --description
// --max-input-tokens --max-parallel-requests --max-requests
const std::vector<OptionSpec>& reviewOptionSpecs();
extern const char* const kReviewOptionsHelp;

// Flags override the configuration file.
config::Config applyReviewFlags(config::Config config, const ParsedArgs& args);

// The user's config, with the routing keys the flags set marked as set above it:
// an untrusted repository's file is not said to be ignored for what flags decide.
config::UserConfig userConfigUnderFlags(const ParsedArgs& args);

// Progress of a review split into several requests, as one line rewritten in
// place on `err` ("command: 3 of 12 requests done, 45200 tokens so far"), when
// `err` is the process's stderr and a terminal; empty (nothing shown) otherwise.
session::ProgressSink terminalProgress(std::ostream& err, const std::string& command);

// The review a command's flags ask for, on `source`: the layered config (user,
// repository, flags), the intent's commit messages with --base, and no
// repository root (no tools, no file reads) without a repository. Its notices
// (an untrusted repository's settings ignored, its git programs not run) go to
// `notices` when given, for the report's warnings; else they are warned about on
// `err` as `command`.
session::ReviewRequest reviewRequestFor(DiffSource source, const ParsedArgs& args, const std::string& command,
                                        std::ostream& err, std::vector<std::string>* notices = nullptr);

// `service.review(request)` with its model calls metered: when the review then
// fails, `err` says what the answered calls spent ("command: spent before the
// failure: 2 model requests, ...") before the error goes on to the caller.
session::ReviewResult reviewReportingSpend(const session::ReviewService& service, session::ReviewRequest request,
                                           std::ostream& err, const std::string& command);

}  // namespace revline::cli
