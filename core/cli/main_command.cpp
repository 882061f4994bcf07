// `revline` subcommand dispatch, help, and the one place that turns an
// exception into an error message and exit code 2. A message may quote a
// repository's file names or config, so the terminal is shown it, never obeys it.
#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>

#include "core/cli/commands.h"
#include "core/cli/args.h"
#include "core/cli/interrupt.h"
#include "core/cli/subcommands.h"
#include "core/config/config.h"
#include "core/diff/diff.h"
#include "core/git/git.h"
#include "core/process/process.h"
#include "core/review/pipeline.h"
#include "core/support/terminal_text.h"
#include "core/support/version.h"

namespace revline::cli {
namespace {

struct Command {
  std::string summary;
  ExternalCommand run;
};

std::map<std::string, Command>& registry() {
  static std::map<std::string, Command> commands;
  return commands;
}

void registerBuiltins() {
  static bool done = false;
  if (done) return;
  done = true;
  registry().emplace("diff", Command{"print the working-tree diff as the model sees it (line-numbered), or --json / --numstat", runDiffCommand});
  registry().emplace("review", Command{"review the working-tree diff; exit 0 approve/comment, 1 request changes, 2 error", runReviewCommand});
  registry().emplace("schema", Command{"print the JSON Schema of the review contract (ReviewReport)", runSchemaCommand});
  registry().emplace("trust", Command{"let a repository's .revline.json choose the provider endpoint and API key variable", runTrustCommand});
  registry().emplace("eval", Command{"score a reviewer on a labelled corpus of bugs and clean changes (precision, recall, cost); --compare two runs", runEvalCommand});
  registry().emplace("pr", Command{"review a GitHub pull request through `gh` (--post submits the review)", runPrCommand});
}

void printUsage(std::ostream& out) {
  out << "revline: an AI code reviewer for the working-tree diff, in your editor and in CI\n\n"
         "usage: revline COMMAND [OPTIONS]\n\ncommands:\n";
  for (const auto& [name, cmd] : registry()) {
    out << "  " << name << std::string(name.size() < 8 ? 8 - name.size() : 1, ' ') << cmd.summary << "\n";
  }
  out << "\n`revline COMMAND --help` describes each command's options.\n";
}

}  // namespace

void registerCommand(const std::string& name, const std::string& summary, ExternalCommand command) {
  registry()[name] = Command{summary, std::move(command)};
}

int runMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return runMain(args, std::cin, out, err);
}

namespace {
// `code`, unless what was written to `out` could not be: a report (or the help)
// that a full disk or a closed stdout lost is a failure, or CI would pass with
// it lost.
int written(std::ostream& out, std::ostream& err, const std::string& command, int code) {
  errno = 0;
  out.flush();
  if (out) return code;
  const int error = errno;
  err << "revline" << (command.empty() ? "" : " " + command) << ": cannot write the output to standard output"
      << (error != 0 ? " (" + std::string(std::strerror(error)) + ")" : std::string())
      << "; the report is lost (is the disk full, or standard output closed?)\n";
  return 2;
}
}  // namespace

int runMain(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  registerBuiltins();
  git::anchorRelativeGitEnvironment();
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    printUsage(args.empty() ? err : out);
    return args.empty() ? 2 : written(out, err, "", 0);
  }
  if (args[0] == "--version") {
    out << "revline " << kVersion << "\n";
    return written(out, err, "", 0);
  }
  auto it = registry().find(args[0]);
  if (it == registry().end()) {
    err << "revline: unknown command \"" << args[0] << "\" (see `revline --help`)\n";
    return 2;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    return written(out, err, args[0], it->second.run(rest, in, out, err));
  } catch (const UsageError& e) {
    err << logLine("revline " + args[0] + ": ", e.what());
  } catch (const diff::ParseError& e) {
    err << logLine("revline " + args[0] + ": malformed diff: ", e.what());
  } catch (const git::GitError& e) {
    err << logLine("revline " + args[0] + ": ", e.what());
  } catch (const config::ConfigError& e) {
    err << logLine("revline " + args[0] + ": configuration error: ", e.what());
  } catch (const review::ProviderError& e) {
    // A provider that cannot be used as configured (no key, a bad URL, a budget too small) is the user's to fix.
    err << logLine("revline " + args[0] +
                       (e.kind() == review::ProviderError::Kind::Config ? ": configuration error: " : ": provider error: "),
                   e.what());
  } catch (const review::ContractFailure& e) {
    err << logLine("revline " + args[0] + ": ", e.what());
  } catch (const Cancelled&) {
    // Ctrl-C or SIGTERM during a review (cli/interrupt.h): ended as the signal would, after saying what was kept.
    err << "revline " << args[0] << ": interrupted\n";
    return interruptExitCode();
  } catch (const process::Error& e) {
    err << logLine("revline " + args[0] + ": ", e.what());
  } catch (const std::exception& e) {
    err << logLine("revline " + args[0] + ": internal error: ", e.what());
  }
  return 2;
}

}  // namespace revline::cli
