#include "core/reports/markdown_text.h"

#include <algorithm>
#include <cctype>

namespace revline::reports {

namespace {

constexpr std::string_view kZeroWidthSpace = "&#8203;";

std::size_t runAt(std::string_view s, std::size_t i, char c) {
  std::size_t n = 0;
  while (i + n < s.size() && s[i + n] == c) ++n;
  return n;
}

// The fence a line opens or closes ("```" or "~~~", three or more, after at
// most three spaces), or "" when it is not a fence line.
std::string_view fenceOf(std::string_view line) {
  std::size_t indent = 0;
  while (indent < line.size() && indent < 4 && line[indent] == ' ') ++indent;
  if (indent > 3 || indent == line.size() || (line[indent] != '`' && line[indent] != '~')) return {};
  const std::size_t n = runAt(line, indent, line[indent]);
  // CommonMark: a backtick fence's info string holds no backtick ("```a`" opens
  // nothing, and what follows is text to escape, not code to keep).
  if (line[indent] == '`' && line.find('`', indent + n) != std::string_view::npos) return {};
  return n >= 3 ? line.substr(indent, n) : std::string_view{};
}

bool asciiPunctuation(char c) { return c >= 0x21 && c <= 0x7e && std::ispunct(static_cast<unsigned char>(c)) != 0; }

bool closes(std::string_view open, std::string_view fenceLine, std::string_view line) {
  if (fenceLine.empty() || fenceLine[0] != open[0] || fenceLine.size() < open.size()) return false;
  const std::size_t after = static_cast<std::size_t>(fenceLine.data() - line.data()) + fenceLine.size();
  return line.substr(after).find_first_not_of(" \t\r") == std::string_view::npos;
}

bool mentionChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Whether line[i] is inside a word (from the last space or "<") that GitHub
// would link as a bare URL: one holding "://" or starting "www.".
bool inBareUrl(std::string_view line, std::size_t i) {
  std::size_t start = i;
  while (start > 0 && line[start - 1] != ' ' && line[start - 1] != '\t' && line[start - 1] != '<') --start;
  const std::string_view word = line.substr(start, i - start);
  return word.find("://") != std::string_view::npos || word.starts_with("www.") || word.starts_with("WWW.");
}

// One line outside fenced blocks: code spans kept, the rest escaped. What is
// kept raw is exactly what CommonMark reads as code: a backslash escape is
// copied as one (a "\`" opens no code span), and a backtick run with no closer
// on its line is escaped, so no code span can pair it with one on a later line
// (which made the text between raw, its image rendered).
void appendInline(std::string& out, std::string_view line) {
  for (std::size_t i = 0; i < line.size();) {
    const char c = line[i];
    if (c == '\\' && i + 1 < line.size() && asciiPunctuation(line[i + 1])) {
      const char escaped = line[i + 1];
      out += '\\';
      const bool digitNext = i + 2 < line.size() && std::isdigit(static_cast<unsigned char>(line[i + 2])) != 0;
      if (escaped == '<') out += "&lt;";  // shown the same, never a tag
      else if (escaped == '&') out += "&amp;";
      else if (escaped == '@') out += "@" + std::string(kZeroWidthSpace);  // GitHub notifies "\@name" too
      // "\#12" and "GH\-12" render as "#12" and "GH-12", which GitHub links.
      else if (escaped == '#' && digitNext) out += "#" + std::string(kZeroWidthSpace);
      else if (escaped == '-' && digitNext && i >= 2 && line.substr(i - 2, 2) == "GH") out += "-" + std::string(kZeroWidthSpace);
      else out += escaped;
      i += 2;
      continue;
    }
    if (c == '`' && inBareUrl(line, i)) {
      // GitHub's autolink takes a bare URL up to the next space or "<", backticks
      // and all: a code span revline kept raw from there on rendered.
      for (std::size_t n = runAt(line, i, '`'); n > 0; --n, ++i) out += "\\`";
      continue;
    }
    if (c == '`') {
      const std::size_t n = runAt(line, i, '`');
      std::size_t close = i + n;
      while ((close = line.find('`', close)) != std::string_view::npos && runAt(line, close, '`') != n)
        close += runAt(line, close, '`');
      if (close == std::string_view::npos) {  // unmatched: literal backticks
        for (std::size_t k = 0; k < n; ++k) out += "\\`";
        i += n;
        continue;
      }
      out.append(line.substr(i, close + n - i));
      i = close + n;
      continue;
    }
    if (c == '<') {
      out += "&lt;";
    } else if (c == '&') {
      out += "&amp;";  // no entity of the model's: "&#64;name" and "&#35;12" decode to a live mention and reference
    } else if (c == '-' && i >= 2 && line.substr(i - 2, 2) == "GH" && i + 1 < line.size() &&
               std::isdigit(static_cast<unsigned char>(line[i + 1])) != 0) {
      out += '-';
      out += kZeroWidthSpace;  // "GH-12" links an issue as "#12" does
    } else if (c == '[') {
      // No link or image of the model's making: `![x](https://...?d=what-it-read)` is
      // fetched by GitHub when anyone opens the pull request, and `[docs](...)` is a
      // link posted as the bot. Shown as written; a bare URL stays visible as one.
      out += "\\[";
    } else if (c == '#' && i + 1 < line.size() && std::isdigit(static_cast<unsigned char>(line[i + 1]))) {
      // No reference of the model's making: "#12" and "owner/repo#12" link
      // issues, and the review shows up in their timelines.
      out += '#';
      out += kZeroWidthSpace;
    } else if (c == '@' && i + 1 < line.size() && mentionChar(line[i + 1]) && (i == 0 || !mentionChar(line[i - 1]))) {
      // Only a letter or digit before it makes it no mention (an address: dev@example.com);
      // after "_a_" (emphasis) or "x-" GitHub's mention pattern still matches.
      out += '@';
      out += kZeroWidthSpace;
    } else {
      out += c;
    }
    ++i;
  }
}

// How far a line's list and quote markers reach ("> ", "- ", "1. ", spaces):
// what follows them starts a block as a line's start does.
std::size_t containerPrefix(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size()) {
    const char c = line[i];
    if (c == ' ' || c == '\t' || c == '>') {
      ++i;
    } else if ((c == '-' || c == '*' || c == '+') && i + 1 < line.size() && (line[i + 1] == ' ' || line[i + 1] == '\t') &&
               line.find_first_not_of(" \t", i + 1) != std::string_view::npos) {
      i += 2;  // (a marker with nothing after it is no list item under a paragraph: "-  " underlines it)
    } else if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
      std::size_t j = i;
      while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j])) != 0) ++j;
      if (j + 1 < line.size() && (line[j] == '.' || line[j] == ')') && (line[j + 1] == ' ' || line[j + 1] == '\t'))
        i = j + 2;
      else
        break;
    } else {
      break;
    }
  }
  return i;
}

