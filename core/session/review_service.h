// The one way a review is run, for every front end: `revline review`, `revline
// pr`, `revline eval` and the language server. It owns what surrounds the
// pipeline (review/pipeline.h): the file selection, the provider (built by an
// injected factory, so tests and the server swap it), the read-only repository
// tools, the intent, and the review cache. It knows no front end: no LSP, no
// command line, no output format.
#pragma once
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/diff/diff.h"
#include "core/git/git.h"
#include "core/review/pipeline.h"
#include "core/session/hunk_cache.h"
#include "core/session/review_cache.h"
#include "core/support/cancel.h"

namespace revline::session {

// Builds the provider a configuration names for one review of `diff` (the
// diff after selection) in `root` (empty: no repository).
using ProviderFactory = std::function<std::unique_ptr<review::Provider>(
    const config::Config& config, const diff::Diff& diff, const std::filesystem::path& root)>;
// providers::makeProvider.
ProviderFactory defaultProviderFactory();

// Produces the `git diff` text of a repository for a request (git::diffText).
// Injected: a test gives the server a change without a git on PATH.
using GitDiff = std::function<std::string(const std::filesystem::path& root, const git::DiffRequest& request)>;
// git::diffText with the default options.
GitDiff defaultGitDiff();

// Wraps the provider of one review: `revline eval` meters and records it, the
// server counts its calls. An empty wrapper leaves it as it is.
using ProviderWrapper = std::function<std::unique_ptr<review::Provider>(std::unique_ptr<review::Provider>)>;

// How far a review split into several requests is (session/chunked_review.h):
// requests done of the total, and the usage the providers reported so far.
struct ReviewProgress {
  int done = 0, total = 0;
  review::Usage usage;
  // Set: not a count but what a request waits for, as the transport says it
  // (CancelToken::notice): "openai: no reply within 120 s; trying again in 1 s
  // (try 2 of 3)"; empty once the wait is over (the retry was answered). done,
  // total and usage are then unset.
  std::optional<std::string> waiting;
};
// Called from the review's worker threads, one call at a time.
using ProgressSink = std::function<void(const ReviewProgress&)>;

// One review asked for.
struct ReviewResult {
  diff::Diff reviewed;            // what was reviewed (the selection of the request's diff)
  review::ReviewOutcome outcome;  // from cache: findings, verdict and coverage as the review had them
  review::ApprovalEvidence evidence;  // what kept it from approving: a verdict over fewer findings
                                      // (the server leaves dismissed ones out) still uses it
  bool fromCache = false;              // no model was asked: every part was reviewed before
  int hunksReused = 0, hunksTotal = 0;  // hunks answered by the per-hunk cache (hunk_cache.h)
};

struct ReviewRequest {
  diff::Diff diff;                           // the change as read (git or a patch), before the selection
  std::filesystem::path root;                // its work tree; empty: no repository (no tools, no file reads)
  config::Config config;                     // the layered configuration, flags applied
  std::vector<git::Commit> commits;          // the commits under review, part of the intent (untrusted)
  ProgressSink progress = {};                // told after each request of a review split into several,
                                             // and what any request waits for (a retry, a rate limit)
  // Send the whole change to the model, now: nothing answered from the review
  // cache, no hunk carried over from the per-hunk cache ("Review this file
  // now", `revline review --no-cache`: a fresh opinion is what is asked for).
  // The result still refreshes both.
  bool fullReview = false;
  // Of a full review: a hunk it leaves out (past max_requests, in a failed
  // request) shows the findings of its last review, not none (the language
  // server: its diagnostics stay until a review reaches their lines). Coverage
  // still lists it as not reviewed.
  bool keepEarlierWhereNotReached = false;
  // Files of the change the diff does not show (an untracked file over the size
  // cap, an unmerged path): listed in coverage as not reviewed, so no APPROVE.
  std::vector<git::LeftOut> leftOut;
  // Told, before review() throws, what a review split into several requests
  // found when some of them were answered and another failed: the findings of
  // the answered ones with those carried over from the per-hunk cache, and
  // coverage listing the rest as not reviewed (so no APPROVE). They were paid
  // for: the language server shows them rather than the last review's. Only
  // where the per-hunk cache applies (a model provider, a repository).
  std::function<void(ReviewResult)> answeredBeforeFailure = {};
  // Where the change's new side is. Not the work tree (--staged: the index;
  // --stdin: a patch): prepare() then reads its files' new text from git
  // (session/new_side.h), and no review reads their work-tree copies, which may
  // hold other edits. The index is the new side of every file: one outside the
  // change with unstaged edits is read as the index has it too, and an
  // untracked one, which a commit would not hold, is not read or listed.
  enum class NewSide { WorkTree, Index, Patch };
  NewSide newSide = NewSide::WorkTree;
};

// What the selection keeps of a request, and what the review is given besides.
struct PreparedReview {
  diff::Diff reviewed;          // the files sent to the reviewer
  review::ReviewInputs inputs;  // commit messages, the files left out with reasons
  // The commits under review with the paths each changed: the model is shown
  // every message (inputs.commitMessages), a hunk's cache key holds those of the
  // commits that changed its file (hunk_cache.h).
  std::vector<git::Commit> commits;
};
PreparedReview prepare(ReviewRequest request);

// A file of the change the diff does not show, as coverage lists it: not
// reviewed, and not by choice, so the verdict cannot be APPROVE.
review::SkippedFile notReviewed(git::LeftOut left);

class ReviewService {
 public:
  // `cache`, when given, answers an unchanged review and keeps each new one;
  // `hunks`, when given, sends a model provider only the hunks it has not
  // reviewed before (incremental review).
  explicit ReviewService(ProviderFactory factory = defaultProviderFactory(), ReviewCache* cache = nullptr,
                         GitDiff gitDiff = defaultGitDiff(), HunkCache* hunks = nullptr);

