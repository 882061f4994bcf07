// The subcommands that core/ implements (the language server registers its own).
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace revline::cli {

int runDiffCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runReviewCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runSchemaCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runTrustCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runEvalCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runPrCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace revline::cli