// A line outside fenced blocks: no heading of the model's making, ATX ("### revline:
// approved", also after "> " or "- ") or setext (a line of "=" or "-" under text).
void appendProseLine(std::string& out, std::string_view line) {
  const std::size_t at = containerPrefix(line);
  const std::string_view rest = line.substr(at);
  const std::string_view body = rest.substr(0, rest.find_last_not_of(" \t") + 1);
  const bool underline = !body.empty() && (body.find_first_not_of('=') == std::string_view::npos ||
                                           body.find_first_not_of('-') == std::string_view::npos);
  // A table's delimiter row ("--|--"): GitHub splits its rows into cells at
  // every "|", inside a code span too, so a span revline kept raw came apart.
  const bool delimiterRow = body.find_first_not_of("|-: \t") == std::string_view::npos &&
                            body.find('|') != std::string_view::npos && body.find('-') != std::string_view::npos;
  if (!rest.empty() && (rest[0] == '#' || underline || delimiterRow)) {
    out.append(line.substr(0, at));
    out += '\\';
    appendInline(out, rest);
  } else {
    appendInline(out, line);
  }
}

// Line breaks as CommonMark reads them: "\r\n" and a lone "\r" end a line too,
// so a "\r" inside what revline took for one line (a code span it kept raw)
// ended a paragraph, and the image after it rendered.
std::string withLineFeeds(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\r') out += text[i];
    else if (i + 1 >= text.size() || text[i + 1] != '\n') out += '\n';
  }
  return out;
}

