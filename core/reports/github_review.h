// `revline review --format github` and `revline pr`: a GitHub pull-request
// review payload (POST /repos/{owner}/{repo}/pulls/{number}/reviews).
//
// GitHub rejects the whole review when one comment is off the diff, so a
// comment is only ever placed on a RIGHT-side line of `diff` (an added or
// context line of the new file); anything else goes into the review body.
// The body's first line is revline's marker, "<!-- revline:review event=E
// said=ID,ID -->" (the ids of the findings listed in it), and each inline
// comment's is "<!-- revline:finding:ID -->": what a later run reads back.
#pragma once
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/diff/diff.h"
#include "core/review/pipeline.h"
#include "core/support/json.h"
#include "core/support/version.h"

namespace revline::reports {

// The starts of revline's markers (github_history.h reads them back).
inline constexpr std::string_view kReviewMarker = "<!-- revline:review";
inline constexpr std::string_view kFindingMarker = "<!-- revline:finding:";

struct GithubReviewOptions {
  bool approveAllowed = false;        // APPROVE only when configured; otherwise an approval posts as COMMENT
  std::size_t maxInlineComments = 10; // the most severe first; the rest are listed in the body
  std::size_t maxBodyBytes = 60000;   // per body (review and each comment); GitHub's limit is 65536 characters
  std::optional<std::string> commitId;  // the reviewed head commit ("commit_id"), when known
  std::string toolVersion = kVersion;
  // Ids of findings revline already posted on this pull request (github_history.h):
  // listed in the body in one line each, never posted inline again.
  std::set<std::string> saidBefore;
  // How many places one earlier review said each id at (the same problem in two
  // functions is one id): a further place of it is new. An id of saidBefore not
  // here counts once.
  std::map<std::string, int> timesSaidBefore;
  // (path, line, category) of revline's inline comments still on the pull
  // request's diff: a model words the same finding differently from run to run
  // (another title, another id), and one on the same line of the same kind was said.
  std::set<std::tuple<std::string, int, std::string>> commentedAt;
  // revline requested changes earlier and this review does not: the body says they are resolved.
  bool resolvesEarlierRequest = false;
};

struct InlineComment {
  std::string path;                // the file's new path as the diff spells it
  int line = 0;                    // last line of the range (RIGHT side)
  std::optional<int> startLine;    // first line, only for multi-line ranges inside one hunk
  std::string body;
  std::string findingId;
};

struct GithubReview {
  std::string event;                     // "REQUEST_CHANGES", "COMMENT" or "APPROVE"
  std::string body;
  std::vector<InlineComment> comments;
  std::size_t listedInBody = 0;          // findings listed in the body (not placeable, over the cap, said before)
  std::size_t duplicatesDropped = 0;
  std::size_t newFindings = 0;           // findings shown that are not in options.saidBefore
  std::size_t unplacedBlocking = 0;      // blocking findings no line of the diff could take (listed in the body)
  bool resolvesEarlierRequest = false;

  // The request body for the reviews endpoint.
  json toJson(const std::optional<std::string>& commitId = std::nullopt) const;
};

GithubReview buildGithubReview(const review::ReviewOutcome& outcome, const diff::Diff& diff,
                               const GithubReviewOptions& options = {});

// buildGithubReview(...).toJson(options.commitId)
json renderGithubReview(const review::ReviewOutcome& outcome, const diff::Diff& diff,
                        const GithubReviewOptions& options = {});

// Whether posting says anything: false when no finding survived (neither inline
// nor in the body, nor a blocking one that could not be placed) and the event is COMMENT. REQUEST_CHANGES is always posted,
// and so is an APPROVE (only produced when approval was configured), and a
// review that resolves an earlier request for changes.
bool worthPosting(const GithubReview& review);

// Cuts UTF-8 text to at most maxBytes bytes on a character boundary, ending with "…" when cut.
std::string truncateUtf8(const std::string& text, std::size_t maxBytes);

}  // namespace revline::reports
