// Splitting a change into model requests that each fit a token budget. Pure:
// the caller measures what each file header and hunk costs (in estimated
// tokens, review/token_estimate.h, rendered as the model sees them) and what
// every request costs besides the diff; the plan says which hunks go in which
// request and what did not fit. No I/O, no provider.
//
// The rules (docs/CONFIG.md "Token budget"):
// - a request holds at most `capacity` tokens of diff: the budget less the
//   fixed part (system prompt, schema, intent, tool specs) and the reserve
//   kept for the later turns of its conversation (tool results, answers);
// - a file's hunks stay together when the file fits; a file that does not is
//   split into groups of consecutive hunks (each with the file's header), and a
//   hunk larger than a whole request into pieces of lines (splitLargeHunks);
// - related files stay together where they fit: a source and its test or
//   header (same name stem), then the files of one directory;
// - the requests are packed first-fit decreasing, and ordered by their first
//   file in diff order;
// - more than `maxRequests` requests: the ones sent are those holding the
//   files that matter most (FileCost::rank: code before configuration, docs,
//   deleted and binary files; whole files before pieces of a file too large for
//   one request, those from the file's top down; then diff order); every file
//   or hunk group the others held is listed as skipped with the reason.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/diff/diff.h"
#include "core/review/pipeline.h"

namespace revline::session {

// What one file of the diff costs in a request.
struct FileCost {
  std::int64_t headerTokens = 0;             // the "File: ..." line, repeated in every request holding a part
  std::vector<std::int64_t> hunkTokens;      // each hunk with its function context
  std::vector<std::int64_t> hunkLines;       // each hunk's added and removed lines
  int rank = 0;  // what is sent first when max_requests cannot hold every request (fileRank)
};

// How much a file's review matters when not every request can be sent: 0 code
// (and anything not named below), 1 configuration and build files, 2 prose
// (docs, licences, changelogs), 3 a deleted file, 4 a file without text hunks
// (binary, mode or rename only).
int fileRank(const diff::FileDiff& file);

// Hunks [firstHunk, endHunk) of file `file`.
struct ChunkPart {
  std::size_t file = 0;
  std::size_t firstHunk = 0, endHunk = 0;
};

struct Chunk {
  std::vector<ChunkPart> parts;  // in diff order
  std::int64_t tokens = 0;       // diff tokens (headers and hunks), at most the capacity
  // Its one hunk fits a request only with its enclosing function shown by the
  // first line (function_context_max_lines 0 for this request).
  bool functionsByFirstLine = false;
};

// A part that is not sent, and why.
struct SkippedPart {
  // alone over the capacity; past maxRequests; in a request the failed review never had answered
  enum class Why { TooLarge, RequestCap, NotAnswered };
  ChunkPart part;
  Why why = Why::TooLarge;
  std::int64_t tokens = 0;
};

struct ChunkPlan {
  std::vector<Chunk> chunks;              // the requests to send, ordered by their first part
  std::vector<SkippedPart> skipped;       // in diff order
  std::int64_t diffTokens = 0;            // every part once, headers once per file
  std::int64_t minimumRequests = 0;       // ceil(sendable diff tokens / capacity): no plan needs fewer
};

// `paths[i]` is file i's path (for relatedness); `capacity` > 0. When the plan
// needs more than `maxRequests` requests, files are packed by rank instead (the
// most important together, first), so that the cap leaves out the least important.
ChunkPlan planChunks(const std::vector<std::string>& paths, const std::vector<FileCost>& files,
                     std::int64_t capacity, int maxRequests);

// At most `maxRequests` chunks of `plan`: the ones kept are those holding the
// most of the files that matter most (the most code tokens, then configuration,
// and so on by FileCost::rank; then diff order); the parts of the
// others are added to plan.skipped (RequestCap). Chunks and skipped parts end in
// diff order. planChunks applies it; so does a caller that changed the chunks.
void capRequests(ChunkPlan& plan, const std::vector<FileCost>& files, int maxRequests);

// The diff with every hunk whose tokens (by `hunkTokens(file, hunk)`) exceed
// `capacity` cut into consecutive pieces of lines that each fit (a single line
// larger than that stays, and the plan skips it). Pieces are ordinary hunks
// with their own counts; lines keep their numbers.
template <class HunkTokens>
diff::Diff splitLargeHunks(const diff::Diff& diff, std::int64_t capacity, HunkTokens hunkTokens);

// Cuts `hunk` into `pieces` hunks of about equal line counts.
std::vector<diff::Hunk> splitHunk(const diff::Hunk& hunk, std::size_t pieces);

// Cuts `hunk` before each of the line indexes `starts` (ascending, each in
// 1..lines-1): pieces with their own counts, lines keeping their numbers. A
// piece of unchanged lines alone is left out: it has nothing to review (the
// context of a line too long for any request, sent alone, was a request paid
// for nothing; a long unchanged line, skipped, was called part of the change
// not reviewed).
std::vector<diff::Hunk> splitHunkBefore(const diff::Hunk& hunk, const std::vector<std::size_t>& starts);

// Sorts skipped parts in diff order (file, then first hunk): how coverage lists
// them, and the order chunkDiff needs of a request's parts.
void sortInDiffOrder(std::vector<SkippedPart>& skipped);

// The diff of one request: its parts' files, each with its hunks of the part(s).
diff::Diff chunkDiff(const diff::Diff& diff, const std::vector<ChunkPart>& parts);

template <class HunkTokens>
diff::Diff splitLargeHunks(const diff::Diff& diff, std::int64_t capacity, HunkTokens hunkTokens) {
  diff::Diff out;
  out.source = diff.source;
  for (std::size_t f = 0; f < diff.files.size(); ++f) {
    diff::FileDiff file = diff.files[f];
    file.hunks.clear();
    for (std::size_t h = 0; h < diff.files[f].hunks.size(); ++h) {
      const diff::Hunk& hunk = diff.files[f].hunks[h];
      const std::int64_t tokens = hunkTokens(f, h);
      if (tokens <= capacity || hunk.lines.size() < 2) {
        file.hunks.push_back(hunk);
        continue;
      }
      // 10% under the capacity: lines are not all the same length.
      const auto pieces = static_cast<std::size_t>((tokens * 10 + capacity * 9 - 1) / (capacity * 9));
      for (diff::Hunk& piece : splitHunk(hunk, pieces)) file.hunks.push_back(std::move(piece));
    }
    out.files.push_back(std::move(file));
  }
  return out;
}

}  // namespace revline::session
