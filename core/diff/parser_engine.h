// Internal to core/diff: the unified diff parser as a template over where the
// lines come from (the whole text, or chunks read on demand) and where the
// parsed pieces go (the Diff builder of parse(), the counters of
// streamNumstat()), so every consumer runs the very same grammar.
//
// Accepted input: `git diff`/`git show`/`git log -p`/`git format-patch` output
// (text between file sections, such as commit headers, messages, diffstats and
// signatures, is skipped) and plain `diff -u` output ("---"/"+++" pairs).
// Inside a hunk nothing is skipped or guessed: the counts of the hunk header
// say how many lines follow, so content lines that look like headers are
// content, and a hunk that ends early is an error.
// Not supported: combined diffs of merges ("diff --cc", a clear error), and a
// plain diff's lone "Binary files X and Y differ" line without a "diff --git"
// header (skipped like other text: git never prints one outside a section).
#pragma once
#include <algorithm>
#include <charconv>
#include <climits>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "core/diff/diff.h"
#include "core/diff/git_paths.h"

namespace revline::diff::detail {

inline std::string_view chompCR(std::string_view s) {
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

// The offending line as messages quote it: shortened, since lines can be huge.
inline std::string excerpt(std::string_view line) {
  line = chompCR(line);
  constexpr size_t kMax = 80;
  std::string out = "'" + std::string(line.substr(0, kMax));
  if (line.size() > kMax) out += "...";
  return out + "'";
}

// One file section being assembled.
struct Section {
  int startLine = 0;       // input line of "diff --git" (or of "---" for a plain diff)
  bool gitHeader = false;  // started by "diff --git"
  detail::GitLineNames gitNames;
  std::optional<std::string> minusName, plusName;  // "---"/"+++" names, prefixes still on
  std::optional<std::string> renameFrom, renameTo, copyFrom, copyTo;
  bool isNew = false, isDeleted = false, modeChange = false;
  int hunks = 0;  // hunks seen so far (their lines went to the sink)
  FileDiff file;  // everything but the hunks
};

// The parser, generic over where lines come from and where the parsed pieces go.
//
// Source: `bool next(std::string_view& line)` (the next line without its
// '\n'; false at the end), `std::optional<std::string_view> peek()` (the
// line after it, without consuming it), `std::string_view current()` (the
// line last returned by next(): peek() may move it in memory), and
// `size_t remaining()` (an upper bound of the bytes left, for reservations).
// A line stays valid until the next call to next().
//
// Sink: `hunk(Hunk&& header, size_t reserve)` (a hunk with its numbers and
// section, no lines yet), `line(LineKind, int oldLine, int newLine,
// std::string_view text, bool crlf)`, `noNewlineAtEnd()` (for the last line),
// `hunkEnd()`, and `file(FileDiff&& f)` (the finished section, without hunks).
template <class Source, class Sink>
class Parser {
 public:
  Parser(Source& source, Sink& sink) : src_(source), sink_(sink) {}

  void run() {
    bool sawText = false;
    bool sawColour = false;  // a line starting with a terminal colour code (`git diff --color=always`)
    while (next()) {
      if (!sawText && !chompCR(line_).empty()) sawText = true;
      if (files_ == 0 && line_.size() > 1 && line_[0] == '\x1b' && line_[1] == '[') sawColour = true;
      switch (state_) {
        case State::Outside: outside(); break;
        case State::Header: header(); break;
        case State::Hunks: afterHunk(); break;
      }
    }
    if (state_ == State::Hunks && expectHunk_) {
      ++lineNo_;
      fail("unexpected end of input: expected a hunk header ('@@ -A,B +C,D @@') after the '+++' line");
    }
    if (cur_) finish();
    if (files_ == 0 && sawText) {
      throw ParseError(1, std::string("no diff found in the input: expected a 'diff --git' line or a '---'/'+++' pair") +
                              (sawColour ? "; the input holds terminal colour codes (ESC [ ... m): make it with "
                                           "`git diff --no-color`"
                                         : ""));
    }
  }

 private:
  enum class State { Outside, Header, Hunks };

  // Reads the next line into line_ (without its '\n'); false at the end.
  bool next() {
    if (!src_.next(line_)) return false;
    ++lineNo_;
    return true;
  }

  std::optional<std::string_view> peek() {
    auto following = src_.peek();
    line_ = src_.current();
    return following;
  }

  [[noreturn]] void fail(const std::string& what) const { throw ParseError(lineNo_, what); }

  void outside() {
    const std::string_view l = line_;
    if (l.starts_with("diff --git ")) return startGit();
    if (l.starts_with("diff --cc ") || l.starts_with("diff --combined ")) {
      fail("combined diffs of merges ('diff --cc') are not supported: ask git for one diff per parent "
           "(-m or --first-parent)");
    }
    if (l.starts_with("--- ")) {
      const auto following = peek();
      if (following && following->starts_with("+++ ")) {
        cur_.emplace();
        cur_->startLine = lineNo_;
        fileLines();
        state_ = State::Hunks;
      }
      return;  // a lone "--- " line is message text
    }
    if (l.starts_with("@@ -")) {
      fail("hunk header outside of a file section: expected a 'diff --git' line or a '---'/'+++' pair before it");
    }
    // Anything else (commit headers, messages, diffstat, "-- " signature) is not diff syntax.
  }

  void startGit() {
    if (cur_) finish();
    cur_.emplace();
    cur_->startLine = lineNo_;
    cur_->gitHeader = true;
    cur_->gitNames = detail::diffGitNames(chompCR(line_.substr(std::strlen("diff --git "))));
    state_ = State::Header;
  }

  // The extended header lines between "diff --git" and the first hunk.
  void header() {
    const std::string_view l = chompCR(line_);
    Section& s = *cur_;
    std::string_view rest;
    auto field = [&](std::string_view key) {
      if (!l.starts_with(key)) return false;
      rest = l.substr(key.size());
      return true;
    };
    if (field("diff --git ")) {
      startGit();
    } else if (field("--- ")) {
      fileLines();
      state_ = State::Hunks;
    } else if (field("@@ ")) {
      hunk();
      state_ = State::Hunks;
    } else if (field("old mode ")) {
      s.file.oldMode = mode(rest);
      s.modeChange = true;
    } else if (field("new mode ")) {
      s.file.newMode = mode(rest);
      s.modeChange = true;
    } else if (field("deleted file mode ")) {
      s.file.oldMode = mode(rest);
      s.isDeleted = true;
    } else if (field("new file mode ")) {
      s.file.newMode = mode(rest);
      s.isNew = true;
    } else if (field("similarity index ")) {
      s.file.similarity = percent(rest);
    } else if (field("dissimilarity index ")) {
      percent(rest);
    } else if (field("rename from ") || field("rename old ")) {
      s.renameFrom = headerPath(rest);
    } else if (field("rename to ") || field("rename new ")) {
      s.renameTo = headerPath(rest);
    } else if (field("copy from ")) {
      s.copyFrom = headerPath(rest);
    } else if (field("copy to ")) {
      s.copyTo = headerPath(rest);
    } else if (field("index ")) {
      index(rest);
    } else if (l.starts_with("Binary files ") && l.ends_with(" differ")) {
      s.file.binary = true;
    } else if (l == "GIT binary patch") {
      s.file.binary = true;
      binaryPatch();
    } else {
      // The section had no hunks (mode change, 100% rename, ...) and this line
      // is not diff syntax, e.g. the next commit's header in `git log -p`.
      finish();
      state_ = State::Outside;
      outside();
    }
  }

  // After "+++" or a complete hunk: another hunk, or the end of the section.
  void afterHunk() {
    if (line_.starts_with("@@ ")) return hunk();
    if (expectHunk_) fail("expected a hunk header ('@@ -A,B +C,D @@') after the '+++' line, got " + excerpt(line_));
    if (line_.starts_with("diff --git ")) return startGit();
    finish();
    state_ = State::Outside;
    outside();
  }

  // line_ is "--- NAME"; the next line must be "+++ NAME".
  void fileLines() {
    auto minus = detail::fileLineName(chompCR(line_.substr(4)));
    if (!minus) fail("malformed quoted path in '---' line " + excerpt(line_));
    const int minusLine = lineNo_;
    if (!next() || !line_.starts_with("+++ ")) {
      if (!line_.starts_with("+++ ") && lineNo_ == minusLine) ++lineNo_;
      fail("expected a '+++' line after the '---' line " + std::to_string(minusLine));
    }
    auto plus = detail::fileLineName(chompCR(line_.substr(4)));
    if (!plus) fail("malformed quoted path in '+++' line " + excerpt(line_));
    cur_->minusName = std::move(minus);
    cur_->plusName = std::move(plus);
    expectHunk_ = true;
  }

  // A non-negative decimal that fits an int; advances `s` past it.
  bool number(std::string_view& s, int& out) const {
    const char* end = s.data() + s.size();
    const auto r = std::from_chars(s.data(), end, out);
    if (r.ec == std::errc::result_out_of_range) fail("number too large in " + excerpt(line_));
    if (r.ec != std::errc() || out < 0 || r.ptr == s.data()) return false;
    s.remove_prefix(static_cast<size_t>(r.ptr - s.data()));
    return true;
  }

  // "-START[,COUNT]" or "+START[,COUNT]"; an omitted count means 1.
  bool range(std::string_view& s, char sign, int& start, int& count) const {
    if (s.empty() || s[0] != sign) return false;
    s.remove_prefix(1);
    if (!number(s, start)) return false;
    count = 1;
    if (!s.empty() && s[0] == ',') {
      s.remove_prefix(1);
      if (!number(s, count)) return false;
    }
    return true;
  }

  void hunk() {
    const int headerLine = lineNo_;
    std::string_view s = chompCR(line_);
    Hunk h;
    int lines = 0;  // lines of this hunk so far
    s.remove_prefix(3);  // "@@ "
    const bool ok = range(s, '-', h.oldStart, h.oldCount) && s.starts_with(" ") &&
                    (s.remove_prefix(1), range(s, '+', h.newStart, h.newCount)) && s.starts_with(" @@");
    if (!ok) {
      fail("malformed hunk header " + excerpt(line_) + ": expected '@@ -OLD[,COUNT] +NEW[,COUNT] @@'");
    }
    if ((h.oldCount > 0 && h.oldStart == 0) || (h.newCount > 0 && h.newStart == 0)) {
      fail("malformed hunk header " + excerpt(line_) + ": a range with lines cannot start at line 0");
    }
    if (h.oldCount > INT_MAX - h.oldStart || h.newCount > INT_MAX - h.newStart) {
      fail("number too large in hunk header " + excerpt(line_));
    }
    s.remove_prefix(3);
    if (s.starts_with(" ")) s.remove_prefix(1);
    h.section = s;

    // Each line takes at least two bytes, which bounds what a lying header can reserve.
    const size_t announced = static_cast<size_t>(std::max(h.oldCount, h.newCount));
    int oldLeft = h.oldCount, newLeft = h.newCount;
    int oldNo = h.oldStart, newNo = h.newStart;
    sink_.hunk(std::move(h), std::min(announced, src_.remaining() / 2 + 1));

    auto expected = [&] {
      return "the hunk at line " + std::to_string(headerLine) + " still expects " + std::to_string(oldLeft) +
             " old and " + std::to_string(newLeft) + " new lines";
    };
    while (oldLeft > 0 || newLeft > 0) {
      if (!next()) {
        ++lineNo_;
        fail("unexpected end of input: " + expected());
      }
      std::string_view text = line_;
      const bool crlf = text.ends_with('\r');
      if (crlf) text.remove_suffix(1);
      // git apply reads an empty line as an empty context line (some tools
      // strip the trailing space of " "); do the same.
      const char marker = text.empty() ? ' ' : text[0];
      if (!text.empty()) text.remove_prefix(1);
      switch (marker) {
        case ' ':
          if (oldLeft == 0 || newLeft == 0) fail("context line " + excerpt(line_) + " but " + expected());
          sink_.line(LineKind::Context, oldNo++, newNo++, text, crlf);
          --oldLeft;
          --newLeft;
          break;
        case '+':
          if (newLeft == 0) fail("added line " + excerpt(line_) + " but " + expected());
          sink_.line(LineKind::Added, 0, newNo++, text, crlf);
          --newLeft;
          break;
        case '-':
          if (oldLeft == 0) fail("removed line " + excerpt(line_) + " but " + expected());
          sink_.line(LineKind::Removed, oldNo++, 0, text, crlf);
          --oldLeft;
          break;
        case '\\':
          if (lines == 0) fail("'\\ No newline at end of file' before any line of the hunk at line " +
                               std::to_string(headerLine));
          sink_.noNewlineAtEnd();
          continue;  // not a line of the hunk
        default:
          fail("expected a hunk line starting with ' ', '+', '-' or '\\', got " + excerpt(line_) + "; " +
               expected());
      }
      ++lines;
    }
    // The marker for the hunk's last line comes after the counts are met.
    const auto following = peek();
    if (following && following->starts_with("\\") && lines > 0) {
      next();
      sink_.noNewlineAtEnd();
    }
    sink_.hunkEnd();
    ++cur_->hunks;
    expectHunk_ = false;
  }

  // Skips the base85 blocks after "GIT binary patch": a forward block and an
  // optional reverse one, each "literal N"/"delta N", data lines, a blank line.
  void binaryPatch() {
    for (int block = 0; block < 2; ++block) {
      const auto head = peek();
      const bool isHead = head && (chompCR(*head).starts_with("literal ") || chompCR(*head).starts_with("delta "));
      if (!isHead) {
        if (block == 1) return;
        if (!next()) ++lineNo_;
        fail("expected 'literal N' or 'delta N' after 'GIT binary patch'");
      }
      next();
      std::string_view size = chompCR(line_);
      size.remove_prefix(size.find(' ') + 1);
      int n = 0;
      if (!number(size, n) || !size.empty()) fail("malformed binary patch block header " + excerpt(line_));
      while (next()) {
        const std::string_view data = chompCR(line_);
        if (data.empty()) break;
        // The first character encodes the decoded byte count (A-Z: 1-26,
        // a-z: 27-52); every 4 bytes take 5 base85 characters.
        const char c = data[0];
        int bytes = 0;
        if (c >= 'A' && c <= 'Z') bytes = c - 'A' + 1;
        else if (c >= 'a' && c <= 'z') bytes = c - 'a' + 27;
        else fail("malformed binary patch data line " + excerpt(line_) + ": bad length character");
        if (data.size() != 1 + static_cast<size_t>((bytes + 3) / 4) * 5) {
          fail("malformed binary patch data line " + excerpt(line_) + ": length does not match its length character");
        }
      }
    }
  }

  std::string mode(std::string_view v) const {
    if (v.empty() || v.size() > 6 || v.find_first_not_of("01234567") != std::string_view::npos) {
      fail("malformed file mode " + excerpt(v) + ": expected octal digits");
    }
    return std::string(v);
  }

  int percent(std::string_view v) const {
    int n = 0;
    std::string_view digits = v;
    if (!v.ends_with('%') || (digits.remove_suffix(1), !number(digits, n)) || !digits.empty() || n > 100) {
      fail("malformed similarity " + excerpt(v) + ": expected a percentage such as '87%'");
    }
    return n;
  }

  std::string headerPath(std::string_view v) const {
    auto p = detail::fileLineName(v);
    if (!p || p->empty()) fail("malformed path in " + excerpt(line_));
    return std::move(*p);
  }

  // "index OLD..NEW[ MODE]": the mode, when present, is both sides' mode.
  void index(std::string_view v) {
    const size_t dots = v.find("..");
    if (dots == std::string_view::npos) fail("malformed index line " + excerpt(line_) + ": expected 'index OLD..NEW'");
    const size_t sp = v.find(' ');
    // The new blob id: hex, not all zeros (git writes zeros for what it has not hashed).
    const std::string_view id = v.substr(dots + 2, sp == std::string_view::npos ? std::string_view::npos : sp - dots - 2);
    const auto blob = [](std::string_view written) -> std::optional<std::string> {
      const bool hex = !written.empty() && written.size() <= 64 &&
                       written.find_first_not_of("0123456789abcdef") == std::string_view::npos;
      if (hex && written.find_first_not_of('0') != std::string_view::npos) return std::string(written);
      return std::nullopt;
    };
    cur_->file.newBlob = blob(id);
    cur_->file.oldBlob = blob(v.substr(0, dots));
    if (sp == std::string_view::npos) return;
    const std::string m = mode(v.substr(sp + 1));
    FileDiff& f = cur_->file;
    if (!f.oldMode) f.oldMode = m;
    if (!f.newMode) f.newMode = m;
  }

  // Where a section's names come from, most trustworthy first: rename/copy
  // lines (never prefixed), "---"/"+++" lines, the "diff --git" line.
  std::optional<std::string> sideName(const std::optional<std::string>& explicitName,
                                      const std::optional<std::string>& fileLine,
                                      const std::optional<std::string>& gitName, bool& isDevNull) const {
    if (explicitName) return explicitName;
    if (fileLine) {
      if (*fileLine == "/dev/null") {
        isDevNull = true;
        return std::nullopt;
      }
      return stripped(*fileLine);
    }
    return gitName;
  }

  std::string stripped(const std::string& name) const {
    const Section& s = *cur_;
    detail::PrefixMode mode = s.gitHeader ? s.gitNames.mode : detail::PrefixMode::Unknown;
    if (mode == detail::PrefixMode::Unknown) {
      // No "diff --git" line to tell: strip when the two names start with
      // different components (a/ b/, old/ new/), or when the only name starts
      // with a one-character one (a/, b/, w/, 1/ ...).
      const auto firstComponent = [](const std::optional<std::string>& n) -> std::string {
        if (!n || *n == "/dev/null") return {};
        const size_t slash = n->find('/');
        return slash == std::string::npos ? std::string() : n->substr(0, slash);
      };
      const std::string a = firstComponent(s.minusName), b = firstComponent(s.plusName);
      const bool bothReal = s.minusName != "/dev/null" && s.plusName != "/dev/null";
      const bool strip = bothReal ? (!a.empty() && !b.empty() && a != b) : (a.size() + b.size() == 1);
      mode = strip ? detail::PrefixMode::Prefixed : detail::PrefixMode::None;
    }
    if (mode == detail::PrefixMode::Prefixed) {
      if (auto s2 = detail::stripFirstComponent(name)) return *s2;
    }
    return name;
  }

  void finish() {
    Section& s = *cur_;
    FileDiff& f = s.file;
    if (s.renameFrom.has_value() != s.renameTo.has_value() || s.copyFrom.has_value() != s.copyTo.has_value()) {
      throw ParseError(s.startLine, "file section has only one of the 'rename from/to' or 'copy from/to' lines");
    }
    bool minusNull = false, plusNull = false;
    const auto& fromName = s.renameFrom ? s.renameFrom : s.copyFrom;
    const auto& toName = s.renameTo ? s.renameTo : s.copyTo;
    f.oldPath = sideName(fromName, s.minusName, s.gitNames.oldName, minusNull);
    f.newPath = sideName(toName, s.plusName, s.gitNames.newName, plusNull);
    const bool isNew = s.isNew || minusNull, isDeleted = s.isDeleted || plusNull;
    if (isNew && isDeleted) throw ParseError(s.startLine, "file section is both a new and a deleted file");
    if (isNew) f.oldPath.reset();
    if (isDeleted) f.newPath.reset();
    if ((!isNew && !f.oldPath) || (!isDeleted && !f.newPath)) {
      throw ParseError(s.startLine, "cannot tell the two paths apart in 'diff --git' line (and no '---'/'+++' or "
                                    "rename lines name them)");
    }
    if (f.binary) f.status = FileStatus::Binary;
    else if (isNew) f.status = FileStatus::Added;
    else if (isDeleted) f.status = FileStatus::Deleted;
    else if (s.renameFrom) f.status = FileStatus::Renamed;
    else if (s.copyFrom) f.status = FileStatus::Copied;
    else if (s.hunks > 0) f.status = FileStatus::Modified;
    else if (s.modeChange) f.status = FileStatus::Mode;
    else f.status = FileStatus::Modified;  // e.g. `git diff -w` with only whitespace changes
    sink_.file(std::move(f));
    ++files_;
    cur_.reset();
  }

  Source& src_;
  Sink& sink_;
  int lineNo_ = 0;
  std::string_view line_;
  State state_ = State::Outside;
  bool expectHunk_ = false;  // after "+++", before the first "@@"
  std::optional<Section> cur_;
  size_t files_ = 0;
};

}  // namespace revline::diff::detail
