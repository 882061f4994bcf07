// The offline provider: answers every request with the builtin rules' report
// on the diff it was built with, as JSON text that goes through the same reply
// parser, validation and grounding as a model's answer.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/builtin/rules.h"
#include "core/contract/contract.h"
#include "core/diff/diff.h"
#include "core/review/provider.h"

namespace revline::builtin {

class BuiltinProvider : public review::Provider {
 public:
  // What the source lookup could not read (a symlink out of the repository, a
  // FIFO, a file over the size cap), as messages for the summary.
  using SkippedFiles = std::function<std::vector<std::string>()>;

  // `source` optionally supplies whole new files (see SourceLookup).
  explicit BuiltinProvider(diff::Diff diff, SourceLookup source = {}, SkippedFiles skipped = {});

  std::string name() const override { return "builtin"; }
  bool appliesSuppressions() const override { return true; }  // builtin/suppressions.h, with the lexer
  std::string model() const override;
  // Ignores the request: the rules read the diff directly. Throws Cancelled
  // when the token is already cancelled.
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken& cancel) override;

  // The report complete() serializes.
  contract::ReviewReport report(const CancelToken* cancel = nullptr) const;

 private:
  diff::Diff diff_;
  SourceLookup source_;
  SkippedFiles skipped_;
};

// "The builtin rules found 4 problems (1 blocker, 3 major) in 2 changed files."
// or "No problems found by the builtin rules in N changed files."
std::string summarize(const std::vector<contract::Finding>& findings, std::size_t changedFiles);

// The default policy's verdict (review/policy.h) over these findings, whatever
// their confidence: what the builtin answers as its own verdict. Informational:
// the configured policy decides the real one.
contract::Verdict verdictFor(const std::vector<contract::Finding>& findings);

}  // namespace revline::builtin
