// A case materialised for review: a fresh git repository in a temporary
// directory holding base/ as its one commit, with the case's patch applied to
// the work tree, so the review sees exactly the working-tree diff a user's
// `revline review` would. Removed when the Workspace goes away.
#pragma once
#include <filesystem>

#include "core/eval/corpus.h"

namespace revline::eval {

class Workspace {
 public:
  // Throws CorpusError naming the case when the patch does not apply, or
  // process::Error when git cannot be run.
  explicit Workspace(const EvalCase& evalCase);
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path root_;
};

}  // namespace revline::eval
