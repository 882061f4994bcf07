// Incremental review: the review of each hunk kept on its own, keyed by what
// the model is shown of that hunk apart from its position (its lines without
// numbers, the enclosing definition, the file, the provider, model, prompt
// version and review settings). A save that changes some hunks of a file sends
// only those; the findings of the others are carried over with their ids, at
// the lines where their hunk is now. Stored per repository under
// `<git dir>/revline/hunks/`, shared by the server and the CLI.
#pragma once
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/diff/diff.h"
#include "core/git/git.h"
#include "core/review/pipeline.h"

namespace revline::session {

// What a hunk's review depends on besides the hunk: provider, model, prompt
// version, review::requestSettingsKey and the intent: the messages of the
// commits under review that changed its file. Not the others: a commit that
// changed other files says nothing new of this one, and keying every hunk on
// every message sent the whole branch again after each commit (`revline review
// --base main`, run again once a commit was added or reworded).
struct HunkReviewContext {
  std::string provider, model;
  const review::ReviewOptions* options = nullptr;
  std::vector<git::Commit> commits;
  std::int64_t maxUnitTokens = 0;  // what one request holds of the diff (cutIntoUnits); 0: no budget
};

// The change as the cache keeps it: a hunk of more than 2 x kUnitLines lines
// (a new file, a block written at once), or of more than half `maxUnitTokens`
// (estimated), is cut into pieces of at least kUnitLines / 4 (about kUnitLines
// on average), each before a line that starts a top-level block (at column 0,
// after a blank line) chosen by that line's text and the length of the block
// before it, or, with none for 4 x kUnitLines, before a line whose text's hash
// says so; and before any line that would take a piece past half
// `maxUnitTokens` (what one request holds of the diff; 0: no such limit) or
// 8 x kUnitLines. The cuts follow the text, not the line numbers or the cut
// before them: an edit moves none but its neighbours, so appending to a new file
// changes only its last piece, and adding a function in its middle one or two,
// and the next save sends those, not the whole file again; and a piece fits one
// request, so a review cut short by max_requests keeps whole pieces and the next
// one moves on.
constexpr std::size_t kUnitLines = 60;
diff::Diff cutIntoUnits(const diff::Diff& change, std::int64_t maxUnitTokens = 0);

// A change split into the hunks whose review is cached and the rest.
struct IncrementalPlan {
  diff::Diff cut;  // the change cut into units (cutIntoUnits): the files and hunks `units` below index
  diff::Diff toReview;  // the uncached hunks, by file (a file with none left is absent)
  std::vector<review::PublishedFinding> carried;  // the cached hunks' findings, at their current lines
  int hunksTotal = 0, hunksReused = 0;
  // Of a full review that fell back (CacheUse::RefreshFallingBack): the hunks it
  // left out whose last review's findings were carried (fallBackWhereNotReached).
  int hunksFallenBack = 0;

  // Every unit of the change (a hunk, or a file without hunks): its key, and
  // where it is in the whole diff. Filled by plan(), read by store().
  struct Unit {
    std::string key;  // the name of its cache entry: its key's digest (entryName), not the key
    std::size_t file = 0;
    std::ptrdiff_t hunk = -1;  // -1: a file without hunks (binary, mode or rename only)
    bool reused = false;
    // Sent again though reviewed before (CacheUse::RefreshFallingBack): that
    // review's findings, at the unit's current lines, should this one not reach it.
    std::optional<std::vector<review::PublishedFinding>> earlier;
  };
  std::vector<Unit> units;
};

// How a review uses the cache.
enum class CacheUse {
  Reuse,    // a hunk reviewed before is not sent: its findings are carried over
  Refresh,  // every hunk is sent (a fresh opinion is asked for); store() refreshes the entries
  // Every hunk is sent, as Refresh; but a hunk the review then leaves out (past
  // max_requests, in a failed request) shows its last review's findings, so that
  // "Review this file now" under a cap does not take diagnostics from the editor
  // that the next save would put back.
  RefreshFallingBack,
};

class HunkCache {
 public:
  // Entries kept on disk per repository (one small file per distinct hunk
  // review); the least recently used beyond it are pruned. A hit refreshes its
  // entry, so the hunks a long session never touches stay. A change with more
  // units than that keeps every unit of its own, up to kMaxDiskEntries: a cap
  // below the change's size pruned its own entries as it wrote them, and each
  // rerun paid for the change again.
  static constexpr std::size_t kDiskEntries = 4096;
  static constexpr std::size_t kMaxDiskEntries = 32768;

  // `diskEntries`: the entries kept besides those of the change stored (tests
  // lower it).
  explicit HunkCache(std::size_t diskEntries = kDiskEntries) : diskEntries_(diskEntries) {}

  // The providers whose reviews are worth caching per hunk: every model
  // provider; not the builtin reviewer (free, and its rules read the whole
  // file) nor a replay cassette (recorded answers to whole requests, in order).
  static bool applies(const std::string& provider);

  // Splits `whole` (the selection), cut into units, by what is cached for `root`. Past
  // CacheUse::Reuse (a forced full review) nothing is reused, but the units are
  // still keyed so store() refreshes them. `files` reads the new files' text
  // for the enclosing definitions (tools::RepositoryTools), may be null.
  IncrementalPlan plan(const std::filesystem::path& root, const diff::Diff& whole, const HunkReviewContext& context,
                       const review::ToolExecutor* files, CacheUse use) const;

  // Keeps, per unit that `fresh` reviewed, the findings on its lines. Nothing
  // is kept from a review that cannot be split by hunk: findings it could not
  // place (their hunk is unknown), a publication cap reached, or a finding
  // outside every hunk (its file's units are not kept); nor the units of a file
  // `fresh.coverage.filesSkipped` lists (not reviewed), except, of a file partly
  // reviewed, the hunks none of whose lines were left out. Of a split review,
  // the blocking-unplaced and changes-not-shown evidence is per request
  // (ReviewOutcome::unsettledFiles): only those requests' files are not kept.
  // A unit reviewed again and not kept loses its earlier entry.
  // False when an entry could not be written (the directory is not writable):
  // the next review sends those hunks again, and the caller says so.
  bool store(const std::filesystem::path& root, const IncrementalPlan& plan, const review::ReviewOutcome& fresh,
             const review::PolicyConfig& policy) const;

 private:
  std::size_t diskEntries_;
};

// Of a plan made with CacheUse::RefreshFallingBack, the units `fresh` (the
// review of plan.toReview) left out by a limit and that were reviewed before:
// their earlier findings go to plan.carried, counted in plan.hunksFallenBack.
// Coverage still says this review did not reach them (no APPROVE), and store()
// keeps their entries as they were.
void fallBackWhereNotReached(IncrementalPlan& plan, const review::ReviewOutcome& fresh);

// The outcome of the whole change from `fresh`, the review of
// `plan.toReview` (when every hunk was reused, an outcome naming only the
// provider and model), and the carried findings: the publication filters over
// both, coverage of `whole`, and the verdict by review::decideVerdict with the
// fresh review's evidence (reused hunks come only from reviews without any).
// `toReviewSent` false: `plan.toReview` was not sent (the server's lookup on
// opening a file), and `fresh` lists it as not reviewed.
review::ReviewOutcome mergeIncremental(const IncrementalPlan& plan, review::ReviewOutcome fresh,
                                       const diff::Diff& whole, const review::ReviewInputs& inputs,
                                       const review::PolicyConfig& policy, bool toReviewSent = true);

}  // namespace revline::session
