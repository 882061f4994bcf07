// `revline pr`: clone and check out a pull request with `gh`, review its diff,
// and print or post a GitHub review. Every external command goes through
// process::run (argument vector, timeout, stderr kept for the error message).
#include "core/cli/pr_command.h"

#include <algorithm>
#include <cstdlib>
#include <cctype>
#include <fstream>
#include <optional>
#include <set>

#include "core/cli/args.h"
#include "core/cli/review_session.h"
#include "core/cli/subcommands.h"
#include "core/config/config.h"
#include "core/config/user_config.h"
#include "core/diff/diff.h"
#include "core/diff/git_paths.h"
#include "core/git/git.h"
#include "core/process/process.h"
#include "core/reports/gate.h"
#include "core/reports/github_history.h"
#include "core/reports/github_review.h"
#include "core/reports/json_report.h"
#include "core/reports/sarif_report.h"
#include "core/reports/text_report.h"
#include "core/session/review_service.h"
#include "core/support/json.h"
#include "core/support/terminal_text.h"

namespace revline::cli {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr const char* kUsage =
    "usage: revline pr OWNER/REPO NUMBER [--post] [--format github|json|sarif|text] [--fail-on SEVERITY]\n"
    "                  [--approve] [--max-comments N] [provider options]\n\n"
    "Reviews a GitHub pull request with the GitHub CLI (`gh`, logged in with `gh auth login` or GH_TOKEN):\n"
    "a fresh clone in .revline/workspaces/OWNER-REPO-NUMBER (the previous one is removed), the pull\n"
    "request checked out there, its diff from `gh pr diff`. Configuration (.revline.json) is read from the\n"
    "repository's default branch, never from the pull request. Without --post the review payload is printed.\n\n"
    "  --post               submit the review (gh api repos/OWNER/REPO/pulls/NUMBER/reviews); nothing is\n"
    "                       posted when no finding survives and the verdict is not REQUEST_CHANGES, or when\n"
    "                       revline's latest review there already said it; findings posted before are not\n"
    "                       commented again, and revline's own earlier request for changes is dismissed\n"
    "                       once it no longer applies (docs/CI.md)\n"
    "  --format F           what to print: github (the payload; default without --post), json, sarif,\n"
    "                       text (default with --post)\n"
    "  --fail-on SEVERITY   also exit 1 when any finding is at least BLOCKER|MAJOR|MINOR|NIT\n"
    "  --approve            post APPROVE when the policy approves (default: COMMENT)\n"
    "  --max-comments N     inline comments at most, the most severe first; the rest go in the body (default 10)\n";

constexpr const char* kPrViewFields = "number,title,body,url,state,headRefOid,headRefName,baseRefName";

// "TITLE\n\nBODY" from `gh pr view --json title,body`; empty when neither is there.
std::string pullRequestIntent(const json& info) {
  auto text = [&](const char* key) {
    return info.contains(key) && info[key].is_string() ? info[key].get<std::string>() : std::string();
  };
  const std::string title = text("title"), body = text("body");
  if (body.empty()) return title;
  return title.empty() ? body : title + "\n\n" + body;
}

bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

bool contains(const std::string& haystack, std::string_view needle) {
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != haystack.end();
}

std::string commandLine(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

// Runs gh with a fixed, non-interactive environment.
class Gh {
 public:
  process::Result run(const std::vector<std::string>& args, const fs::path& cwd = {},
                      std::chrono::milliseconds timeout = 120s, const std::string& input = "") const {
    std::vector<std::string> argv{"gh"};
    argv.insert(argv.end(), args.begin(), args.end());
    process::Options options;
    options.cwd = cwd;
    options.input = input;
    options.timeout = timeout;
    // Plain output whatever the CI sets: CLICOLOR_FORCE (or GH_FORCE_TTY) wins over
    // NO_COLOR in gh, and `gh pr view --json` then printed JSON in colour codes.
    options.env = {{"GH_PROMPT_DISABLED", "1"}, {"GH_NO_UPDATE_NOTIFIER", "1"}, {"NO_COLOR", "1"},
                   {"GH_SPINNER_DISABLED", "1"}, {"CLICOLOR", "0"}, {"CLICOLOR_FORCE", std::nullopt},
                   {"GH_FORCE_TTY", std::nullopt}, {"GIT_TERMINAL_PROMPT", "0"}};
    try {
      return process::run(argv, options);
    } catch (const process::Error& e) {
      if (e.kind() == process::Error::Kind::NotFound) {
        throw PrError("the GitHub CLI `gh` is not installed or not on PATH: install it (Debian: apt-get install gh; "
                      "or https://cli.github.com) and log in with `gh auth login`, or set GH_TOKEN");
      }
      throw PrError("`" + commandLine(argv) + "` failed: " + e.what());
    }
  }

  // `gh pr view NUMBER --json FIELDS`, parsed (run in `cwd`).
  json view(const PullRequestRef& pr, const std::string& fields, const fs::path& cwd = {}) const {
    const std::string out =
        check({"pr", "view", std::to_string(pr.number), "--repo", pr.slug(), "--json", fields}, pr, cwd);
    try {
      return json::parse(out);
    } catch (const json::exception& e) {
      throw PrError("`gh pr view` printed something that is not JSON: " + std::string(e.what()));
    }
  }

  // Runs and throws a PrError that explains the failure when gh exits non-zero.
  std::string check(const std::vector<std::string>& args, const PullRequestRef& pr, const fs::path& cwd = {},
                    std::chrono::milliseconds timeout = 120s, const std::string& input = "") const {
    process::Result r = run(args, cwd, timeout, input);
    if (r.exitCode != 0) throw explain(args, r, pr);
    return r.out;
  }

  static PrError explain(const std::vector<std::string>& args, const process::Result& r, const PullRequestRef& pr) {
    const std::string said = trimmed(r.err.empty() ? r.out : r.err);
    const std::string cmd = "`gh " + commandLine(args) + "`";
    const std::string tail = " (" + cmd + " exited with " + std::to_string(r.exitCode) + ": " + said + ")";
    if (contains(said, "Could not resolve to a PullRequest") ||
        (contains(said, "pull request") && contains(said, "not found")) || contains(said, "no pull requests found")) {
      return PrError("pull request " + pr.slug() + "#" + std::to_string(pr.number) + " does not exist" + tail);
    }
    if (contains(said, "Could not resolve to a Repository") || contains(said, "HTTP 404") ||
        contains(said, "Not Found")) {
      return PrError("repository " + pr.slug() + " or pull request #" + std::to_string(pr.number) +
                     " was not found, or this account cannot see it" + tail);
    }
    if (contains(said, "gh auth login") || contains(said, "not logged") || contains(said, "HTTP 401") ||
        contains(said, "Bad credentials") || contains(said, "authentication")) {
      return PrError("gh is not logged in to GitHub: run `gh auth login` or set GH_TOKEN" + tail);
    }
    return PrError(cmd + " failed with exit code " + std::to_string(r.exitCode) + (said.empty() ? "" : ": " + said));
  }
};

// File names, one a line: only the line ending is removed (a name may begin or end with a space).
std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) out.push_back(std::move(line));
    start = nl + 1;
  }
  return out;
}

