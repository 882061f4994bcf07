#include "core/session/chunked_review.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <thread>
#include <tuple>

#include "core/config/input_budget.h"
#include "core/diff/render.h"
#include "core/git/git.h"
#include "core/review/token_estimate.h"
#include "core/session/chunk_plan.h"
#include "core/session/spend_meter.h"
#include "core/support/repo_file.h"
#include "core/tools/repository_tools.h"

namespace revline::session {
namespace {

// Room kept in every request for what its conversation adds after the first
// turn: tool results (at most two thirds of it, shared by max_tool_calls
// results) and the model's own answers and the feedback on them.
constexpr std::int64_t kReservePercentWithTools = 30;
constexpr std::int64_t kReservePercentWithoutTools = 10;
constexpr std::int64_t kMinimumDiffTokens = 200;  // a budget that leaves less for the diff is an error

// The tools of one request: results capped so max_tool_calls of them fit the reserve.
tools::ToolLimits limitsFor(const config::Config& config, std::int64_t reserveTokens) {
  tools::ToolLimits limits;
  if (reserveTokens > 0 && config.review.maxToolCalls > 0) {
    const auto share = static_cast<std::size_t>(reserveTokens * 2 / 3 / config.review.maxToolCalls * review::kBytesPerToken);
    limits.maxResultBytes = std::clamp<std::size_t>(share, 512, limits.maxResultBytes);
  }
  return limits;
}

// Why the tools refuse an untracked file under --staged, and when git's status shows none.
constexpr const char* kNotInTheIndex =
    "is not in the index (untracked, or only intended to be added): not part of the staged change under review, so "
    "the tools do not read it";
constexpr const char* kUntrackedNotShown =
    "is untracked, and status.showUntrackedFiles=no keeps untracked files out of the review; the tools do not "
    "read it";

// What git keeps out of the review of `root`, asked of git once however many
// requests of a review call a tool, and not at all when none does.
// Thread-safe (the requests of a split review run in parallel). The untracked
// files the diff does not show: the ignored ones; every one under --staged
// (a commit would not hold it) or status.showUntrackedFiles=no. And git's own
// directory when it is inside the work tree under another name. And the
// tracked files git reads from the index instead of the work tree
// (skip-worktree, assume-unchanged), read when asked for.
tools::Sandbox::GitHiddenLister hiddenOnce(const std::filesystem::path& root, const diff::Diff& change) {
  struct Once {
    std::once_flag asked;
    tools::Sandbox::GitHidden said;
  };
  auto once = std::make_shared<Once>();
  const bool staged = change.newSideIsIndex;
  return [once, root, staged] {
    std::call_once(once->asked, [&] {
      tools::Sandbox::GitHidden said;
      const bool shown = staged || git::untrackedFilesShown(root);
      said.untracked = staged || !shown ? git::allUntracked(root) : git::ignoredUntracked(root);
      if (staged)  // in the index without content: a commit of it leaves them out
        for (std::string& path : git::intentToAdd(root)) said.untracked.push_back(std::move(path));
      said.untrackedWhy = staged ? kNotInTheIndex : shown ? tools::kIgnoredByGitWhy : kUntrackedNotShown;
      try {
        said.gitData = git::gitDataInside(root);
      } catch (const std::exception&) {
        // A git too old to say: the `.git` directory stays skipped by name, the untracked files hidden.
      }
      try {
        said.indexOnly = git::flaggedIndexBlobs(root, {}, &said.gitlinks);
        said.readBlobs = [root](const std::vector<std::string>& ids, std::size_t maxTotalBytes) {
          return git::blobTexts(root, ids, support::kMaxRepositoryFileBytes, {}, maxTotalBytes);
        };
      } catch (const std::exception&) {
        said.indexOnly.clear();  // git could not say: such files are read from the work tree, as before
        said.gitlinks.clear();
      }
      once->said = std::move(said);
    });
    return once->said;
  };
}

std::unique_ptr<tools::RepositoryTools> toolsFor(const std::filesystem::path& root, const diff::Diff& change,
                                                 const tools::ToolLimits& limits,
                                                 tools::Sandbox::GitHiddenLister hidden) {
  if (root.empty()) return nullptr;  // no repository: no tools, no file reads
  auto tools = std::make_unique<tools::RepositoryTools>(root, limits);
  tools->readNewSideFrom(change.newVersions);  // --staged, --stdin: the change's files as git has them
  std::set<std::string> changed;
  for (const diff::FileDiff& f : change.files)
    if (f.newPath) changed.insert(*f.newPath);
  tools->changeHolds(std::move(changed));
  // What the diff does not show (a local .env, build output, git's own data) the model is not shown either.
  tools->hideWhatGitHides(std::move(hidden));
  return tools;
}

std::vector<std::string> pathsOf(const diff::Diff& diff) {
  std::vector<std::string> paths;
  for (const auto& f : diff.files) paths.push_back(f.path());
  return paths;
}

// How a hunk's enclosing function is priced. Shared: as in a request of the
// whole change, where a function's lines another hunk shows are shown once
// (exact when the hunks stay together). Alone: as in a request holding only
// that hunk, the whole enclosing function with it: never less than any request
// holding the hunk shows, so a plan priced so always fits.
// None: the hunk without its function (what the function adds is the difference).
enum class ContextPricing { Shared, Alone, None };

// Estimated tokens of each file header and hunk as the model is shown them.
std::vector<FileCost> costsOf(const diff::Diff& diff, const review::ReviewOptions& options,
                              const review::ToolExecutor* files, ContextPricing pricing) {
  const auto shared = pricing == ContextPricing::Shared ? review::functionContextOf(diff, options, files)
                                                        : std::vector<std::vector<diff::HunkContext>>{};
  std::vector<FileCost> costs;
  for (std::size_t f = 0; f < diff.files.size(); ++f) {
    const diff::FileDiff& file = diff.files[f];
    diff::Diff one = diff.withoutFiles();
    one.files.push_back(file);
    auto measure = [&](std::vector<diff::Hunk> hunks, const std::vector<std::vector<diff::HunkContext>>& context) {
      one.files[0].hunks = std::move(hunks);
      return review::estimateTokens(diff::annotate(one, context));
    };
    const auto alone = pricing == ContextPricing::Alone ? review::functionContextPerHunk(file, options, files)
                                                        : std::vector<std::optional<diff::HunkContext>>{};
    FileCost cost;
    cost.rank = fileRank(file);
    // The header as a request of the file shows it (its wording depends on the file having hunks):
    // the file with one hunk costs header + hunk, with that hunk twice header + 2 hunks.
    if (file.hunks.empty()) {
      cost.headerTokens = measure({}, {});
    } else {
      const std::int64_t once = measure({file.hunks[0]}, {}), twice = measure({file.hunks[0], file.hunks[0]}, {});
      cost.headerTokens = std::max<std::int64_t>(0, 2 * once - twice);
    }
    for (std::size_t h = 0; h < file.hunks.size(); ++h) {
      std::vector<std::vector<diff::HunkContext>> context;
      if (!shared.empty() && h < shared[f].size()) context = {{shared[f][h]}};
      else if (h < alone.size() && alone[h]) context = {{*alone[h]}};
      cost.hunkTokens.push_back(measure({file.hunks[h]}, context) - cost.headerTokens);
      cost.hunkLines.push_back(review::changedLines(one.files[0]));
    }
    costs.push_back(std::move(cost));
  }
  return costs;
}

// `options` with every enclosing function shown by its first line only.
review::ReviewOptions byFirstLine(review::ReviewOptions options) {
  options.functionContextMaxLines = 0;
  return options;
}

bool anyHunkOver(const std::vector<FileCost>& costs, std::int64_t capacity) {
  for (const auto& c : costs)
    for (auto t : c.hunkTokens)
      if (c.headerTokens + t > capacity) return true;
  return false;
}

// The part's lines as the new file numbers them; a part of removed lines only
// by the old file's numbers; a file without hunks (binary, mode) as a whole.
std::string lineRange(const diff::FileDiff& file, const ChunkPart& p) {
  std::int64_t first = 0, last = 0, oldFirst = 0, oldLast = 0;
  for (std::size_t h = p.firstHunk; h < p.endHunk && h < file.hunks.size(); ++h)
    for (const auto& l : file.hunks[h].lines) {
      if (l.newLine) {
        if (!first) first = l.newLine;
        last = l.newLine;
      } else if (l.oldLine) {
        if (!oldFirst) oldFirst = l.oldLine;
        oldLast = l.oldLine;
      }
    }
  auto range = [](const char* what, std::int64_t a, std::int64_t b) {
    return a == b ? std::string(what) + " " + std::to_string(a)
                  : std::string(what) + "s " + std::to_string(a) + "-" + std::to_string(b);
  };
  if (first) return range("line", first, last);
  if (oldFirst) return "removed " + range("line", oldFirst, oldLast);
  return file.binary ? "the binary file" : "the file";
}

// The skipped parts as coverage entries, one per file, and what they take from the reviewed counts.
void addSkipped(const diff::Diff& diff, const ChunkPlan& plan, std::int64_t budget, int maxRequests,
                review::Coverage& coverage) {
  std::set<std::size_t> sent;
  for (const Chunk& c : plan.chunks)
    for (const ChunkPart& p : c.parts) sent.insert(p.file);
  // Parts of a file past the cap that follow each other are one range, said once.
  std::vector<SkippedPart> parts;
  for (const SkippedPart& s : plan.skipped) {
    if (!parts.empty() && s.why != SkippedPart::Why::TooLarge && parts.back().why == s.why &&
        parts.back().part.file == s.part.file && parts.back().part.endHunk == s.part.firstHunk) {
      parts.back().part.endHunk = s.part.endHunk;
      parts.back().tokens += s.tokens;
      continue;
    }
    parts.push_back(s);
  }
  std::map<std::size_t, review::SkippedFile> byFile;
  for (const SkippedPart& s : parts) {
    const diff::FileDiff& file = diff.files[s.part.file];
    review::SkippedFile& entry = byFile[s.part.file];
    entry.path = file.path();
    entry.overLimit = true;
    entry.partial = sent.count(s.part.file) > 0;
    std::int64_t lines = 0;
    for (std::size_t h = s.part.firstHunk; h < s.part.endHunk; ++h) {
      diff::FileDiff one = file;
      one.hunks = {file.hunks[h]};
      lines += review::changedLines(one);
    }
    entry.lines += lines;
    for (const bool oldFile : {false, true}) {  // the part's lines left out, for the hunk cache
      review::SkippedFile::LineSpan span{oldFile, 0, 0};
      for (std::size_t h = s.part.firstHunk; h < s.part.endHunk && h < file.hunks.size(); ++h)
        for (const auto& l : file.hunks[h].lines) {
          const std::int64_t n = oldFile ? (l.newLine ? 0 : l.oldLine) : l.newLine;
          if (!n) continue;
          if (!span.first) span.first = n;
          span.last = n;
        }
      if (span.first) entry.leftOut.push_back(span);
    }
    const std::string why =
        s.why == SkippedPart::Why::TooLarge
            ? "needs ~" + std::to_string(s.tokens) + " tokens, more than one request under max_input_tokens " +
                  std::to_string(budget) + " holds"
        : s.why == SkippedPart::Why::RequestCap
            ? "past the max_requests cap of " + std::to_string(maxRequests) + (maxRequests == 1 ? " request" : " requests") +
                  " per review"
            : std::string("in a request the review failed before it was answered");
    entry.reason += (entry.reason.empty() ? "not reviewed: " : "; ") + lineRange(file, s.part) + " " + why;
  }
  for (auto& [f, entry] : byFile) {
    coverage.linesReviewed -= entry.lines;
    coverage.filesReviewed -= !entry.partial;
    coverage.filesSkipped.push_back(std::move(entry));
  }
}

// The worse of two model verdicts; a request no model answered has none.
std::optional<contract::Verdict> worse(std::optional<contract::Verdict> a, std::optional<contract::Verdict> b) {
  if (!a || !b) return a ? a : b;
  auto rank = [](contract::Verdict v) {
    return v == contract::Verdict::RequestChanges ? 2 : v == contract::Verdict::Comment ? 1 : 0;
  };
  return rank(*a) >= rank(*b) ? a : b;
}

// Whether `a` is the graver report of one problem: its severity, then its confidence.
// (Severity is declared gravest first.)
bool graver(const contract::Finding& a, const contract::Finding& b) {
  if (a.severity != b.severity) return a.severity < b.severity;
  return a.confidence > b.confidence;
}

// "request 3", "requests 1 and 4", "requests 1, 4 and 9" (numbers ascending).
std::string requestsNamed(const std::vector<std::size_t>& numbers) {
  std::string out = numbers.size() == 1 ? "request " : "requests ";
  for (std::size_t k = 0; k < numbers.size(); ++k) {
    if (k > 0) out += k + 1 == numbers.size() ? " and " : ", ";
    out += std::to_string(numbers[k]);
  }
  return out;
}

// One outcome from the requests' outcomes (in plan order).
review::ReviewOutcome merge(std::vector<review::ReviewOutcome> parts, const review::ReviewOptions& options) {
  review::ReviewOutcome out;
  std::vector<review::PublishedFinding> findings;
  // A finding's id leaves its line out (it follows the code when lines move), so
  // the same id on two lines is two findings: `free(p);` added in two functions.
  // Of one finding said by two requests (each saw the line), the graver is kept.
  std::map<std::tuple<std::string, std::string, std::int64_t>, std::size_t> seen;  // -> index in findings
  std::set<std::tuple<std::string, std::int64_t, std::string>> rejectedSeen;  // file, line, title
  bool anyRetry = false;
  review::GroundingRetry retry;
  // A warning said by several requests (a long review whose every conversation
  // was shortened) is one line naming them, in the order first said.
  std::vector<std::pair<std::string, std::vector<std::size_t>>> saidBy;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    review::ReviewOutcome& p = parts[i];
    if (i == 0) {
      out.provider = p.provider;
      out.model = p.model;
      out.metered = p.metered;
      out.modelVerdict = p.modelVerdict;
    }
    for (auto& f : p.findings) {
      const auto [at, added] = seen.emplace(std::make_tuple(f.id, f.finding.file, f.finding.line), findings.size());
      if (added) findings.push_back(std::move(f));
      else if (graver(f.finding, findings[at->second].finding)) findings[at->second] = std::move(f);
    }
    // The same finding rejected by several requests (each was asked about it) is one.
    for (auto& r : p.rejected)
      if (rejectedSeen.emplace(r.finding.file, r.finding.line, r.finding.title).second) out.rejected.push_back(std::move(r));
    out.unplacedBlocking += p.unplacedBlocking;
    if (p.groundingRetry) {
      anyRetry = true;
      retry.rejected += p.groundingRetry->rejected;
      retry.placed += p.groundingRetry->placed;
    }
    out.modelVerdict = worse(out.modelVerdict, p.modelVerdict);
    if (!p.summary.empty())
      out.summary += (out.summary.empty() ? "" : "\n") + ("[" + std::to_string(i + 1) + "/" +
                                                          std::to_string(parts.size()) + "] " + p.summary);
    for (auto& w : p.warnings) {
      auto at = std::find_if(saidBy.begin(), saidBy.end(), [&](const auto& s) { return s.first == w; });
      if (at == saidBy.end()) saidBy.emplace_back(std::move(w), std::vector<std::size_t>{i + 1});
      else if (at->second.back() != i + 1) at->second.push_back(i + 1);
    }
    out.attempts += p.attempts;
    out.toolCalls += p.toolCalls;
    out.usage += p.usage;
  }
  // Each request counts the blocking findings it could not place: one repeated by
  // every request counts once, as its rejection is listed once.
  const auto distinctBlocking =
      std::count_if(out.rejected.begin(), out.rejected.end(), [](const auto& r) { return r.blocking; });
  out.unplacedBlocking = std::min(out.unplacedBlocking, static_cast<int>(distinctBlocking));
  for (auto& [said, by] : saidBy) out.warnings.push_back(requestsNamed(by) + ": " + said);
  if (anyRetry) out.groundingRetry = retry;
  std::size_t overCap = 0;
  out.findings = review::applyPublicationFilters(std::move(findings), options.policy, &overCap);
  review::noteFindingsOverCap(out, overCap, options.policy);
  return out;
}

// How a review is sent: one request or a plan of several (reviewInChunks and
// previewRequests share it, so `revline diff --prompt` shows what is sent).
struct RequestPlan {
  std::int64_t budget = 0;  // 0: no budget, the diff as one request
  review::ReviewOptions options;  // config.review, with the budget every call is fitted to
  review::ReviewInputs requestInputs;  // what each request of a split review is given (no skipped files)
  tools::ToolLimits limits;
  tools::Sandbox::GitHiddenLister hidden;             // shared by the tools of every request
  std::unique_ptr<tools::RepositoryTools> measuring;  // the tools the requests were measured with
  std::optional<review::ModelRequest> whole;          // the change fits: this request, as measured
  diff::Diff split;                                   // otherwise: the diff cut to the plan's parts
  ChunkPlan plan;
  review::Chunking chunking;
  std::string contextNote;  // set when long functions were cut to fit the budget (a warning of the review)
  std::string budgetNote;   // set when an untrusted repository's budget was capped (a warning of the review)
  std::vector<FileCost> costs;  // of `split`, as the plan priced it
};

RequestPlan planRequests(const diff::Diff& diff, const review::ReviewInputs& inputs, review::Provider& provider,
                         const ChunkedReviewSetup& setup) {
  const config::Config& config = setup.config;
  RequestPlan out;
  out.options = config.review;
  out.budget = inputTokenBudget(config, provider);
  if (config.maxInputTokensCeiling && out.budget > 0 && out.budget < config.maxInputTokens)
    out.budgetNote = "max_input_tokens " + std::to_string(config.maxInputTokens) +
                     " from the repository's .revline.json is more than your own budget for " + provider.name() +
                     " and " + provider.model() + "; " + std::to_string(out.budget) +
                     " was used (an untrusted repository may lower what a review spends, not raise it)";
  if (out.budget <= 0 || diff.files.empty()) return out;
  const std::int64_t budget = out.budget;
  review::ReviewOptions& options = out.options;
  options.inputTokenBudget = budget;  // every call of every request is fitted to it
  const bool toolsOffered = !setup.root.empty() && options.maxToolCalls > 0;
  const std::int64_t reserve = budget * (toolsOffered ? kReservePercentWithTools : kReservePercentWithoutTools) / 100;
  out.limits = limitsFor(config, reserve);

  // What every request holds besides the diff: system prompt, schema, intent, tool specs.
  out.requestInputs = review::ReviewInputs{inputs.commitMessages, {}};
  out.hidden = hiddenOnce(setup.root, diff);
  out.measuring = toolsFor(setup.root, diff, out.limits, out.hidden);
  review::ModelRequest empty = review::firstRequest(diff::Diff{diff.source, {}}, provider, options,
                                                    out.measuring.get(), out.requestInputs);
  if (toolsOffered) empty.tools = out.measuring->specs();
  const std::int64_t fixed = review::estimateTokens(empty);
  const std::int64_t capacity = budget - fixed - reserve;
  if (capacity < kMinimumDiffTokens) {
    // The smallest budget that leaves the diff its minimum, found by measuring: the
    // intent's share and the tools' result cap grow with the budget, so a formula
    // over this budget's fixed part falls short (a long description took four tries).
    const std::int64_t percent = toolsOffered ? kReservePercentWithTools : kReservePercentWithoutTools;
    auto fits = [&](std::int64_t b) {
      review::ReviewOptions o = options;
      o.inputTokenBudget = b;
      const std::int64_t r = b * percent / 100;
      const auto tools = toolsFor(setup.root, diff, limitsFor(config, r), out.hidden);
      review::ModelRequest e =
          review::firstRequest(diff::Diff{diff.source, {}}, provider, o, tools.get(), out.requestInputs);
      if (toolsOffered) e.tools = tools->specs();
      return b - review::estimateTokens(e) - r >= kMinimumDiffTokens;
    };
    std::int64_t low = budget, high = std::max<std::int64_t>(budget, 1000);
    while (!fits(high) && high < (std::int64_t{1} << 40)) {
      low = high;
      high *= 2;
    }
    while (high - low > 1) {  // fits(high), and not fits(low)
      const std::int64_t mid = low + (high - low) / 2;
      (fits(mid) ? high : low) = mid;
    }
    throw review::ProviderError(
        review::ProviderError::Kind::Config,
        "max_input_tokens " + std::to_string(budget) + " is too small: every request needs ~" + std::to_string(fixed) +
            (toolsOffered ? " tokens for the system prompt, schema, intent and tool specs, and "
                          : " tokens for the system prompt, schema and intent, and ") +
            std::to_string(reserve) + (toolsOffered ? " are kept for tool results and answers" : " are kept for answers") +
            "; use at least " + std::to_string(high) +
            (toolsOffered ? " (or fewer tool calls: max_tool_calls 0 offers no tools and keeps less in reserve)" : ""));
  }

  out.chunking = review::Chunking{budget, fixed, reserve, 0, 1, 1};
  // The whole change fits: one request, as without a budget.
  review::ModelRequest whole = review::firstRequest(diff, provider, options, out.measuring.get(), inputs);
  if (toolsOffered) whole.tools = out.measuring->specs();
  const std::int64_t wholeTokens = review::estimateTokens(whole);
  if (wholeTokens <= budget - reserve) {
    whole.tools.clear();  // runAttempts offers them
    out.whole = std::move(whole);
    out.chunking.diffTokens = wholeTokens - fixed;
    return out;
  }

  // Split: hunks larger than a request into pieces (a few rounds: lines differ in length), then plan.
  // A hunk's size is its own lines with its function's first line: cutting it
  // would not make a long function shorter (each piece would show it again), so
  // a hunk that fits only without its function is sent so (functionsByFirstLine).
  const review::ReviewOptions firstLines = byFirstLine(options);
  auto planWith = [&](ContextPricing pricing) {
    out.split = diff;
    auto ownSize = [&] { return costsOf(out.split, firstLines, out.measuring.get(), ContextPricing::Alone); };
    std::vector<FileCost> own = ownSize();
    for (int round = 0; round < 4 && anyHunkOver(own, capacity); ++round) {
      out.split = splitLargeHunks(out.split, capacity, [&](std::size_t f, std::size_t h) {
        return own[f].headerTokens + own[f].hunkTokens[h];
      });
      own = ownSize();
    }
    std::vector<FileCost> costs = costsOf(out.split, options, out.measuring.get(), pricing);
    // Planned without the max_requests cap: how the change is cut, and how its
    // functions are shown, do not depend on how much of it is sent (a higher cap
    // never reviews less). The cap applies at the end (capToMaxRequests).
    out.plan = planChunks(pathsOf(out.split), costs, capacity, std::numeric_limits<int>::max());
    out.costs = std::move(costs);
    out.chunking.diffTokens = out.plan.diffTokens;
    out.chunking.minimumRequests = out.plan.minimumRequests;
    out.chunking.requests = static_cast<int>(out.plan.chunks.size());
  };
  // A request of these parts as it will be sent, measured.
  auto requestTokens = [&](const std::vector<ChunkPart>& parts, const review::ReviewOptions& shown) {
    review::ModelRequest request = review::firstRequest(chunkDiff(out.split, parts), provider, shown,
                                                        out.measuring.get(), out.requestInputs);
    if (toolsOffered) request.tools = out.measuring->specs();
    return review::estimateTokens(request);
  };
  // Every planned request as it will be sent fits what the budget leaves it.
  auto everyRequestFits = [&] {
    for (const Chunk& c : out.plan.chunks)
      if (requestTokens(c.parts, options) > budget - reserve) return false;
    return true;
  };
  // Over the cap, the plan packed for it (the most important files first, chunk_plan.h)
  // when every one of its requests fits as built; else finish()'s capRequests keeps
  // the weightiest requests of the plan as it is.
  auto capToMaxRequests = [&] {
    if (out.plan.chunks.size() <= static_cast<std::size_t>(std::max(1, config.maxRequests))) return;
    ChunkPlan uncapped = std::move(out.plan);
    out.plan = planChunks(pathsOf(out.split), out.costs, capacity, config.maxRequests);
    if (!everyRequestFits()) out.plan = std::move(uncapped);
  };
  // A hunk too large for a request with its enclosing function whole goes alone,
  // the function shown by its first line, when it fits so (else it is skipped,
  // and said, with what it needs); then the cap applies to every request.
  // Such hunks share requests (first fit, in diff order), each request measured as built.
  auto finish = [&] {
    int byFirstLineOnly = 0;
    std::vector<SkippedPart> skipped;
    std::vector<Chunk> byFirstLine;
    sortInDiffOrder(out.plan.skipped);  // a request's parts go in diff order (chunkDiff)
    for (SkippedPart& s : out.plan.skipped) {
      if (s.why == SkippedPart::Why::TooLarge) {
        const std::int64_t bare = requestTokens({s.part}, firstLines);
        if (bare <= budget - reserve) {
          ++byFirstLineOnly;
          bool placed = false;
          for (Chunk& c : byFirstLine) {
            std::vector<ChunkPart> parts = c.parts;
            parts.push_back(s.part);
            if (const std::int64_t both = requestTokens(parts, firstLines); both <= budget - reserve) {
              c.parts = std::move(parts);
              c.tokens = both - fixed;
              placed = true;
              break;
            }
          }
          if (!placed) byFirstLine.push_back(Chunk{{s.part}, bare - fixed, true});
          continue;
        }
        s.tokens = bare - fixed;
      }
      skipped.push_back(s);
    }
    for (Chunk& c : byFirstLine) out.plan.chunks.push_back(std::move(c));
    out.plan.skipped = std::move(skipped);
    capRequests(out.plan, out.costs, config.maxRequests);
    out.chunking.requests = static_cast<int>(out.plan.chunks.size());
    if (byFirstLineOnly > 0)
      out.contextNote += std::string(out.contextNote.empty() ? "" : "; ") + "the enclosing function" +
                         (byFirstLineOnly == 1 ? " of 1 hunk was" : "s of " + std::to_string(byFirstLineOnly) + " hunks were") +
                         " shown by " + (byFirstLineOnly == 1 ? "its" : "their") +
                         " first line only: with it whole, the hunk does not fit a request under max_input_tokens " +
                         std::to_string(budget);
  };
  // Priced as one request would show the functions; when hunks of one function
  // land in different requests, each shows that function whole: priced again so.
  planWith(ContextPricing::Shared);
  if (everyRequestFits()) {
    capToMaxRequests();
    finish();
    return out;
  }
  // A function longer than half a request would leave no room for its hunk (its
  // pieces would each repeat it): such functions are shown by their first line.
  const int configured = options.functionContextMaxLines;
  if (options.context == review::ContextMode::Function) {
    int maxLines = configured;
    const auto without = costsOf(diff, options, out.measuring.get(), ContextPricing::None);
    auto contextFits = [&] {
      const auto with = costsOf(diff, options, out.measuring.get(), ContextPricing::Alone);
      for (std::size_t f = 0; f < with.size(); ++f)
        for (std::size_t h = 0; h < with[f].hunkTokens.size(); ++h)
          if (with[f].hunkTokens[h] - without[f].hunkTokens[h] > capacity / 2) return false;
      return true;
    };
    while (maxLines > 0 && !contextFits()) options.functionContextMaxLines = maxLines = maxLines > 12 ? maxLines / 2 : 0;
    if (maxLines < configured) {
      out.contextNote = (maxLines > 0 ? "enclosing functions longer than " + std::to_string(maxLines) + " lines"
                                      : std::string("all enclosing functions")) +
                        " (function_context_max_lines " + std::to_string(configured) +
                        ") were shown by their first line only, to fit max_input_tokens " + std::to_string(budget);
      planWith(ContextPricing::Shared);
      if (everyRequestFits()) {
        capToMaxRequests();
        finish();
        return out;
      }
    }
  }
  planWith(ContextPricing::Alone);
  // Over the cap, the plan packed for it, as capToMaxRequests takes (every whole
  // file before any piece, pieces from the top), fitted below as the other is:
  // the plan cut after packing kept the requests with the most whole-file tokens,
  // and the small files that had filled the room beside a piece went with them.
  if (out.plan.chunks.size() > static_cast<std::size_t>(std::max(1, config.maxRequests)))
    out.plan = planChunks(pathsOf(out.split), out.costs, capacity, config.maxRequests);
  // What pricing part by part still misses (the line numbers' width follows the
  // request's largest one; rounding): a request that does not fit as built is
  // halved, down to one hunk, which finish() sends with its function's first line or skips.
  std::vector<Chunk> fitted;
  std::vector<std::vector<ChunkPart>> work;
  for (auto it = out.plan.chunks.rbegin(); it != out.plan.chunks.rend(); ++it) work.push_back(it->parts);
  while (!work.empty()) {
    std::vector<ChunkPart> parts = std::move(work.back());
    work.pop_back();
    const std::int64_t tokens = requestTokens(parts, options);
    if (tokens <= budget - reserve) {
      fitted.push_back(Chunk{std::move(parts), tokens - fixed});
    } else if (parts.size() > 1) {
      const auto half = parts.begin() + static_cast<std::ptrdiff_t>(parts.size() / 2);
      work.emplace_back(half, parts.end());
      work.emplace_back(parts.begin(), half);
    } else if (const ChunkPart p = parts[0]; p.endHunk - p.firstHunk > 1) {
      const std::size_t mid = p.firstHunk + (p.endHunk - p.firstHunk) / 2;
      work.push_back({ChunkPart{p.file, mid, p.endHunk}});
      work.push_back({ChunkPart{p.file, p.firstHunk, mid}});
    } else {
      out.plan.skipped.push_back({p, SkippedPart::Why::TooLarge, tokens - fixed});
    }
  }
  out.plan.chunks = std::move(fitted);
  finish();
  return out;
}

// The error of the request that failed a split review, with what only the
// review knows: the files the request held, when what it held may be why (a
// 400, such as a content filter's, or a refusal, while other requests of the
// review were answered: every rerun fails on them again, and naming them says
// what to leave out); for a rate limit, how many requests went at once and
// the setting that lowers it, or, refused again when sent alone (`again`),
// that it was. Nullopt: `e` as it is.
std::optional<review::ProviderError> failureOfRequest(const review::ProviderError& e,
                                                      const std::vector<std::string>& files, std::size_t requests,
                                                      std::size_t workers, bool again, bool othersAnswered) {
  using Kind = review::ProviderError::Kind;
  std::string message = e.what();
  if (!message.empty() && message.back() == '.') message.pop_back();
  if (e.kind() == Kind::RateLimited && again) {
    message += " (sent again alone after the first refusal, with no other request of the review in flight, and "
               "refused again: wait for the provider's limit, or raise it)";
  } else if (e.kind() == Kind::RateLimited && workers > 1) {
    message += " (this review sent up to " + std::to_string(workers) +
               " requests at once; max_parallel_requests 1 sends one at a time)";
  } else if ((e.kind() == Kind::BadRequest || e.kind() == Kind::Refusal) && requests > 1 && othersAnswered &&
             !files.empty()) {
    constexpr std::size_t kNamed = 10;  // which one is the cause is not known: all of a request's, as a rule
    std::string named;
    for (std::size_t i = 0; i < files.size() && i < kNamed; ++i)
      named += (i == 0 ? "" : i + 1 == files.size() ? " and " : ", ") + files[i];
    if (files.size() > kNamed) named += " and " + std::to_string(files.size() - kNamed) + " more";
    message += " (other requests of this review were answered; the one that failed held " + named +
               ": if what it holds is the cause, the `exclude` setting leaves files out of the review)";
  } else {
    return std::nullopt;
  }
  review::ProviderError out(e.kind(), message);
  out.setUnanswered(e.unanswered());
  return out;
}

}  // namespace

