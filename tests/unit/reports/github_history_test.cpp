// What revline posted before on a pull request, read back from GitHub's lists
// of reviews and review comments (as `gh api --paginate` prints them).
#include "core/reports/github_history.h"

#include <gtest/gtest.h>

namespace revline::reports {
namespace {

json review(std::int64_t id, const std::string& login, const std::string& state, const std::string& body) {
  return {{"id", id}, {"user", {{"login", login}}}, {"state", state}, {"body", body}, {"commit_id", "abc"}};
}

TEST(GithubHistory, MarkersAreReadFromEveryPage) {
  const std::string reviews =
      json::array({review(1, "bot", "CHANGES_REQUESTED", "<!-- revline:review event=REQUEST_CHANGES said=aa,bb -->\n### x"),
                   review(2, "human", "COMMENTED", "Looks fine to me")})
          .dump() +
      "\n" + json::array({review(3, "bot", "COMMENTED", "<!-- revline:review -->\nolder marker")}).dump();
  const std::string comments =
      json::array({{{"body", "<!-- revline:finding:cc -->\n**MAJOR** · CORRECTNESS · Off by one"}, {"user", {{"login", "bot"}}},
                    {"path", "a.py"}, {"line", 3}},
                   {{"body", "<!-- revline:finding:ff -->\n**MINOR** · STYLE · Outdated"}, {"user", {{"login", "bot"}}},
                    {"path", "a.py"}, {"line", nullptr}},  // outdated: GitHub no longer places it
                   {{"body", "I disagree <!-- revline:finding:dd -->"}},  // not revline's: the marker is not first
                   {{"body", "<!-- revline:finding:e e -->"}}})
          .dump() +
      json::array().dump();
  const PostedBefore before = readPostedBefore(reviews, comments, "bot");
  EXPECT_EQ(before.findingIds, (std::set<std::string>{"aa", "bb", "cc", "ff"}));
  EXPECT_EQ(before.timesSaid, (std::map<std::string, int>{{"aa", 1}, {"bb", 1}, {"cc", 1}, {"ff", 1}}));
  EXPECT_EQ(before.commentedAt, (std::set<std::tuple<std::string, int, std::string>>{{"a.py", 3, "CORRECTNESS"}}));
  ASSERT_EQ(before.reviews.size(), 2u);
  EXPECT_EQ(before.reviews[0].id, 1);
  EXPECT_EQ(before.reviews[0].event, "REQUEST_CHANGES");
  EXPECT_EQ(before.login, "bot");
  EXPECT_EQ(before.reviews[1].event, "");
  EXPECT_EQ(before.reviews[1].state, "COMMENTED");
  // Markers another account wrote are not revline's.
  const PostedBefore other = readPostedBefore(reviews, comments, "mallory");
  EXPECT_TRUE(other.findingIds.empty());
  EXPECT_TRUE(other.reviews.empty());
}

// One review that said an id at two places (two inline comments of that review,
// or twice in its marker): the id counts twice; across reviews, the most.
TEST(GithubHistory, AnIdSaidAtTwoPlacesByOneReviewCountsTwice) {
  const std::string reviews =
      json::array({review(1, "bot", "COMMENTED", "<!-- revline:review event=COMMENT said=xx,xx,yy -->\n"),
                   review(2, "bot", "COMMENTED", "<!-- revline:review event=COMMENT said=zz -->\n")})
          .dump();
  auto comment = [](const std::string& id, int line, std::int64_t reviewId) {
    return json{{"body", "<!-- revline:finding:" + id + " -->\n**MAJOR** · CORRECTNESS · t"},
                {"user", {{"login", "bot"}}}, {"path", "a.py"}, {"line", line}, {"pull_request_review_id", reviewId}};
  };
  const std::string comments = json::array({comment("zz", 3, 2), comment("zz", 9, 2), comment("yy", 4, 1)}).dump();
  const PostedBefore before = readPostedBefore(reviews, comments, "bot");
  EXPECT_EQ(before.timesSaid, (std::map<std::string, int>{{"xx", 2}, {"yy", 2}, {"zz", 3}}));
}

TEST(GithubHistory, WhatIsNotGithubsJsonIsAnError) {
  EXPECT_THROW(readPostedBefore("[{\"id\": 1}", "[]", "bot"), HistoryError);
  EXPECT_THROW(readPostedBefore("{\"message\": \"Not Found\"}", "[]", "bot"), HistoryError);
  EXPECT_NO_THROW(readPostedBefore("", "", "bot"));
}

TEST(GithubHistory, ALatestReviewWithTheSameEventAndNoNewFindingIsRepeated) {
  PostedBefore before;
  GithubReview r;
  r.event = "REQUEST_CHANGES";
  EXPECT_FALSE(repeatsLatestReview(r, before));  // the first review
  before.reviews.push_back({1, "COMMENTED", "COMMENT", "abc"});  // the own-PR fallback posted a COMMENT ...
  before.reviews.push_back({2, "COMMENTED", "REQUEST_CHANGES", "abc"});  // ... meaning REQUEST_CHANGES
  EXPECT_TRUE(repeatsLatestReview(r, before));
  r.newFindings = 1;
  EXPECT_FALSE(repeatsLatestReview(r, before));
  r.newFindings = 0;
  r.event = "COMMENT";
  EXPECT_FALSE(repeatsLatestReview(r, before));
  before.reviews.push_back({3, "COMMENTED", "", "abc"});  // an older marker: GitHub's state decides
  EXPECT_TRUE(repeatsLatestReview(r, before));
}

// Only revline's own reviews are read (readPostedBefore keeps the posting
// account's); of those, the requests for changes no later approval undid.
TEST(GithubHistory, TheStandingRequestsAreThoseNoApprovalUndid) {
  PostedBefore before;
  before.login = "bot";
  before.reviews.push_back({1, "CHANGES_REQUESTED", "REQUEST_CHANGES", "a"});
  before.reviews.push_back({3, "DISMISSED", "REQUEST_CHANGES", "a"});
  before.reviews.push_back({4, "CHANGES_REQUESTED", "REQUEST_CHANGES", "b"});
  EXPECT_EQ(standingRequests(before), (std::vector<std::int64_t>{1, 4}));
  before.reviews.push_back({5, "APPROVED", "APPROVE", "c"});  // GitHub counts the account's latest
  EXPECT_EQ(standingRequests(before), std::vector<std::int64_t>{});
  before.reviews.push_back({6, "CHANGES_REQUESTED", "REQUEST_CHANGES", "d"});
  EXPECT_EQ(standingRequests(before), std::vector<std::int64_t>{6});
}

}  // namespace
}  // namespace revline::reports
