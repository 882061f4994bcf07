// UTF-8 checks for text that comes from files (bytes) and goes into JSON
// (Unicode): git diffs and file contents may be Latin-1 or arbitrary bytes.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace revline {

// Length of the valid UTF-8 sequence at `i` (strict: no overlongs, surrogates
// or values above U+10FFFF), or 0 when the byte there does not start one.
inline std::size_t utf8SequenceAt(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  std::size_t extra;
  unsigned cp;
  if (c >= 0xc2 && c <= 0xdf) { extra = 1; cp = c & 0x1f; }
  else if (c >= 0xe0 && c <= 0xef) { extra = 2; cp = c & 0x0f; }
  else if (c >= 0xf0 && c <= 0xf4) { extra = 3; cp = c & 0x07; }
  else return 0;
  if (s.size() - i <= extra) return 0;  // truncated sequence
  for (std::size_t k = 1; k <= extra; ++k) {
    const auto d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3f);
  }
  if ((extra == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (extra == 3 && (cp < 0x10000 || cp > 0x10ffff)))
    return 0;
  return extra + 1;
}

inline bool validUtf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8SequenceAt(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

// `s` with every byte that is not part of a valid sequence replaced by U+FFFD
// (what JSON output and the model see; the bytes themselves stay in the diff).
inline std::string replaceInvalidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8SequenceAt(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace revline
