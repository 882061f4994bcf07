// `revline diff`: the diff exactly as the model sees it, the whole first
// request (--prompt), or its parsed form.
#include <unistd.h>

#include <iostream>
#include <istream>

#include "core/cli/args.h"
#include "core/cli/diff_source.h"
#include "core/cli/review_session.h"
#include "core/cli/subcommands.h"
#include "core/diff/render.h"
#include "core/providers/factory.h"
#include "core/session/review_service.h"
#include "core/support/terminal_text.h"
#include "core/tools/repository_tools.h"

namespace revline::cli {
namespace {

void printSkipped(const std::vector<review::SkippedFile>& skipped, std::ostream& err) {
  for (const auto& s : skipped) err << "revline diff: not sent to the reviewer: " << terminalSafe(s.path, Newlines::Escape) << " ("
                   << terminalSafe(s.reason) << ")\n";
}

// What the diff shows is the repository's text: on a terminal, which would
// obey its control sequences (retitle the window, write the clipboard), they
// are shown escaped; into a pipe or a file it goes unescaped (its lines end in
// "\n" on either: the numbered view is the model's, which shows no CR).
std::string forOutput(const std::string& text, const std::ostream& out) {
  return &out == &std::cout && isatty(STDOUT_FILENO) ? terminalSafe(text) : text;
}

}  // namespace

int runDiffCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  std::vector<OptionSpec> specs = reviewOptionSpecs();
  specs.insert(specs.end(),
               {{"json"}, {"numstat"}, {"prompt"}, {"stdin"}, {"staged"}, {"base", true}, {"no-cache"}, {"help"}});
  const ParsedArgs parsed("revline diff", specs, args);
  if (parsed.has("help")) {
    out << "usage: revline diff [--json | --numstat | --prompt [--no-cache]] [--stdin] [--base REF | --staged]\n"
           "                    [review options]\n\n"
           "Prints the working-tree diff (untracked files that git status lists count as added) as the model\n"
           "is shown it: every line prefixed by its new-file line number, the function context around each\n"
           "hunk as \"NUMBER : TEXT\" lines (for reference, not valid targets), and only the files the selection\n"
           "sends "
           "(the others are listed on stderr with the reason). On a terminal, control characters in the\n"
           "repository's text are shown escaped (\\x1b), never obeyed; into a pipe or a file, unescaped (lines\n"
           "end in \\n either way, as the model is shown them; a file's CRLF is not a line's text).\n\n"
           "  --prompt    the whole first request instead: system prompt, intent (--description, and the\n"
           "              commit messages with --base) and diff, redacted as a remote provider receives it;\n"
           "              a change split to fit max_input_tokens shows each of its requests; as `revline\n"
           "              review` would send it now: with a model, only the hunks not reviewed before;\n"
           "              nothing is sent, so no API key is needed\n"
           "  --no-cache  with --prompt: the requests of the whole change (as `revline review --no-cache`)\n"
           "  --json      the parsed structure of the whole diff: files, status, every line's new number\n"
           "  --numstat   added and deleted line counts per file, as `git apply --numstat` prints them\n"
           "  --stdin     read a patch (any `git diff` / `git log -p` output) from standard input\n"
           "  --base REF  diff the working tree against the merge base of REF and HEAD\n"
           "  --staged    diff the index against HEAD\n\n"
           "Review options (what --prompt and the selection depend on, as for `revline review`):\n"
        << kReviewOptionsHelp
        << "\nexit: 0, or 2 on a malformed diff (the message names the input line)\n";
    return 0;
  }
  if (!parsed.positional().empty()) throw UsageError("unexpected argument \"" + parsed.positional()[0] + "\"");
  const int formats = parsed.has("json") + parsed.has("numstat") + parsed.has("prompt");
  if (formats > 1) throw UsageError("--json, --numstat and --prompt exclude each other");
  if (parsed.has("no-cache") && !parsed.has("prompt"))
    throw UsageError("--no-cache applies only with --prompt (the requests a review would send); a diff reads no cache");
  if (parsed.has("numstat") && parsed.has("stdin") && !parsed.has("staged") && !parsed.has("base")) {
    // Streamed: memory bounded by the longest line, not by the patch.
    out << diff::streamNumstat([&in](char* buffer, std::size_t size) {
      in.read(buffer, static_cast<std::streamsize>(size));
      return static_cast<std::size_t>(in.gcount());
    });
    return 0;
  }
  applyReviewFlags({}, parsed);  // a bad number is said now, not after git has run
  DiffSource source = readDiff(parsed, in, err, "revline diff");
  // What git's diff does not show (an untracked file over the cap, an unmerged
  // path) is said by every form; the annotated diff lists it with the selection's.
  // The forms below that make no review request say reading the diff's warnings
  // here (reviewRequestFor says them with the configuration's notices).
  if (parsed.has("json") || parsed.has("numstat"))
    for (const std::string& w : warningsOf(source)) err << logLine("revline diff: warning: ", w);
  if (parsed.has("json") || parsed.has("numstat") || parsed.has("prompt")) {
    std::vector<review::SkippedFile> leftOut;
    for (const auto& s : source.leftOut) leftOut.push_back(session::notReviewed(s));
    printSkipped(leftOut, err);
  }
  if (parsed.has("json")) {
    out << diff::toJson(source.diff).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    return 0;
  }
  if (parsed.has("numstat")) {
    out << diff::numstat(source.diff);  // names C-quoted, as git prints them
    return 0;
  }
  // The request a `revline review` with the same flags would make.
  session::ReviewRequest request = reviewRequestFor(std::move(source), parsed, "revline diff", err);
  if (parsed.has("prompt")) {
    std::vector<std::string> notSent;
    request.fullReview = parsed.has("no-cache");
    // The per-hunk cache `revline review` reads (read here, never written); none for a patch on stdin.
    session::HunkCache hunks;
    const std::vector<review::ModelRequest> requests =
        session::ReviewService(providers::makeProviderForPreview, nullptr, {}, parsed.has("stdin") ? nullptr : &hunks)
            .preview(std::move(request), &notSent);
    if (requests.empty()) out << "=== nothing to send: no changed line is left to review ===\n";
    for (std::size_t i = 0; i < requests.size(); ++i) {
      // A change split to fit max_input_tokens is several requests: each is shown.
      if (requests.size() > 1)
        out << "=== request " << i + 1 << " of " << requests.size() << " (the change exceeds max_input_tokens) ===\n";
      out << "=== system ===\n" << forOutput(requests[i].system, out) << "\n";
      for (const auto& m : requests[i].messages) out << "=== user ===\n" << forOutput(m.text, out);
    }
    for (const auto& s : notSent) err << "revline diff: not sent (" << terminalSafe(s) << ")\n";
    return 0;
  }
  const std::filesystem::path root = request.root;
  const review::ReviewOptions options = request.config.review;
  const session::PreparedReview prepared = session::prepare(std::move(request));
  printSkipped(prepared.inputs.filesSkipped, err);
  if (root.empty()) {
    out << forOutput(diff::annotate(prepared.reviewed), out);
  } else {
    tools::RepositoryTools files(root);  // the same confined reads as the review's
    files.readNewSideFrom(prepared.reviewed.newVersions);
    out << forOutput(diff::annotate(prepared.reviewed, review::functionContextOf(prepared.reviewed, options, &files)),
                     out);
  }
  return 0;
}

}  // namespace revline::cli
