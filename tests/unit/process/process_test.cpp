#include "core/process/process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <filesystem>
#include <thread>

#include "tests/support/temp_repo.h"

namespace revline::process {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

TEST(Process, FeedsLargeInputAndCapturesLargeOutput) {
  // 20 MB through `cat`: stdin is written while stdout is read, or this deadlocks.
  std::string input;
  input.reserve(20u << 20);
  for (std::size_t i = 0; input.size() < (20u << 20); ++i) input += "line " + std::to_string(i) + "\n";
  Options options;
  options.input = input;
  const Result r = run({"cat"}, options);
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.out.size(), input.size());
  EXPECT_TRUE(r.out == input);
  EXPECT_EQ(r.err, "");
}

TEST(Process, LargeOutputOnBothStreamsAtOnce) {
  // A child that fills stderr before finishing stdout blocks unless both are read concurrently.
  const Result r = run({"sh", "-c", "head -c 5000000 /dev/zero >&2; head -c 7000000 /dev/zero"});
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.err.size(), 5000000u);
  EXPECT_EQ(r.out.size(), 7000000u);
}

// Only the head of an output that never ends: read up to maxOutput, then the
// pipe is closed and the child ends on SIGPIPE (no timeout waited out).
TEST(Process, MaxOutputReadsTheHeadAndEndsTheChild) {
  Options options;
  options.maxOutput = 8000;
  options.timeout = 20s;
  const auto started = std::chrono::steady_clock::now();
  const Result r = run({"yes", "a line"}, options);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
  EXPECT_EQ(r.out.size(), 8000u);
  EXPECT_EQ(r.out.substr(0, 14), "a line\na line\n");
  EXPECT_EQ(r.exitCode, 128 + 13);  // SIGPIPE
  options.maxOutput = 1 << 20;  // more than there is: all of it
  EXPECT_EQ(run({"printf", "short"}, options).out, "short");
}

TEST(Process, ArgumentsAreNotInterpretedByAShell) {
  const Result r = run({"echo", "a  b", "$HOME", "*", "; rm -rf /"});
  EXPECT_EQ(r.out, "a  b $HOME * ; rm -rf /\n");
}

TEST(Process, CapturesStderrAndExitCode) {
  const Result r = run({"sh", "-c", "echo out; echo problem >&2; exit 3"});
  EXPECT_EQ(r.exitCode, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "problem\n");
}

TEST(Process, SignalEndsReportAs128PlusSignal) {
  const Result r = run({"sh", "-c", "kill -9 $$"});
  EXPECT_EQ(r.exitCode, 128 + 9);
}

TEST(Process, ChildThatIgnoresItsInputDoesNotHurtTheCaller) {
  // `true` exits without reading: writing 8 MB to it fails with EPIPE, which must not kill us.
  Options options;
  options.input = std::string(8u << 20, 'x');
  const Result r = run({"true"}, options);
  EXPECT_EQ(r.exitCode, 0);
}

TEST(Process, NotFoundNamesTheProgram) {
  try {
    run({"revline-no-such-program-xyz"});
    FAIL() << "expected process::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::NotFound);
    EXPECT_THAT(e.what(), HasSubstr("`revline-no-such-program-xyz` was not found on PATH"));
    EXPECT_THAT(e.what(), HasSubstr("install it"));
  }
}

TEST(Process, NotFoundHonoursOverriddenPath) {
  testing::TempDir empty;
  Options options;
  options.env["PATH"] = empty.path().string();
  try {
    run({"sh", "-c", "true"}, options);
    FAIL() << "expected process::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::NotFound);
    EXPECT_THAT(e.what(), HasSubstr(empty.path().string()));
  }
}

TEST(Process, MissingExplicitPathIsNotFound) {
  try {
    run({"/nonexistent/dir/tool"});
    FAIL() << "expected process::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::NotFound);
    EXPECT_THAT(e.what(), HasSubstr("/nonexistent/dir/tool"));
  }
}

