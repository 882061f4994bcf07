#include "core/session/review_service.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "core/config/selection.h"
#include "core/config/state_key.h"
#include "core/config/user_config.h"
#include "core/diff/render.h"
#include "core/git/git_directory.h"
#include "core/providers/factory.h"
#include "core/session/chunked_review.h"
#include "core/session/new_side.h"
#include "core/session/notebooks.h"
#include "core/support/repo_file.h"
#include "core/tools/repository_tools.h"

namespace revline::session {

ProviderFactory defaultProviderFactory() {
  return [](const config::Config& config, const diff::Diff& diff, const std::filesystem::path& root) {
    return providers::makeProvider(config, diff, root);
  };
}

namespace {
// --staged: at most this much of the index's text of files outside the change
// with unstaged edits is held; the tools refuse such a file past it (never
// reading its work-tree copy instead).
constexpr std::size_t kMaxUnstagedBytes = 32 * 1024 * 1024;

// The files of the change the repository's .gitattributes marks generated or
// vendored (linguist's attributes). Not when the change edits a .gitattributes:
// a change does not take its own code out of review by marking it so.
std::map<std::string, std::string> markedByLinguist(const std::filesystem::path& root, const diff::Diff& diff,
                                                    bool fromIndex) {
  if (root.empty()) return {};
  std::vector<std::string> paths;
  for (const auto& f : diff.files) {
    for (const auto& name : {f.oldPath, f.newPath})
      if (name && (*name == ".gitattributes" || name->ends_with("/.gitattributes"))) return {};
    if (f.newPath) paths.push_back(*f.newPath);
  }
  return git::linguistMarks(root, paths, fromIndex);
}

}  // namespace

PreparedReview prepare(ReviewRequest request) {
  diff::requireOneSectionPerFile(request.diff);  // findings are placed by path and line
  // --staged: the attributes the commit will hold (the index's), not unstaged edits of them.
  const std::map<std::string, std::string> linguist =
      markedByLinguist(request.root, request.diff, request.newSide == ReviewRequest::NewSide::Index);
  config::Selection selection = config::selectFiles(std::move(request.diff), request.config, linguist,
                                                         request.newSide == ReviewRequest::NewSide::WorkTree);
  PreparedReview prepared;
  prepared.reviewed = std::move(selection.diff);
  if (request.newSide != ReviewRequest::NewSide::WorkTree && !request.root.empty()) {
    auto versions = newVersionsFromGit(request.root, prepared.reviewed, support::kMaxRepositoryFileBytes);
    if (request.newSide == ReviewRequest::NewSide::Index) {
      addIndexVersionsOfUnstaged(request.root, prepared.reviewed, *versions, support::kMaxRepositoryFileBytes,
                                 kMaxUnstagedBytes);
      prepared.reviewed.newSideIsIndex = true;
    }
    prepared.reviewed.newVersions = std::move(versions);
  }
  prepared.inputs.filesSkipped = std::move(selection.skipped);
  for (auto& outputs : leaveOutNotebookOutputs(prepared.reviewed, request.root))
    prepared.inputs.filesSkipped.push_back(std::move(outputs));
  for (auto& left : request.leftOut) {
    // One the settings or the defaults leave out by its path (an 8 MiB file in
    // node_modules/) is excluded as it would be if git had shown it: the verdict
    // does not hang on whether the file is committed yet.
    if (auto excluded = config::excludedByItsPath(left.path, request.config))
      prepared.inputs.filesSkipped.push_back({std::move(left.path), *excluded + " (" + left.reason + ")"});
    else
      prepared.inputs.filesSkipped.push_back(notReviewed(std::move(left)));
  }
  for (const git::Commit& c : request.commits) prepared.inputs.commitMessages.push_back(c.message);
  prepared.commits = std::move(request.commits);
  return prepared;
}

review::SkippedFile notReviewed(git::LeftOut left) {
  review::SkippedFile skipped{std::move(left.path), std::move(left.reason) + "; not reviewed"};
  skipped.overLimit = left.partOfTheChange;  // not by choice: the change was not all reviewed
  skipped.notInDiff = true;
  return skipped;
}

GitDiff defaultGitDiff() {
  return [](const std::filesystem::path& root, const git::DiffRequest& request) { return git::diffText(root, request); };
}

ReviewService::ReviewService(ProviderFactory factory, ReviewCache* cache, GitDiff gitDiff, HunkCache* hunks)
    : factory_(factory ? std::move(factory) : defaultProviderFactory()),
      cache_(cache),
      gitDiff_(gitDiff ? std::move(gitDiff) : defaultGitDiff()),
      hunks_(hunks) {}

diff::Diff ReviewService::readChange(const std::filesystem::path& root, git::DiffRequest request,
                                     std::vector<git::LeftOut>* leftOut) const {
  request.leftOut = leftOut;
  return diff::parse(gitDiff_(root, request));
}

namespace {

// The model as the caches know it: its name; when one is set, its endpoint (the
// same name on another server, a llama-server whose model file was swapped, a
// proxy, is another model: its reviews are not the first one's); and how it is
// asked for its answer (a schema the server enforces, or one in the prompt:
// another request).
std::string modelAt(const review::Provider& provider, const config::Config& config) {
  // ".../v1/" is the server ".../v1" is (the providers join paths either way): one cache for both.
  std::string_view url = config.baseUrl;
  while (url.ends_with('/')) url.remove_suffix(1);
  std::string model = url.empty() ? provider.model() : provider.model() + " at " + std::string(url);
  if (config.structuredOutput == config::StructuredOutput::Prompt) model += ", structured output in the prompt";
  return model;
}

}  // namespace

std::string ReviewService::cacheKey(const review::Provider& provider, const PreparedReview& prepared,
                                    const config::Config& config, const review::ToolExecutor& files) const {
  const auto context = review::functionContextOf(prepared.reviewed, config.review, &files);
  return ReviewCache::key(provider.name(), modelAt(provider, config), diff::annotate(prepared.reviewed, context),
                          config.review, prepared.inputs.commitMessages);
}

namespace {

// A review answered from cache, in the shape of the review it was.
ReviewResult fromCache(PreparedReview prepared, CachedReview cached, const review::Provider& provider,
                       const config::Config& config) {
  ReviewResult result;
  result.fromCache = true;
  review::ReviewOutcome& o = result.outcome;
  o.provider = provider.name();
  o.model = provider.model();
  o.metered = provider.metered();
  o.prices = config.review.prices;  // nothing was spent: the cost is 0
  o.coverage = review::coverageOf(prepared.reviewed, prepared.inputs);
  o.unplacedBlocking = cached.evidence.unplacedBlocking;
  o.findings = std::move(cached.findings);
  // A review is cached only when all of it was reviewed; what the diff does
  // not show now (an untracked file grown over the cap) is not in the key.
  cached.evidence.partsNotReviewed = static_cast<int>(std::count_if(
      o.coverage.filesSkipped.begin(), o.coverage.filesSkipped.end(),
      [](const auto& s) { return s.unseenPartOfTheChange(); }));
  o.verdict = review::decideVerdict(o.findings, config.review.policy, cached.evidence);
  result.evidence = cached.evidence;
  o.summary = "The same change was reviewed before; these are that review's findings (from the review cache).";
  result.reviewed = std::move(prepared.reviewed);
  return result;
}

// Stands in for the provider when nothing is sent: names what is configured.
class NamedOnlyProvider : public review::Provider {
 public:
  explicit NamedOnlyProvider(const config::Config& config) : name_(config.provider), model_(config.model) {}
  std::string name() const override { return name_; }
  std::string model() const override { return model_; }
  // A model's review says what it spent, also nothing (a change wholly excluded).
  bool metered() const override { return config::isModelProvider(name_); }
  review::ModelResponse complete(const review::ModelRequest&, const CancelToken&) override {
    throw review::ProviderError(review::ProviderError::Kind::Config, "internal: an empty change reached the model");
  }

