#include "core/git/text_shown_binary.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <optional>
#include <string_view>

namespace revline::git {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSectionStart = "diff --git ";
constexpr std::string_view kBinaryLine = "Binary files ";

// The sections of git diff output: each from a "diff --git " line to the next;
// what comes before the first (nothing, for git's output) is a section too.
// A hunk's lines start with ' ', '+', '-' or '\', so no line of one starts so.
std::vector<std::string_view> sections(std::string_view diff) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t pos = 0; pos < diff.size();) {
    if (pos > start && diff.compare(pos, kSectionStart.size(), kSectionStart) == 0) {
      out.push_back(diff.substr(start, pos - start));
      start = pos;
    }
    const std::size_t end = diff.find('\n', pos);
    pos = end == std::string_view::npos ? diff.size() : end + 1;
  }
  if (start < diff.size()) out.push_back(diff.substr(start));
  return out;
}

std::string_view firstLine(std::string_view section) { return section.substr(0, section.find('\n')); }

bool hasLineStarting(std::string_view text, std::string_view prefix) {
  if (text.compare(0, prefix.size(), prefix) == 0) return true;
  for (std::size_t pos = text.find('\n'); pos != std::string_view::npos; pos = text.find('\n', pos + 1))
    if (text.compare(pos + 1, prefix.size(), prefix) == 0) return true;
  return false;
}

bool showsBinary(std::string_view section) {
  return section.compare(0, kSectionStart.size(), kSectionStart) == 0 && hasLineStarting(section, kBinaryLine);
}

}  // namespace

bool showsABinaryFile(const std::string& diff) {
  return diff.compare(0, kBinaryLine.size(), kBinaryLine) == 0 || diff.find("\n" + std::string(kBinaryLine)) != std::string::npos;
}

SideContent blobSide(std::uintmax_t size, std::string_view head) {
  return {true, head.substr(0, kGitBinaryProbe).find('\0') != std::string_view::npos, size};
}

SideContent workTreeSide(const fs::path& root, const std::string& path) {
  const fs::path file = root / path;
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(file, ec))) return {};
  const std::uintmax_t size = fs::file_size(file, ec);
  if (ec) return {};
  std::ifstream in(file, std::ios::binary);
  std::array<char, kGitBinaryProbe> head{};
  in.read(head.data(), head.size());
  if (in.bad()) return {};
  return blobSide(size, std::string_view(head.data(), static_cast<std::size_t>(in.gcount())));
}

std::vector<ShownBinary> filesShownBinary(const std::string& numstatZ, const SideProbe& newSide,
                                          const SideProbe& oldSide) {
  // "ADDED\tDELETED\tPATH\0", or for a rename or copy "ADDED\tDELETED\t\0FROM\0TO\0"; "-" counts for binary.
  std::vector<ShownBinary> out;
  std::uintmax_t total = 0;
  auto field = [&](std::size_t& pos) {
    std::size_t end = numstatZ.find('\0', pos);
    if (end == std::string::npos) end = numstatZ.size();
    std::string f = numstatZ.substr(pos, end - pos);
    pos = end + 1;
    return f;
  };
  for (std::size_t pos = 0; pos < numstatZ.size();) {
    const std::string entry = field(pos);
    const std::size_t tab1 = entry.find('\t');
    const std::size_t tab2 = tab1 == std::string::npos ? tab1 : entry.find('\t', tab1 + 1);
    if (tab2 == std::string::npos) continue;
    ShownBinary file;
    if (tab2 + 1 < entry.size()) {
      file.paths.push_back(entry.substr(tab2 + 1));
    } else {  // a rename or copy: the two names follow as fields of their own
      for (int i = 0; i < 2 && pos < numstatZ.size(); ++i) file.paths.push_back(field(pos));
    }
    if (entry.compare(0, tab1, "-") != 0 || file.paths.empty()) continue;
    SideContent side = newSide(file.paths.back());
    if (!side.present) side = oldSide(file.paths.front());  // deleted: what it held is the change
    if (side.present && !side.binary) {
      file.size = side.size;
      const bool fits = side.size <= kMaxTextShownBinaryBytes && total + side.size <= kMaxTextShownBinaryTotal;
      file.action = fits ? ShownBinary::Action::AsText : ShownBinary::Action::LeftOut;
      if (fits) total += side.size;
    }
    out.push_back(std::move(file));
  }
  return out;
}

bool withoutBinarySections(std::string& diff, const std::vector<std::size_t>& drop, std::size_t expected) {
  const std::vector<std::string_view> all = sections(diff);
  if (static_cast<std::size_t>(std::count_if(all.begin(), all.end(), showsBinary)) != expected) return false;
  std::string out;
  out.reserve(diff.size());
  std::size_t binary = 0;
  for (std::string_view s : all) {
    const bool dropped = showsBinary(s) && std::find(drop.begin(), drop.end(), binary++) != drop.end();
    if (!dropped) out.append(s);
  }
  diff = std::move(out);
  return true;
}

std::string withTextSections(const std::string& diff, const std::string& textDiff) {
  // By the "diff --git" line: one a type change shows twice (deleted, then added) is left as it is.
  std::map<std::string_view, int> headers;
  const std::vector<std::string_view> shown = sections(diff), asText = sections(textDiff);
  for (std::string_view s : shown) ++headers[firstLine(s)];
  for (std::string_view s : asText) headers[firstLine(s)] += 2;
  std::map<std::string_view, std::string_view> replacement;
  for (std::string_view s : asText)
    if (headers[firstLine(s)] == 3 && hasLineStarting(s, "@@ "))
      replacement.emplace(firstLine(s), s);
  std::string out;
  out.reserve(diff.size());
  for (std::string_view s : shown) {
    const auto text = showsBinary(s) ? replacement.find(firstLine(s)) : replacement.end();
    out.append(text != replacement.end() ? text->second : s);
  }
  return out;
}

}  // namespace revline::git
