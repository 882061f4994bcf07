// Text helpers shared by every module: whitespace trimming, UTF-8-safe cuts
// and counts, line splitting. Strings are bytes (files may be Latin-1); a cut
// never splits a UTF-8 sequence, so valid text stays valid.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace revline {

inline constexpr std::string_view kWhitespace = " \t\r\n\f\v";

// `s` without leading and trailing whitespace (kWhitespace).
std::string_view trimmed(std::string_view s);

// The largest n <= maxBytes such that s[0, n) does not end inside a UTF-8
// sequence (s.size() when it fits).
std::size_t utf8Boundary(std::string_view s, std::size_t maxBytes);

// `s` if it has at most maxBytes bytes; else its longest UTF-8-whole prefix that
// leaves room for `ellipsis`, then `ellipsis` (the result has at most maxBytes
// bytes; "" when even the ellipsis does not fit).
std::string truncateUtf8(std::string_view s, std::size_t maxBytes, std::string_view ellipsis = "");

// Code points of `s`; a byte that does not start one (a stray continuation
// byte) counts with the character before it.
std::size_t codePointCount(std::string_view s);

// The pieces of `text` between "\n"s, each without a "\r" that ends it: "a\n"
// is {"a", ""}, as an editor counts lines. The views point into `text`.
std::vector<std::string_view> splitLines(std::string_view text);

// The lines of a file: like splitLines, without the empty piece after a final
// newline ("a\n" is {"a"}; "" is {}).
std::vector<std::string_view> fileLines(std::string_view text);

}  // namespace revline
