#include "core/support/text.h"

namespace revline {

std::string_view trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(kWhitespace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kWhitespace) - first + 1);
}

namespace {
bool isContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }
}  // namespace

std::size_t utf8Boundary(std::string_view s, std::size_t maxBytes) {
  if (s.size() <= maxBytes) return s.size();
  std::size_t cut = maxBytes;
  while (cut > 0 && isContinuationByte(s[cut])) --cut;
  return cut;
}

std::string truncateUtf8(std::string_view s, std::size_t maxBytes, std::string_view ellipsis) {
  if (s.size() <= maxBytes) return std::string(s);
  if (maxBytes < ellipsis.size()) return {};
  std::string out(s.substr(0, utf8Boundary(s, maxBytes - ellipsis.size())));
  out += ellipsis;
  return out;
}

std::size_t codePointCount(std::string_view s) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (i == 0 || !isContinuationByte(s[i])) ++count;
  return count;
}

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (;;) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos) return lines;
    text.remove_prefix(nl + 1);
  }
}

std::vector<std::string_view> fileLines(std::string_view text) {
  if (text.empty()) return {};
  std::vector<std::string_view> lines = splitLines(text);
  if (text.back() == '\n') lines.pop_back();
  return lines;
}

}  // namespace revline
