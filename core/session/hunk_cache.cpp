#include "core/session/hunk_cache.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "core/config/state_key.h"
#include "core/diff/function_context.h"
#include "core/git/git_directory.h"
#include "core/review/prompt.h"
#include "core/review/suppression.h"
#include "core/review/token_estimate.h"
#include "core/session/chunk_plan.h"
#include "core/session/review_cache.h"
#include "core/support/files.h"
#include "core/support/hash.h"
#include "core/support/keyed_hash.h"

namespace revline::session {
namespace fs = std::filesystem;

namespace {

// 2: a hunk whose review asked for changes it named no finding for is no longer
// kept as "no findings" (policy.h changesRequestedNotShown): older entries miss.
constexpr int kEntryVersion = 3;  // 3: sealed (sealOf)
// An entry is one hunk's findings (a few KB); a larger file is no entry of ours.
constexpr std::size_t kMaxEntryBytes = std::size_t{1} << 20;

void field(std::string& out, std::string_view name, std::string_view value) {
  out += name;
  out += ' ';
  out += std::to_string(value.size());
  out += '\n';
  out += value;
  out += '\n';
}

// What every unit's key starts with: the reviewer and how it was asked.
std::string commonKey(const HunkReviewContext& c) {
  std::string k = "revline-hunk-cache 1\n";
  field(k, "provider", c.provider);
  field(k, "model", c.model);
  field(k, "prompt", std::to_string(review::kPromptVersion));
  field(k, "settings", c.options ? review::requestSettingsKey(*c.options) : std::string());
  return k;
}

// Which commits changed each path (their indexes, oldest first): asked once
// per file of the change, so a branch with a commit of 20,000 files costs a
// lookup a file, not a scan of every path of every commit.
std::map<std::string_view, std::vector<std::size_t>> commitsByPath(const std::vector<git::Commit>& commits) {
  std::map<std::string_view, std::vector<std::size_t>> out;
  for (std::size_t i = 0; i < commits.size(); ++i)
    for (const std::string& p : commits[i].paths) out[p].push_back(i);
  return out;
}

// The messages of the commits that changed the file, by its path or its old one, oldest first.
std::string intentKey(const diff::FileDiff& f, const std::vector<git::Commit>& commits,
                      const std::map<std::string_view, std::vector<std::size_t>>& byPath) {
  std::set<std::size_t> touching;
  for (const std::string* p : {&f.path(), f.oldPath ? &*f.oldPath : nullptr})
    if (p)
      if (const auto it = byPath.find(*p); it != byPath.end()) touching.insert(it->second.begin(), it->second.end());
  std::string k;
  for (const std::size_t i : touching) field(k, "commit", commits[i].message);
  return k;
}

// The file as the model's section header names it (diff/render.h), but for a
// rename's similarity index: it moves with every edit of the file, so keying on
// it would send every hunk of a renamed file again on each save.
std::string fileKey(const diff::FileDiff& f) {
  std::string k;
  field(k, "file", f.path());
  field(k, "status", diff::toString(f.status));
  field(k, "old", f.oldPath.value_or(""));
  field(k, "modes", f.oldMode.value_or("") + " " + f.newMode.value_or(""));
  return k;
}

// A hunk's lines without their numbers, and the enclosing definition's lines
// with their distance from the hunk: what the model reads of it, wherever it is.
std::string hunkKey(const diff::Hunk& h, const diff::HunkContext* context) {
  std::string k;
  field(k, "section", h.section);
  for (const auto& l : h.lines) {
    k += l.kind == diff::LineKind::Added ? '+' : l.kind == diff::LineKind::Removed ? '-' : ' ';
    k += l.text;
    if (l.crlf) k += "\\r";
    if (l.noNewlineAtEnd) k += "\\no-newline";
    k += '\n';
  }
  if (context) {
    for (const auto* side : {&context->before, &context->after}) {
      k += side == &context->before ? "before\n" : "after\n";
      for (const auto& c : *side) field(k, std::to_string(c.newLine - h.newStart), c.text);
    }
  }
  return k;
}

// An entry's name: its key's digest, keyed with the user's key, so an entry
// planted by whoever handed the repository over is never read.
std::string entryName(const std::string& key) { return keyedFingerprint(config::stateKey(), key); }

fs::path entryFile(const fs::path& root, const std::string& name) {
  return git::gitDirectory(root) / "revline" / "hunks" / (name + ".json");
}


void shift(contract::Finding& f, std::int64_t by) {
  f.line += by;
  if (f.endLine) *f.endLine += by;
}

std::optional<CachedReview> readEntry(const fs::path& file) {
  const std::optional<std::string> text = readWholeFile(file, kMaxEntryBytes);
  if (!text) return std::nullopt;
  try {
    const json j = json::parse(*text);
    if (j.at("version").get<int>() != kEntryVersion) return std::nullopt;
    if (j.at("seal").get<std::string>() != sealOf(file.stem().string(), j.at("review"))) return std::nullopt;
    return cachedReviewFromJson(j.at("review"));
  } catch (const std::exception&) {
    return std::nullopt;  // corrupt or from another version: a miss, rewritten by the review
  }
}

// What a review left out by a limit, per its coverage: whole files (left out
// whole, or without the spans to tell their hunks apart), and the hunks of
// files partly reviewed that hold a line left out.
struct NotReached {
  std::set<std::size_t> files;
  std::set<std::pair<std::size_t, std::ptrdiff_t>> hunks;
  bool holds(const IncrementalPlan::Unit& unit) const {
    return files.count(unit.file) > 0 || hunks.count({unit.file, unit.hunk}) > 0;
  }
};

NotReached notReached(const diff::Diff& whole, const review::Coverage& coverage) {
  NotReached out;
  const diff::FileIndex files(whole);
  for (const auto& skipped : coverage.filesSkipped) {
    // Part of a file left out by choice (a notebook's outputs): its hunks were reviewed.
    if (skipped.partial && !skipped.overLimit) continue;
    const diff::FileDiff* file = files.find(skipped.path);
    if (!file) continue;
    const auto fi = static_cast<std::size_t>(file - whole.files.data());
    if (!skipped.partial || skipped.leftOut.empty()) {
      out.files.insert(fi);
      continue;
    }
    for (std::size_t h = 0; h < file->hunks.size(); ++h)
      if (std::any_of(file->hunks[h].lines.begin(), file->hunks[h].lines.end(), [&](const diff::Line& l) {
            return std::any_of(skipped.leftOut.begin(), skipped.leftOut.end(), [&](const auto& span) {
              const std::int64_t n = span.oldFile ? (l.newLine ? 0 : l.oldLine) : l.newLine;
              return n && n >= span.first && n <= span.last;
            });
          }))
        out.hunks.emplace(fi, static_cast<std::ptrdiff_t>(h));
  }
  return out;
}

}  // namespace

bool HunkCache::applies(const std::string& provider) { return provider != "builtin" && provider != "replay"; }

diff::Diff cutIntoUnits(const diff::Diff& change, std::int64_t maxUnitTokens) {
  const std::int64_t pieceTokens = maxUnitTokens > 0 ? std::max<std::int64_t>(maxUnitTokens / 2, 1) : 0;
  // A line as the model reads it: its text and the number and marker before it.
  const auto tokensOf = [](const diff::Line& l) { return review::estimateTokens(l.text) + 3; };
  const auto blank = [](const diff::Line& l) { return l.text.find_first_not_of(" \t\r") == std::string::npos; };
  diff::Diff out = change;
  for (diff::FileDiff& file : out.files) {
    std::vector<diff::Hunk> hunks;
    for (const diff::Hunk& hunk : file.hunks) {
      std::int64_t hunkTokens = 0;
      for (const auto& l : hunk.lines) hunkTokens += tokensOf(l);
      if (hunk.lines.size() <= 2 * kUnitLines && (pieceTokens == 0 || hunkTokens <= pieceTokens)) {
        hunks.push_back(hunk);
        continue;
      }
      std::vector<std::size_t> starts;
      std::size_t begin = 0, lastTopLevel = 0;
      std::int64_t tokens = tokensOf(hunk.lines[0]);
      for (std::size_t i = 1; i < hunk.lines.size(); ++i) {
        const diff::Line& l = hunk.lines[i];
        const std::size_t length = i - begin;
        const bool full = (pieceTokens > 0 && tokens + tokensOf(l) > pieceTokens) || length >= 8 * kUnitLines;
        const bool topLevel = l.kind != diff::LineKind::Removed && !l.text.empty() &&
                              !std::isspace(static_cast<unsigned char>(l.text[0])) && blank(hunk.lines[i - 1]);
        // A top-level line starts a unit by its own text and the length of the
        // block before it (always after a block of kUnitLines or more): nothing
        // here depends on where the last cut was, so an edit that adds or
        // removes blocks moves no cut beyond the next one. A cut chosen "at the
        // first top-level line kUnitLines after the last" shifted every cut
        // after a new function, and re-sent half a 3,000-line file.
        const bool chosen =
            topLevel && (fnv1a64(l.text) % 1024) * kUnitLines < 1024 * static_cast<std::uint64_t>(i - lastTopLevel);
        if (topLevel) lastTopLevel = i;
        const bool roomLeft = i + kUnitLines / 4 < hunk.lines.size();  // no sliver of a piece at the end
        const bool cut = full || (roomLeft && length >= kUnitLines / 4 &&
                                  (chosen || (length >= 4 * kUnitLines && fnv1a64(l.text) % 16 == 0)));
        if (cut) {
          starts.push_back(i);
          begin = i;
          tokens = 0;
        }
        tokens += tokensOf(l);
      }
      for (diff::Hunk& piece : splitHunkBefore(hunk, starts)) hunks.push_back(std::move(piece));
    }
    file.hunks = std::move(hunks);
  }
  return out;
}

IncrementalPlan HunkCache::plan(const fs::path& root, const diff::Diff& change, const HunkReviewContext& context,
                                const review::ToolExecutor* files, CacheUse use) const {
  IncrementalPlan plan;
  plan.cut = cutIntoUnits(change, context.maxUnitTokens);
  const diff::Diff& whole = plan.cut;
  plan.toReview = whole.withoutFiles();
  const std::string common = commonKey(context);
  const auto byPath = commitsByPath(context.commits);
  for (std::size_t fi = 0; fi < whole.files.size(); ++fi) {
    const diff::FileDiff& f = whole.files[fi];
    const std::string prefix = common + intentKey(f, context.commits, byPath) + fileKey(f);
    diff::FileDiff kept = f;
    kept.hunks.clear();
    // `hunk`: the unit's hunk, whose lines a carried finding must be on (null: a file without hunks, which has none).
    auto lookUp = [&](IncrementalPlan::Unit& unit, std::int64_t base, const diff::Hunk* hunk) {
      if (use == CacheUse::Refresh) return;
      const fs::path file = entryFile(root, unit.key);
      std::optional<CachedReview> hit = readEntry(file);
      if (!hit) return;
      for (auto& p : hit->findings) {
        shift(p.finding, base - 1);  // stored relative to the hunk's first line, as line 1
        p.finding.file = f.path();   // exact: a path that is not UTF-8 was stored with U+FFFD
        // Grounded again: an entry whose finding falls outside its hunk (damaged, or not
        // written by store()) is a miss, and the hunk is sent again.
        if (!hunk || !hunkHolds(*hunk, p.finding)) return;
      }
      std::error_code ec;
      fs::last_write_time(file, fs::file_time_type::clock::now(), ec);  // recently used: pruned last
      if (use == CacheUse::RefreshFallingBack) {
        unit.earlier = std::move(hit->findings);
        return;
      }
      for (auto& p : hit->findings) plan.carried.push_back(std::move(p));
      unit.reused = true;
    };
    if (f.hunks.empty()) {
      IncrementalPlan::Unit unit{entryName(prefix + "no hunks\n"), fi, -1, false};
      lookUp(unit, 1, nullptr);
      if (!unit.reused) plan.toReview.files.push_back(kept);
      plan.units.push_back(std::move(unit));
      continue;
    }
    // Each hunk's function for the hunk alone: a change elsewhere in the same function changes its key.
    const auto contexts = context.options ? review::functionContextPerHunk(f, *context.options, files)
                                          : std::vector<std::optional<diff::HunkContext>>(f.hunks.size());
    // Told apart by the hunk's part of the key (the prefix is the file's, the same for all; with
    // a range's commit messages in it, kept whole for every hunk it held 238 MB of a 5 MB diff's plan).
    std::vector<std::string> keys;
    std::map<std::string, int> alike;  // hunks of this file that read the same, by key
    for (std::size_t hi = 0; hi < f.hunks.size(); ++hi) {
      keys.push_back(hunkKey(f.hunks[hi], contexts[hi] ? &*contexts[hi] : nullptr));
      ++alike[keys.back()];
    }
    // Of each group of alike hunks, the distances between them (new-side lines).
    std::map<std::string, std::string> spacing;
    std::map<std::string, int> lastStart;
    for (std::size_t hi = 0; hi < f.hunks.size(); ++hi) {
      if (alike[keys[hi]] < 2) continue;
      if (auto it = lastStart.find(keys[hi]); it != lastStart.end())
        spacing[keys[hi]] += std::to_string(f.hunks[hi].newStart - it->second) + " ";
      lastStart[keys[hi]] = f.hunks[hi].newStart;
    }
    std::map<std::string, int> occurrences;
    for (std::size_t hi = 0; hi < f.hunks.size(); ++hi) {
      const diff::Hunk& h = f.hunks[hi];
      std::string key = prefix + keys[hi];
      // Hunks that read alike (the same block changed the same way in several places)
      // are several reviews: the n-th of m is told apart by "n of m", which moving
      // lines keeps. When one of them changes, m does too, and the rest are sent
      // again: by n alone, each after it would take the review of the one before.
      // m can stay while the set changes (one edited away, a new one added
      // elsewhere): the distances between them tell it, which an edit above,
      // below or beside them keeps (before, the new one took the review of the
      // one it replaced in the count, findings on its lines included).
      if (const int m = alike[keys[hi]]; m > 1) {
        const std::string between = spacing[keys[hi]];
        field(key, "occurrence", std::to_string(occurrences[keys[hi]]++) + " of " + std::to_string(m));
        field(key, "spacing", between);
      }
      IncrementalPlan::Unit unit{entryName(key), fi, static_cast<std::ptrdiff_t>(hi), false};
      lookUp(unit, h.newStart, &h);
      ++plan.hunksTotal;
      if (unit.reused) ++plan.hunksReused;
      else kept.hunks.push_back(h);
      plan.units.push_back(std::move(unit));
    }
    if (!kept.hunks.empty()) plan.toReview.files.push_back(std::move(kept));
  }
  return plan;
}

bool HunkCache::store(const fs::path& root, const IncrementalPlan& plan, const review::ReviewOutcome& fresh,
                      const review::PolicyConfig& policy) const {
  const diff::Diff& whole = plan.cut;
  // A review whose answer does not stand hunk by hunk keeps nothing: the model
  // asked for changes it did not show, or meant a blocking finding that could
  // not be placed (of a split review, only the requests that did so), or the
  // publication cap may have cut any hunk's findings.
  bool keepsNothing = fresh.findings.size() >= policy.maxFindings;
  std::set<std::size_t> unsettled;  // files
  const diff::FileIndex files(whole);
  if (fresh.unsettledFiles) {
    for (const std::string& path : *fresh.unsettledFiles)
      if (const diff::FileDiff* file = files.find(path)) unsettled.insert(static_cast<std::size_t>(file - whole.files.data()));
  } else {
    const review::ApprovalEvidence evidence = review::approvalEvidence(fresh);
    keepsNothing = keepsNothing || evidence.unplacedBlocking > 0 || evidence.changesRequestedNotShown;
  }

  // Each finding to the unit whose lines hold it; a file with a finding outside them keeps nothing.
  std::map<std::pair<std::size_t, std::ptrdiff_t>, std::vector<review::PublishedFinding>> byUnit;
  // A file the review left out (e.g. over a request budget) was not reviewed: nothing of it is kept;
  // of a file partly reviewed, the hunks none of whose lines were left out (so the next review
  // sends only the rest, instead of the same requests again).
  const NotReached leftOut = notReached(whole, fresh.coverage);
  for (const auto& p : fresh.findings) {
    const diff::FileDiff* file = files.find(p.finding.file);
    if (!file) continue;  // cannot happen for a grounded finding; nothing to attribute it to
    const std::size_t fi = static_cast<std::size_t>(file - whole.files.data());
    const auto h = std::find_if(file->hunks.begin(), file->hunks.end(),
                                [&](const diff::Hunk& hunk) { return hunkHolds(hunk, p.finding); });
    if (h == file->hunks.end()) {
      unsettled.insert(fi);
      continue;
    }
    review::PublishedFinding relative = p;
    shift(relative.finding, 1 - h->newStart);
    byUnit[{fi, h - file->hunks.begin()}].push_back(std::move(relative));
  }

  bool written = true, any = false;
  // Only into a real directory of the git directory's (never through a planted symlink).
  const std::optional<fs::path> dir = ownDirectory(git::gitDirectory(root), fs::path("revline") / "hunks");
  for (const auto& unit : plan.units) {
    // Not reviewed this time (reused, or left out by a limit): its entry stays as it was.
    if (unit.reused || leftOut.holds(unit)) continue;
    if (keepsNothing || unsettled.count(unit.file)) {
      // Reviewed again, but not kept: an earlier review of it (a forced full
      // review refreshes every unit) must not stand for this one either.
      std::error_code ec;
      if (dir) fs::remove(entryFile(root, unit.key), ec);
      continue;
    }
    if (!dir) return false;
    CachedReview entry;
    if (auto it = byUnit.find({unit.file, unit.hunk}); it != byUnit.end()) entry.findings = it->second;
    const fs::path file = entryFile(root, unit.key);
    json review = toJson(entry);
    const std::string seal = sealOf(file.stem().string(), review);
    const json j{{"version", kEntryVersion}, {"review", std::move(review)}, {"seal", seal}};
    written = writeFileAtomically(file, j.dump(-1, ' ', false, json::error_handler_t::replace)) && written;
    any = true;
  }
  // The change's own units are the newest entries (written now, or touched when
  // planned): the ones kept, however many, up to kMaxDiskEntries.
  if (any) pruneCacheDirectory(*dir, std::max(diskEntries_, std::min(plan.units.size(), kMaxDiskEntries)));
  return written;
}

void fallBackWhereNotReached(IncrementalPlan& plan, const review::ReviewOutcome& fresh) {
  const NotReached leftOut = notReached(plan.cut, fresh.coverage);
  for (auto& unit : plan.units) {
    if (!unit.earlier || !leftOut.holds(unit)) continue;
    for (auto& p : *unit.earlier) plan.carried.push_back(std::move(p));
    unit.earlier.reset();
    plan.hunksFallenBack += unit.hunk >= 0;
  }
}

review::ReviewOutcome mergeIncremental(const IncrementalPlan& plan, review::ReviewOutcome fresh,
                                       const diff::Diff& whole, const review::ReviewInputs& inputs,
                                       const review::PolicyConfig& policy, bool toReviewSent) {
  review::ReviewOutcome o = std::move(fresh);
  const bool sent = toReviewSent && !plan.toReview.files.empty();
  const review::ApprovalEvidence evidence = review::approvalEvidence(o);
  // Carried over from an earlier review: a `revline: ignore` comment may be newer
  // than it (a line above added since), and the warning is said on every run.
  std::vector<review::PublishedFinding> all = plan.carried;
  review::dropSuppressed(all, whole, o.warnings);
  const std::size_t carried = all.size();
  all.insert(all.end(), std::make_move_iterator(o.findings.begin()), std::make_move_iterator(o.findings.end()));
  std::size_t overCap = 0;
  o.findings = review::applyPublicationFilters(std::move(all), policy, &overCap);
  // Coverage of the whole change; what a limit left out of this request stays left out.
  review::Coverage coverage = review::coverageOf(whole, inputs);
  std::set<std::size_t> reusedFiles;  // files some of whose hunks were reviewed before
  for (const auto& unit : plan.units)
    if (unit.reused) reusedFiles.insert(unit.file);
  const diff::FileIndex files(whole);
  for (auto& skipped : o.coverage.filesSkipped) {
    if (!skipped.overLimit || skipped.notInDiff) continue;  // those of `inputs` are in `coverage` already
    if (const diff::FileDiff* file = files.find(skipped.path))
      skipped.partial = skipped.partial || reusedFiles.count(static_cast<std::size_t>(file - whole.files.data())) > 0;
    coverage.linesReviewed -= skipped.lines;
    coverage.filesReviewed -= !skipped.partial;
    coverage.filesSkipped.push_back(std::move(skipped));
  }
  o.coverage = std::move(coverage);
  o.verdict = review::decideVerdict(o.findings, policy, evidence);
  if (!sent) {
    o.modelVerdict.reset();  // no model answered this time
    o.summary = plan.toReview.files.empty()
                    ? "Every hunk of this change was reviewed before; these are those reviews' findings (from the "
                      "per-hunk review cache)."
                    : std::to_string(plan.hunksReused) + " of " + std::to_string(plan.hunksTotal) +
                          " hunks were reviewed before; these are those reviews' findings (from the per-hunk "
                          "review cache). The others are not reviewed in their current form; the next save "
                          "reviews them.";
  } else if (plan.hunksFallenBack > 0) {
    o.summary += std::string(o.summary.find('\n') == std::string::npos ? " " : "\n") + "(" +
                 std::to_string(plan.hunksFallenBack) + " of " + std::to_string(plan.hunksTotal) +
                 " hunks were not reached by this review; the " + std::to_string(carried) +
                 (carried == 1 ? " finding" : " findings") + " of their last review " +
                 (carried == 1 ? "is" : "are") + " shown.)";
  } else if (plan.hunksReused > 0) {
    // On a line of its own after a split review's "[i/n]" summaries: it is about the whole review.
    o.summary += std::string(o.summary.find('\n') == std::string::npos ? " " : "\n") + "(" +
                 std::to_string(plan.hunksReused) + " of " + std::to_string(plan.hunksTotal) +
                 " hunks were unchanged since an earlier review and not sent again; their " + std::to_string(carried) +
                 (carried == 1 ? " finding is" : " findings are") + " carried over.)";
  }
  // The fresh review was not capped (review_service.cpp): this is the one cut.
  review::noteFindingsOverCap(o, overCap, policy);
  return o;
}

}  // namespace revline::session
