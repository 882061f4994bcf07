// Exit codes for CI gates: the verdict decides, and `--fail-on SEVERITY` lets a
// team gate on findings instead (cli.md: 0 approve/comment, 1 request changes).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/contract/contract.h"
#include "core/review/pipeline.h"

namespace revline::reports {

// 1 when the verdict is REQUEST_CHANGES, or when `failOn` is set and a published
// finding is at least that severe (BLOCKER > MAJOR > MINOR > NIT); else 0.
// Rejected (ungrounded) findings never count.
int exitCodeFor(const review::ReviewOutcome& outcome, std::optional<contract::Severity> failOn);

// Why the exit code is 1 when the verdict alone would give 0 ("2 findings at
// MINOR or above (--fail-on MINOR): exit 1, although the verdict is COMMENT"),
// for stderr: the report says COMMENT and a CI log would show only a failed
// job. Empty when the verdict decides.
std::string failOnNotice(const review::ReviewOutcome& outcome, std::optional<contract::Severity> failOn);

// What keeps the verdict from APPROVE without a finding to show for it: each
// blocking finding that could not be placed on the diff (a problem in a deleted
// file), one line each ("BLOCKER src/old.js:12: Title: why it was not placed").
// A JSON or SARIF report keeps them in properties no viewer shows (code scanning
// shows results only): the CLI says them on stderr, SARIF as notifications.
std::vector<std::string> unplacedBlockingLines(const review::ReviewOutcome& outcome);

// Parses the value of `--fail-on` (blocker|major|minor|nit, any case); nullopt
// for anything else, so the caller can name the flag in its usage error.
std::optional<contract::Severity> parseFailOn(std::string_view value);

}  // namespace revline::reports
