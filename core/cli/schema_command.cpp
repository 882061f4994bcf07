// `revline schema`: the JSON Schema of the review contract, as sent to providers.
#include "core/cli/args.h"
#include "core/cli/subcommands.h"
#include "core/contract/schema.h"

namespace revline::cli {

int runSchemaCommand(const std::vector<std::string>& args, std::istream&, std::ostream& out, std::ostream&) {
  const ParsedArgs parsed("revline schema", {{"help"}}, args);
  if (parsed.has("help")) {
    out << "usage: revline schema\n\nPrints the JSON Schema of ReviewReport (strict structured-output ready).\n";
    return 0;
  }
  if (!parsed.positional().empty()) throw UsageError("unexpected argument \"" + parsed.positional()[0] + "\"");
  out << contract::reportSchemaOrdered().dump(2) << "\n";
  return 0;
}

}  // namespace revline::cli