// "repos/OWNER/REPO/pulls/NUMBER": the REST path of the pull request, under which its reviews are.
std::string pullPath(const PullRequestRef& pr) { return "repos/" + pr.slug() + "/pulls/" + std::to_string(pr.number); }

// A name as `gh pr diff --name-only` prints it: git's C-quoted form, quotes kept, for an unusual name.
std::string unquotedName(const std::string& name) {
  std::size_t consumed = 0;
  if (name.size() >= 2 && name.front() == '"') {
    if (auto plain = diff::detail::unquoteC(name, consumed); plain && consumed == name.size()) return *plain;
  }
  return name;
}

// GitHub gives no diff of a pull request over its limits (20,000 lines, 300 files):
// HTTP 406; nor of one it cannot make in time: HTTP 422 "this diff is taking too
// long to generate" (not_available), every time it is asked.
bool diffTooLarge(const process::Result& r) {
  const std::string said = r.err + r.out;
  return contains(said, "HTTP 406") || contains(said, "too_large") || contains(said, "exceeded the maximum") ||
         contains(said, "taking too long to generate") || contains(said, "not_available");
}

// What revline posted on the pull request before (github_history.h). Reading it
// may fail (a token without read access to reviews): then the review is posted
// as if it were the first, and the user is told.
reports::PostedBefore readPostedBefore(const Gh& gh, const PullRequestRef& pr, const fs::path& workspace, std::ostream& err) {
  const std::string base = pullPath(pr);
  // Whose markers count: the account posting now (a user's token or an App's, e.g. github-actions[bot]).
  const process::Result viewer =
      gh.run({"api", "graphql", "-f", "query=query{viewer{login}}", "--jq", ".data.viewer.login"}, workspace);
  const std::string login = trimmed(viewer.out);
  if (viewer.exitCode != 0 || login.empty()) {
    err << "revline pr: warning: could not tell which account posts (`gh api graphql` viewer: "
        << terminalSafe(trimmed(viewer.err.empty() ? viewer.out : viewer.err))
        << "): the review is posted as if it were the first (comments may repeat)\n";
    return {};
  }
  const process::Result reviews = gh.run({"api", "--paginate", base + "/reviews?per_page=100"}, workspace);
  const process::Result comments =
      reviews.exitCode == 0 ? gh.run({"api", "--paginate", base + "/comments?per_page=100"}, workspace) : reviews;
  try {
    if (reviews.exitCode != 0 || comments.exitCode != 0) {
      const process::Result& failed = reviews.exitCode != 0 ? reviews : comments;
      throw reports::HistoryError(trimmed(failed.err.empty() ? failed.out : failed.err));
    }
    return reports::readPostedBefore(reviews.out, comments.out, login);
  } catch (const reports::HistoryError& e) {
    err << "revline pr: warning: could not read revline's earlier reviews of " << pr.slug() << "#" << pr.number << " ("
        << terminalSafe(e.what()) << "): the review is posted as if it were the first (comments may repeat)\n";
    return {};
  }
}