 private:
  std::string name_, model_;
};

std::unique_ptr<review::Provider> nullProvider(const config::Config& config) {
  return std::make_unique<NamedOnlyProvider>(config);
}

// Whether the model would be shown a line of the change. A file renamed, copied
// or given a new mode without an edit, added or deleted empty, or binary, shows
// its name alone, and a finding needs a line to sit on: asking about such files
// alone is a request that can find nothing.
bool showsALine(const diff::Diff& diff) {
  return std::any_of(diff.files.begin(), diff.files.end(), [](const diff::FileDiff& f) { return !f.hunks.empty(); });
}

// The repository's files as the change's reviews read them: the work tree, or
// the change's new side where that is not the work tree (Diff::newVersions).
void emplaceChangeFiles(std::optional<tools::RepositoryTools>& files, const std::filesystem::path& root,
                        const diff::Diff& change) {
  files.emplace(root);
  files->readNewSideFrom(change.newVersions);
}

CacheUse cacheUseOf(const ReviewRequest& request) {
  if (!request.fullReview) return CacheUse::Reuse;
  return request.keepEarlierWhereNotReached ? CacheUse::RefreshFallingBack : CacheUse::Refresh;
}

// The per-hunk plan (hunk_cache.h) where it applies: a model provider and a
// repository whose files `files` reads. What is left to send is emptied when it
// shows no line: renamed or binary files, whose units are never stored, are
// not worth a request alone.
std::optional<IncrementalPlan> planIncremental(const HunkCache* hunks, const std::filesystem::path& root,
                                               const PreparedReview& prepared, const config::Config& config,
                                               review::Provider& provider, const review::ToolExecutor* files,
                                               CacheUse use) {
  if (!hunks || root.empty() || !files || !HunkCache::applies(provider.name())) return std::nullopt;
  // Units that fit a request: a review cut short by max_requests keeps whole units, and the next moves on.
  const ProviderFactory noFactory;
  const ProviderWrapper noWrap;
  const ProgressSink noProgress;
  const std::int64_t capacity =
      diffCapacity(prepared.reviewed, prepared.inputs, provider,
                   {config, root, noFactory, noWrap, noProgress});
  IncrementalPlan plan = hunks->plan(
      root, prepared.reviewed,
      {provider.name(), modelAt(provider, config), &config.review, prepared.commits, capacity}, files,
      use);
  if (!showsALine(plan.toReview)) plan.toReview.files.clear();
  return plan;
}

// Reviewed hunk by hunk, the new findings are kept whole: the max_findings cap
// applies once, over them and the carried ones (mergeIncremental), and no hunk
// is stored with findings a cap cut.
config::Config sendConfigFor(const config::Config& config, bool incremental) {
  config::Config send = config;
  if (incremental) {  // kept per hunk whole: the caps apply to what is published (mergeIncremental)
    send.review.policy.maxFindings = std::numeric_limits<std::size_t>::max();
    send.review.policy.maxExplanationChars = std::numeric_limits<std::size_t>::max();
  }
  return send;
}

// The outcome of a review that sends no request: the configured provider named, nothing found.
review::ReviewOutcome outcomeWithoutRequest(const PreparedReview& prepared, const config::Config& config,
                                            const CancelToken& cancel) {
  diff::Diff none;
  none.source = prepared.reviewed.source;
  return review::runReview(none, *nullProvider(config), config.review, nullptr, cancel, prepared.inputs);
}

// The review of a change with no line to show: no provider is built (a missing
// API key does not fail it), nothing is sent, nothing is found.
ReviewResult nothingToSend(PreparedReview prepared, const config::Config& config, const CancelToken& cancel) {
  ReviewResult result;
  result.outcome = outcomeWithoutRequest(prepared, config, cancel);
  if (!prepared.reviewed.files.empty()) {
    result.outcome.coverage = review::coverageOf(prepared.reviewed, prepared.inputs);
    result.outcome.summary =
        "No lines to review: the changed files are binary, renamed, copied, empty or change mode only.";
    result.outcome.verdict = review::decideVerdict({}, config.review.policy, review::approvalEvidence(result.outcome));
  }
  result.evidence = review::approvalEvidence(result.outcome);
  result.reviewed = std::move(prepared.reviewed);
  return result;
}

}  // namespace

ReviewResult ReviewService::review(ReviewRequest request, const CancelToken& cancel, const ProviderWrapper& wrap) const {
  const std::filesystem::path root = request.root;
  const config::Config config = request.config;
  // The counts of a split review and what a request waits for come from
  // different threads: the sink hears them one at a time.
  auto progressMu = std::make_shared<std::mutex>();
  const ProgressSink progress =
      request.progress ? ProgressSink([sink = std::move(request.progress), progressMu](const ReviewProgress& p) {
                           std::lock_guard<std::mutex> lock(*progressMu);
                           sink(p);
                         })
                       : ProgressSink();
  std::optional<NoticeListening> waits;
  if (progress) waits.emplace(cancel, [&progress](const std::string& what) { progress(ReviewProgress{0, 0, {}, what}); });
  const bool full = request.fullReview;
  const CacheUse use = cacheUseOf(request);
  const std::function<void(ReviewResult)> answeredBeforeFailure = std::move(request.answeredBeforeFailure);
  PreparedReview prepared = prepare(std::move(request));
  if (!showsALine(prepared.reviewed)) return nothingToSend(std::move(prepared), config, cancel);
  ReviewResult result;
  std::unique_ptr<review::Provider> provider = factory_(config, prepared.reviewed, root);
  if (wrap) provider = wrap(std::move(provider));

  // The work tree's files, read through tools confined to it, for the function
  // context of the cache key and of the per-hunk plan; none without a root.
  std::optional<tools::RepositoryTools> files;
  if (!root.empty()) emplaceChangeFiles(files, root, prepared.reviewed);
  std::string key;
  if (cache_ && files) {
    key = cacheKey(*provider, prepared, config, *files);
    auto hit = cache_->get(root, key);
    if (hit && !onTheChange(*hit, prepared.reviewed)) hit.reset();
    if (hit && !full) return fromCache(std::move(prepared), std::move(*hit), *provider, config);
    // A fresh opinion was asked for: however it ends (cut short by a cap, failed
    // partway), the per-hunk cache holds what it found, and the old whole review
    // must not answer the next save in its place.
    if (hit) cache_->forget(root, key);
  }
  // Incremental review: only the hunks not reviewed before go on (hunk_cache.h);
  // without a repository (--stdin elsewhere) there is no plan and no file read.
  std::optional<IncrementalPlan> plan =
      planIncremental(hunks_, root, prepared, config, *provider, files ? &*files : nullptr, use);
  const diff::Diff& toSend = plan ? plan->toReview : prepared.reviewed;
  const config::Config sendConfig = sendConfigFor(config, plan.has_value());
  // Within the token budget: one request, or several (chunked_review.h), each
  // with its own read-only tools confined to the work tree (none without a root).
  // A split review that fails keeps, per hunk, what its answered requests found.
  auto keepAnswered = [&](const review::ReviewOutcome& answered) {
    if (!plan) return;
    hunks_->store(root, *plan, answered, sendConfig.review.policy);
    if (!answeredBeforeFailure) return;
    IncrementalPlan reached = *plan;
    if (use == CacheUse::RefreshFallingBack) fallBackWhereNotReached(reached, answered);
    ReviewResult partial;
    partial.outcome = mergeIncremental(reached, answered, prepared.reviewed, prepared.inputs, config.review.policy);
    partial.evidence = review::approvalEvidence(partial.outcome);
    partial.reviewed = prepared.reviewed;
    partial.hunksReused = reached.hunksReused;
    partial.hunksTotal = reached.hunksTotal;
    answeredBeforeFailure(std::move(partial));
  };
  result.outcome = reviewInChunks(toSend, prepared.inputs, *provider,
                                  {sendConfig, root, factory_, wrap, progress, keepAnswered}, cancel);
  bool kept = true;
  if (plan) {
    // What a limit left out is listed in coverage, and store() keeps none of its
    // hunks; the rest was reviewed, and a rerun sends only what was not.
    kept = hunks_->store(root, *plan, result.outcome, sendConfig.review.policy);
    if (use == CacheUse::RefreshFallingBack) fallBackWhereNotReached(*plan, result.outcome);
    result.outcome = mergeIncremental(*plan, std::move(result.outcome), prepared.reviewed, prepared.inputs,
                                      config.review.policy);
    result.fromCache = toSend.files.empty();
    result.hunksReused = plan->hunksReused;
    result.hunksTotal = plan->hunksTotal;
  }

  result.evidence = review::approvalEvidence(result.outcome);
  // A review with parts left out is not kept: a rerun with a larger budget reviews them.
  if (!key.empty() && result.evidence.partsNotReviewed == 0)
    kept = cache_->put(root, key, CachedReview{result.outcome.findings, result.evidence}) && kept;
  if (!kept)  // silently, every later review would pay for the whole change again
    result.outcome.warnings.push_back("the review could not be kept in " + (git::gitDirectory(root) / "revline").string() +
                                      " (is it writable?): the next review sends the model again what this one could not keep");
  // Kept, but named with a key of this process alone: no later run can read it. Said once a process.
  static std::atomic<bool> keyWarned{false};
  if (kept && (plan || !key.empty()) && !config::stateKeyKept() && !keyWarned.exchange(true))
    result.outcome.warnings.push_back(
        (config::stateKeyPath().has_parent_path()
             ? "revline could not keep its state key at " + config::stateKeyPath().string() +
                   " (is that directory writable? XDG_CONFIG_HOME or HOME names it)"
             : "revline has no directory to keep its state key in (" + config::whyNoUserConfigPath() + ")") +
        ": the reviews this process keeps cannot be read by a later run, which sends the whole change again");
  result.reviewed = std::move(prepared.reviewed);
  return result;
}

std::optional<ReviewResult> ReviewService::cached(ReviewRequest request) const {
  const std::filesystem::path root = request.root;
  const config::Config config = request.config;
  PreparedReview prepared = prepare(std::move(request));
  if (!showsALine(prepared.reviewed)) return nothingToSend(std::move(prepared), config, CancelToken());
  if (!cache_ || root.empty()) return std::nullopt;
  std::unique_ptr<review::Provider> provider = factory_(config, prepared.reviewed, root);
  std::optional<tools::RepositoryTools> files;
  emplaceChangeFiles(files, root, prepared.reviewed);
  auto hit = cache_->get(root, cacheKey(*provider, prepared, config, *files));
  if (hit && onTheChange(*hit, prepared.reviewed)) return fromCache(std::move(prepared), std::move(*hit), *provider, config);
  // Not this diff as a whole, but hunks of it reviewed before (a `git checkout
  // -m` or a pull moved them, or changed some, and the editor reopened the
  // file): what a review would carry over, no model asked. The hunks not
  // reviewed before are listed as such (not approved); the save reviews them.
  const std::optional<IncrementalPlan> plan =
      planIncremental(hunks_, root, prepared, config, *provider, &*files, CacheUse::Reuse);
  if (!plan || plan->hunksReused == 0) return std::nullopt;
  review::ReviewOutcome none = outcomeWithoutRequest(prepared, config, CancelToken());
  for (const diff::FileDiff& file : plan->toReview.files) {
    review::SkippedFile entry;
    entry.path = file.path();
    entry.reason = "not reviewed in its current form; the next save reviews it";
    entry.overLimit = true;  // not by choice: not reviewed, so no approval
    entry.lines = review::changedLines(file);
    none.coverage.filesSkipped.push_back(std::move(entry));
  }
  ReviewResult result;
  result.outcome = mergeIncremental(*plan, std::move(none), prepared.reviewed, prepared.inputs, config.review.policy,
                                    /*toReviewSent=*/false);
  result.fromCache = true;
  result.hunksReused = plan->hunksReused;
  result.hunksTotal = plan->hunksTotal;
  result.evidence = review::approvalEvidence(result.outcome);
  result.reviewed = std::move(prepared.reviewed);
  return result;
}

std::vector<review::ModelRequest> ReviewService::preview(ReviewRequest request, std::vector<std::string>* notSent) const {
  const std::filesystem::path root = request.root;
  const config::Config config = request.config;
  const CacheUse use = cacheUseOf(request);
  PreparedReview prepared = prepare(std::move(request));
  if (!showsALine(prepared.reviewed)) return {};  // review() sends nothing
  std::unique_ptr<review::Provider> provider = factory_(config, prepared.reviewed, root);
  // What review() would send now: with the per-hunk cache, only the hunks not
  // reviewed before (the same plan, looked up and not changed).
  std::optional<tools::RepositoryTools> files;
  if (!root.empty()) emplaceChangeFiles(files, root, prepared.reviewed);
  const std::optional<IncrementalPlan> plan =
      planIncremental(hunks_, root, prepared, config, *provider, files ? &*files : nullptr, use);
  if (plan && plan->hunksReused > 0 && notSent)
    notSent->push_back(std::to_string(plan->hunksReused) + " of " + std::to_string(plan->hunksTotal) +
                       (plan->hunksTotal == 1 ? " hunk" : " hunks") +
                       ": reviewed before, their findings are carried over; --no-cache sends them");
  if (plan && plan->toReview.files.empty()) return {};
  const ProviderWrapper noWrap;
  const ProgressSink noProgress;
  return previewRequests(plan ? plan->toReview : prepared.reviewed, prepared.inputs, *provider,
                         {sendConfigFor(config, plan.has_value()), root, factory_, noWrap, noProgress}, notSent);
}

}  // namespace revline::session
