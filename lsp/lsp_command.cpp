#include "lsp/lsp_command.h"

#include <csignal>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "core/cli/commands.h"
#include "lsp/server.h"
#include "lsp/transport.h"

namespace revline::lsp {

namespace {
constexpr unsigned long long kMinMessageBytes = 65536;            // 64 KiB
constexpr unsigned long long kMaxMessageBytes = 4ull << 30;       // 4 GiB
const char* kHelp = R"(usage: revline lsp [--sync] [--max-message-bytes N]

Runs the revline language server over stdio (JSON-RPC 2.0 with Content-Length
framing). stdout carries protocol messages only; logs go to stderr and to the
client as window/logMessage.

Saving a file in a git repository reviews its diff on a worker thread, after
a debounce (setting "debounce_ms"; default 300 ms for remote models; none for
the builtin reviewer, 5 ms with "review_scope": "workspace", which reviews
the whole working tree instead). Findings become
diagnostics; fixes, "Dismiss this finding" and "Review this file now" are code
actions. Settings: .revline.json, initializationOptions and
workspace/didChangeConfiguration take the same keys (docs/revline.schema.json).

options:
  --sync                   review inline on the message loop, without debounce
                           (deterministic, for tests)
  --max-message-bytes N    largest accepted message, 65536 to 4294967296
                           (default 67108864)
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
      // Digits only (std::stoull takes "-1" as 2^64-1: no limit at all), and a
      // limit that lets an editor's messages through (below it, every one is refused).
      const std::string& n = args[++i];
      const bool digits = !n.empty() && n.size() <= 12 && n.find_first_not_of("0123456789") == std::string::npos;
      const unsigned long long value = digits ? std::stoull(n) : 0;
      if (value < kMinMessageBytes || value > kMaxMessageBytes) {
        err << "revline lsp: --max-message-bytes expects a whole number of bytes from " << kMinMessageBytes << " to "
            << kMaxMessageBytes << ", got '" << n << "'\n";
        return 2;
      }
      maxBytes = static_cast<std::size_t>(value);
    } else if (a == "--stdio") {
      // Accepted for clients that always pass it (vscode-languageclient).
    } else {
      err << "revline lsp: unknown argument '" << a << "' (see revline lsp --help)\n";
      return 2;
    }
  }
  std::signal(SIGPIPE, SIG_IGN);  // a client that went away shows as EOF / failed writes (main sets it too)
#ifdef __GLIBC__
  // A long-lived server hands what a review freed back to the system. glibc
  // raises its trim threshold to twice the largest block it mmapped and freed
  // (a 32 MB diff: 64 MB), and a worker thread's arena is shrunk only from its
  // top, when the free space there passes that threshold (malloc_trim() does
  // not shrink it): idle after a large workspace review the server held 40 to
  // 61 MB, 1 MB of it in use. Fixed at glibc's default, it held 13 to 15 MB.
  // Setting it also keeps the mmap threshold at its default 128 KiB (no longer
  // raised as large blocks are freed): a block that large is mapped and
  // unmapped each time, and handed back the moment it is freed.
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);
#endif
  StdioTransport transport(0, 1, maxBytes);
  Server server(transport, std::move(options));
  return server.run();
}

void registerLspCommand() {
  cli::registerCommand("lsp", kLspSummary, runLspCommand);
}

}  // namespace revline::lsp
