#include "core/cli/interrupt.h"

#include <csignal>

namespace revline::cli {
namespace {

const CancelToken& token() {
  static const CancelToken t;
  return t;
}

// What the handler touches is async-signal-safe: a sig_atomic_t, and the
// token's cancel(), one store to a lock-free atomic through a pointer made
// before any handler was installed (no allocation, no lock, no refcount).
const CancelToken* g_token = nullptr;
volatile std::sig_atomic_t g_signal = 0;
bool g_allowed = false;

extern "C" void onInterrupt(int sig) {
  if (g_signal != 0) {  // the second one: no more waiting
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_signal = sig;
  if (g_token) g_token->cancel();
}

}  // namespace

void allowInterruptHandlers() { g_allowed = true; }

void installInterruptHandlers() {
  static bool installed = false;
  if (installed || !g_allowed) return;
  installed = true;
  g_token = &token();
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction old {};
    sigaction(sig, nullptr, &old);
    if (sig == SIGINT && old.sa_handler == SIG_IGN) continue;  // nohup, or a background job: keep ignoring it
    struct sigaction action {};
    action.sa_handler = onInterrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(sig, &action, nullptr);
  }
}

const CancelToken& interruptToken() { return token(); }

int interruptExitCode() { return 128 + (g_signal != 0 ? static_cast<int>(g_signal) : SIGINT); }

}  // namespace revline::cli
