// One review, end to end: prompt -> attempt loop (provider, reply parser,
// retries with feedback, tools) -> grounding -> publication filters -> policy.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/contract/contract.h"
#include "core/diff/diff.h"
#include "core/diff/function_context.h"
#include "core/review/options.h"
#include "core/review/policy.h"
#include "core/review/published_finding.h"
#include "core/review/provider.h"
#include "core/support/cancel.h"

namespace revline::review {



struct RejectedFinding {
  contract::Finding finding;
  std::string reason;  // e.g. "line 412 of 'src/A.java' is not among the lines this diff touches"
  std::size_t index = 0;  // position in the model's findings list
  // It would block by policy, had it been placed: what unplacedBlocking counts (set by runReview).
  bool blocking = false;
};

// A file of the diff that was not sent to the reviewer, and why.
struct SkippedFile {
  std::string path;
  std::string reason;      // e.g. "lock file", "excluded by the exclude setting"
  std::int64_t lines = 0;  // its added and removed lines (counted in coverage.linesTotal)
  // Left out by a limit (the request token budget, max_requests), not by
  // choice: the change was not all reviewed, so the verdict cannot be APPROVE.
  bool overLimit = false;
  bool partial = false;  // only some hunks (`lines` of them) were left out; the file counts as reviewed
  // For a partial entry, the lines left out: spans of the new file's numbers, and
  // of the old file's for removed lines, so that what was reviewed of the file can
  // be kept hunk by hunk (session/hunk_cache.h). Not part of any report.
  struct LineSpan {
    bool oldFile = false;
    std::int64_t first = 0, last = 0;
  };
  std::vector<LineSpan> leftOut;
  // Never in the diff at all (git::LeftOut: an untracked file over the size cap,
  // an unmerged path), so never in a request's plan either; overLimit is set too,
  // unless it is not part of the change (an untracked repository inside this one).
  bool notInDiff = false;
  // Part of the change that the diff could not show: what keeps a cached review from approving.
  bool unseenPartOfTheChange() const { return notInDiff && overLimit; }
};

// Per-review input beyond the diff, supplied by the caller.
struct ReviewInputs {
  std::vector<std::string> commitMessages;  // subject and body of each commit under review (untrusted)
  std::vector<SkippedFile> filesSkipped;    // files of the change that were not sent (selection)
  // One request of a review split into several (session/chunked_review.h): the
  // whole diff it is part of. A finding on a changed line of a file another
  // request holds (the model read it with a tool) is placed there, not rejected
  // as "not a file this diff changes"; merging the requests drops the duplicate.
  // Null: the request's own diff is the change.
  const diff::Diff* wholeChange = nullptr;
};

// What the reviewer was shown, against what the change holds (cli.md "coverage").
struct Coverage {
  int filesReviewed = 0, filesTotal = 0;
  std::int64_t linesReviewed = 0, linesTotal = 0;  // added and removed lines
  std::vector<SkippedFile> filesSkipped;
};

// The grounding feedback round: findings of the first answer that could not be
// placed were listed back to the model with their reasons.
struct GroundingRetry {
  int rejected = 0;  // findings of the first answer that were fed back
  int placed = 0;    // findings of the second answer that grounded
};

// How a review under a token budget was sent (session/chunked_review.h).
struct Chunking {
  std::int64_t budgetTokens = 0;    // max_input_tokens in force
  std::int64_t fixedTokens = 0;     // every request's part besides the diff (system, schema, intent, tools)
  std::int64_t reserveTokens = 0;   // kept for the later turns (tool results, answers)
  std::int64_t diffTokens = 0;      // the diff's parts, each once
  int requests = 0;                 // reviews sent (each may take tool rounds and a retry)
  std::int64_t minimumRequests = 0; // no split of the diff into requests needs fewer
};

struct ReviewOutcome {
  contract::Verdict verdict = contract::Verdict::Approve;  // decided by policy
  // What the model answered (the worst over a split review's requests); nullopt
  // when no model answered in this review (nothing to send, every hunk cached).
  std::optional<contract::Verdict> modelVerdict;
  std::string summary;
  std::vector<PublishedFinding> findings;
  std::vector<RejectedFinding> rejected;  // from the last answer grounded
  // Rejected findings that would have blocked by policy; when the model asked
  // for changes and any remain, the verdict is at least COMMENT, never APPROVE.
  int unplacedBlocking = 0;
  // Findings left out by the max_findings cap (the summary says so too): the
  // editor, which shows no summary, says it beside the count.
  std::size_t findingsOverCap = 0;
  std::optional<GroundingRetry> groundingRetry;  // set when the feedback round ran
  Coverage coverage;
  std::vector<std::string> warnings;  // reply repairs etc., for logs
  int attempts = 0;
  int toolCalls = 0;
  std::string provider;
  std::string model;
  // The reviewer is a model behind an API (Provider::metered): its reports say
  // what was spent even when nothing was (every part reviewed before).
  bool metered = false;
  Usage usage;    // requests, tokens (cached among them), tool calls of the budget
  Prices prices;  // as configured, for the cost the reports state (cost.h)
  std::optional<Chunking> chunking;  // set when a token budget applied
  // Of a review split into requests (set by session::reviewInChunks): the files
  // of the requests whose answer keeps the review from approving beyond its
  // findings (a blocking finding not placed, changes asked for and not shown).
  // The per-hunk cache keeps the other requests' reviews, not these files'.
  // nullopt: one request held the whole change, so its evidence is the review's.
  std::optional<std::vector<std::string>> unsettledFiles;
};

// The contract could not be met within maxAttempts; what() lists every problem.
class ContractFailure : public std::runtime_error {
 public:
  // `spent`: what the failed conversation consumed (a failure still costs).
  explicit ContractFailure(const std::string& message, Usage spent = {})
      : std::runtime_error(message), spent_(spent) {}
  const Usage& spent() const { return spent_; }

