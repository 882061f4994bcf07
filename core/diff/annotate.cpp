// annotate(): the numbered view of a diff that the model reads (format in render.h).
#include <algorithm>

#include "core/diff/render.h"

namespace revline::diff {
namespace {

// Readable UTF-8 stays as is; only characters that could break the line
// structure (or look like quoting) force git's C-quoting.
std::string displayPath(const std::string& p) {
  const bool plain = std::none_of(p.begin(), p.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c < 0x20 || c == 0x7f || c == '"' || c == '\\';
  });
  return plain ? p : quotePath(p);
}

std::string details(const FileDiff& f) {
  std::string d;
  switch (f.status) {
    case FileStatus::Binary:
      d = "binary";
      if (!f.oldPath) d += ", added";
      else if (!f.newPath) d += ", deleted";
      else if (*f.oldPath != *f.newPath) d += ", from " + displayPath(*f.oldPath);
      return d + "; content not shown";
    case FileStatus::Renamed: d = "renamed from " + displayPath(*f.oldPath); break;
    case FileStatus::Copied: d = "copied from " + displayPath(*f.oldPath); break;
    case FileStatus::Deleted: d = "deleted"; break;
    case FileStatus::Mode: break;  // the mode part below says it all
    default: d = std::string(toString(f.status));
  }
  auto add = [&d](const std::string& part) { d += (d.empty() ? "" : ", ") + part; };
  if (f.similarity && (f.status == FileStatus::Renamed || f.status == FileStatus::Copied)) {
    add("similarity " + std::to_string(*f.similarity) + "%");
  }
  if (f.oldMode && f.newMode && *f.oldMode != *f.newMode) add("mode " + *f.oldMode + " -> " + *f.newMode);
  if (f.status == FileStatus::Added && f.newMode && *f.newMode != "100644") add("mode " + *f.newMode);
  if (f.hunks.empty()) d += "; no lines shown";
  else if (f.status == FileStatus::Deleted) d += "; its lines have no new-file numbers";
  return d;
}

std::string hunkHeader(const Hunk& h) {
  std::string s = "@@ -" + std::to_string(h.oldStart);
  if (h.oldCount != 1) s += "," + std::to_string(h.oldCount);
  s += " +" + std::to_string(h.newStart);
  if (h.newCount != 1) s += "," + std::to_string(h.newCount);
  s += " @@";
  if (!h.section.empty()) s.append(" ").append(h.section);
  return s;
}

}  // namespace

std::string annotate(const Diff& diff) {
  int maxLine = 0;
  for (const FileDiff& f : diff.files) {
    for (const Hunk& h : f.hunks) maxLine = std::max(maxLine, h.newStart + h.newCount - 1);
  }
  const size_t width = std::max<size_t>(4, std::to_string(maxLine).size());
  const std::string blank(width, ' ');

  std::string out;
  out.reserve(diff.source ? diff.source->size() + diff.source->size() / 4 : 0);
  bool first = true;
  for (const FileDiff& f : diff.files) {
    if (!first) out += '\n';
    first = false;
    out += "File: " + displayPath(f.path()) + " (" + details(f) + ")\n";
    for (const Hunk& h : f.hunks) {
      out += hunkHeader(h);
      out += '\n';
      for (const Line& l : h.lines) {
        if (l.kind == LineKind::Removed) {
          out += blank;
        } else {
          const std::string n = std::to_string(l.newLine);
          out.append(width - n.size(), ' ');
          out += n;
        }
        out += l.kind == LineKind::Added ? " + " : l.kind == LineKind::Removed ? " - " : "   ";
        out.append(l.text);
        out += '\n';
        if (l.noNewlineAtEnd) {
          out += blank;
          out += " \\ No newline at end of file\n";
        }
      }
    }
  }
  return out;
}

}  // namespace revline::diff
