// The one way revline runs an external program (git, gh): an argument vector,
// never a shell string; a timeout; stdout and stderr captured. Boost.Process is
// confined to process.cpp because it compiles slowly.
#pragma once
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/support/cancel.h"

namespace revline::process {

struct Options {
  std::filesystem::path cwd;                          // empty: the current directory
  std::string input;                                  // written to the child's stdin, then closed
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};
  std::map<std::string, std::optional<std::string>> env;  // overrides; nullopt removes a variable
  // Polled while the child runs: once cancelled, the child and its process
  // group are killed and run() throws Cancelled (support/cancel.h).
  CancelToken cancel;
  // Asked once, `stallCheckAfter` into a run that has not finished: a non-empty
  // answer says why the child never will (git opening a named pipe nobody
  // writes, say). The child is then killed and run() throws Error(Stalled) with
  // that answer, rather than waiting out the timeout.
  std::function<std::string()> stallCheck;
  std::chrono::milliseconds stallCheckAfter{1000};
  // When not 0: stdout is read up to this many bytes, then its pipe is closed
  // (the child gets EPIPE or SIGPIPE, which is then its exit status): for a
  // caller that needs only the head of a large output.
  std::size_t maxOutput = 0;
  // When not empty: a child still running `slowAfter` into its run is said to
  // the token's listener (CancelToken::notice), "waiting for <what> (N s so
  // far)", again every `slowEvery`, and "" once it ends, so a review held by a
  // slow git (a stalled network mount) says so instead of nothing.
  std::string what;
  std::chrono::milliseconds slowAfter{std::chrono::seconds(2)};
  std::chrono::milliseconds slowEvery{std::chrono::seconds(5)};
};

struct Result {
  int exitCode = -1;  // 128 + the signal number when a signal ended the child (as shells report it)
  std::string out;
  std::string err;
};

// The program could not be started (not found on PATH, not executable), timed
// out, or was found stuck by options.stallCheck (the child is killed in both).
// what() names the program and the cause.
class Error : public std::runtime_error {
 public:
  enum class Kind { NotFound, StartFailed, TimedOut, Stalled };
  Error(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const { return kind_; }
 private:
  Kind kind_;
};

// Runs argv[0] (looked up on PATH when it has no '/'; PATH as overridden in
// options.env, if it is) with argv[1..]. Both output streams are read while the
// input is written, so any amount of output is fine. On timeout the child and
// everything it started (its process group) are killed.
// A non-zero exit code is not an error here: callers decide what it means.
// Throws Error, or Cancelled when options.cancel was cancelled before it finished.
Result run(const std::vector<std::string>& argv, const Options& options = {});

}  // namespace revline::process
