#include "core/review/grounding.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/diff/render.h"
#include "core/review/finding_id.h"
#include "core/review/redaction.h"
#include "core/support/terminal_text.h"
#include "core/support/text.h"
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
    s = s.substr(0, utf8Boundary(s, kMaxQuotedBytes));
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

// The file a finding names. A path that is not valid UTF-8 reaches the model
// C-quoted (displayPath), which findFile reads; a model that decodes it names
// it with U+FFFD for each bad byte instead (JSON holds no raw bytes): such a
// name is matched to the one changed file that reads so, or every finding on
// that file would be rejected (a BLOCKER could never block).
const diff::FileDiff* fileNamed(const std::string& name, const diff::Diff& diff, const diff::FileIndex& files) {
  if (const diff::FileDiff* file = files.find(name)) return file;
  if (name.find("\xEF\xBF\xBD") == std::string::npos) return nullptr;
  const diff::FileDiff* match = nullptr;
  for (const auto& f : diff.files) {
    if (isDeleted(f) || validUtf8(f.path())) continue;
    if (diff::normalizePath(replaceInvalidUtf8(f.path())) != diff::normalizePath(name)) continue;
    if (match) return nullptr;  // two files read the same: neither can be told
    match = &f;
  }
  return match;
}

std::string unknownFileReason(std::string_view file, const diff::Diff& diff) {
  std::string listed;
  std::size_t count = 0;
  for (const auto& f : diff.files) {
    if (isDeleted(f)) continue;  // nothing there to comment on
    // Spelled as the prompt's "File:" lines spell them, the form the model copies.
    if (count < kMaxListedFiles) listed += (count ? ", " : "") + replaceInvalidUtf8(diff::displayPath(f.path()));
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

// The last new-file line of the block of shown lines (the hunk) holding `line`.
std::int64_t lastShownLineOfBlock(const diff::FileDiff& file, std::int64_t line) {
  for (const diff::Hunk& h : file.hunks) {
    if (line >= h.newStart && line < h.newStart + h.newCount) return h.newStart + h.newCount - 1;
  }
  return line;
}

// The removed-code rule (contract.md, the prompt): a finding about removed lines
// sits on the first added or context line after them in the hunk, or on the last
// one before them when none follows. For the removed line whose OLD number is
// `oldLine` (a model may use it), that anchor's new number and the removed text.
std::optional<std::pair<std::int64_t, std::string_view>> removedLineAnchor(const diff::FileDiff& file,
                                                                             std::int64_t oldLine) {
  for (const diff::Hunk& h : file.hunks) {
    for (std::size_t i = 0; i < h.lines.size(); ++i) {
      const diff::Line& l = h.lines[i];
      if (l.kind != diff::LineKind::Removed || l.oldLine != oldLine) continue;
      for (std::size_t j = i + 1; j < h.lines.size(); ++j)
        if (h.lines[j].kind != diff::LineKind::Removed) return std::make_pair(std::int64_t{h.lines[j].newLine}, l.text);
      for (std::size_t j = i; j-- > 0;)
        if (h.lines[j].kind != diff::LineKind::Removed) return std::make_pair(std::int64_t{h.lines[j].newLine}, l.text);
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// Why `finding` cannot be placed on `file`, or nullopt when it is grounded.
// Only the first line decides: a range that runs past the block of shown lines
// is clamped afterwards (clampRange), not rejected.
std::optional<std::string> lineRejection(const contract::Finding& finding, const diff::FileDiff& file) {
  if (isDeleted(file))
    return "cannot comment on a deleted file: this diff deletes " + quotePath(file.path());
  if (file.binary)
    return quotePath(file.path()) + " is a binary file; this diff shows none of its lines";
  const auto missing = firstLineNotShown(file, finding.line, finding.line);
  if (!missing) return std::nullopt;
  std::string reason = "line " + std::to_string(*missing) + " of " + quotePath(file.path()) +
                       " is not among the lines this diff touches";
  if (finding.lastLine() != finding.line)
    reason += " (the finding spans " + describeRange(finding.line, finding.lastLine()) + ")";
  if (auto anchor = removedLineAnchor(file, finding.line))
    reason += "; if it is about the removed line " + quoteValue(anchor->second) + " (old line " +
              std::to_string(finding.line) + "), place it on line " + std::to_string(anchor->first) +
              ", the line the removed-code rule names";
  return reason;
}

// Cuts line..endLine back to the shown block that holds `line`; the note says what was cut.
std::optional<std::string> clampRange(contract::Finding& finding, const diff::FileDiff& file) {
  const auto missing = firstLineNotShown(file, finding.line, finding.lastLine());
  if (!missing) return std::nullopt;
  const std::int64_t asked = finding.lastLine();
  const std::int64_t last = std::min(lastShownLineOfBlock(file, finding.line), *missing - 1);
  finding.endLine = last == finding.line ? std::nullopt : std::optional<std::int64_t>(last);
  return "the range " + describeRange(finding.line, asked) + " ran past the lines this diff shows (line " +
         std::to_string(*missing) + " is not shown); clamped to " + describeRange(finding.line, last);
}

std::string_view leadingWhitespace(std::string_view s) {
  return s.substr(0, std::min(s.size(), s.find_first_not_of(" \t")));
}

std::string_view withoutLeadingWhitespace(std::string_view s) { return s.substr(leadingWhitespace(s).size()); }

bool sameButIndentation(const std::vector<std::string_view>& given, const std::vector<std::string_view>& expected,
                        std::size_t at) {
  for (std::size_t i = 0; i < given.size(); ++i)
    if (withoutLeadingWhitespace(given[i]) != withoutLeadingWhitespace(expected[at + i])) return false;
  return true;
}

// The replacement moved by the indentation that `original` lost (or gained): on
// each non-blank line, the first non-blank original line's indentation is
// swapped for the file's (grounding.h, "re-indentation").
std::string reindent(const std::string& replacement, std::string_view givenIndent, std::string_view fileIndent) {
  std::string out;
  std::string_view rest = replacement;
  for (bool first = true;; first = false) {
    const std::size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    if (!first) out += '\n';
    if (!withoutLeadingWhitespace(stripCr(line)).empty()) {
      if (line.substr(0, givenIndent.size()) == givenIndent) line.remove_prefix(givenIndent.size());
      out.append(fileIndent);
    }
    out.append(line);
    if (nl == std::string_view::npos) return out;
    rest.remove_prefix(nl + 1);
  }
}

std::string joinLines(const std::vector<std::string_view>& lines, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to; ++i) {
    if (i > from) out += '\n';
    out += lines[i];
  }
  return out;
}

// An original that is not the exact text of the range but equals, up to leading
// whitespace, exactly one run of consecutive lines inside it. Returns the start
// index of that run, or the reason the edit is refused.
std::variant<std::size_t, std::string> uniqueIndentationMatch(const std::vector<std::string_view>& given,
                                                              const std::vector<std::string_view>& expected,
                                                              const contract::Finding& finding) {
  std::vector<std::size_t> matches;
  for (std::size_t at = 0; given.size() <= expected.size() && at + given.size() <= expected.size(); ++at)
    if (sameButIndentation(given, expected, at)) matches.push_back(at);
  if (matches.size() == 1) return matches[0];
  if (matches.size() > 1) {
    auto run = [&](std::size_t at) {
      const std::int64_t first = finding.line + static_cast<std::int64_t>(at);
      return describeRange(first, first + static_cast<std::int64_t>(given.size()) - 1);
    };
    return "edit.original matches both " + run(matches[0]) + " and " + run(matches[1]) +
           " when leading whitespace is ignored; an ambiguous edit is never applied";
  }
  // No match at all: name the first differing line, as an exact comparison would.
  for (std::size_t i = 0; i < given.size() && i < expected.size(); ++i) {
    if (given[i] != expected[i])
      return "edit.original does not match line " + std::to_string(finding.line + static_cast<std::int64_t>(i)) +
             ": expected " + quoteValue(expected[i]) + ", got " + quoteValue(given[i]);
  }
  return "edit.original has " + std::to_string(given.size()) + (given.size() == 1 ? " line" : " lines") +
         " but the finding covers " + describeRange(finding.line, finding.lastLine());
}

// Checks the edit against the shown lines (all RIGHT-side: the finding is grounded).
// On a match, rewrites it to canonical form and returns nullopt; otherwise the reason.
// `seen` is `file` as the model was shown it (secrets redacted for a remote
// model; else `file` itself): an original that quotes a line's secret as its
// marker means that line, and a reason quotes no more than the model saw.
std::optional<std::string> checkEdit(contract::Edit& edit, const contract::Finding& finding,
                                     const diff::FileDiff& file, const diff::FileDiff& seen) {
  std::string_view original = edit.original;
  const bool trailingNewline = !original.empty() && original.back() == '\n';
  if (trailingNewline) original.remove_suffix(1);
  const std::vector<std::string_view> given = splitLines(original);

  std::vector<std::string_view> expected, shown;
  for (std::int64_t n = finding.line; n <= finding.lastLine(); ++n) {
    expected.push_back(stripCr(file.newLineText(static_cast<int>(n)).value_or("")));
    shown.push_back(stripCr(seen.newLineText(static_cast<int>(n)).value_or("")));
  }
  const bool redacted = &seen != &file;

  // Bytes that are not UTF-8 reach the model as U+FFFD: an edit of such a line
  // would write those characters instead of the file's bytes, so it is dropped.
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (!validUtf8(expected[i]))
      return "line " + std::to_string(finding.line + static_cast<std::int64_t>(i)) +
             " is not valid UTF-8: an edit would replace bytes revline cannot show, so it is not offered";
  if (trailingNewline && !edit.replacement.empty() && edit.replacement.back() == '\n') {
    edit.replacement.pop_back();
    if (!edit.replacement.empty() && edit.replacement.back() == '\r') edit.replacement.pop_back();
  }
  const std::string canonical = joinLines(expected, 0, expected.size());
  if (given != expected) {
    // Matched against what the model read: the same text but where a secret was
    // replaced by its marker; the lines kept around the match are the file's.
    auto match = uniqueIndentationMatch(given, shown, finding);
    if (auto* reason = std::get_if<std::string>(&match)) return std::move(*reason);
    const std::size_t at = std::get<std::size_t>(match);
    std::size_t k = 0;  // the first non-blank line sets the indentation shift
    while (k + 1 < given.size() && withoutLeadingWhitespace(given[k]).empty()) ++k;
    std::string replacement = reindent(edit.replacement, leadingWhitespace(given[k]), leadingWhitespace(expected[at + k]));
    // The edit covers the whole range: lines around the matched run stay as they are.
    std::string before = joinLines(expected, 0, at), after = joinLines(expected, at + given.size(), expected.size());
    if (at > 0) replacement = before + "\n" + replacement;
    if (at + given.size() < expected.size()) replacement += "\n" + after;
    edit.replacement = std::move(replacement);
  }
  // A marker left in the replacement would be written over the file's secret
  // (one the file itself holds, a log scrubber's text, may stay).
  auto markers = [](std::string_view text) {
    std::size_t n = 0;
    for (auto at = text.find("[REDACTED:"); at != std::string_view::npos; at = text.find("[REDACTED:", at + 1)) ++n;
    return n;
  };
  if (redacted && markers(edit.replacement) > markers(canonical))
    return "edit.replacement keeps a secret's [REDACTED:...] marker (the model was not shown the secret): applying "
           "it would write the marker into the file, so it is not offered";
  // A character no one sees, written into the file by a quick fix an editor may
  // apply unshown (a preferred one): a bidi override reorders what the code reads
  // as, a NUL or an ESC is no text. The lines' own may stay.
  const std::vector<unsigned> held = invisibleCharacters(canonical);
  for (const unsigned cp : invisibleCharacters(edit.replacement))
    if (std::find(held.begin(), held.end(), cp) == held.end()) {
      char code[16];
      std::snprintf(code, sizeof code, "U+%04X", cp);
      return "edit.replacement adds " + std::string(code) +
             ", a control or invisible character the lines do not hold: applying it would hide it in the file, so "
             "it is not offered";
    }
  if (edit.replacement == canonical)
    return "edit.replacement is identical to the current text of " + describeRange(finding.line, finding.lastLine());
  edit.original = canonical;
  return std::nullopt;
}

}  // namespace

GroundingResult ground(const std::vector<contract::Finding>& findings, const diff::Diff& diff,
                       const SecretFinder& finder) {
  GroundingResult result;
  const diff::FileIndex files(diff);
  // A file as the model was shown it, redacted once, when a finding names it.
  std::map<const diff::FileDiff*, diff::Diff> redacted;
  auto seen = [&](const diff::FileDiff& file) -> const diff::FileDiff& {
    if (!finder) return file;
    auto it = redacted.find(&file);
    if (it == redacted.end()) it = redacted.emplace(&file, redactDiff(diff::Diff{diff.source, {file}}, finder)).first;
    return it->second.files.front();
  };
  for (std::size_t index = 0; index < findings.size(); ++index) {
    const contract::Finding& finding = findings[index];
    const diff::FileDiff* file = fileNamed(finding.file, diff, files);
    if (!file) {
      result.rejected.push_back({finding, unknownFileReason(finding.file, diff), index});
      continue;
    }
    if (auto reason = lineRejection(finding, seen(*file))) {
      result.rejected.push_back({finding, std::move(*reason), index});
      continue;
    }
    PublishedFinding published{finding, {}, std::nullopt};
    published.finding.file = file->path();
    published.rangeClamped = clampRange(published.finding, *file);
    if (published.finding.edit) {
      if (auto reason = checkEdit(*published.finding.edit, published.finding, *file, seen(*file))) {
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