std::int64_t inputTokenBudget(const config::Config& config, const review::Provider& provider) {
  const std::int64_t byDefault = config::defaultInputTokens(provider.name(), provider.model());
  std::int64_t budget = config.maxInputTokens > 0 ? config.maxInputTokens : byDefault;
  // An untrusted repository's budget is capped at the user's for this provider.
  if (config.maxInputTokensCeiling) {
    const std::int64_t ceiling = *config.maxInputTokensCeiling > 0 ? *config.maxInputTokensCeiling : byDefault;
    if (ceiling > 0 && (budget <= 0 || budget > ceiling)) budget = ceiling;
  }
  return budget;
}

std::int64_t diffCapacity(const diff::Diff& diff, const review::ReviewInputs& inputs, review::Provider& provider,
                          const ChunkedReviewSetup& setup) {
  diff::Diff probe{diff.source, {}};  // one file without hunks: measures the frame, prices no hunk
  if (diff.files.empty()) return 0;
  probe.files.push_back(diff.files.front());
  probe.files.back().hunks.clear();
  const RequestPlan p = planRequests(probe, inputs, provider, setup);
  if (p.budget <= 0) return 0;
  return p.chunking.budgetTokens - p.chunking.fixedTokens - p.chunking.reserveTokens;
}

std::vector<review::ModelRequest> previewRequests(const diff::Diff& diff, const review::ReviewInputs& inputs,
                                                  review::Provider& provider, const ChunkedReviewSetup& setup,
                                                  std::vector<std::string>* notSent) {
  RequestPlan p = planRequests(diff, inputs, provider, setup);
  if (p.budget <= 0 || diff.files.empty()) {
    auto tools = toolsFor(setup.root, diff, {}, hiddenOnce(setup.root, diff));
    return {review::firstRequest(diff, provider, setup.config.review, tools.get(), inputs)};
  }
  if (p.whole) return {std::move(*p.whole)};
  std::vector<review::ModelRequest> out;
  for (const Chunk& c : p.plan.chunks) {
    auto tools = toolsFor(setup.root, diff, p.limits, p.hidden);
    out.push_back(review::firstRequest(chunkDiff(p.split, c.parts), provider,
                                       c.functionsByFirstLine ? byFirstLine(p.options) : p.options, tools.get(),
                                       p.requestInputs));
  }
  if (notSent) {
    review::Coverage skipped;
    addSkipped(p.split, p.plan, p.budget, setup.config.maxRequests, skipped);
    for (const auto& s : skipped.filesSkipped) notSent->push_back(s.path + ": " + s.reason);
  }
  return out;
}