  // The change `request` names in the repository at `root` (working tree,
  // staged, against a base, limited to paths), parsed; the files of it the
  // diff does not show (git::LeftOut) are listed in `leftOut`.
  diff::Diff readChange(const std::filesystem::path& root, git::DiffRequest request,
                        std::vector<git::LeftOut>* leftOut = nullptr) const;

  // Selects, builds the provider, looks in the cache, else reviews with the
  // repository tools confined to the request's root: only the hunks not in the
  // per-hunk cache (whose findings are carried over), within the token budget
  // per request (chunked_review.h: a larger change in several requests, each
  // with its own provider from the factory, wrapped by `wrap`). A change whose
  // files show no line (binary, renamed, copied, empty or changing mode only) builds no
  // provider and sends nothing. Throws what review::runReview throws, and
  // ProviderError from the factory.
  ReviewResult review(ReviewRequest request, const CancelToken& cancel = CancelToken(),
                      const ProviderWrapper& wrap = {}) const;

  // The cached review of this request, or nullopt: never calls the model (a
  // reopened file shows its last findings). Without a review of the diff as a
  // whole, one put together from the per-hunk cache when some hunk is in it
  // (hunks a checkout -m or a pull moved), the others listed as not reviewed
  // (the save sends them); nullopt when none is. A request with nothing left to
  // review after the selection, or no line to show (renames, mode changes),
  // answers a result without findings, as review() does without a request.
  std::optional<ReviewResult> cached(ReviewRequest request) const;

  // The first request of each model request review() would send now, byte for
  // byte (`revline diff --prompt`): with a per-hunk cache only the hunks not
  // reviewed before (none: empty; request.fullReview: all), one request or
  // several when the change is split to fit max_input_tokens; calls no model.
  // `notSent`, when given, gets "path: reason" for each file a limit leaves out,
  // and a line for the hunks reviewed before.
  std::vector<review::ModelRequest> preview(ReviewRequest request, std::vector<std::string>* notSent = nullptr) const;

 private:
  // The change as the model reads it, enclosing functions included (a commit
  // elsewhere in a changed function changes what it is shown), and how it is asked.
  std::string cacheKey(const review::Provider& provider, const PreparedReview& prepared, const config::Config& config,
                       const review::ToolExecutor& files) const;

  ProviderFactory factory_;
  ReviewCache* cache_;
  GitDiff gitDiff_;
  HunkCache* hunks_;
};

}  // namespace revline::session