TEST(Process, TimeoutKillsTheChildQuickly) {
  Options options;
  options.timeout = 200ms;
  const auto start = std::chrono::steady_clock::now();
  try {
    run({"sleep", "5"}, options);
    FAIL() << "expected a timeout";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::TimedOut);
    EXPECT_THAT(e.what(), HasSubstr("`sleep` did not finish within 200 ms"));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST(Process, TimeoutAlsoKillsGrandchildrenHoldingThePipes) {
  // The shell's background child keeps stdout open; killing only `sh` would leave us waiting.
  Options options;
  options.timeout = 200ms;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(run({"sh", "-c", "sleep 5 & sleep 5; wait"}, options), Error);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST(Process, AStallCheckThatFindsACauseKillsTheChildAtOnce) {
  // git waiting on a named pipe: the check names it, and run() does not wait out the timeout.
  Options options;
  options.timeout = 60s;
  options.stallCheckAfter = 100ms;
  int asked = 0;
  options.stallCheck = [&asked] {
    ++asked;
    return std::string("'x' is a named pipe");
  };
  const auto start = std::chrono::steady_clock::now();
  try {
    run({"sh", "-c", "sleep 30 & sleep 30; wait"}, options);
    FAIL() << "expected the stall check to stop the child";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::Stalled);
    EXPECT_STREQ(e.what(), "'x' is a named pipe");
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  EXPECT_EQ(asked, 1);
}

TEST(Process, AStallCheckWithNoCauseLetsASlowChildFinish) {
  Options options;
  options.stallCheckAfter = 50ms;
  int asked = 0;
  options.stallCheck = [&asked]() -> std::string {
    if (++asked == 1) throw std::runtime_error("cannot tell");  // a check that fails changes nothing either
    return {};
  };
  const Result r = run({"sh", "-c", "sleep 0.4; echo done"}, options);
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.out, "done\n");
  EXPECT_EQ(asked, 1);  // asked once, not on every slice
  // A child that ends before the check is due is never asked about.
  options.stallCheckAfter = 10s;
  EXPECT_EQ(run({"true"}, options).exitCode, 0);
  EXPECT_EQ(asked, 1);
}

// A child still running after `slowAfter` is said to the token's listener, again
// every `slowEvery`, and the wait is over ("") once it ends: a review held by a
// slow git says so. Nothing is said of a quick child, nor without `what`.
TEST(Process, ASlowChildIsSaidToTheTokensListener) {
  Options options;
  options.what = "`sleep`";
  options.slowAfter = 100ms;
  options.slowEvery = 200ms;
  std::vector<std::string> said;
  options.cancel.listen([&said](const std::string& what) { said.push_back(what); });
  EXPECT_EQ(run({"sh", "-c", "sleep 0.45"}, options).exitCode, 0);
  ASSERT_GE(said.size(), 3u) << ::testing::PrintToString(said);
  EXPECT_EQ(said.front(), "waiting for `sleep` (0 s so far)");
  EXPECT_EQ(said[1], "waiting for `sleep` (0 s so far)");
  EXPECT_EQ(said.back(), "") << "the wait is over";
  said.clear();
  EXPECT_EQ(run({"true"}, options).exitCode, 0);
  EXPECT_TRUE(said.empty()) << ::testing::PrintToString(said);
  options.what.clear();
  EXPECT_EQ(run({"sh", "-c", "sleep 0.3"}, options).exitCode, 0);
  EXPECT_TRUE(said.empty()) << ::testing::PrintToString(said);
  options.cancel.listen({});
}

TEST(Process, CancellationKillsTheChildAndItsGroup) {
  // A review that was cancelled (a newer save) must not wait for git: the
  // child, and what it started, are killed, and run() says Cancelled.
  Options options;
  std::thread canceller([cancel = options.cancel] {
    std::this_thread::sleep_for(100ms);
    cancel.cancel();
  });
  EXPECT_THROW(run({"sh", "-c", "sleep 30 & sleep 30; wait"}, options), revline::Cancelled);
  canceller.join();
}

// A child has stdin, stdout and stderr, and no other descriptor of the caller:
// Boost's pipes are made without close-on-exec, so a git started while another
// thread's git was starting held that one's pipes, whose output then never
// reached end-of-file until the first git ended (a fast lookup in one
// repository waited out a slow diff in another).
TEST(Process, AChildKeepsNoDescriptorOfTheCallerButItsOwnStdio) {
  int leaked[2];
  ASSERT_EQ(::pipe(leaked), 0);  // as another thread's child's pipe, open at the fork
  struct stat st {};
  ASSERT_EQ(::fstat(leaked[0], &st), 0);
  const std::string pipe = "pipe:[" + std::to_string(st.st_ino) + "]";
  // The shell's own descriptors, each with what it is ("1 -> pipe:[123]").
  const auto r = run({"/bin/sh", "-c", "ls -l /proc/$$/fd"});
  ::close(leaked[0]);
  ::close(leaked[1]);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(" 0 -> "));
  EXPECT_THAT(r.out, HasSubstr(" 2 -> "));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr(pipe))) << "the caller's pipe leaked into the child:\n" << r.out;
}

