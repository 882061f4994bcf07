// toJson(): the `revline diff --json` structure of cli.md.
#include "core/diff/render.h"

namespace revline::diff {
namespace {

// Strict UTF-8 (no overlongs, surrogates or values above U+10FFFF).
bool validUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    int extra = 0;
    unsigned cp = 0;
    if (c < 0x80) { ++i; continue; }
    if (c >= 0xc2 && c <= 0xdf) { extra = 1; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { extra = 2; cp = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { extra = 3; cp = c & 0x07; }
    else return false;
    if (s.size() - i <= static_cast<size_t>(extra)) return false;  // truncated sequence
    for (int k = 1; k <= extra; ++k) {
      const auto d = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
      if ((d & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    if ((extra == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (extra == 3 && (cp < 0x10000 || cp > 0x10ffff))) {
      return false;
    }
    i += static_cast<size_t>(extra) + 1;
  }
  return true;
}

// JSON strings hold Unicode, git paths hold bytes: a path that is not UTF-8
// is given in git's C-quoted form (ASCII, and what `git diff` itself prints).
json pathValue(const std::optional<std::string>& p) {
  if (!p) return nullptr;
  return validUtf8(*p) ? *p : quotePath(*p);
}

}  // namespace

json toJson(const Diff& diff) {
  json files = json::array();
  for (const FileDiff& f : diff.files) {
    json lines = json::array();
    for (const Hunk& h : f.hunks) {
      for (const Line& l : h.lines) {
        if (l.kind == LineKind::Removed) continue;
        lines.push_back({{"new", l.newLine}, {"kind", l.kind == LineKind::Added ? "added" : "context"}});
      }
    }
    files.push_back({{"path", pathValue(f.newPath)},
                     {"old_path", pathValue(f.oldPath)},
                     {"status", std::string(toString(f.status))},
                     {"lines", std::move(lines)}});
  }
  return json{{"files", std::move(files)}};
}

}  // namespace revline::diff
