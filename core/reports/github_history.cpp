#include "core/reports/github_history.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "core/support/json.h"

namespace revline::reports {
namespace {


// Every element of the arrays `gh api --paginate` printed one after another.
std::vector<json> elements(std::string_view text, const char* what) {
  std::vector<json> out;
  std::istringstream in{std::string(text)};
  while (true) {
    in >> std::ws;
    if (in.peek() == std::char_traits<char>::eof()) break;
    json page;
    try {
      in >> page;
    } catch (const json::exception& e) {
      throw HistoryError(std::string("GitHub's list of ") + what + " is not JSON: " + e.what());
    }
    if (!page.is_array()) throw HistoryError(std::string("GitHub's list of ") + what + " is not a JSON array");
    for (auto& item : page) out.push_back(std::move(item));
  }
  return out;
}

std::string stringAt(const json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
}

std::string loginOf(const json& o) {
  return o.is_object() && o.contains("user") ? stringAt(o["user"], "login") : std::string();
}

// The value of `name=` in a marker line ("event=COMMENT said=a,b -->").
std::string attribute(std::string_view line, std::string_view name) {
  const std::string key = " " + std::string(name) + "=";
  const auto at = line.find(key);
  if (at == std::string_view::npos) return {};
  const std::size_t from = at + key.size();
  const auto end = line.find_first_of(" \n", from);
  return std::string(line.substr(from, end == std::string_view::npos ? std::string_view::npos : end - from));
}

bool idChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':'; }

}  // namespace

PostedBefore readPostedBefore(std::string_view reviewsJson, std::string_view commentsJson, std::string_view login) {
  PostedBefore before;
  before.login = std::string(login);
  std::map<std::int64_t, std::map<std::string, int>> byReview;  // review id -> id -> places
  std::int64_t ungrouped = -1;  // a comment GitHub names no review of: a group of its own
  for (const json& r : elements(reviewsJson, "reviews")) {
    const std::string body = stringAt(r, "body");
    if (!body.starts_with(kReviewMarker) || login.empty() || loginOf(r) != login) continue;
    const std::string_view first = std::string_view(body).substr(0, body.find('\n'));
    EarlierReview e;
    e.id = r.contains("id") && r["id"].is_number_integer() ? r["id"].get<std::int64_t>() : 0;
    e.state = stringAt(r, "state");
    e.event = attribute(first, "event");
    e.commitId = stringAt(r, "commit_id");
    std::istringstream ids(attribute(first, "said"));
    for (std::string id; std::getline(ids, id, ',');)
      if (!id.empty() && std::all_of(id.begin(), id.end(), idChar)) {
        before.findingIds.insert(id);
        ++byReview[e.id][id];
      }
    before.reviews.push_back(std::move(e));
  }
  for (const json& c : elements(commentsJson, "review comments")) {
    const std::string body = stringAt(c, "body");
    if (!body.starts_with(kFindingMarker) || login.empty() || loginOf(c) != login) continue;
    const std::size_t from = kFindingMarker.size();
    std::size_t end = from;
    while (end < body.size() && idChar(body[end])) ++end;
    if (end > from && body.compare(end, 4, " -->") == 0) {
      const std::string id = body.substr(from, end - from);
      before.findingIds.insert(id);
      const bool grouped = c.contains("pull_request_review_id") && c["pull_request_review_id"].is_number_integer();
      ++byReview[grouped ? c["pull_request_review_id"].get<std::int64_t>() : ungrouped--][id];
    }
    // The headline under the marker: "**MAJOR** · CORRECTNESS · title".
    const std::string path = stringAt(c, "path");
    const auto dot = body.find(" · ");
    const auto dot2 = dot == std::string::npos ? std::string::npos : body.find(" · ", dot + 1);
    if (!path.empty() && c.contains("line") && c["line"].is_number_integer() && dot2 != std::string::npos)
      before.commentedAt.insert({path, c["line"].get<int>(), body.substr(dot + std::string(" · ").size(),
                                                                          dot2 - dot - std::string(" · ").size())});
  }
  for (const auto& [review, places] : byReview)
    for (const auto& [id, n] : places) before.timesSaid[id] = std::max(before.timesSaid[id], n);
  return before;
}

bool repeatsLatestReview(const GithubReview& review, const PostedBefore& before) {
  if (before.reviews.empty() || review.newFindings > 0) return false;
  const EarlierReview& latest = before.reviews.back();
  if (!latest.event.empty()) return latest.event == review.event;
  // A marker from before events were written: GitHub's state says what it was.
  static const std::map<std::string, std::string> kStateOf{
      {"REQUEST_CHANGES", "CHANGES_REQUESTED"}, {"COMMENT", "COMMENTED"}, {"APPROVE", "APPROVED"}};
  return kStateOf.at(review.event) == latest.state;
}

std::vector<std::int64_t> standingRequests(const PostedBefore& before) {
  std::vector<std::int64_t> standing;
  for (const EarlierReview& r : before.reviews) {
    if (r.state == "APPROVED") standing.clear();  // GitHub counts an account's latest approval or request
    if (r.state == "CHANGES_REQUESTED") standing.push_back(r.id);
  }
  return standing;
}

}  // namespace revline::reports