// A child ends with revline: an editor kills its language server (SIGTERM or
// SIGKILL when shutdown goes unanswered), and a git that hung on a stalled
// mount, in a process group of its own, ran on for good.
TEST(Process, AChildEndsWhenRevlineIsKilled) {
  const std::string marker = "61.4" + std::to_string(::getpid() % 1000);  // a sleep no other test runs
  auto sleeping = [&] {
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      std::ifstream cmdline(entry.path() / "cmdline");
      std::string text((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
      if (text.find(std::string("sleep") + '\0' + marker) != std::string::npos) return true;
    }
    return false;
  };
  const pid_t revline = ::fork();
  ASSERT_GE(revline, 0);
  if (revline == 0) {  // stands in for revline: runs a child that would outlive it
    try {
      run({"/bin/sleep", marker});
    } catch (...) {
    }
    ::_exit(0);
  }
  for (int i = 0; i < 200 && !sleeping(); ++i) std::this_thread::sleep_for(25ms);
  ASSERT_TRUE(sleeping()) << "the child never started";
  ::kill(revline, SIGKILL);
  ::waitpid(revline, nullptr, 0);
  bool gone = false;
  for (int i = 0; i < 200 && !(gone = !sleeping()); ++i) std::this_thread::sleep_for(25ms);
  EXPECT_TRUE(gone) << "the child outlived revline";
  if (!gone) revline::testing::runShell("pkill -f 'sleep " + marker + "'", ".");
}

TEST(Process, ACancelledTokenStartsNothing) {
  Options options;
  options.cancel.cancel();
  const std::string marker = (std::filesystem::temp_directory_path() / "revline-cancel-marker").string();
  std::filesystem::remove(marker);
  EXPECT_THROW(run({"touch", marker}, options), revline::Cancelled);
  EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST(Process, RunsInTheGivenDirectory) {
  testing::TempDir dir;
  Options options;
  options.cwd = dir.path();
  const Result r = run({"pwd", "-P"}, options);
  EXPECT_EQ(r.out, std::filesystem::canonical(dir.path()).string() + "\n");
}

TEST(Process, MissingWorkingDirectoryIsAClearError) {
  Options options;
  options.cwd = "/nonexistent/revline-dir";
  try {
    run({"true"}, options);
    FAIL() << "expected process::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::StartFailed);
    EXPECT_THAT(e.what(), HasSubstr("'/nonexistent/revline-dir' does not exist"));
  }
}

TEST(Process, EnvironmentOverridesAndRemovals) {
  ::setenv("REVLINE_TEST_REMOVE_ME", "present", 1);
  ::setenv("REVLINE_TEST_KEEP_ME", "kept", 1);
  Options options;
  options.env["REVLINE_TEST_SET"] = "hello world";
  options.env["REVLINE_TEST_REMOVE_ME"] = std::nullopt;
  const Result r = run({"sh", "-c",
                        "echo \"${REVLINE_TEST_SET}|${REVLINE_TEST_REMOVE_ME-unset}|${REVLINE_TEST_KEEP_ME}\""},
                       options);
  EXPECT_EQ(r.out, "hello world|unset|kept\n");
  ::unsetenv("REVLINE_TEST_REMOVE_ME");
  ::unsetenv("REVLINE_TEST_KEEP_ME");
}

}  // namespace
}  // namespace revline::process
