// `revline review`: review the working-tree diff and gate on the verdict.
#include "core/cli/args.h"
#include "core/cli/diff_source.h"
#include "core/cli/review_session.h"
#include "core/cli/subcommands.h"
#include "core/git/git.h"
#include "core/reports/gate.h"
#include "core/reports/github_review.h"
#include "core/reports/json_report.h"
#include "core/reports/sarif_report.h"
#include "core/reports/text_report.h"
#include "core/session/review_service.h"
#include "core/support/terminal_text.h"

namespace revline::cli {

int runReviewCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  std::vector<OptionSpec> specs = reviewOptionSpecs();
  specs.insert(specs.end(), {{"base", true}, {"staged"}, {"stdin"}, {"format", true}, {"fail-on", true}, {"no-cache"}, {"help"}});
  const ParsedArgs parsed("revline review", specs, args);
  if (parsed.has("help")) {
    out << "usage: revline review [--base REF | --staged | --stdin] [--format text|json|sarif|github]\n"
           "                      [--fail-on SEVERITY] [--no-cache] [provider options]\n\n"
           "Reviews the working-tree diff (untracked files that git status lists count as added), keeps only\n"
           "findings on lines the diff touches, and decides the verdict by policy.\n\n"
           "  --base REF           review the working tree against the merge base of REF and HEAD; the\n"
           "                       messages of the commits since then are shown to the model as intent\n"
           "  --staged             review the index against HEAD\n"
           "  --stdin              review a patch read from standard input; outside a git repository the\n"
           "                       model gets no repository tools (nothing but the patch is read)\n"
           "  --format F           text (default), json, sarif (code scanning), github (a PR review payload)\n"
           "  --fail-on SEVERITY   also exit 1 when any finding is at least BLOCKER|MAJOR|MINOR|NIT\n"
           "  --no-cache           send the whole diff to the model; by default a model is sent only the\n"
           "                       hunks it has not reviewed before (.git/revline/hunks/), and the findings\n"
           "                       of the others are carried over\n"
        << kReviewOptionsHelp
        << "\nConfiguration: ~/.config/revline/config.json (yours), then .revline.json at the repository root;\n"
           "these flags override both. An untrusted repository's base_url, api_key_env, model, remote provider\n"
           "and outside cassette are ignored (see `revline trust --help`).\n"
           "exit: 0 approve or comment, 1 request changes (or --fail-on met), 2 error (message on stderr)\n";
    return 0;
  }
  if (!parsed.positional().empty())
    throw UsageError("unexpected argument \"" + parsed.positional()[0] +
                     "\": revline review takes no revisions or paths; to review a branch's change use --base REF "
                     "(from the merge base of REF and HEAD to the working tree), or pipe one diff: "
                     "`git diff A B | revline review --stdin`");
  const std::string format = parsed.wordValue("format").value_or("text");
  if (format != "text" && format != "json" && format != "sarif" && format != "github") {
    throw UsageError("--format expects text, json, sarif or github, got \"" + format + "\"");
  }
  std::optional<contract::Severity> failOn;
  if (auto v = parsed.value("fail-on")) {
    failOn = reports::parseFailOn(*v);
    if (!failOn) throw UsageError("--fail-on expects BLOCKER, MAJOR, MINOR or NIT, got \"" + *v + "\"");
  }

  applyReviewFlags({}, parsed);  // a bad number is said now, not after git has run
  // What the review worked around before it started (an untrusted repository's
  // settings ignored, its git programs not run) is in the report's warnings, as
  // the review's own are: a CI job that keeps only the report still learns it.
  std::vector<std::string> notices;
  session::ReviewRequest request =
      reviewRequestFor(readDiff(parsed, in, err, "revline review"), parsed, "revline review", err, &notices);
  const std::filesystem::path root = parsed.has("stdin") ? std::filesystem::path() : request.root;
  request.progress = terminalProgress(err, "revline review");
  request.fullReview = parsed.has("no-cache");
  // A fresh opinion of the change: the editor's whole reviews of it (which this
  // command does not keep) must not answer its next open or save in its place.
  if (request.fullReview && !root.empty()) session::ReviewCache::forgetRepository(root);
  // The server's per-hunk cache too: a re-run after an edit sends only the edited
  // hunks. Not for a patch on stdin: it need not be this work tree's change, and
  // its review must leave nothing behind in the repository it runs in.
  session::HunkCache hunks;
  session::ReviewResult result;
  try {
    result = reviewReportingSpend(session::ReviewService({}, nullptr, {}, parsed.has("stdin") ? nullptr : &hunks),
                                  std::move(request), err, "revline review");
  } catch (...) {
    for (const auto& w : notices) err << logLine("revline review: warning: ", w);  // they may explain the failure
    throw;
  }
  result.outcome.warnings.insert(result.outcome.warnings.begin(), notices.begin(), notices.end());
  const review::ReviewOutcome& outcome = result.outcome;
  const diff::Diff& selected = result.reviewed;

  if (format == "json") {
    out << reports::renderJson(outcome).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  } else if (format == "sarif") {
    out << reports::renderSarif(outcome).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  } else if (format == "github") {
    out << reports::renderGithubReview(outcome, selected, {}).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    // GitHub places a review comment on the pull request head's lines; a merge
    // checkout's differ wherever the base branch moved above the change.
    if (!root.empty() && git::headIsPullRequestMerge(root))
      err << "revline review: warning: HEAD is GitHub's merge commit of a pull request (actions/checkout checks out refs/pull/N/merge for "
             "pull_request events): the lines of this review are the merge's, and GitHub places review comments on "
             "the pull request head's lines; check out the head instead (actions/checkout: ref: "
             "${{ github.event.pull_request.head.sha }}), or use `revline pr`\n";
  } else {
    out << reports::renderText(outcome);
  }
  for (const auto& w : outcome.warnings) err << logLine("revline review: warning: ", w);
  // The text report and the GitHub review's body list them; a JSON or SARIF
  // file's reader (code scanning) would not see why the verdict is not APPROVE.
  if (format == "json" || format == "sarif")
    for (const auto& u : reports::unplacedBlockingLines(outcome)) err << logLine("revline review: ", u);
  if (const std::string why = reports::failOnNotice(outcome, failOn); !why.empty()) err << "revline review: " << why << "\n";
  return reports::exitCodeFor(outcome, failOn);
}

}  // namespace revline::cli
