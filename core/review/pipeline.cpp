#include "core/review/pipeline.h"

#include "core/contract/schema.h"
#include "core/review/attempt_loop.h"
#include "core/review/grounding.h"
#include "core/review/prompt.h"
#include "core/review/redaction.h"

namespace revline::review {

ReviewOutcome runReview(const diff::Diff& diff, Provider& provider, const ReviewOptions& options,
                        ToolExecutor* tools, const CancelToken& cancel) {
  ReviewOutcome outcome;
  outcome.provider = provider.name();
  outcome.model = provider.model();
  if (diff.files.empty()) {
    // Nothing changed: nothing to ask, nothing to find.
    outcome.summary = "No changes to review.";
    return outcome;
  }

  ModelRequest request;
  const bool toolsOffered = tools && options.maxToolCalls > 0;
  request.system = systemPrompt(options.extraInstructions, toolsOffered);
  // A remote provider gets the diff (and the tools' reads) with secrets removed
  // from the raw text, before any line number is added.
  const SecretFinder finder = provider.remote() ? provider.secretFinder() : SecretFinder{};
  if (finder && tools) tools->redactWith(finder);
  request.messages.push_back({Role::User, finder ? userPrompt(redactDiff(diff, finder)) : userPrompt(diff), {}, {}});
  request.schema = contract::reportSchemaOrdered();

  AttemptResult answer = runAttempts(provider, std::move(request), {options.maxAttempts, options.maxToolCalls},
                                     toolsOffered ? tools : nullptr, cancel);

  GroundingResult grounded = ground(answer.report.findings, diff);
  outcome.findings = applyPublicationFilters(std::move(grounded.grounded), options.policy);
  outcome.rejected = std::move(grounded.rejected);
  outcome.verdict = decideVerdict(outcome.findings, options.policy);
  outcome.modelVerdict = answer.report.verdict;
  outcome.summary = std::move(answer.report.summary);
  outcome.warnings = std::move(answer.warnings);
  outcome.attempts = answer.attempts;
  outcome.toolCalls = answer.toolCalls;
  outcome.usage = answer.usage;
  return outcome;
}

}  // namespace revline::review
