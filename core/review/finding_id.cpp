#include "core/review/finding_id.h"

#include <cstdint>
#include <limits>
#include <string_view>

#include "core/contract/enums.h"  // the wire names of categories: ids hash names, not enum values

namespace revline::review {
namespace {

// Written out rather than std::hash, whose values differ between standard
// libraries and may change between releases.
class Fnv1a64 {
 public:
  void bytes(std::string_view s) {
    for (unsigned char c : s) {
      state_ ^= c;
      state_ *= 0x100000001b3ULL;
    }
  }
  // Each field is prefixed by its length, so ("ab", "c") and ("a", "bc") differ.
  void field(std::string_view s) {
    bytes(std::to_string(s.size()));
    bytes(":");
    bytes(s);
  }
  std::uint64_t value() const { return state_; }

 private:
  std::uint64_t state_ = 0xcbf29ce484222325ULL;
};

std::string_view trim(std::string_view s) {
  constexpr std::string_view ws = " \t\r\n\f\v";
  const auto first = s.find_first_not_of(ws);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(ws) - first + 1);
}

}  // namespace

std::string findingId(const contract::Finding& finding, const diff::FileDiff& file) {
  Fnv1a64 h;
  h.field("revline-finding-id-v1");
  h.field(file.path());
  h.field(contract::toString(finding.category));
  h.field(trim(finding.title));
  // Bounded by the right-side lines the diff shows: a grounded range never
  // extends past them, and an ungrounded one stops contributing at the first gap.
  for (std::int64_t n = finding.line; n <= finding.lastLine(); ++n) {
    if (n < 1 || n > std::numeric_limits<int>::max()) break;
    const auto text = file.newLineText(static_cast<int>(n));
    if (!text) break;
    h.field(trim(*text));
  }
  static constexpr char hex[] = "0123456789abcdef";
  std::string out(16, '0');
  std::uint64_t v = h.value();
  for (int i = 15; i >= 0; --i, v >>= 4) out[static_cast<std::size_t>(i)] = hex[v & 0xf];
  return out;
}

}  // namespace revline::review