// POSTs the review; GitHub takes no REQUEST_CHANGES or APPROVE from the account
// that opened the pull request, so that one is posted as COMMENT (said). Returns GitHub's reply.
json submitReview(const Gh& gh, const PullRequestRef& pr, const fs::path& workspace, json payload, std::string& event,
                  std::ostream& err) {
  const std::string where = pr.slug() + "#" + std::to_string(pr.number);
  const std::vector<std::string> apiArgs{
      "api", pullPath(pr) + "/reviews", "--method", "POST", "--input", "-"};
  process::Result r = gh.run(apiArgs, workspace, 120s, payload.dump());
  // Nor an approval from GitHub Actions where the repository does not let it
  // ("GitHub Actions is not permitted to approve pull requests."): a clean pull
  // request's job went red, nothing posted.
  const bool actionsMayNotApprove = event == "APPROVE" && contains(r.err + r.out, "not permitted to approve");
  if (r.exitCode != 0 && event != "COMMENT" && (contains(r.err + r.out, "your own pull request") || actionsMayNotApprove)) {
    err << "revline pr: note: GitHub takes no " << event << " review "
        << (actionsMayNotApprove ? "from GitHub Actions on " + where + " (the repository's Actions settings do not let it approve)"
                                 : "from the author of " + where)
        << "; posting it as COMMENT (the exit code still says the verdict)\n";
    event = "COMMENT";
    payload["event"] = event;
    r = gh.run(apiArgs, workspace, 120s, payload.dump());
  }
  if (r.exitCode != 0) {
    std::string detail = trimmed(r.err);
    if (!trimmed(r.out).empty()) detail += (detail.empty() ? "" : "; ") + std::string("GitHub said: ") + trimmed(r.out);
    // A token that may read the pull request but not write to it: a workflow run
    // by `pull_request` from a fork (or Dependabot) gets a read-only GITHUB_TOKEN.
    const std::string readOnly =
        contains(detail, "Resource not accessible by integration")
            ? "; the token may not write to pull requests: give the job `permissions: pull-requests: write`; a "
              "pull request from a fork (or Dependabot's) gets a read-only token whatever the workflow asks, so "
              "post from a workflow on `pull_request_target` (it runs the base branch's workflow: never build or run "
              "the pull request's code there), or keep the report as an artifact and post it from `workflow_run` "
              "(docs/CI.md)"
            : "";
    throw PrError("GitHub did not accept the review for " + where + " (`gh api` exited with " + std::to_string(r.exitCode) +
                  "): " + detail + readOnly);
  }
  try {
    return json::parse(r.out);
  } catch (const json::exception&) {
    return json::object();
  }
}

