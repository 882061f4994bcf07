// The read-only repository tools a model may call during a review:
// read_file, search_text, glob and find_usages. Their input schemas come from
// the typed inputs in tool_input.h; every call is parsed and validated (bad
// arguments become a tool error the model sees, never a crash) and runs inside
// the Sandbox.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/review/provider.h"
#include "core/tools/sandbox.h"
#include "core/tools/tool_input.h"

namespace revline::tools {

class RepositoryTools : public review::ToolExecutor {
 public:
  // `root`: the repository's work tree (the new version of the files under review).
  explicit RepositoryTools(const std::filesystem::path& root, ToolLimits limits = {});

  std::vector<review::ToolSpec> specs() const override;
  // Throws Cancelled when `cancel` is cancelled during a search (the review was cancelled).
  review::ToolResult execute(const review::ToolCall& call, const CancelToken& cancel) override;
  void redactWith(review::SecretFinder finder) override { sandbox_.redactWith(std::move(finder)); }
  // A file's whole text through the sandbox (inside the root, text, under the size cap).
  std::optional<std::string> newFileText(const std::string& path) const override;

  // The tools one by one (also what execute() dispatches to).
  Result<std::string> readFile(const ReadFileInput& in) const;
  // The scans check `cancel` between files.
  Result<std::string> searchText(const SearchTextInput& in, const CancelToken& cancel = CancelToken()) const;
  Result<std::string> glob(const GlobInput& in, const CancelToken& cancel = CancelToken()) const;
  Result<std::string> findUsages(const FindUsagesInput& in, const CancelToken& cancel = CancelToken()) const;

  const Sandbox& sandbox() const { return sandbox_; }
  // Sandbox::readNewSideFrom: the change's files read as git has their new side.
  void readNewSideFrom(std::shared_ptr<const diff::NewVersions> versions) {
    sandbox_.readNewSideFrom(std::move(versions));
  }
  // Sandbox::changeHolds: the change's files are this repository's wherever they are.
  void changeHolds(std::set<std::string> paths) { sandbox_.changeHolds(std::move(paths)); }
  // Sandbox::hideWhatGitHides: what git keeps out of the review is neither read nor listed.
  void hideWhatGitHides(Sandbox::GitHiddenLister lister) { sandbox_.hideWhatGitHides(std::move(lister)); }

 private:
  Sandbox sandbox_;
};

}  // namespace revline::tools
