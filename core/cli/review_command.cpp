// `revline review`: review the working-tree diff and gate on the verdict.
#include "core/cli/args.h"
#include "core/cli/diff_source.h"
#include "core/cli/review_session.h"
#include "core/cli/subcommands.h"
#include "core/reports/gate.h"
#include "core/reports/github_review.h"
#include "core/reports/json_report.h"
#include "core/reports/sarif_report.h"
#include "core/reports/text_report.h"

namespace revline::cli {

int runReviewCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::vector<OptionSpec> specs = reviewOptionSpecs();
  specs.insert(specs.end(), {{"base", true}, {"staged"}, {"stdin"}, {"format", true}, {"fail-on", true}, {"help"}});
  const ParsedArgs parsed("revline review", specs, args);
  if (parsed.has("help")) {
    out << "usage: revline review [--base REF | --staged | --stdin] [--format text|json|sarif|github]\n"
           "                      [--fail-on SEVERITY] [provider options]\n\n"
           "Reviews the working-tree diff (untracked, not-ignored files count as added), keeps only findings\n"
           "on lines the diff touches, and decides the verdict by policy.\n\n"
           "  --base REF           review the working tree against the merge base of REF and HEAD\n"
           "  --staged             review the index against HEAD\n"
           "  --stdin              review a patch read from standard input\n"
           "  --format F           text (default), json, sarif (code scanning), github (a PR review payload)\n"
           "  --fail-on SEVERITY   also exit 1 when any finding is at least BLOCKER|MAJOR|MINOR|NIT\n"
        << kReviewOptionsHelp
        << "\nConfiguration: .revline.json at the repository root; these flags override it.\n"
           "exit: 0 approve or comment, 1 request changes (or --fail-on met), 2 error (message on stderr)\n";
    return 0;
  }
  if (!parsed.positional().empty()) throw UsageError("unexpected argument \"" + parsed.positional()[0] + "\"");
  const std::string format = parsed.value("format").value_or("text");
  if (format != "text" && format != "json" && format != "sarif" && format != "github") {
    throw UsageError("--format expects text, json, sarif or github, got \"" + format + "\"");
  }
  std::optional<contract::Severity> failOn;
  if (auto v = parsed.value("fail-on")) {
    failOn = reports::parseFailOn(*v);
    if (!failOn) throw UsageError("--fail-on expects BLOCKER, MAJOR, MINOR or NIT, got \"" + *v + "\"");
  }

  DiffSource source = readDiff(parsed);
  const std::filesystem::path root = source.root.value_or(std::filesystem::current_path());
  const config::Config config =
      applyReviewFlags(source.root ? config::loadForRepository(*source.root) : config::Config{}, parsed);
  const diff::Diff selected = selectFiles(std::move(source.diff), config);
  const review::ReviewOutcome outcome = reviewDiff(selected, config, root);

  if (format == "json") {
    out << reports::renderJson(outcome).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  } else if (format == "sarif") {
    out << reports::renderSarif(outcome).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  } else if (format == "github") {
    out << reports::renderGithubReview(outcome, selected, {}).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  } else {
    out << reports::renderText(outcome);
  }
  for (const auto& w : outcome.warnings) err << "revline review: warning: " << w << "\n";
  return reports::exitCodeFor(outcome, failOn);
}

}  // namespace revline::cli
