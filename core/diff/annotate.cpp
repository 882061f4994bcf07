// annotate(): the numbered view of a diff that the model reads (format in render.h).
#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "core/diff/git_paths.h"
#include "core/diff/render.h"
#include "core/support/utf8.h"

namespace revline::diff {

// Readable UTF-8 stays as is; only characters that could break the line
// structure (or look like quoting) force git's C-quoting.
std::string displayPath(const std::string& p) {
  const bool plain = std::none_of(p.begin(), p.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c < 0x20 || c == 0x7f || c == '"' || c == '\\';
  });
  // Bytes that are not UTF-8 would reach the model as U+FFFD, and two names
  // differing only there would read the same: quoted, each byte is itself.
  return plain && validUtf8(p) ? p : quotePath(p);
}

std::optional<std::string> pathFromDisplay(std::string_view shown) {
  if (shown.size() < 2 || shown.front() != '"') return std::nullopt;
  std::size_t consumed = 0;
  auto name = detail::unquoteC(shown, consumed);
  if (!name || consumed != shown.size()) return std::nullopt;
  return name;
}

namespace {

// Lines whose only change is their line ending: a removed and an added line of
// one hunk with the same text, one ending in "\r\n" and the other not. The
// numbered view shows no '\r', so such a pair would read as an unchanged line
// removed and added again; the file's header says what changed instead.
struct LineEndingChanges {
  std::size_t toCrlf = 0, toLf = 0;
};
LineEndingChanges lineEndingChanges(const FileDiff& f) {
  LineEndingChanges out;
  for (const Hunk& h : f.hunks) {
    // Nothing to pair where every line ends alike (nearly every hunk): no table built.
    if (std::all_of(h.lines.begin(), h.lines.end(), [&](const Line& l) { return l.crlf == h.lines.front().crlf; }))
      continue;
    // The removed lines of the hunk not yet paired, by text: how many end in LF, how many in CRLF.
    std::unordered_map<std::string_view, std::array<std::size_t, 2>> removed;
    for (const Line& l : h.lines)
      if (l.kind == LineKind::Removed) ++removed[l.text][l.crlf ? 1 : 0];
    if (removed.empty()) continue;
    for (const Line& l : h.lines) {
      if (l.kind != LineKind::Added) continue;
      const auto twin = removed.find(l.text);
      if (twin == removed.end() || twin->second[l.crlf ? 0 : 1] == 0) continue;
      --twin->second[l.crlf ? 0 : 1];  // each removed line pairs once
      ++(l.crlf ? out.toCrlf : out.toLf);
    }
  }
  return out;
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
  const LineEndingChanges endings = lineEndingChanges(f);
  auto lines = [](std::size_t n) { return std::to_string(n) + (n == 1 ? " line" : " lines"); };
  if (endings.toCrlf) add(lines(endings.toCrlf) + " changed only from LF to CRLF line endings");
  if (endings.toLf) add(lines(endings.toLf) + " changed only from CRLF to LF line endings");
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

std::string annotate(const Diff& diff) { return annotate(diff, {}); }

std::string annotate(const Diff& diff, const std::vector<std::vector<HunkContext>>& context) {
  auto contextOf = [&](std::size_t file, std::size_t hunk) -> const HunkContext* {
    if (file >= context.size() || hunk >= context[file].size()) return nullptr;
    return &context[file][hunk];
  };
  int maxLine = 0;
  for (std::size_t fi = 0; fi < diff.files.size(); ++fi) {
    const FileDiff& f = diff.files[fi];
    for (std::size_t hi = 0; hi < f.hunks.size(); ++hi) {
      const Hunk& h = f.hunks[hi];
      maxLine = std::max(maxLine, h.newStart + h.newCount - 1);
      if (const HunkContext* c = contextOf(fi, hi); c && !c->after.empty())
        maxLine = std::max(maxLine, c->after.back().newLine);
    }
  }
  const size_t width = std::max<size_t>(4, std::to_string(maxLine).size());
  const std::string blank(width, ' ');

  std::string out;
  out.reserve(diff.source ? diff.source->size() + diff.source->size() / 4 : 0);
  auto contextLines = [&](const std::vector<ContextLine>& lines) {
    for (const ContextLine& c : lines) {
      const std::string n = std::to_string(c.newLine);
      out.append(width - n.size(), ' ');
      out += n;
      out += " : ";
      out += c.text;
      out += '\n';
    }
  };
  for (std::size_t fi = 0; fi < diff.files.size(); ++fi) {
    const FileDiff& f = diff.files[fi];
    if (fi) out += '\n';
    out += "File: " + displayPath(f.path()) + " (" + details(f) + ")\n";
    for (std::size_t hi = 0; hi < f.hunks.size(); ++hi) {
      const Hunk& h = f.hunks[hi];
      const HunkContext* ctx = contextOf(fi, hi);
      if (ctx) contextLines(ctx->before);
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
      if (ctx) contextLines(ctx->after);
    }
  }
  return out;
}

}  // namespace revline::diff
