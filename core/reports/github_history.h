// What revline posted before on a pull request, read back from GitHub (`revline
// pr --post`): the markers github_review.h writes into its review bodies and
// inline comments. A run on every push then repeats no inline comment, posts
// nothing when nothing changed, and clears its own stale "changes requested".
//
// Anyone can write a marker into a comment: only the reviews and comments of
// the account that posts now (GitHub's GraphQL `viewer`, which a GitHub App's
// installation token can ask too) count. Even so what a marker decides is
// bounded: a finding said before is still listed in the body, and the verdict
// and the exit code never depend on it.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/reports/github_review.h"

namespace revline::reports {

struct EarlierReview {
  std::int64_t id = 0;
  std::string state;     // GitHub's: "CHANGES_REQUESTED", "COMMENTED", "APPROVED", "DISMISSED", ...
  std::string event;     // the event revline meant (its marker's event=), "" for an older marker
  std::string commitId;
};

struct PostedBefore {
  std::string login;                  // the account posting now, whose reviews and comments these are
  std::set<std::string> findingIds;   // inline comments' and listed findings' ids
  // Of each id, the most places one review said it at (its marker's said= and its
  // inline comments): the same problem added in two places is one id, twice.
  std::map<std::string, int> timesSaid;
  // (path, line, category) of revline's inline comments GitHub still places on the diff (`line` not null).
  std::set<std::tuple<std::string, int, std::string>> commentedAt;
  std::vector<EarlierReview> reviews;  // its revline reviews, in GitHub's order (oldest first)
};

// Not the JSON GitHub's API returns (what `gh api --paginate` prints: arrays one after another).
class HistoryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// From GET .../pulls/N/reviews and GET .../pulls/N/comments, as printed by
// `gh api --paginate`: what `login` (the account posting now) wrote there.
PostedBefore readPostedBefore(std::string_view reviewsJson, std::string_view commentsJson, std::string_view login);

// Posting `review` would say again what revline's latest review said: it shows no
// finding that was not posted before, and that review meant the same event.
bool repeatsLatestReview(const GithubReview& review, const PostedBefore& before);

// The ids of revline's reviews that still request changes (GitHub counts an
// account's latest approval or request): what a review that no longer does dismisses.
std::vector<std::int64_t> standingRequests(const PostedBefore& before);

}  // namespace revline::reports
