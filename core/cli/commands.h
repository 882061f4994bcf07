// The command-line surface (../shared/design/cli.md): `revline SUBCOMMAND ...`.
#pragma once
#include <functional>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

namespace revline::cli {

// Runs the command line (without argv[0]); returns the process exit code.
// `in` is what the commands read as standard input (--stdin patches).
int runMain(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);
// The same, with std::cin as the input.
int runMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// Subcommands implemented outside core/ (the language server lives in lsp/)
// register themselves here before runMain is called.
using ExternalCommand = std::function<int(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                                          std::ostream& err)>;
void registerCommand(const std::string& name, const std::string& summary, ExternalCommand command);

}  // namespace revline::cli
