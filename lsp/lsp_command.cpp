#include "lsp/lsp_command.h"

#include <csignal>

#include "core/cli/commands.h"
#include "lsp/server.h"
#include "lsp/transport.h"

namespace revline::lsp {

namespace {
const char* kHelp = R"(usage: revline lsp [--sync] [--max-message-bytes N]

Runs the revline language server over stdio (JSON-RPC 2.0 with Content-Length
framing). stdout carries protocol messages only; logs go to stderr and to the
client as window/logMessage.

Saving a file in a git repository reviews its diff after a short debounce
(setting "debounce_ms", default 5 ms for the builtin reviewer, 300 for remote models) on a worker thread; "review_scope":
"workspace" reviews the whole working tree instead. Findings become
diagnostics; fixes, "Dismiss this finding" and "Review this file now" are code
actions. Settings: .revline.json, initializationOptions and
workspace/didChangeConfiguration take the same keys (docs/revline.schema.json).

options:
  --sync                   review inline on the message loop, without debounce
                           (deterministic, for tests)
  --max-message-bytes N    largest accepted message (default 67108864)
  -h, --help               this help

exit: 0 after shutdown + exit; 1 on exit without shutdown or end of input
before shutdown; 2 on bad flags.
)";
}  // namespace

int runLspCommand(const std::vector<std::string>& args, std::istream&, std::ostream& out, std::ostream& err) {
  ServerOptions options;
  std::size_t maxBytes = 64u << 20;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      out << kHelp;
      return 0;
    } else if (a == "--sync") {
      options.sync = true;
    } else if (a == "--max-message-bytes" && i + 1 < args.size()) {
      try {
        maxBytes = std::stoull(args[++i]);
      } catch (const std::exception&) {
        err << "revline lsp: --max-message-bytes: expected a number, got '" << args[i] << "'\n";
        return 2;
      }
    } else if (a == "--stdio") {
      // Accepted for clients that always pass it (vscode-languageclient).
    } else {
      err << "revline lsp: unknown argument '" << a << "' (see revline lsp --help)\n";
      return 2;
    }
  }
  std::signal(SIGPIPE, SIG_IGN);  // a client that went away shows as EOF / failed writes
  StdioTransport transport(0, 1, maxBytes);
  Server server(transport, std::move(options));
  return server.run();
}

void registerLspCommand() {
  cli::registerCommand("lsp", kLspSummary, runLspCommand);
}

}  // namespace revline::lsp
