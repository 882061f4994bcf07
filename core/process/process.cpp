// Boost.Process lives only in this file: it is header-only and slow to compile.
#include "core/process/process.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <algorithm>
#include <array>
#include <cstdlib>
#include <thread>

namespace revline::process {
namespace {

namespace bp = boost::process;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::optional<std::string> effectivePath(const Options& options) {
  if (auto it = options.env.find("PATH"); it != options.env.end()) return it->second;
  if (const char* p = std::getenv("PATH")) return std::string(p);
  return std::nullopt;
}

bool isExecutableFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// Our own lookup rather than bp::search_path so that an overridden PATH in
// options.env is honoured (the child sees that PATH, so the parent must too).
// Empty PATH entries (meaning ".") are skipped on purpose: running whatever
// `git` sits in the reviewed repository would be a security hole.
fs::path resolveProgram(const std::string& name, const Options& options) {
  if (name.empty()) throw Error(Error::Kind::StartFailed, "cannot run a program with an empty name");
  if (name.find('/') != std::string::npos) {
    const fs::path p = fs::path(name).is_relative() && !options.cwd.empty() ? options.cwd / name : fs::path(name);
    if (!isExecutableFile(p)) {
      throw Error(Error::Kind::NotFound,
                  "`" + name + "` does not exist or is not an executable file; check the path");
    }
    return p;
  }
  const auto path = effectivePath(options);
  std::string_view rest = path ? std::string_view(*path) : std::string_view();
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const std::string_view dir = rest.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    if (dir.empty()) continue;
    const fs::path candidate = fs::path(std::string(dir)) / name;
    if (isExecutableFile(candidate)) return candidate;
  }
  throw Error(Error::Kind::NotFound, "`" + name + "` was not found on PATH (" + (path ? *path : "unset") +
                                         "); install it or add its directory to PATH");
}

std::string describeTimeout(std::chrono::milliseconds t) {
  return std::to_string(t.count()) + " ms";
}

// Writing to a pipe whose reader has exited raises SIGPIPE, which would kill
// revline. Blocking it in this thread (only after the child is spawned, so the
// child inherits the normal mask) turns it into EPIPE; a SIGPIPE left pending
// by our own writes is consumed before the old mask comes back.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&pipeOnly_);
    sigaddset(&pipeOnly_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    wasPending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipeOnly_, &old_);
  }
  ~SigpipeBlock() {
    if (!wasPending_) {
      sigset_t pending;
      sigpending(&pending);
      if (sigismember(&pending, SIGPIPE) == 1) {
        const timespec zero{0, 0};
        sigtimedwait(&pipeOnly_, nullptr, &zero);
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  sigset_t pipeOnly_{}, old_{};
  bool wasPending_ = false;
};

int decodeStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return status;
}

// Reads a pipe to end-of-file into `sink`, chunk by chunk; with a `limit`, up
// to that many bytes, and then closes the pipe.
void readAll(bp::async_pipe& pipe, std::string& sink, std::array<char, 65536>& chunk, std::size_t limit = 0) {
  pipe.async_read_some(boost::asio::buffer(chunk), [&pipe, &sink, &chunk, limit](const boost::system::error_code& ec,
                                                                                  std::size_t n) {
    sink.append(chunk.data(), n);
    if (limit != 0 && sink.size() >= limit) {
      sink.resize(limit);
      boost::system::error_code ignored;
      pipe.close(ignored);
      return;
    }
    if (!ec) readAll(pipe, sink, chunk, limit);
  });
}

// In the child, between fork and exec: every descriptor past stdin, stdout and
// stderr is closed by the exec. Boost 1.74 makes its pipes without
// close-on-exec, so a child started while another thread was starting one kept
// that one's pipe ends: its output never reached end-of-file until the other
// child ended (a fast `git rev-parse` waited out a slow `git diff` of another
// repository). Marked close-on-exec rather than closed: Boost's own pipe for
// an exec failure is already so marked and must stay open until the exec.
void closeOnExecPastStdio() {
#ifdef CLOSE_RANGE_CLOEXEC
  if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
#endif
  // Older kernels: the descriptors the child has, one by one.
  DIR* dir = ::opendir("/proc/self/fd");
  if (!dir) dir = ::opendir("/dev/fd");
  if (!dir) return;
  const int own = ::dirfd(dir);
  while (const struct dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    const int fd = std::atoi(entry->d_name);
    if (fd > 2 && fd != own) ::fcntl(fd, F_SETFD, ::fcntl(fd, F_GETFD) | FD_CLOEXEC);
  }
  ::closedir(dir);
}

}  // namespace

