#include "core/cli/diff_source.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <optional>

#include "core/cli/interrupt.h"
#include "core/config/user_config.h"
#include "core/git/config_guard.h"
#include "core/git/git.h"
#include "core/support/terminal_text.h"

namespace revline::cli {
namespace {

// Whether the user trusts the repository (`revline trust`). A user config that
// cannot be read trusts nothing; loading the configuration reports its error.
bool trusted(const std::filesystem::path& root) {
  try {
    return config::isTrusted(config::loadUserConfig(), root);
  } catch (const std::exception&) {
    return false;
  }
}

// `revline review --format sarif > revline.sarif` in a work tree: the shell
// creates the file before revline starts, so it is an untracked file of the
// change (and on a second run, the whole earlier report). The file standard
// output is redirected to is this command's output, not part of the change:
// left out, with a note.
// Only an added (untracked) file: a tracked one, even one sharing the inode (a
// hard link), is the user's. Standard error too (`2> revline.err`).
void leaveOutOwnOutput(const std::filesystem::path& root, diff::Diff& diff, std::ostream& err, const std::string& command) {
  for (const int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    struct stat out {};
    if (::fstat(fd, &out) != 0 || !S_ISREG(out.st_mode)) continue;
    const auto own = std::find_if(diff.files.begin(), diff.files.end(), [&](const diff::FileDiff& f) {
      struct stat st {};
      return f.status == diff::FileStatus::Added && f.newPath &&
             ::lstat((root / *f.newPath).c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == out.st_dev &&
             st.st_ino == out.st_ino;
    });
    if (own == diff.files.end()) continue;
    err << command << ": note: left out " << terminalSafe(*own->newPath, Newlines::Escape)
        << ", the file this command's " << (fd == STDOUT_FILENO ? "output is" : "messages are") << " written to ("
        << (fd == STDOUT_FILENO ? "standard output" : "standard error")
        << " is redirected there); write it outside the work tree or list it in .gitignore\n";
    diff.files.erase(own);
  }
}

}  // namespace

DiffSource readDiff(const ParsedArgs& args, std::istream& in, std::ostream& err, const std::string& command) {
  if (args.has("staged") && args.has("base")) throw UsageError("--staged and --base exclude each other");
  DiffSource source;
  if (args.has("stdin")) {
    if (args.has("staged") || args.has("base")) throw UsageError("--stdin reads a patch; it takes no --staged or --base");
    std::string text;
    char chunk[1 << 16];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) text.append(chunk, static_cast<std::size_t>(in.gcount()));
    // An empty diff is no change, and passes; but in CI it is as often the
    // output of a `git diff` that failed upstream of the pipe.
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
      source.notices.push_back("standard input holds no diff, so there is nothing to review; if the command "
                               "piped in failed, its error is above (`set -o pipefail` makes such a pipeline fail)");
    source.diff = diff::parse(std::move(text));
    try {
      source.root = git::findRepositoryRoot(std::filesystem::current_path());
    } catch (const std::filesystem::filesystem_error&) {
      // The working directory is gone: no repository to read either.
    } catch (const git::NoRepositoryError&) {
      // A patch read from stdin does not need a repository (a server hook in a
      // bare one, a patch from elsewhere); one git refuses to read (another
      // user's checkout) is an error, not a review without its settings.
    }
    return source;
  }
  source.root = git::findRepositoryRoot(std::filesystem::current_path());
  git::DiffRequest request;
  if (args.has("staged")) request.mode = git::DiffRequest::Mode::Staged;
  if (auto base = args.value("base")) {
    request.mode = git::DiffRequest::Mode::Base;
    request.base = *base;
  }
  request.leftOut = &source.leftOut;
  // Ctrl-C or SIGTERM while git runs (a big diff, a partial clone's fetch) ends
  // git's processes too, not revline alone: git's are in a group of their own.
  installInterruptHandlers();
  request.cancel = interruptToken();
  request.trustRepositoryConfig = trusted(*source.root);
  request.ignoredSettings = &source.ignoredGitSettings;
  request.notices = &source.notices;
  // A slow git (a stalled network mount, a huge repository) is said on a
  // terminal while it runs, one line rewritten in place and cleared when git is
  // done (nothing on a pipe, like the review's progress).
  std::optional<NoticeListening> gitWaits;
  if (&err == &std::cerr && isatty(STDERR_FILENO))
    gitWaits.emplace(request.cancel, [&err, command](const std::string& waiting) {
      err << "\r" << (waiting.empty() ? "" : command + ": " + waiting) << "\33[K" << std::flush;
    });
  source.diff = diff::parse(git::diffText(*source.root, request));
  leaveOutOwnOutput(*source.root, source.diff, err, command);
  return source;
}

std::vector<std::string> warningsOf(const DiffSource& source) {
  std::vector<std::string> out = source.notices;
  if (!source.ignoredGitSettings.empty() && source.root)
    out.push_back(git::ignoredSettingsNotice(*source.root, source.ignoredGitSettings));
  return out;
}

}  // namespace revline::cli
