// The revline binary: subcommand dispatch only. Everything else lives in the
// libraries so the tests link exactly what runs here.
#include <iostream>
#include <string>
#include <vector>

#include "core/cli/commands.h"
#include "core/cli/interrupt.h"
#include "lsp/lsp_command.h"

int main(int argc, char** argv) {
  revline::lsp::registerLspCommand();
  revline::cli::allowInterruptHandlers();
  std::vector<std::string> args(argv + 1, argv + argc);
  return revline::cli::runMain(args, std::cin, std::cout, std::cerr);
}
