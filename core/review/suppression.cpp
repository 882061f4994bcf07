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

// The offset of the first comment opener before `limit`, or npos.
std::size_t commentOpenerBefore(std::string_view line, std::size_t limit) {
  static constexpr std::array<std::string_view, 7> openers{"#", "//", "/*", "--", "<!--", ";", "%"};
  std::size_t first = std::string_view::npos;
  for (const auto opener : openers) {
    const auto at = line.find(opener);
    if (at != std::string_view::npos && at + opener.size() <= limit) first = std::min(first, at);
  }
  return first;
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
    const std::size_t opener = commentOpenerBefore(text, at);
    if (opener == std::string::npos) continue;
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

}  // namespace revline::review