// The language of a fenced block, kept for its highlighting when it is a plain
// word; not one GitHub turns into something else: a `suggestion` block is a
// one-click commit of text no check of an edit's ever saw, and `mermaid`,
// `geojson`, `topojson`, `stl` and `math` render as diagrams, maps and models.
std::string languageOf(std::string_view info) {
  const std::size_t start = info.find_first_not_of(" \t");
  if (start == std::string_view::npos) return {};
  std::string word(info.substr(start, info.find_first_of(" \t\r", start) - start));
  if (word.empty() || word.size() > 32 || !std::all_of(word.begin(), word.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '+' || c == '#' ||
               c == '.';
      }))
    return {};
  std::string lower = word;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](char c) { return std::tolower(static_cast<unsigned char>(c)); });
  for (const char* rendered : {"suggestion", "mermaid", "geojson", "topojson", "stl", "math"})
    if (lower == rendered) return {};
  return word;
}

// Up to `indent` leading spaces off a line of a block opened at that indentation (as CommonMark reads it).
std::string_view unindented(std::string_view line, std::size_t indent) {
  std::size_t n = 0;
  while (n < indent && n < line.size() && line[n] == ' ') ++n;
  return line.substr(n);
}

}  // namespace

// A fenced block of the model's is written again as one of ours: its fence at
// the start of the line, longer than any backtick run in it. Where the model's
// fence stood (indented under a list item the text began, after a "> ") is no
// matter: a fence at the start of a line ends any list or quote and opens a
// block at the top, so its lines are code wherever the text is placed, and
// after our closing fence the text is at the top again. Kept as the model
// wrote it, a fence indented under "- note" closed with that list item, and
// the lines revline kept raw as code rendered (an image GitHub fetched, HTML,
// mentions).
std::string markdownProse(std::string_view untrusted, bool atLineStart) {
  const std::string lines = withLineFeeds(untrusted);
  const std::string_view text = lines;
  std::string out;
  std::string_view open;            // the model's fence of the block the text is in, if any
  std::size_t openIndent = 0;       // its indentation
  std::string language, block;      // the block's language and lines so far
  auto writeBlock = [&] {
    const std::string fence = codeFenceFor(block);
    out += fence + language + "\n" + block + fence;
  };
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t nl = text.find('\n', start);
    const std::string_view line = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    const std::string_view fence = fenceOf(line);
    const bool last = nl == std::string_view::npos;
    if (!open.empty()) {
      if (closes(open, fence, line)) {
        writeBlock();
        open = {};
        if (!last) out += '\n';
      } else {
        block.append(unindented(line, openIndent));
        block += '\n';
      }
    } else if (!fence.empty()) {
      // After other text on its line ("**Suggested fix:** ```python"), on a line of its own.
      if (start == 0 && !atLineStart) out += '\n';
      open = fence;
      openIndent = static_cast<std::size_t>(fence.data() - line.data());
      language = languageOf(line.substr(openIndent + fence.size()));
      block.clear();
    } else {
      appendProseLine(out, line);
      if (!last) out += '\n';
    }
    if (last) break;
    start = nl + 1;
  }
  if (!open.empty()) {  // left open: closed, so what follows the text is not code
    if (!block.empty() && block.back() == '\n' && text.ends_with('\n')) block.pop_back();
    if (block.empty() || block.back() != '\n') block += '\n';
    writeBlock();
  }
  return out;
}

namespace {
std::string oneLine(std::string_view text) {
  std::string out(text);
  std::replace_if(out.begin(), out.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  return out;
}
}  // namespace

std::string markdownLine(std::string_view text) {
  std::string out;
  appendInline(out, oneLine(text));
  return out;
}

std::string markdownCode(std::string_view untrusted) {
  const std::string line = oneLine(untrusted);
  const std::string_view text = line;
  std::size_t longest = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = runAt(text, i, '`');
    longest = std::max(longest, n);
    i += std::max<std::size_t>(n, 1);
  }
  const std::string ticks(longest + 1, '`');
  // A space each side when the text starts or ends with a backtick (CommonMark strips one).
  const bool pad = !text.empty() && (text.front() == '`' || text.back() == '`');
  return ticks + (pad ? " " : "") + std::string(text) + (pad ? " " : "") + ticks;
}

std::string codeFenceFor(std::string_view text) {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<std::size_t>(3, longest + 1), '`');
}

}  // namespace revline::reports
