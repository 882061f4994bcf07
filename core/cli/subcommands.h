// The subcommands that core/ implements (the language server registers its own).
// Each reads standard input only through `in`, so tests can run them in process.
#pragma once
#include <istream>
#include <ostream>
#include <string>
#include <vector>

namespace revline::cli {

int runDiffCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);
int runReviewCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);
int runSchemaCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);
int runTrustCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);
int runEvalCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);
int runPrCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace revline::cli
