#include "core/review/pipeline.h"

#include <algorithm>
#include <set>

#include "core/contract/schema.h"
#include "core/review/attempt_loop.h"
#include "core/review/conversation_fit.h"
#include "core/review/grounding.h"
#include "core/review/prompt.h"
#include "core/review/redaction.h"
#include "core/review/suppression.h"

namespace revline::review {
namespace {

int countBlocking(const std::vector<RejectedFinding>& rejected, const PolicyConfig& policy) {
  return static_cast<int>(std::count_if(rejected.begin(), rejected.end(),
                                        [&](const RejectedFinding& r) { return blocks(r.finding, policy); }));
}

// `count` blocking findings of the first answer's `rejected` that the corrected
// answer (`again`) did not account for: those whose title it neither placed nor
// restated first, then the others in order. Each says so in its reason.
std::vector<RejectedFinding> notRestated(const std::vector<RejectedFinding>& rejected, const GroundingResult& again,
                                         int count, const PolicyConfig& policy) {
  std::set<std::string> titles;
  for (const auto& p : again.grounded) titles.insert(p.finding.title);
  for (const auto& r : again.rejected) titles.insert(r.finding.title);
  std::vector<const RejectedFinding*> order;
  for (bool unmatched : {true, false})
    for (const auto& r : rejected)
      if (blocks(r.finding, policy) && (titles.count(r.finding.title) == 0) == unmatched) order.push_back(&r);
  std::vector<RejectedFinding> out;
  for (const RejectedFinding* r : order) {
    if (static_cast<int>(out.size()) >= count) break;
    out.push_back(*r);
    out.back().reason += "; the corrected answer neither placed nor restated it";
  }
  return out;
}

}  // namespace

std::int64_t changedLines(const diff::FileDiff& file) {
  std::int64_t n = 0;
  for (const auto& h : file.hunks)
    for (const auto& l : h.lines) n += l.kind != diff::LineKind::Context;
  return n;
}

Coverage coverageOf(const diff::Diff& diff, const ReviewInputs& inputs) {
  Coverage c;
  c.filesReviewed = static_cast<int>(diff.files.size());
  for (const auto& f : diff.files) c.linesReviewed += changedLines(f);
  c.filesSkipped = inputs.filesSkipped;
  c.filesTotal = c.filesReviewed;
  c.linesTotal = c.linesReviewed;
  for (const auto& s : c.filesSkipped) {
    c.filesTotal += !s.partial;  // a partly skipped file is one of the files reviewed
    c.linesTotal += s.lines;
  }
  return c;
}

namespace {

// The new text of `f` when its hunks get function context: not a file added
// whole (it is all shown), binary, or without hunks; read through `files`.
std::optional<std::string> contextSource(const diff::FileDiff& f, const ToolExecutor& files) {
  if (!f.newPath || f.binary || f.hunks.empty() || f.status == diff::FileStatus::Added) return std::nullopt;
  return files.newFileText(*f.newPath);
}

}  // namespace

std::vector<std::vector<diff::HunkContext>> functionContextOf(const diff::Diff& diff, const ReviewOptions& options,
                                                               const ToolExecutor* files) {
  std::vector<std::vector<diff::HunkContext>> context;
  if (options.context != ContextMode::Function || !files) return context;
  for (const diff::FileDiff& f : diff.files) {
    const std::optional<std::string> text = contextSource(f, *files);
    context.push_back(text ? diff::functionContext(f, *text, options.functionContextMaxLines)
                           : std::vector<diff::HunkContext>{});
  }
  return context;
}

std::vector<std::optional<diff::HunkContext>> functionContextPerHunk(const diff::FileDiff& file,
                                                                     const ReviewOptions& options,
                                                                     const ToolExecutor* files) {
  std::vector<std::optional<diff::HunkContext>> out(file.hunks.size());
  if (options.context != ContextMode::Function || !files) return out;
  const std::optional<std::string> text = contextSource(file, *files);
  if (!text) return out;
  std::vector<diff::HunkContext> each = diff::functionContextOfEachAlone(file, *text, options.functionContextMaxLines);
  for (std::size_t i = 0; i < each.size(); ++i) out[i] = std::move(each[i]);
  return out;
}

ApprovalEvidence approvalEvidence(const ReviewOutcome& outcome) {
  const auto notReviewed = std::count_if(outcome.coverage.filesSkipped.begin(), outcome.coverage.filesSkipped.end(),
                                         [](const SkippedFile& s) { return s.overLimit; });
  return {outcome.unplacedBlocking,
          outcome.modelVerdict == contract::Verdict::RequestChanges &&
              (!outcome.rejected.empty() || outcome.findings.empty()),
          static_cast<int>(notReviewed)};
}

void noteFindingsOverCap(ReviewOutcome& outcome, std::size_t overCap, const PolicyConfig& policy) {
  outcome.findingsOverCap = overCap;
  notePublicationCap(outcome.summary, overCap, policy);
}

ModelRequest firstRequest(const diff::Diff& diff, const Provider& provider, const ReviewOptions& options,
                          ToolExecutor* tools, const ReviewInputs& inputs) {
  ModelRequest request;
  request.system = systemPrompt(options.extraInstructions, tools ? options.maxToolCalls : 0);
  // A remote provider gets the diff (and the tools' reads) with secrets removed
  // from the raw text, before any line number is added.
  const SecretFinder finder = provider.remote() ? provider.secretFinder() : SecretFinder{};
  if (finder && tools) tools->redactWith(finder);
  PromptInput prompt{functionContextOf(diff, options, tools), options.description, inputs.commitMessages,
                     maxIntentCharsFor(options.inputTokenBudget)};
  if (finder) {
    prompt.description = redactSpans(prompt.description, finder(prompt.description, ""));
    for (std::string& m : prompt.commitMessages) m = redactSpans(m, finder(m, ""));
  }
  request.messages.push_back({Role::User, userPrompt(finder ? redactDiff(diff, finder) : diff, prompt), {}, {}});
  request.schema = contract::reportSchemaOrdered();
  return request;
}

ReviewOutcome runReview(const diff::Diff& diff, Provider& provider, const ReviewOptions& options,
                        ToolExecutor* tools, const CancelToken& cancel, const ReviewInputs& inputs) {
  if (diff.files.empty()) return runReview(diff, provider, options, tools, cancel, inputs, ModelRequest{});
  return runReview(diff, provider, options, tools, cancel, inputs, firstRequest(diff, provider, options, tools, inputs));
}

ReviewOutcome runReview(const diff::Diff& diff, Provider& provider, const ReviewOptions& options,
                        ToolExecutor* tools, const CancelToken& cancel, const ReviewInputs& inputs,
                        ModelRequest request) {
  ReviewOutcome outcome;
  outcome.provider = provider.name();
  outcome.model = provider.model();
  outcome.metered = provider.metered();
  outcome.prices = options.prices;
  outcome.coverage = coverageOf(diff, inputs);
  if (diff.files.empty()) {
    // Nothing changed: nothing to ask, nothing to find.
    outcome.summary = outcome.coverage.filesSkipped.empty() ? "No changes to review."
                                                            : "No reviewable changes: every changed file was skipped.";
    // A file the diff could not show was not reviewed: no approval of it.
    outcome.verdict = decideVerdict({}, options.policy, approvalEvidence(outcome));
    return outcome;
  }

  const bool toolsOffered = tools && options.maxToolCalls > 0;
  AttemptResult answer = runAttempts(provider, std::move(request),
                                     {options.maxAttempts, options.maxToolCalls, options.inputTokenBudget},
                                     toolsOffered ? tools : nullptr, cancel);
  const diff::Diff& scope = inputs.wholeChange ? *inputs.wholeChange : diff;  // where a finding may be placed
  // A remote model was shown the diff redacted: grounding reads its edits and
  // quotes lines (in the feedback below and in every report) as it was shown.
  // Else a model could draw a removed secret out, line by line, by citing old
  // line numbers, and a withheld fix's reason would print the secret.
  const SecretFinder finder = provider.remote() ? provider.secretFinder() : SecretFinder{};
  GroundingResult grounded = ground(answer.report.findings, scope, finder);
  int unplacedBlocking = countBlocking(grounded.rejected, options.policy);

  // Grounding feedback: the findings that could not be placed go back to the
  // model once, with their reasons, while attempts remain; the placed ones are kept.
  if (!grounded.rejected.empty() && answer.attempts < options.maxAttempts) {
    ModelRequest retry = std::move(answer.conversation);
    retry.messages.push_back({Role::User, groundingFeedbackMessage(grounded.rejected), {}, {}});
    const int toolsLeft = std::max(0, options.maxToolCalls - answer.toolCalls);
    GroundingRetry round{static_cast<int>(grounded.rejected.size()), 0};
    // The round failed: the first answer is kept, and what the round's calls spent is counted.
    auto keepFirstAnswer = [&](const Usage& spent, const std::string& why) {
      answer.usage += spent;
      answer.toolCalls += static_cast<int>(spent.toolCalls);
      answer.warnings.push_back(why);
    };
    try {
      // The tools stay offered (with what is left of the budget) so the
      // conversation's cached prefix is unchanged.
      AttemptResult second =
          runAttempts(provider, std::move(retry),
                      {options.maxAttempts - answer.attempts, toolsLeft, options.inputTokenBudget},
                      toolsOffered ? tools : nullptr, cancel);
      answer.attempts += second.attempts;
      answer.toolCalls += second.toolCalls;
      answer.usage += second.usage;
      answer.warnings.insert(answer.warnings.end(), second.warnings.begin(), second.warnings.end());
      GroundingResult again = ground(second.report.findings, scope, finder);
      int placedBlocking = 0;
      for (const auto& p : again.grounded) placedBlocking += blocks(p.finding, options.policy);
      round.placed = static_cast<int>(again.grounded.size());
      const int restated = countBlocking(again.rejected, options.policy);
      unplacedBlocking = std::max(restated, unplacedBlocking - placedBlocking);
      // A blocking finding the corrected answer neither placed nor restated still
      // holds the verdict back (dropping it is no answer to it), and is shown.
      std::vector<RejectedFinding> dropped =
          notRestated(grounded.rejected, again, unplacedBlocking - restated, options.policy);
      for (auto& p : again.grounded) grounded.grounded.push_back(std::move(p));
      grounded.rejected = std::move(again.rejected);
      for (auto& r : dropped) grounded.rejected.push_back(std::move(r));
      outcome.groundingRetry = round;
    } catch (const ContractFailure& e) {
      answer.attempts = options.maxAttempts;  // the round used every attempt left
      keepFirstAnswer(e.spent(), std::string("the corrected findings did not meet the contract; the first answer is kept: ") +
                                     e.what());
      outcome.groundingRetry = round;  // the round was answered, if not within the contract
    } catch (const BudgetExceeded& e) {
      // The round no longer fits the request budget; its unplaced findings stay rejected.
      keepFirstAnswer(e.spent(), std::string("the grounding feedback round was not sent; the first answer is kept: ") +
                                     e.what());
    } catch (const ProviderError& e) {
      // The round is optional and the first answer was good: a provider that
      // fails now (HTTP 503, a timeout) must not throw away a review already paid
      // for. Its unplaced findings stay rejected (and a blocking one still
      // prevents APPROVE).
      keepFirstAnswer({}, std::string("the grounding feedback round failed; the first answer is kept: ") + e.what());
    }
  }

  // Lines a `revline: ignore` comment marks deliberate: not published (a model's
  // findings too: a team's only way to silence a false positive in CI).
  if (!provider.appliesSuppressions()) dropSuppressed(grounded.grounded, scope, answer.warnings);
  std::size_t overCap = 0;
  outcome.findings = applyPublicationFilters(std::move(grounded.grounded), options.policy, &overCap);
  outcome.rejected = std::move(grounded.rejected);
  for (RejectedFinding& r : outcome.rejected) r.blocking = blocks(r.finding, options.policy);
  outcome.unplacedBlocking = std::max(0, unplacedBlocking);
  outcome.modelVerdict = answer.report.verdict;
  // No false approval: findings the model meant could not be placed, so the
  // change was not shown to be fine.
  outcome.verdict = decideVerdict(outcome.findings, options.policy, approvalEvidence(outcome));
  outcome.summary = std::move(answer.report.summary);
  noteFindingsOverCap(outcome, overCap, options.policy);
  outcome.warnings = std::move(answer.warnings);
  outcome.attempts = answer.attempts;
  outcome.toolCalls = answer.toolCalls;
  outcome.usage = answer.usage;
  outcome.usage.toolCalls = answer.toolCalls;
  outcome.usage.toolCallBudget = toolsOffered ? options.maxToolCalls : 0;
  return outcome;
}

}  // namespace revline::review