// Dismisses revline's earlier reviews that still request changes, once a
// review of a newer head no longer does. A failure is a warning.
void dismissStandingRequests(const Gh& gh, const PullRequestRef& pr, const fs::path& workspace,
                             const reports::PostedBefore& before, const std::string& head, std::ostream& err) {
  for (const std::int64_t id : reports::standingRequests(before)) {
    const json body = {{"message", "revline reviewed " + (head.empty() ? std::string("the new head") : head) +
                                       ": the changes it requested are no longer needed."},
                       {"event", "DISMISS"}};
    const process::Result r =
        gh.run({"api", pullPath(pr) + "/reviews/" + std::to_string(id) + "/dismissals", "--method", "PUT", "--input", "-"},
               workspace, 120s, body.dump());
    if (r.exitCode == 0) {
      err << "revline pr: dismissed revline's earlier request for changes (review " << id << ")\n";
    } else {
      err << "revline pr: warning: could not dismiss revline's earlier request for changes (review " << id << "): "
          << terminalSafe(trimmed(r.err.empty() ? r.out : r.err))
          << " (dismissing needs a token that can write pull requests)\n";
    }
  }
}

}  // namespace

std::string PullRequestRef::workspaceName() const { return owner + "-" + repo + "-" + std::to_string(number); }

PullRequestRef parsePullRequestRef(const std::string& ownerRepo, const std::string& number) {
  const auto slash = ownerRepo.find('/');
  PullRequestRef pr;
  if (slash != std::string::npos) {
    pr.owner = ownerRepo.substr(0, slash);
    pr.repo = ownerRepo.substr(slash + 1);
  }
  auto valid = [](const std::string& name) {
    return !name.empty() && name.size() <= 100 && name != "." && name != ".." &&
           std::all_of(name.begin(), name.end(), isNameChar);
  };
  if (slash == std::string::npos || !valid(pr.owner) || !valid(pr.repo)) {
    throw UsageError("expected OWNER/REPO (letters, digits, '-', '_', '.'), got \"" + ownerRepo + "\"");
  }
  const bool digits = !number.empty() && number.size() <= 9 &&
                      std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || std::stoi(number) < 1) {
    throw UsageError("expected a pull request NUMBER (a positive whole number), got \"" + number + "\"");
  }
  pr.number = std::stoi(number);
  return pr;
}

fs::path workspaceDir(const fs::path& base, const PullRequestRef& pr) {
  return base / ".revline" / "workspaces" / pr.workspaceName();
}

// The workspace's directories as they are, or a PrError: `.revline` and
// `.revline/workspaces` under the current directory must be real directories
// (or not exist yet), never symlinks. The current directory may be a clone of
// someone's repository whose tracked `.revline` links elsewhere: the workspace
// was removed, cloned and written through it, outside the directory.
void refuseLinkedWorkspace(const fs::path& base, const fs::path& workspace) {
  for (const fs::path& dir : {base / ".revline", base / ".revline" / "workspaces", workspace}) {
    std::error_code ec;
    const fs::file_status status = fs::symlink_status(dir, ec);
    if (ec || !fs::exists(status)) return;  // what is missing is made below, as a directory
    if (fs::is_symlink(status))
      throw PrError(dir.string() + " is a symlink (to " + fs::read_symlink(dir, ec).string() +
                    "): revline pr keeps its pull-request workspaces in a directory of its own there and does not "
                    "remove or write through a link; run revline pr from another directory (not a clone whose "
                    "`.revline` is a link), or remove the link");
    if (!fs::is_directory(status))
      throw PrError(dir.string() + " is not a directory: revline pr keeps its pull-request workspaces there; "
                    "run revline pr from another directory, or move it away");
  }
}

