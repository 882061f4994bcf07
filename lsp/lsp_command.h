// `revline lsp`: the language server over stdio.
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace revline::lsp {

inline constexpr const char* kLspSummary = "run the language server over stdio (review on save)";

// Parses the flags, runs the server on stdin/stdout until exit; returns the
// exit code (0 after shutdown + exit, 1 otherwise, 2 for bad flags).
// The transport is the process's own stdin/stdout file descriptors, not the streams.
int runLspCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);

// Registers "lsp" with the command line (core/cli/commands.h).
void registerLspCommand();

}  // namespace revline::lsp
