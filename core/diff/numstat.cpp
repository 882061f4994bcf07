// numstat(): what `git apply --numstat` prints for the same patch.
#include "core/diff/render.h"

namespace revline::diff {

std::string numstat(const Diff& diff) {
  std::string out;
  for (const FileDiff& f : diff.files) {
    if (f.binary) {
      out += "-\t-\t";
    } else {
      long added = 0, deleted = 0;
      for (const Hunk& h : f.hunks) {
        for (const Line& l : h.lines) {
          if (l.kind == LineKind::Added) ++added;
          else if (l.kind == LineKind::Removed) ++deleted;
        }
      }
      out += std::to_string(added) + "\t" + std::to_string(deleted) + "\t";
    }
    // git apply names a section by its new path, the old one when deleted.
    out += quotePath(f.path());
    out += '\n';
  }
  return out;
}

}  // namespace revline::diff
