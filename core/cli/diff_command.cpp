// `revline diff`: the diff exactly as the model sees it, or its parsed form.
#include <cstdio>

#include "core/cli/args.h"
#include "core/cli/diff_source.h"
#include "core/cli/subcommands.h"
#include "core/diff/render.h"

namespace revline::cli {

int runDiffCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const ParsedArgs parsed("revline diff",
                          {{"json"}, {"numstat"}, {"stdin"}, {"staged"}, {"base", true}, {"help"}}, args);
  if (parsed.has("help")) {
    out << "usage: revline diff [--json | --numstat] [--stdin] [--base REF | --staged]\n\n"
           "Prints the working-tree diff (untracked, not-ignored files count as added) with every line\n"
           "prefixed by its new-file line number: exactly what the model is shown.\n\n"
           "  --json      the parsed structure: files, status, and every added/context line's new number\n"
           "  --numstat   added and deleted line counts per file, as `git apply --numstat` prints them\n"
           "  --stdin     read a patch (any `git diff` / `git log -p` output) from standard input\n"
           "  --base REF  diff the working tree against the merge base of REF and HEAD\n"
           "  --staged    diff the index against HEAD\n\n"
           "exit: 0, or 2 on a malformed diff (the message names the input line)\n";
    return 0;
  }
  if (!parsed.positional().empty()) throw UsageError("unexpected argument \"" + parsed.positional()[0] + "\"");
  if (parsed.has("json") && parsed.has("numstat")) throw UsageError("--json and --numstat exclude each other");
  (void)err;
  if (parsed.has("numstat") && parsed.has("stdin") && !parsed.has("staged") && !parsed.has("base")) {
    // Streamed: memory bounded by the longest line, not by the patch.
    out << diff::streamNumstat([](char* buffer, std::size_t size) {
      return std::fread(buffer, 1, size, stdin);
    });
    return 0;
  }
  const DiffSource source = readDiff(parsed);
  if (parsed.has("json")) {
    out << diff::toJson(source.diff).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  } else if (parsed.has("numstat")) {
    out << diff::numstat(source.diff);
  } else {
    out << diff::annotate(source.diff);
  }
  return 0;
}

}  // namespace revline::cli
