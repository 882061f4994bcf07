// Ctrl-C and SIGTERM in the CLI. The first one cancels the running review
// (from its git diff on: git's processes, in a group of their own, are killed), so
// the requests already answered (and paid for) are kept in the per-hunk cache
// and what they spent is said, as for any failure; a second one ends the
// process at once. Without the handlers (the unit tests' runMain) the token is
// never cancelled.
#pragma once
#include "core/support/cancel.h"

namespace revline::cli {

// Lets installInterruptHandlers() install them: the revline binary's main()
// calls it; a test running runMain in its own process does not.
void allowInterruptHandlers();

// Installs the handlers once, when allowed: the commands that run a review call
// it (the language server and the other commands keep the default actions).
// SIGINT ignored when revline starts (a background job of a non-interactive
// shell, nohup) stays ignored.
void installInterruptHandlers();

// The token the handlers cancel.
const CancelToken& interruptToken();

// 128 + the number of the signal that cancelled the review (130 for Ctrl-C,
// 143 for SIGTERM), as a shell reports a process ended by it.
int interruptExitCode();

}  // namespace revline::cli
