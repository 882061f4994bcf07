#include "core/support/terminal_text.h"

#include <algorithm>
#include <cstdio>

#include "core/support/utf8.h"

namespace revline {

namespace {

std::string byteEscape(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  return buf;
}

// The code point of the valid `n`-byte sequence at s[i].
unsigned codePoint(std::string_view s, std::size_t i, std::size_t n) {
  static constexpr unsigned char kLeadMask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
  unsigned cp = static_cast<unsigned char>(s[i]) & kLeadMask[n];
  for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
  return cp;
}

// C1 controls, and the format characters that reorder or break what is shown:
// bidi marks, embeddings, overrides and isolates, line and paragraph separators.
bool invisibleControl(unsigned cp) {
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

std::string terminalSafe(std::string_view text, Newlines newlines) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = utf8SequenceAt(text, i);
    if (n == 0) {  // not UTF-8: a lone 0x9b is CSI to an 8-bit terminal
      out += byteEscape(c);
      ++i;
      continue;
    }
    if (n == 1) {
      const bool keep = c == '\t' || (c == '\n' && newlines == Newlines::Keep) || (c >= 0x20 && c != 0x7f);
      if (keep) {
        out += static_cast<char>(c);
      } else if (c == '\r' && newlines == Newlines::Keep && i + 1 < text.size() && text[i + 1] == '\n') {
        // a Windows line end: the "\n" that follows ends the line
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else {
        out += byteEscape(c);
      }
      ++i;
      continue;
    }
    if (const unsigned cp = codePoint(text, i, n); invisibleControl(cp)) {
      char buf[12];
      std::snprintf(buf, sizeof buf, "\\u%04x", cp);
      out += buf;
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

std::vector<unsigned> invisibleCharacters(std::string_view text) {
  std::vector<unsigned> out;
  auto add = [&](unsigned cp) {
    if (std::find(out.begin(), out.end(), cp) == out.end()) out.push_back(cp);
  };
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8SequenceAt(text, i);
    if (n == 0) {
      ++i;
      continue;
    }
    const unsigned cp = codePoint(text, i, n);
    const bool loneReturn = cp == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n');  // a line break some tools see
    if ((cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || loneReturn || cp == 0x7f || invisibleControl(cp) ||
        (cp >= 0x200b && cp <= 0x200d) || (cp >= 0x2060 && cp <= 0x2064) || cp == 0xfeff || cp == 0x00ad ||
        cp == 0x034f || (cp >= 0x180b && cp <= 0x180f) || cp == 0x115f || cp == 0x1160 || cp == 0x17b4 ||
        cp == 0x17b5 || cp == 0x3164 || cp == 0xffa0 || (cp >= 0x206a && cp <= 0x206f) || (cp >= 0xfff9 && cp <= 0xfffb) ||
        (cp >= 0xe0000 && cp <= 0xe007f) || (cp >= 0xe0100 && cp <= 0xe01ef))
      add(cp);
    i += n;
  }
  return out;
}

std::string ciLogSafe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t nl = text.find('\n', start);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    const std::string_view line = text.substr(start, end - start);
    const std::size_t first = line.find_first_not_of(" \t");
    const std::string_view rest = first == std::string_view::npos ? std::string_view() : line.substr(first);
    if (rest.starts_with("::") || rest.starts_with("##[")) {
      out.append(line.substr(0, first));
      out += byteEscape(static_cast<unsigned char>(rest[0]));
      out.append(rest.substr(1));
    } else {
      out.append(line);
    }
    start = end;
  }
  return out;
}

std::string logLine(std::string_view lead, std::string_view untrusted) {
  return ciLogSafe(std::string(lead) + terminalSafe(untrusted)) + "\n";
}

}  // namespace revline
