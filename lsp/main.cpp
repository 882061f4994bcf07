// The revline binary: subcommand dispatch only. Everything else lives in the
// libraries so the tests link exactly what runs here.
#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include "core/cli/commands.h"
#include "core/cli/interrupt.h"
#include "lsp/lsp_command.h"

int main(int argc, char** argv) {
  // A peer that goes away is an error where it happens, never the end of the
  // process: a TLS library writing its alert to a server that closed the
  // connection, a report written to a reader that left (exit 2, said).
  std::signal(SIGPIPE, SIG_IGN);
  revline::lsp::registerLspCommand();
  revline::cli::allowInterruptHandlers();
  std::vector<std::string> args(argv + 1, argv + argc);
  return revline::cli::runMain(args, std::cin, std::cout, std::cerr);
}