review::ReviewOutcome reviewInChunks(const diff::Diff& diff, const review::ReviewInputs& inputs,
                                     review::Provider& provider, const ChunkedReviewSetup& setup,
                                     const CancelToken& cancel) {
  const config::Config& config = setup.config;
  RequestPlan p = planRequests(diff, inputs, provider, setup);
  if (p.budget <= 0 || diff.files.empty()) {
    auto tools = toolsFor(setup.root, diff, {}, hiddenOnce(setup.root, diff));
    return review::runReview(diff, provider, config.review, tools.get(), cancel, inputs);
  }
  const review::ReviewOptions& options = p.options;
  const std::int64_t budget = p.budget;
  const tools::ToolLimits limits = p.limits;
  const review::ReviewInputs& requestInputs = p.requestInputs;
  const diff::Diff& split = p.split;
  const ChunkPlan& plan = p.plan;
  review::Chunking chunking = p.chunking;
  if (p.whole) {
    // Sent as measured, with the tools it was measured with (no second build of the prompt).
    review::ReviewOutcome outcome =
        review::runReview(diff, provider, options, p.measuring.get(), cancel, inputs, std::move(*p.whole));
    outcome.chunking = chunking;
    if (!p.budgetNote.empty()) outcome.warnings.push_back(p.budgetNote);
    return outcome;
  }

  // Each request's findings whole: the max_findings cap applies once, to the
  // merged findings, so the review can say how many it left out.
  review::ReviewOptions partOptions = options;
  partOptions.policy.maxFindings = std::numeric_limits<std::size_t>::max();
  // A finding on a file another request holds is placed on the whole change.
  review::ReviewInputs partInputs = requestInputs;
  partInputs.wholeChange = &diff;
  // Run: up to max_parallel_requests at once; the first failure stops the rest from starting.
  const std::size_t total = plan.chunks.size();
  const std::size_t workers = std::min<std::size_t>(total, static_cast<std::size_t>(std::max(1, config.maxParallelRequests)));
  std::vector<review::ReviewOutcome> outcomes(total);
  std::vector<char> answered(total, 0);  // under mu
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr failure;
  std::mutex mu;  // failure, progress
  // A provider that limits the rate (HTTP 429 after the transport's own waits)
  // refused a request: parallel requests that waited the same time asked again
  // together and were refused together. From then on one request at a time,
  // none other in flight (each holds `gate` alone, where before it shared it),
  // and the refused request is sent once more.
  std::atomic<bool> rateLimited{false};
  std::shared_mutex gate;
  ReviewProgress progress{0, static_cast<int>(total), {}};
  if (setup.progress) setup.progress(progress);
  // Nullopt: not sent, the review having failed or been cancelled while this
  // request waited for the gate (a whole request's time, once one at a time).
  auto runChunk = [&](std::size_t c, SpendMeter& spent) -> std::optional<review::ReviewOutcome> {
    std::shared_lock<std::shared_mutex> shared(gate, std::defer_lock);
    std::unique_lock<std::shared_mutex> alone(gate, std::defer_lock);
    if (!rateLimited) shared.lock();
    if (rateLimited) {  // also when it was set while this one waited for its shared turn
      if (shared.owns_lock()) shared.unlock();
      alone.lock();
    }
    if (failed || cancel.cancelled()) return std::nullopt;
    const diff::Diff part = chunkDiff(split, plan.chunks[c].parts);
    std::unique_ptr<review::Provider> own = setup.factory(config, part, setup.root);
    if (setup.wrap) own = setup.wrap(std::move(own));
    own = meteredBy(spent)(std::move(own));
    auto tools = toolsFor(setup.root, diff, limits, p.hidden);
    return review::runReview(part, *own, plan.chunks[c].functionsByFirstLine ? byFirstLine(partOptions) : partOptions,
                             tools.get(), cancel, partInputs);
  };
  auto work = [&] {
    for (std::size_t c; !failed && !cancel.cancelled() && (c = next++) < total;) {
      review::Usage refusedTry;  // what a try the rate limit ended had spent (tool rounds before it)
      for (bool again = false;; again = true) {
        SpendMeter spent;
        try {
          std::optional<review::ReviewOutcome> outcome = runChunk(c, spent);
          if (!outcome) break;
          outcomes[c] = std::move(*outcome);
          outcomes[c].usage += refusedTry;
          std::lock_guard<std::mutex> lock(mu);
          answered[c] = 1;
          ++progress.done;
          progress.usage += outcomes[c].usage;
          if (setup.progress) setup.progress(progress);
          break;
        } catch (const review::ProviderError& e) {
          if (e.kind() == review::ProviderError::Kind::RateLimited && !again && !failed && !cancel.cancelled()) {
            rateLimited = true;
            refusedTry = spent.total();
            continue;
          }
          std::vector<std::string> held;
          for (const ChunkPart& part : plan.chunks[c].parts) {
            const std::string path = split.files[part.file].path();
            if (std::find(held.begin(), held.end(), path) == held.end()) held.push_back(path);
          }
          std::lock_guard<std::mutex> lock(mu);
          if (!failure) {
            const bool othersAnswered = std::find(answered.begin(), answered.end(), 1) != answered.end();
            const auto told = failureOfRequest(e, held, total, workers, again, othersAnswered);
            failure = told ? std::make_exception_ptr(*told) : std::current_exception();
          }
          failed = true;
          break;
        } catch (...) {
          std::lock_guard<std::mutex> lock(mu);
          if (!failure) failure = std::current_exception();
          failed = true;
          break;
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t w = 1; w < workers; ++w) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  // The files of the answered requests whose answer does not stand hunk by hunk
  // (ReviewOutcome::unsettledFiles), before merging forgets which request said what.
  std::vector<std::string> unsettled;
  for (std::size_t c = 0; c < total; ++c) {
    if (!answered[c]) continue;
    const review::ApprovalEvidence e = review::approvalEvidence(outcomes[c]);
    if (e.unplacedBlocking == 0 && !e.changesRequestedNotShown) continue;
    for (const ChunkPart& part : plan.chunks[c].parts) unsettled.push_back(split.files[part.file].path());
  }
  if (failure || cancel.cancelled()) {
    // What the answered requests found was paid for: the caller may keep it
    // (the per-hunk cache), so a rerun sends only the rest. Cancelled between
    // two requests too (none in flight to fail): their answers were kept only
    // when a request was stopped mid-way.
    if (setup.keepAnswered && std::find(answered.begin(), answered.end(), 1) != answered.end()) {
      ChunkPlan reached = plan;
      reached.chunks.clear();
      std::vector<review::ReviewOutcome> found;
      for (std::size_t c = 0; c < total; ++c) {
        if (answered[c]) {
          reached.chunks.push_back(plan.chunks[c]);
          found.push_back(std::move(outcomes[c]));
        } else {
          for (const ChunkPart& part : plan.chunks[c].parts)
            reached.skipped.push_back({part, SkippedPart::Why::NotAnswered, 0});
        }
      }
      sortInDiffOrder(reached.skipped);
      review::ReviewOutcome partial = merge(std::move(found), options);
      partial.unsettledFiles = unsettled;
      partial.coverage = review::coverageOf(diff, inputs);
      addSkipped(split, reached, budget, config.maxRequests, partial.coverage);
      setup.keepAnswered(partial);
    }
    if (failure) std::rethrow_exception(failure);
    throw Cancelled();
  }

  review::ReviewOutcome out = merge(std::move(outcomes), options);
  out.unsettledFiles = std::move(unsettled);
  out.prices = options.prices;  // the cost of the summed usage (cost.h)
  if (out.provider.empty()) {
    out.provider = provider.name();
    out.model = provider.model();
    out.metered = provider.metered();
  }
  out.coverage = review::coverageOf(diff, inputs);
  addSkipped(split, plan, budget, config.maxRequests, out.coverage);
  out.chunking = chunking;
  if (!p.budgetNote.empty()) out.warnings.push_back(p.budgetNote);
  if (!p.contextNote.empty()) out.warnings.push_back(p.contextNote);
  if (rateLimited)
    out.warnings.push_back(
        workers > 1 ? provider.name() + " limited the request rate (HTTP 429) while " + std::to_string(workers) +
                          " requests were sent at once: the rest were sent one at a time (max_parallel_requests 1 does "
                          "so from the start)"
                    : provider.name() + " limited the request rate (HTTP 429): the refused request was sent again");
  const review::ApprovalEvidence evidence = review::approvalEvidence(out);
  out.verdict = review::decideVerdict(out.findings, options.policy, evidence);
  std::string head =
      total == 0 ? "Nothing was sent to the model: no part of the change fits one request under max_input_tokens " +
                       std::to_string(budget) + "."
             : total == 1
                 ? "Reviewed in 1 request, holding what fits of the change (all of it does not fit one request "
                   "under max_input_tokens " + std::to_string(budget) + ")."
                 : "Reviewed in " + std::to_string(total) + " requests (the change does not fit one request under "
                   "max_input_tokens " + std::to_string(budget) + ").";
  if (evidence.partsNotReviewed > 0)
    head += " Not all of the change was reviewed (" + std::to_string(evidence.partsNotReviewed) +
            (evidence.partsNotReviewed == 1 ? " file" : " files") +
            " over the budget or the request cap, listed as skipped), so the verdict cannot be APPROVE.";
  out.summary = head + (out.summary.empty() ? "" : "\n" + out.summary);
  return out;
}

}  // namespace revline::session