int runPrCommand(const std::vector<std::string>& args, std::istream&, std::ostream& out, std::ostream& err) {
  std::vector<OptionSpec> specs = reviewOptionSpecs();
  specs.insert(specs.end(), {{"post"}, {"format", true}, {"fail-on", true}, {"approve"}, {"max-comments", true}, {"help"}});
  const ParsedArgs parsed("revline pr", specs, args);
  if (parsed.has("help")) {
    out << kUsage << kReviewOptionsHelp
        << "\nexit: 0 approve or comment, 1 request changes (or --fail-on met), 2 error (message on stderr)\n";
    return 0;
  }
  if (parsed.positional().size() != 2) {
    throw UsageError("expected OWNER/REPO NUMBER, e.g. `revline pr octo-org/service 42` (see `revline pr --help`)");
  }
  const PullRequestRef pr = parsePullRequestRef(parsed.positional()[0], parsed.positional()[1]);
  const bool post = parsed.has("post");
  const std::string format = parsed.wordValue("format").value_or(post ? "text" : "github");
  if (format != "text" && format != "json" && format != "sarif" && format != "github") {
    throw UsageError("--format expects github, json, sarif or text, got \"" + format + "\"");
  }
  std::optional<contract::Severity> failOn;
  if (auto v = parsed.value("fail-on")) {
    failOn = reports::parseFailOn(*v);
    if (!failOn) throw UsageError("--fail-on expects BLOCKER, MAJOR, MINOR or NIT, got \"" + *v + "\"");
  }
  reports::GithubReviewOptions reviewOptions;
  reviewOptions.approveAllowed = parsed.has("approve");
  if (auto n = parsed.intValue("max-comments", 0, 100)) reviewOptions.maxInlineComments = static_cast<std::size_t>(*n);
  applyReviewFlags({}, parsed);  // a bad number is said now, not after the clone

  const std::string number = std::to_string(pr.number);
  const std::string where = pr.slug() + "#" + number;
  const Gh gh;
  try {
    // gh itself, and a login (every command below talks to the GitHub API).
    gh.check({"--version"}, pr);
    // Of GitHub's host only (GH_HOST's, for GitHub Enterprise): `gh auth status`
    // fails when any host it knows has a stale token, though this one works.
    const char* ghHost = std::getenv("GH_HOST");
    const std::string host = ghHost && *ghHost ? ghHost : "github.com";
    if (process::Result auth = gh.run({"auth", "status", "--hostname", host}); auth.exitCode != 0) {
      throw PrError("gh is not logged in to GitHub: run `gh auth login` or set GH_TOKEN (`gh auth status`: " +
                    trimmed(auth.err.empty() ? auth.out : auth.err) + ")");
    }

    // The pull request exists (before anything is cloned) and its head commit.
    const json info = gh.view(pr, kPrViewFields);
    std::optional<std::string> headCommit;
    if (info.contains("headRefOid") && info["headRefOid"].is_string()) headCommit = info["headRefOid"].get<std::string>();
    reviewOptions.commitId = headCommit;
    if (info.contains("state") && info["state"].is_string() && info["state"] != "OPEN") {
      err << "revline pr: note: " << where << " is " << terminalSafe(info["state"].get<std::string>()) << "\n";
    }

    // A fresh workspace.
    const fs::path workspace = workspaceDir(fs::current_path(), pr);
    refuseLinkedWorkspace(fs::current_path(), workspace);
    std::error_code ec;
    fs::remove_all(workspace, ec);
    if (ec) throw PrError("cannot remove the previous workspace " + workspace.string() + ": " + ec.message());
    fs::create_directories(workspace.parent_path(), ec);
    if (ec) throw PrError("cannot create " + workspace.parent_path().string() + ": " + ec.message());
    // When run inside a repository, the clones must not show up as its untracked
    // files (a later `revline review` would review them as added files).
    const fs::path ignore = workspace.parent_path().parent_path() / ".gitignore";
    // Not through a link, dangling ones included (written, it would create its target).
    if (!fs::exists(fs::symlink_status(ignore, ec)))
      std::ofstream(ignore) << "# revline's pull-request workspaces (revline pr)\n*\n";

    gh.check({"repo", "clone", pr.slug(), workspace.string()}, pr, {}, 20min);
    // The configuration of the default branch: a pull request must not be able to
    // choose its own reviewer, endpoint or policy. Nor may the repository: whoever
    // runs `revline pr` on it (a reviewer of another's project, a repository made
    // for it) is not its owner, and a file naming `api_key_env: GH_TOKEN` and its
    // own base_url was handed the user's token. Trusted as any repository is:
    // `revline trust` (of the workspace), or the keys given as flags or in the user config.
    std::vector<std::string> notices;
    config::Config config =
        applyReviewFlags(config::loadForRepository(workspace, userConfigUnderFlags(parsed), &notices), parsed);
    // Trusting the workspace covers one pull request's clone, made afresh each run:
    // the flags are the way.
    for (const auto& n : notices)
      err << logLine("revline pr: warning: ",
                     n + (contains(n, "revline trust")
                              ? " For revline pr, trusting the workspace covers only pull request #" +
                                    std::to_string(pr.number) + ": pass the keys as flags (--provider, --model, "
                                    "--base-url, --api-key-env) or set them in your user config."
                              : ""));
    // The pull request's title and body say what it is for (untrusted, like the diff).
    if (!parsed.value("description")) config.review.description = pullRequestIntent(info);
    gh.check({"pr", "checkout", number, "--repo", pr.slug()}, pr, workspace, 10min);

    std::string baseRef;
    if (info.contains("baseRefName") && info["baseRefName"].is_string())
      baseRef = "origin/" + info["baseRefName"].get<std::string>();

    // GitHub's diff, which says where an inline comment may go. A pull request
    // over GitHub's diff limits has none: the checkout's own diff stands in.
    std::string diffText;
    std::vector<std::string> changed;
    bool localDiff = false;
    const std::vector<std::string> diffArgs{"pr", "diff", number, "--repo", pr.slug(), "--color", "never"};
    if (process::Result r = gh.run(diffArgs, workspace); r.exitCode == 0) {
      diffText = r.out;
      for (const auto& name : lines(gh.check({"pr", "diff", number, "--repo", pr.slug(), "--name-only"}, pr, workspace)))
        changed.push_back(unquotedName(name));
    } else if (diffTooLarge(r) && !baseRef.empty()) {
      err << "revline pr: note: GitHub gives no diff of this pull request (too large, or too slow to make: "
          << terminalSafe(trimmed(r.err))
          << "); reviewing the checkout's diff against " << baseRef << " instead\n";
      git::DiffRequest local;
      local.mode = git::DiffRequest::Mode::Base;
      local.base = baseRef;
      local.includeUntracked = false;
      try {
        diffText = git::diffText(workspace, local);
      } catch (const git::GitError& e) {
        throw PrError("GitHub gives no diff of " + where + " (too large), and the checkout's could not be made: " + e.what());
      }
      localDiff = true;
    } else {
      throw Gh::explain(diffArgs, r, pr);
    }

    // The head must not have moved while the workspace and the diff were fetched
    // (a push during the clone): the review is pinned to headRefOid, and lines of
    // a newer diff would land on the wrong lines of it, or make GitHub refuse it.
    if (headCommit) {
      const json again = gh.view(pr, "headRefOid", workspace);
      const std::string now =
          again.contains("headRefOid") && again["headRefOid"].is_string() ? again["headRefOid"].get<std::string>() : "";
      if (now != *headCommit)
        throw PrError(where + "'s head moved from " + *headCommit + " to " + (now.empty() ? "an unknown commit" : now) +
                      " while revline fetched it (a push during the run): nothing was reviewed or posted; run `revline "
                      "pr` again for the new head");
    }

    // Text files the repository's .gitattributes shows as binary (`-diff`): GitHub's
    // diff shows no line of them, as git's does; diffed again in the checkout.
    std::vector<git::LeftOut> leftOut;
    std::string shown = diffText;
    try {
      if (!baseRef.empty() && !localDiff) shown = git::withTextOfFilesShownBinary(workspace, baseRef, diffText, &leftOut);
    } catch (const git::GitError& e) {
      err << "revline pr: warning: the files GitHub's diff shows as binary could not be diffed again as text ("
          << terminalSafe(e.what()) << "): any of them that is text is not reviewed\n";
    }

    diff::Diff parsedDiff;
    try {
      parsedDiff = diff::parse(shown);
    } catch (const diff::ParseError& e) {
      // gh printed what is not a diff (a proxy's HTML page, a login prompt): named as gh's.
      if (localDiff) throw;
      throw PrError("`gh pr diff` printed something that is not a diff (" + std::string(e.what()) + ")");
    }
    {
      std::set<std::string> inDiff;
      for (const auto& f : parsedDiff.files) {
        if (f.newPath) inDiff.insert(*f.newPath);
        if (f.oldPath) inDiff.insert(*f.oldPath);
      }
      std::vector<std::string> missing;
      for (const auto& name : changed) {
        // gh's own reading of the diff's headers cuts a name holding " b/" after it.
        const bool cut = std::any_of(inDiff.begin(), inDiff.end(), [&](const std::string& path) { return path.ends_with(" b/" + name); });
        if (!inDiff.count(name) && !cut) missing.push_back(name);
      }
      if (!missing.empty()) {
        err << "revline pr: warning: " << missing.size() << " changed file(s) have no diff to review:";
        for (const auto& m : missing) err << " " << terminalSafe(m, Newlines::Escape);
        err << "\n";
      }
    }
    session::ReviewRequest request{std::move(parsedDiff), workspace, config, {}, terminalProgress(err, "revline pr")};
    request.leftOut = std::move(leftOut);
    const session::ReviewResult result = reviewReportingSpend(session::ReviewService(), std::move(request), err, "revline pr");
    const review::ReviewOutcome& outcome = result.outcome;
    const diff::Diff& selected = result.reviewed;
    for (const auto& w : outcome.warnings) err << logLine("revline pr: warning: ", w);

    // What was posted before decides what is repeated (github_history.h); read only to post.
    reports::PostedBefore before;
    if (post) {
      before = readPostedBefore(gh, pr, workspace, err);
      reviewOptions.saidBefore = before.findingIds;
      reviewOptions.timesSaidBefore = before.timesSaid;
      reviewOptions.commentedAt = before.commentedAt;
      reviewOptions.resolvesEarlierRequest =
          outcome.verdict != contract::Verdict::RequestChanges && !reports::standingRequests(before).empty();
    }
    // Comments go where GitHub's diff shows lines: not on a file it shows as
    // binary, although the review read that file's text (`selected`).
    const diff::Diff placement = localDiff ? selected : diff::parse(diffText);
    const reports::GithubReview review = reports::buildGithubReview(outcome, placement, reviewOptions);
    const json payload = review.toJson(reviewOptions.commitId);

    if (format == "github") {
      out << payload.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    } else if (format == "json") {
      out << reports::renderJson(outcome).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    } else if (format == "sarif") {
      out << reports::renderSarif(outcome).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    } else {
      out << reports::renderText(outcome);
    }

    if (post) {
      if (reports::repeatsLatestReview(review, before)) {
        err << "revline pr: nothing posted to " << where << ": revline's latest review there already says this (no new "
            << "finding, the same " << review.event << ")\n";
      } else if (!reports::worthPosting(review)) {
        // The event is COMMENT for an approval without --approve: say the verdict the report printed.
        if (outcome.verdict == contract::Verdict::Approve && review.event != "APPROVE")
          err << "revline pr: nothing posted to " << where
              << ": no finding survived and the review approves (an approval is posted only with --approve)\n";
        else
          err << "revline pr: nothing posted to " << where << ": no finding survived and the verdict is "
              << review.event << "\n";
      } else {
        std::string event = review.event;
        const json response = submitReview(gh, pr, workspace, payload, event, err);
        const std::string url = response.contains("html_url") && response["html_url"].is_string() ? response["html_url"].get<std::string>() : "";
        err << "revline pr: posted " << (event == "APPROVE" ? "an " : "a ") << event << " review with " << review.comments.size()
            << (review.comments.size() == 1 ? " inline comment" : " inline comments") << " to " << where
            << (url.empty() ? "" : ": " + url) << "\n";
      }
      // Whether or not anything was posted now (the latest review says this
      // already, or nothing survived): a dismissal that failed before (a job
      // cancelled between its POST and the PUT) left "Changes requested" for good.
      if (review.resolvesEarlierRequest) dismissStandingRequests(gh, pr, workspace, before, headCommit.value_or(""), err);
    }
    if (const std::string why = reports::failOnNotice(outcome, failOn); !why.empty()) err << "revline pr: " << why << "\n";
    return reports::exitCodeFor(outcome, failOn);
  } catch (const PrError& e) {
    err << "revline pr: " << terminalSafe(e.what()) << "\n";
    return 2;
  }
}

}  // namespace revline::cli
