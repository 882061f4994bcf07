#include "core/reports/github_review.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "core/reports/coverage_text.h"
#include "core/reports/markdown_text.h"
#include "core/reports/names.h"
#include "core/reports/text_report.h"
#include "core/reports/usage_report.h"
#include "core/support/text.h"
#include "core/support/utf8.h"

namespace revline::reports {

using contract::Finding;
using contract::Severity;
using contract::Verdict;

namespace {

constexpr std::size_t kListedExplanationBytes = 400;

struct Placement {
  std::string path;
  int line = 0;                  // last line
  std::optional<int> startLine;  // multi-line
  bool exact = false;            // the comment covers exactly line..endLine (a suggestion may replace them)
};

// The hunk of `file` whose RIGHT-side lines include `newLine`.
const diff::Hunk* hunkWithRightLine(const diff::FileDiff& file, int newLine) {
  for (const auto& hunk : file.hunks) {
    for (const auto& l : hunk.lines) {
      if (l.kind != diff::LineKind::Removed && l.newLine == newLine) return &hunk;
    }
  }
  return nullptr;
}

bool hunkHasRightLine(const diff::Hunk& hunk, int newLine) {
  return std::any_of(hunk.lines.begin(), hunk.lines.end(),
                     [&](const diff::Line& l) { return l.kind != diff::LineKind::Removed && l.newLine == newLine; });
}

std::optional<Placement> place(const Finding& f, const diff::FileIndex& files) {
  const diff::FileDiff* file = files.find(f.file);
  if (!file || !file->newPath || file->binary) return std::nullopt;
  if (f.line < 1 || f.line > 1'000'000'000) return std::nullopt;
  const int start = static_cast<int>(f.line);
  const std::int64_t last = f.lastLine();
  if (!file->isRightSideLine(start)) return std::nullopt;
  const diff::Hunk* hunk = hunkWithRightLine(*file, start);
  if (!hunk) return std::nullopt;
  Placement p{*file->newPath, start, std::nullopt, last == start};
  if (last > start && last <= 1'000'000'000) {
    bool inside = true;
    for (int n = start + 1; n <= static_cast<int>(last) && inside; ++n) inside = hunkHasRightLine(*hunk, n);
    if (inside) {
      p.line = static_cast<int>(last);
      p.startLine = start;
      p.exact = true;
    }
    // Otherwise the range leaves the hunk: a single-line comment on its first
    // line, which GitHub accepts, without a suggestion (it would replace the wrong lines).
  }
  return p;
}

std::string rangeText(const Finding& f) {
  std::string s = std::to_string(f.line);
  if (f.endLine && *f.endLine != f.line) s += "-" + std::to_string(*f.endLine);
  return s;
}

std::string prefixLines(const std::string& text, const std::string& prefix) {
  std::string out;
  std::size_t start = 0;
  while (true) {
    const std::size_t nl = text.find('\n', start);
    out += prefix + text.substr(start, nl == std::string::npos ? std::string::npos : nl - start) + "\n";
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

// The model's words and file names go through markdown_text.h: shown, never
// hiding the rest of the review nor notifying anyone.
std::string headline(const Finding& f) {
  return "**" + std::string(severityName(f.severity)) + "** · " + std::string(categoryName(f.category)) + " · " +
         markdownLine(f.title);
}

std::string footer(const review::PublishedFinding& p) {
  std::string s = "<sub>revline · confidence " + formatConfidence(p.finding.confidence);
  if (!p.id.empty()) s += " · id `" + p.id + "`";
  return s + "</sub>";
}

std::string editBlock(const Finding& f, bool asSuggestion) {
  if (!f.edit) return "";
  if (asSuggestion) {
    const std::string fence = codeFenceFor(f.edit->replacement);
    std::string s = fence + "suggestion\n" + f.edit->replacement;
    if (!f.edit->replacement.empty()) s += "\n";
    return s + fence + "\n";
  }
  const std::string lines = prefixLines(f.edit->original, "-") +
                            (f.edit->replacement.empty() ? std::string() : prefixLines(f.edit->replacement, "+"));
  const std::string fence = codeFenceFor(lines);
  return "Proposed edit of lines " + rangeText(f) + ":\n" + fence + "diff\n" + lines + fence + "\n";
}

// markdownProse of `text` cut to at most maxBytes: cut before it is escaped, so
// no cut leaves a fence open or an escape half written, and cut again by what
// escaping added.
std::string proseWithin(const std::string& text, std::size_t maxBytes, bool atLineStart = true) {
  std::size_t budget = maxBytes;
  std::string out = markdownProse(truncateUtf8(text, budget), atLineStart);
  while (out.size() > maxBytes && budget > 0) {
    budget = std::min(budget - 1, budget * maxBytes / out.size());  // escaping grew it by out.size() / budget
    out = markdownProse(truncateUtf8(text, budget), atLineStart);
  }
  return out;
}

std::string commentBody(const review::PublishedFinding& p, bool exactPlacement, std::size_t maxBytes) {
  const Finding& f = p.finding;
  const std::string marker = std::string(kFindingMarker) + p.id + " -->\n";
  const std::string head = headline(f) + "\n\n";
  std::string fix = f.suggestedFix ? "**Suggested fix:** " + markdownProse(*f.suggestedFix, false) + "\n\n" : "";
  std::string edit = editBlock(f, exactPlacement);
  if (!exactPlacement && f.edit) edit = "(Lines " + rangeText(f) + ".) " + edit;
  if (p.editDroppedReason) edit = "*Fix withheld:* " + markdownLine(*p.editDroppedReason) + "\n";
  if (!edit.empty()) edit += "\n";
  const std::string foot = footer(p);
  std::string explanation = f.explanation.empty() ? "" : markdownProse(f.explanation) + "\n\n";

  auto total = [&] { return marker.size() + head.size() + explanation.size() + fix.size() + edit.size() + foot.size(); };
  if (total() > maxBytes && !edit.empty()) edit = "(The proposed edit is too long to show here.)\n\n";
  if (total() > maxBytes && fix.size() > 2000) {
    const std::string lead = "**Suggested fix:** ";
    fix = lead + proseWithin(*f.suggestedFix, 2000 - lead.size(), false) + "\n\n";
  }
  if (total() > maxBytes) {
    const std::size_t others = total() - explanation.size();
    explanation = others + 8 < maxBytes ? proseWithin(f.explanation, maxBytes - others - 4) + "\n\n" : "";
  }
  std::string body = marker + head + explanation + fix + edit + foot;
  return body.size() > maxBytes ? truncateUtf8(body, maxBytes) : body;
}

std::string verdictHeading(const std::string& event, Verdict verdict) {
  if (event == "REQUEST_CHANGES") return "### revline: changes requested";
  if (event == "APPROVE") return "### revline: approved";
  return verdict == Verdict::Approve ? "### revline: no problems found" : "### revline: comments";
}

// Counts the findings the review shows (inline or listed), not those dropped as duplicates.
std::string countsLine(const std::vector<const review::PublishedFinding*>& shown) {
  std::map<Severity, std::size_t> bySeverity;
  for (const auto* p : shown) ++bySeverity[p->finding.severity];
  if (shown.empty()) return "No findings.";
  std::string s = std::to_string(shown.size()) + (shown.size() == 1 ? " finding" : " findings");
  s += " (";
  bool first = true;
  for (const auto& [severity, n] : bySeverity) {
    s += (first ? "" : ", ") + std::to_string(n) + " " + std::string(severityName(severity));
    first = false;
  }
  return s + ").";
}

struct Listed {
  const review::PublishedFinding* finding;
  std::string_view why;  // why it is not inline: "" when over the inline cap
};

constexpr std::string_view kOffDiff = " (not on a line of this diff)";
constexpr std::string_view kSaidBefore = " (commented on before)";
// GitHub names files in UTF-8 (JSON): it has no way to take a comment on any other name.
constexpr std::string_view kNameNotUtf8 = " (its file name is not UTF-8, which GitHub cannot take a comment on)";

}  // namespace

std::string truncateUtf8(const std::string& text, std::size_t maxBytes) {
  return revline::truncateUtf8(text, maxBytes, "…");
}

GithubReview buildGithubReview(const review::ReviewOutcome& outcome, const diff::Diff& diff,
                               const GithubReviewOptions& options) {
  GithubReview review;
  switch (outcome.verdict) {
    case Verdict::RequestChanges: review.event = "REQUEST_CHANGES"; break;
    case Verdict::Comment: review.event = "COMMENT"; break;
    case Verdict::Approve: review.event = options.approveAllowed ? "APPROVE" : "COMMENT"; break;
  }

  // Most severe first, then most confident; stable so equal findings keep the pipeline's order.
  std::vector<const review::PublishedFinding*> ordered;
  for (const auto& p : outcome.findings) ordered.push_back(&p);
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto* a, const auto* b) {
    if (a->finding.severity != b->finding.severity) return a->finding.severity < b->finding.severity;
    return a->finding.confidence > b->finding.confidence;
  });

  // An id leaves the line out (it follows the code when lines move), so the
  // same id on two lines is two findings, as in the session's merge.
  std::set<std::tuple<std::string, std::string, std::int64_t>> seenIds;
  std::set<std::tuple<std::string, std::int64_t, std::int64_t, std::string>> seenSpots;
  std::vector<Listed> listed;
  std::vector<const review::PublishedFinding*> shown;
  // Of an id said before at n places, the places revline commented on still count
  // first; the others take what is left of n, in order; a place past n is new
  // (the same problem added somewhere else since).
  std::map<std::string, int> placesLeft;
  for (const auto& [id, n] : options.timesSaidBefore) placesLeft[id] = n;
  std::set<std::tuple<std::string, std::string, std::int64_t>> counted;  // a duplicate takes no place
  const diff::FileIndex files(diff);
  for (const auto* p : ordered) {
    if (p->id.empty() || !options.saidBefore.count(p->id)) continue;
    if (!counted.insert({p->id, diff::normalizePath(p->finding.file), p->finding.line}).second) continue;
    placesLeft.try_emplace(p->id, 1);
    const auto at = place(p->finding, files);
    if (at && options.commentedAt.count({at->path, at->line, std::string(categoryName(p->finding.category))}))
      --placesLeft[p->id];
  }
  for (const auto* p : ordered) {
    const Finding& f = p->finding;
    const std::string file = diff::normalizePath(f.file);
    const bool dupId = !p->id.empty() && !seenIds.insert({p->id, file, f.line}).second;
    const bool dupSpot = !seenSpots.insert({file, f.line, f.lastLine(), f.title}).second;
    if (dupId || dupSpot) {
      ++review.duplicatesDropped;
      continue;
    }
    shown.push_back(p);
    const auto placement = place(f, files);
    bool saidBefore =
        placement && options.commentedAt.count({placement->path, placement->line, std::string(categoryName(f.category))});
    if (!saidBefore && !p->id.empty() && options.saidBefore.count(p->id) && placesLeft[p->id] > 0) {
      --placesLeft[p->id];
      saidBefore = true;
    }
    if (saidBefore) {
      listed.push_back({p, kSaidBefore});
      continue;
    }
    ++review.newFindings;
    if (!placement) {
      listed.push_back({p, kOffDiff});
      continue;
    }
    if (!validUtf8(placement->path)) {
      listed.push_back({p, kNameNotUtf8});
      continue;
    }
    if (review.comments.size() >= options.maxInlineComments) {
      listed.push_back({p, ""});
      continue;
    }
    InlineComment c;
    c.path = placement->path;
    c.line = placement->line;
    c.startLine = placement->startLine;
    c.body = replaceInvalidUtf8(commentBody(*p, placement->exact, options.maxBodyBytes));
    c.findingId = p->id;
    review.comments.push_back(std::move(c));
  }
  review.listedInBody = listed.size();

  // The review body: verdict, summary, counts, then the findings that are not inline.
  // Its marker goes first once the listed ids are known.
  std::string body = verdictHeading(review.event, outcome.verdict) + "\n\n";
  review.resolvesEarlierRequest = options.resolvesEarlierRequest;
  if (options.resolvesEarlierRequest)
    body += "revline's earlier request for changes no longer applies: none of its blocking findings remains.\n\n";
  // The summary gets a quarter of the body at most: a verbose model's (or a split
  // review's many) must not push the coverage, usage and footer past the cap.
  // What is said of findings past max_findings ends the summary, and is kept
  // whole when the model's part is cut: the counts below are of those shown.
  if (!outcome.summary.empty()) {
    std::string said = outcome.summary, capNote;
    // (notePublicationCap's sentence, found by the count it names.)
    const std::string capLead = "Not shown: " + std::to_string(outcome.findingsOverCap) + " more finding";
    if (const auto at = said.rfind(capLead); outcome.findingsOverCap > 0 && at != std::string::npos) {
      capNote = said.substr(at);
      said.erase(at);
    }
    const std::size_t room = options.maxBodyBytes / 4 > capNote.size() ? options.maxBodyBytes / 4 - capNote.size() : 0;
    said = truncateUtf8(said, room);
    if (!capNote.empty()) said += (said.empty() || said.back() == '\n' || said.back() == ' ' ? "" : " ") + capNote;
    body += markdownProse(said) + "\n\n";
  }
  body += countsLine(shown);
  if (!review.comments.empty()) {
    body += " " + std::to_string(review.comments.size()) +
            (review.comments.size() == 1 ? " is an inline comment." : " are inline comments.");
  }
  body += "\n";
  if (!outcome.rejected.empty()) {
    body += "\n" + std::to_string(outcome.rejected.size()) +
            (outcome.rejected.size() == 1 ? " finding was discarded because it does" : " findings were discarded because they do") +
            " not refer to lines of this diff.\n";
  }
  if (outcome.unplacedBlocking > 0) {
    body += "\n**" + std::to_string(outcome.unplacedBlocking) +
            (outcome.unplacedBlocking == 1 ? " blocking finding" : " blocking findings") +
            " could not be placed on this diff**, so the change is not approved:\n\n";
    // What they say (a problem in a deleted file has no line to go on), the first five.
    std::size_t shownUnplaced = 0;
    for (const auto& r : outcome.rejected) {
      if (!r.blocking || shownUnplaced == 5) continue;
      body += "- " + headline(r.finding) + " — " + markdownCode(r.finding.file + ":" + rangeText(r.finding)) + ": " +
              markdownLine(truncateUtf8(r.reason, kListedExplanationBytes)) + "\n";
      ++shownUnplaced;
    }
    review.unplacedBlocking = static_cast<std::size_t>(outcome.unplacedBlocking);
  }
  if (outcome.coverage.filesTotal > 0) {
    std::string sentence = coverageSentence(outcome.coverage);
    sentence[0] = 'R';
    body += "\n" + markdownLine(sentence) + ".\n";
  }
  if (const std::string reason = notReviewedReason(outcome.coverage); !reason.empty()) body += "\n**" + reason + "**\n";
  if (!outcome.coverage.filesSkipped.empty()) {
    const auto& skipped = outcome.coverage.filesSkipped;
    body += "\nNot reviewed:\n\n";
    for (std::size_t i = 0; i < skipped.size() && i < 20; ++i) body += "- " + markdownLine(skippedFileText(skipped[i], true)) + "\n";
    if (skipped.size() > 20) body += "- …and " + std::to_string(skipped.size() - 20) + " more.\n";
  }
  std::string footerLine = "\n<sub>revline " + options.toolVersion;
  if (!outcome.provider.empty()) footerLine += " · " + outcome.provider;
  if (!outcome.model.empty() && outcome.model != outcome.provider) footerLine += " " + outcome.model;
  footerLine += "</sub>\n";
  // What the review spent goes last, above the footer (kept within the body's cap with it).
  if (const std::string usage = spentSentence(outcome); !usage.empty())
    footerLine = "\nUsage: " + usage + ".\n" + footerLine;

  // The ids of the listed findings, for the marker: those the body's cap leaves
  // out too (counted in its "…and N more"), so a run again on the same head finds
  // nothing new and posts nothing, rather than a review with the next ones each time.
  std::string said;
  for (const auto& item : listed) {
    if (item.finding->id.empty()) continue;
    const std::string id = (said.empty() ? "" : ",") + item.finding->id;
    if (said.size() + id.size() > options.maxBodyBytes / 2) break;  // the body's text needs the rest
    said += id;
  }
  std::string marker = std::string(kReviewMarker) + " event=" + review.event + " -->\n";
  if (!listed.empty()) {
    body += "\n**Findings not shown inline** (" + std::to_string(listed.size()) + ")\n\n";
    std::size_t written = 0;
    for (const auto& item : listed) {
      const Finding& f = item.finding->finding;
      std::string entry = "- " + headline(f) + " — " + markdownCode(f.file + ":" + rangeText(f));
      entry += item.why;
      entry += "\n";
      const bool saidBefore = item.why == kSaidBefore;  // one line: the earlier comment explains it
      if (!f.explanation.empty() && !saidBefore) {
        entry += prefixLines(markdownProse(truncateUtf8(f.explanation, kListedExplanationBytes)), "  > ");
      }
      if (f.suggestedFix && !saidBefore)
        entry += "  Suggested fix: " + markdownProse(truncateUtf8(*f.suggestedFix, kListedExplanationBytes), false) + "\n";
      const std::string more = "- …and " + std::to_string(listed.size() - written) + " more.\n";
      if (marker.size() + said.size() + 6 + body.size() + entry.size() + more.size() + footerLine.size() + 64 >
          options.maxBodyBytes) {
        body += more;
        break;
      }
      body += entry;
      ++written;
    }
  }
  if (!said.empty()) marker = std::string(kReviewMarker) + " event=" + review.event + " said=" + said + " -->\n";
  body = marker + body + footerLine;
  // File names are bytes; the payload is JSON, which holds only UTF-8.
  review.body = replaceInvalidUtf8(truncateUtf8(body, options.maxBodyBytes));
  return review;
}

json GithubReview::toJson(const std::optional<std::string>& commitId) const {
  json j = json::object();
  if (commitId && !commitId->empty()) j["commit_id"] = *commitId;
  j["event"] = event;
  j["body"] = body;
  json list = json::array();
  for (const auto& c : comments) {
    json o = {{"path", c.path}, {"line", c.line}, {"side", "RIGHT"}, {"body", c.body}};
    if (c.startLine) {
      o["start_line"] = *c.startLine;
      o["start_side"] = "RIGHT";
    }
    list.push_back(std::move(o));
  }
  j["comments"] = std::move(list);
  return j;
}

json renderGithubReview(const review::ReviewOutcome& outcome, const diff::Diff& diff,
                        const GithubReviewOptions& options) {
  return buildGithubReview(outcome, diff, options).toJson(options.commitId);
}

bool worthPosting(const GithubReview& review) {
  if (review.event == "REQUEST_CHANGES" || review.event == "APPROVE" || review.resolvesEarlierRequest) return true;
  if (review.unplacedBlocking > 0) return true;  // why the change is not approved is worth saying
  return !review.comments.empty() || review.listedInBody > 0;
}

}  // namespace revline::reports
