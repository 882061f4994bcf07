#include "core/review/grounding.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/review/finding_id.h"
#include "core/support/utf8.h"

namespace revline::review {
namespace {

constexpr std::size_t kMaxListedFiles = 10;    // an unknown-file reason lists at most this many paths
constexpr std::size_t kMaxQuotedBytes = 80;    // values quoted in an edit reason are cut to this

// Deleted files are matched by their old path; no line of theirs is on the new side.
bool isDeleted(const diff::FileDiff& f) { return f.status == diff::FileStatus::Deleted || !f.newPath; }

std::string quotePath(std::string_view p) { return "'" + std::string(p) + "'"; }

std::string_view stripCr(std::string_view s) {
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

// Quotes a value for a reason message: cut on a UTF-8 boundary so the message
// stays valid UTF-8, with the characters that would hide a difference escaped.
std::string quoteValue(std::string_view s) {
  bool cut = false;
  if (s.size() > kMaxQuotedBytes) {
    std::size_t end = kMaxQuotedBytes;
    while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
    s = s.substr(0, end);
    cut = true;
  }
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default: out += c;
    }
  }
  out += cut ? "…\"" : "\"";
  return out;
}

std::string describeRange(std::int64_t first, std::int64_t last) {
  return first == last ? "line " + std::to_string(first)
                       : "lines " + std::to_string(first) + "-" + std::to_string(last);
}

std::string unknownFileReason(std::string_view file, const diff::Diff& diff) {
  std::string listed;
  std::size_t count = 0;
  for (const auto& f : diff.files) {
    if (isDeleted(f)) continue;  // nothing there to comment on
    if (count < kMaxListedFiles) listed += (count ? ", " : "") + f.path();
    ++count;
  }
  if (count > kMaxListedFiles) listed += " and " + std::to_string(count - kMaxListedFiles) + " more";
  return quotePath(file) + " is not a file this diff changes" +
         (count ? " (changed files: " + listed + ")" : " (the diff changes no file that can be commented on)");
}

// The first line of line..last that the diff does not show on the new side, if any.
std::optional<std::int64_t> firstLineNotShown(const diff::FileDiff& file, std::int64_t line, std::int64_t last) {
  for (std::int64_t n = line; n <= last; ++n) {
    if (n < 1 || n > std::numeric_limits<int>::max() || !file.isRightSideLine(static_cast<int>(n))) return n;
  }
  return std::nullopt;
}

// Why `finding` cannot be placed on `file`, or nullopt when it is grounded.
std::optional<std::string> lineRejection(const contract::Finding& finding, const diff::FileDiff& file) {
  if (isDeleted(file))
    return "cannot comment on a deleted file: this diff deletes " + quotePath(file.path());
  if (file.binary)
    return quotePath(file.path()) + " is a binary file; this diff shows none of its lines";
  const auto missing = firstLineNotShown(file, finding.line, finding.lastLine());
  if (!missing) return std::nullopt;
  std::string reason = "line " + std::to_string(*missing) + " of " + quotePath(file.path()) +
                       " is not among the lines this diff touches";
  if (finding.lastLine() != finding.line)
    reason += " (the finding spans " + describeRange(finding.line, finding.lastLine()) + ")";
  return reason;
}

// Splits on "\n"; each piece loses a "\r" that ends it (see grounding.h).
std::vector<std::string_view> splitLines(std::string_view s) {
  std::vector<std::string_view> lines;
  for (;;) {
    const std::size_t nl = s.find('\n');
    lines.push_back(stripCr(s.substr(0, nl)));
    if (nl == std::string_view::npos) return lines;
    s.remove_prefix(nl + 1);
  }
}

// Checks the edit against the shown lines (all RIGHT-side: the finding is grounded).
// On a match, rewrites it to canonical form and returns nullopt; otherwise the reason.
std::optional<std::string> checkEdit(contract::Edit& edit, const contract::Finding& finding,
                                     const diff::FileDiff& file) {
  std::string_view original = edit.original;
  const bool trailingNewline = !original.empty() && original.back() == '\n';
  if (trailingNewline) original.remove_suffix(1);
  const std::vector<std::string_view> given = splitLines(original);

  std::vector<std::string_view> expected;
  for (std::int64_t n = finding.line; n <= finding.lastLine(); ++n)
    expected.push_back(stripCr(file.newLineText(static_cast<int>(n)).value_or("")));

  // Bytes that are not UTF-8 reach the model as U+FFFD: an edit of such a line
  // would write those characters instead of the file's bytes, so it is dropped.
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (!validUtf8(expected[i]))
      return "line " + std::to_string(finding.line + static_cast<std::int64_t>(i)) +
             " is not valid UTF-8: an edit would replace bytes revline cannot show, so it is not offered";
  for (std::size_t i = 0; i < given.size() && i < expected.size(); ++i) {
    if (given[i] != expected[i])
      return "edit.original does not match line " + std::to_string(finding.line + static_cast<std::int64_t>(i)) +
             ": expected " + quoteValue(expected[i]) + ", got " + quoteValue(given[i]);
  }
  if (given.size() != expected.size())
    return "edit.original has " + std::to_string(given.size()) + (given.size() == 1 ? " line" : " lines") +
           " but the finding covers " + describeRange(finding.line, finding.lastLine());

  std::string canonical;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (i) canonical += '\n';
    canonical += expected[i];
  }
  if (trailingNewline && !edit.replacement.empty() && edit.replacement.back() == '\n') {
    edit.replacement.pop_back();
    if (!edit.replacement.empty() && edit.replacement.back() == '\r') edit.replacement.pop_back();
  }
  if (edit.replacement == canonical)
    return "edit.replacement is identical to the current text of " + describeRange(finding.line, finding.lastLine());
  edit.original = std::move(canonical);
  return std::nullopt;
}

}  // namespace

GroundingResult ground(const std::vector<contract::Finding>& findings, const diff::Diff& diff) {
  GroundingResult result;
  for (const auto& finding : findings) {
    const diff::FileDiff* file = diff.findFile(finding.file);
    if (!file) {
      result.rejected.push_back({finding, unknownFileReason(finding.file, diff)});
      continue;
    }
    if (auto reason = lineRejection(finding, *file)) {
      result.rejected.push_back({finding, std::move(*reason)});
      continue;
    }
    PublishedFinding published{finding, {}, std::nullopt};
    published.finding.file = file->path();
    if (published.finding.edit) {
      if (auto reason = checkEdit(*published.finding.edit, published.finding, *file)) {
        published.finding.edit.reset();
        published.editDroppedReason = std::move(*reason);
      }
    }
    published.id = findingId(published.finding, *file);
    result.grounded.push_back(std::move(published));
  }
  return result;
}

}  // namespace revline::review