 private:
  Usage spent_;
};

// What the reviewer is shown of a change: `diff` (the selection) against the
// files `inputs` lists as left out.
Coverage coverageOf(const diff::Diff& diff, const ReviewInputs& inputs);

// The function context (diff/function_context.h) the model is shown around
// each hunk, per file and hunk, read through `files` (ToolExecutor::newFileText,
// so confined and redacted like the tools); empty with ContextMode::Hunk or
// without files.
std::vector<std::vector<diff::HunkContext>> functionContextOf(const diff::Diff& diff, const ReviewOptions& options,
                                                              const ToolExecutor* files);

// Each hunk's enclosing function found for that hunk alone, not trimmed by the
// file's other hunks: what a request holding only that hunk shows, and what a
// hunk's cache key holds. One entry per hunk of `file` (nullopt: none); the
// file's text is read once, under the same conditions as functionContextOf.
std::vector<std::optional<diff::HunkContext>> functionContextPerHunk(const diff::FileDiff& file,
                                                                     const ReviewOptions& options,
                                                                     const ToolExecutor* files);

// What kept this outcome from approving (policy.h ApprovalEvidence).
ApprovalEvidence approvalEvidence(const ReviewOutcome& outcome);

// Records that the max_findings cap left `overCap` findings out of `outcome`:
// findingsOverCap, and the summary's sentence (notePublicationCap).
void noteFindingsOverCap(ReviewOutcome& outcome, std::size_t overCap, const PolicyConfig& policy);

// The first request of a review, exactly as `provider` receives it: system
// prompt, the intent and annotated diff (with function context, redacted for a
// remote provider), the schema; no tools yet (runAttempts adds them). Sets
// `tools`' redaction for a remote provider. `revline diff --prompt` prints it.
ModelRequest firstRequest(const diff::Diff& diff, const Provider& provider, const ReviewOptions& options,
                          ToolExecutor* tools, const ReviewInputs& inputs = {});

// Throws ProviderError (provider failed; not retried), ContractFailure, or Cancelled.
// `tools` may be null (no repository tools offered); when set, it also supplies
// the new files' text for function context (ToolExecutor::newFileText).
ReviewOutcome runReview(const diff::Diff& diff, Provider& provider, const ReviewOptions& options,
                        ToolExecutor* tools, const CancelToken& cancel, const ReviewInputs& inputs = {});
// The same with the first request already built by firstRequest(diff, provider,
// options, tools, inputs) (a caller that measured it need not build it again).
ReviewOutcome runReview(const diff::Diff& diff, Provider& provider, const ReviewOptions& options,
                        ToolExecutor* tools, const CancelToken& cancel, const ReviewInputs& inputs,
                        ModelRequest first);

// Added plus removed lines of one file section.
std::int64_t changedLines(const diff::FileDiff& file);

}  // namespace revline::review