Result run(const std::vector<std::string>& argv, const Options& options) {
  if (argv.empty()) throw Error(Error::Kind::StartFailed, "cannot run a program: the argument vector is empty");
  const std::string& name = argv[0];
  if (options.cancel.cancelled()) throw Cancelled("`" + name + "` was not started: cancelled");
  const fs::path exe = resolveProgram(name, options);
  if (!options.cwd.empty()) {
    std::error_code ec;
    if (!fs::is_directory(options.cwd, ec)) {
      throw Error(Error::Kind::StartFailed, "cannot run `" + name + "`: the working directory '" +
                                                options.cwd.string() + "' does not exist");
    }
  }

  // The child's environment, built by hand: Boost 1.74's bp::environment reads
  // past its buffer when a variable is set (found by AddressSanitizer).
  std::vector<std::string> envEntries;
  for (char** e = ::environ; e && *e; ++e) {
    const std::string entry = *e;
    const std::string key = entry.substr(0, entry.find('='));
    if (!options.env.count(key)) envEntries.push_back(entry);
  }
  for (const auto& [key, value] : options.env)
    if (value) envEntries.push_back(key + "=" + *value);
  std::vector<char*> envp;
  for (auto& entry : envEntries) envp.push_back(entry.data());
  envp.push_back(nullptr);
  auto env = bp::extend::on_setup([&envp](auto& exec) { exec.env = envp.data(); });

  boost::asio::io_context io;
  bp::async_pipe in(io), out(io), err(io);
  bp::group group;  // so a timeout also kills what the child started
  bp::child child;
  // Last: the pipes' ends are on 0, 1 and 2 by then. And the child ends with
  // revline: an editor that kills its language server (SIGTERM after a shutdown
  // it waited for) left a hung git running, in a group of its own, for good.
  // The thread that starts a child waits for it, so the child outlives no thread.
  const pid_t parent = ::getpid();
  auto ownDescriptorsOnly = bp::extend::on_exec_setup([parent](auto&) {
    closeOnExecPastStdio();
#ifdef __linux__
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // revline ended before the line above
#endif
  });
  try {
    const std::vector<std::string> args(argv.begin() + 1, argv.end());
    if (options.cwd.empty()) {
      child = bp::child(bp::exe = exe.string(), bp::args = args, env, group, bp::std_in < in, bp::std_out > out,
                        bp::std_err > err, ownDescriptorsOnly);
    } else {
      child = bp::child(bp::exe = exe.string(), bp::args = args, env, group, bp::std_in < in, bp::std_out > out,
                        bp::std_err > err, bp::start_dir = options.cwd.string(), ownDescriptorsOnly);
    }
  } catch (const std::system_error& e) {
    throw Error(Error::Kind::StartFailed, "cannot run `" + name + "` (" + exe.string() + "): " + e.what());
  }

  const SigpipeBlock sigpipe;
  Result result;
  std::array<char, 65536> outChunk{}, errChunk{};
  readAll(out, result.out, outChunk, options.maxOutput);
  readAll(err, result.err, errChunk);
  if (options.input.empty()) {
    in.close();
  } else {
    // A child that exits without reading its input makes the write fail with
    // EPIPE; that is its business, so the error is ignored.
    boost::asio::async_write(in, boost::asio::buffer(options.input),
                             [&in](const boost::system::error_code&, std::size_t) { in.close(); });
  }

  const auto started = Clock::now();
  const auto deadline = started + options.timeout;
  // In slices, so a cancellation is noticed within one (the review that asked
  // for this output no longer wants it).
  constexpr auto kCancelPoll = std::chrono::milliseconds(20);
  bool stallChecked = !options.stallCheck;
  std::string stalled;  // why the child would never finish, when the stall check found out
  auto nextNotice = options.what.empty() ? Clock::time_point::max() : started + options.slowAfter;
  struct SaidSlow {  // the wait is over however run() ends
    const CancelToken& cancel;
    bool said = false;
    ~SaidSlow() {
      try {
        if (said) cancel.notice("");
      } catch (...) {  // a listener that throws (out of memory) must not end the process from a destructor
      }
    }
  } saidSlow{options.cancel};
  while (!io.stopped() && !options.cancel.cancelled()) {
    const auto now = Clock::now();
    if (now >= deadline) break;
    if (now >= nextNotice) {
      const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now - started).count();
      options.cancel.notice("waiting for " + options.what + " (" + std::to_string(seconds) + " s so far)");
      saidSlow.said = true;
      nextNotice = now + options.slowEvery;
    }
    if (!stallChecked && now >= started + options.stallCheckAfter) {
      stallChecked = true;
      try {
        stalled = options.stallCheck();
      } catch (...) {  // a check that cannot tell leaves the child to the timeout
        stalled.clear();
      }
      if (!stalled.empty()) break;
    }
    io.run_until(std::min<Clock::time_point>(deadline, now + kCancelPoll));
  }
  bool finished = io.stopped();
  // Both pipes reached end-of-file; the child has closed them and normally exits
  // right away, but it could keep running, so wait for it within the deadline too.
  std::error_code ec;
  auto pause = std::chrono::microseconds(200);
  while (finished && child.running(ec) && !ec) {
    if (Clock::now() >= deadline || options.cancel.cancelled()) { finished = false; break; }
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(20));
  }
  if (!finished) {
    group.terminate(ec);
    child.wait(ec);
    if (options.cancel.cancelled()) throw Cancelled("`" + name + "` was cancelled and killed");
    if (!stalled.empty()) throw Error(Error::Kind::Stalled, stalled);
    throw Error(Error::Kind::TimedOut, "`" + name + "` did not finish within " + describeTimeout(options.timeout) +
                                           " and was killed");
  }
  child.wait(ec);
  result.exitCode = decodeStatus(child.native_exit_code());
  return result;
}

}  // namespace revline::process
