// toJson(): the `revline diff --json` structure of cli.md.
#include "core/diff/render.h"
#include "core/support/utf8.h"

namespace revline::diff {
namespace {

// JSON strings hold Unicode, git paths hold bytes: a path that is not UTF-8
// is given in git's C-quoted form (ASCII, and what `git diff` itself prints).
json pathValue(const std::optional<std::string>& p) {
  if (!p) return nullptr;
  return jsonPath(*p);
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
