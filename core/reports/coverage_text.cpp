#include "core/reports/coverage_text.h"

#include <algorithm>
#include <vector>

#include "core/reports/markdown_text.h"

namespace revline::reports {

namespace {

constexpr std::size_t kExcludedNamesShown = 3;

std::string count(std::int64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

Excluded excludedOf(const review::Coverage& c) {
  Excluded e;
  for (const auto& s : c.filesSkipped) {
    if (s.overLimit) continue;  // left out by a limit, not by choice
    e.files += !s.partial;      // a notebook's outputs: the file itself is reviewed
    e.lines += s.lines;
  }
  return e;
}

std::string coverageSentence(const review::Coverage& c) {
  if (c.filesTotal == 0 && c.filesSkipped.empty()) return "no file changed";
  const Excluded excluded = excludedOf(c);
  const auto partly = std::count_if(c.filesSkipped.begin(), c.filesSkipped.end(),
                                    [](const review::SkippedFile& s) { return s.partial && s.overLimit; });
  // Excluded files were never meant to be reviewed: counting them in the total
  // would make a complete review read as an incomplete one.
  const int filesMeant = c.filesTotal - excluded.files;
  std::string s = "reviewed " + std::to_string(c.filesReviewed) + " of " +
                  count(filesMeant, "file", "files") + (excluded.files > 0 ? " not excluded" : "");
  if (partly > 0) s += ", " + std::to_string(partly) + " of them partly";
  s += " (" + std::to_string(c.linesReviewed) + " of " + std::to_string(c.linesTotal - excluded.lines) +
       " changed lines)";
  std::vector<std::string> names;
  for (const auto& skipped : c.filesSkipped)
    if (!skipped.overLimit) names.push_back((skipped.partial ? "part of " : "") + skipped.path);
  if (names.empty()) return s;
  const std::string lines = count(excluded.lines, "changed line", "changed lines");
  if (names.size() == 1) return s + "; excluded: " + names[0] + " (" + lines + ")";
  // Parts of files left out by choice (a notebook's outputs) beside whole files.
  const auto parts = static_cast<std::int64_t>(names.size()) - excluded.files;
  std::string what = count(excluded.files, "file", "files");
  if (parts > 0) what = (excluded.files > 0 ? what + " and " : "") + "part of " + count(parts, "file", "files");
  s += "; excluded: " + what + " (" + lines + "): ";
  for (std::size_t i = 0; i < names.size() && i < kExcludedNamesShown; ++i) s += (i == 0 ? "" : ", ") + names[i];
  if (names.size() > kExcludedNamesShown) s += " and " + std::to_string(names.size() - kExcludedNamesShown) + " more";
  return s;
}

std::string skippedFileText(const review::SkippedFile& skipped, bool asCode) {
  std::string text = asCode ? markdownCode(skipped.path) : skipped.path;
  // Its reason names only the lines left out: without this it reads as the whole file.
  if (skipped.partial && skipped.overLimit) text += " (partly reviewed)";
  else if (skipped.partial) text = "part of " + text;  // by choice (a notebook's outputs): the rest is reviewed
  return text + ": " + skipped.reason;
}

std::string notReviewedReason(const review::Coverage& c) {
  const auto n = std::count_if(c.filesSkipped.begin(), c.filesSkipped.end(),
                               [](const review::SkippedFile& s) { return s.overLimit; });
  if (n == 0) return "";
  const auto notShown = std::count_if(c.filesSkipped.begin(), c.filesSkipped.end(),
                                      [](const review::SkippedFile& s) { return s.unseenPartOfTheChange(); });
  const std::string why = notShown == 0 ? " over the request token budget or the max_requests cap"
                          : notShown == n ? " the diff could not show"
                                          : " over a request limit or not shown by the diff";
  return "Part of the change was not reviewed (" + std::to_string(n) + (n == 1 ? " file" : " files") + why +
         ", listed as skipped with the reason), so the verdict cannot be APPROVE.";
}

}  // namespace revline::reports
