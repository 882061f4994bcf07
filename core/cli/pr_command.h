// `revline pr OWNER/REPO NUMBER [--post]`: review a GitHub pull request through
// the GitHub CLI (`gh`), in a fresh checkout under .revline/workspaces/.
#pragma once
#include <filesystem>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace revline::cli {

// A failure of the `gh` side (missing, not logged in, pull request or repository
// not found, GitHub rejected the review); what() says what happened and how to fix it.
class PrError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PullRequestRef {
  std::string owner;
  std::string repo;
  int number = 0;
  std::string slug() const { return owner + "/" + repo; }           // "OWNER/REPO"
  std::string workspaceName() const;                                  // "OWNER-REPO-NUMBER"
};

// Validates "OWNER/REPO" and "NUMBER" (GitHub's name characters only, so the
// names are safe in a path and an API route); throws UsageError otherwise.
PullRequestRef parsePullRequestRef(const std::string& ownerRepo, const std::string& number);

// <base>/.revline/workspaces/OWNER-REPO-NUMBER
std::filesystem::path workspaceDir(const std::filesystem::path& base, const PullRequestRef& pr);

// The command (declared in subcommands.h too). The commands it runs, in order:
//   gh --version
//   gh auth status --hostname HOST            (GH_HOST, else github.com)
//   gh pr view N --repo O/R --json number,title,url,state,headRefOid,headRefName,baseRefName
//   gh repo clone O/R <workspace>
//   gh pr checkout N --repo O/R                 (in the workspace)
//   gh pr diff N --repo O/R --color never       (in the workspace)
//   gh pr diff N --repo O/R --name-only         (in the workspace)
//   gh api repos/O/R/pulls/N/reviews --method POST --input -    (only with --post)
// Configuration (.revline.json) is read from the clone before the pull request
// is checked out, so the pull request cannot change its own review settings.
int runPrCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace revline::cli
