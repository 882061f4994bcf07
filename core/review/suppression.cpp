#include "core/review/suppression.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <string>

namespace revline::review {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// Where the line's comment starts: the first opener outside a string literal
// (quotes ' " ` with backslash escapes), or npos. A quote left open hides the
// rest of the line: nothing after it is taken for a comment.
std::size_t commentStart(std::string_view line) {
  static constexpr std::array<std::string_view, 7> openers{"<!--", "//", "/*", "--", "#", ";", "%"};
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'' || c == '`') {
      quote = c;
      continue;
    }
    for (const auto opener : openers)
      if (line.substr(i, opener.size()) == opener) return i;
  }
  return std::string_view::npos;
}

}  // namespace

bool ignoreCommentCovers(std::string_view line, contract::Category category, bool ownLine) {
  const std::string text = lower(line);
  const std::string wanted = lower(contract::enumName(category));
  for (auto at = text.find("revline:"); at != std::string::npos; at = text.find("revline:", at + 1)) {
    std::size_t k = at + 8;
    while (k < text.size() && text[k] == ' ') ++k;
    if (text.compare(k, 6, "ignore") != 0) continue;
    k += 6;
    if (k < text.size() && (std::isalnum(static_cast<unsigned char>(text[k])) || text[k] == '-')) continue;  // "ignored"
    const std::size_t opener = commentStart(text);
    if (opener == std::string::npos || opener > at) continue;  // in a string, or in code before any comment
    if (ownLine && !std::all_of(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(opener),
                                [](unsigned char c) { return std::isspace(c); }))
      continue;
    if (k >= text.size() || text[k] != '[') return true;  // bare: every finding
    const auto close = text.find(']', k);
    if (close == std::string::npos) continue;
    std::string names = text.substr(k + 1, close - k - 1);
    std::replace(names.begin(), names.end(), ',', ' ');
    for (std::size_t s = 0; s < names.size();) {
      while (s < names.size() && names[s] == ' ') ++s;
      const std::size_t e = std::min(names.find(' ', s), names.size());
      if (e > s && names.compare(s, e - s, wanted) == 0) return true;
      s = e;
    }
  }
  return false;
}

std::optional<std::int64_t> suppressedAt(const contract::Finding& finding, const diff::FileDiff& file) {
  auto textOf = [&](std::int64_t n) -> std::optional<std::string_view> {
    if (n < 1 || n > std::numeric_limits<int>::max()) return std::nullopt;
    return file.newLineText(static_cast<int>(n));
  };
  for (std::int64_t n = finding.line; n <= finding.lastLine(); ++n)
    if (const auto text = textOf(n); text && ignoreCommentCovers(*text, finding.category, false)) return n;
  if (const auto above = textOf(finding.line - 1); above && ignoreCommentCovers(*above, finding.category, true))
    return finding.line - 1;
  return std::nullopt;
}

void dropSuppressed(std::vector<PublishedFinding>& findings, const diff::Diff& scope, std::vector<std::string>& warnings) {
  const diff::FileIndex files(scope);
  std::vector<std::string> where;
  std::size_t dropped = 0;
  std::erase_if(findings, [&](const PublishedFinding& p) {
    const diff::FileDiff* file = files.find(p.finding.file);
    const auto at = file ? suppressedAt(p.finding, *file) : std::nullopt;
    if (!at) return false;
    if (where.size() < 5) where.push_back(p.finding.file + ":" + std::to_string(*at));
    ++dropped;
    return true;
  });
  if (dropped == 0) return;
  std::string list;
  for (const auto& w : where) list += (list.empty() ? "" : ", ") + w;
  if (dropped > where.size()) list += " and " + std::to_string(dropped - where.size()) + " more";
  warnings.push_back(std::to_string(dropped) + (dropped == 1 ? " finding" : " findings") +
                     " not published: a `revline: ignore` comment marks the line deliberate (" + list + ")");
}

}  // namespace revline::review
