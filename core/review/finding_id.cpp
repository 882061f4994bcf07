#include "core/review/finding_id.h"

#include <cstdint>
#include <limits>
#include <string_view>

#include "core/contract/enums.h"  // the wire names of categories: ids hash names, not enum values
#include "core/support/hash.h"
#include "core/support/text.h"

namespace revline::review {
namespace {

// FNV-1a (support/hash.h) rather than std::hash, whose values differ between
// standard libraries and may change between releases: ids are kept on disk.
class FieldHash {
 public:
  // Each field is prefixed by its length, so ("ab", "c") and ("a", "bc") differ.
  void field(std::string_view s) {
    state_ = fnv1a64(std::to_string(s.size()), state_);
    state_ = fnv1a64(":", state_);
    state_ = fnv1a64(s, state_);
  }
  std::uint64_t value() const { return state_; }

 private:
  std::uint64_t state_ = kFnvOffsetBasis;
};

}  // namespace

std::string findingId(const contract::Finding& finding, const diff::FileDiff& file) {
  FieldHash h;
  h.field("revline-finding-id-v1");
  h.field(file.path());
  h.field(contract::toString(finding.category));
  h.field(trimmed(finding.title));
  // Bounded by the right-side lines the diff shows: a grounded range never
  // extends past them, and an ungrounded one stops contributing at the first gap.
  for (std::int64_t n = finding.line; n <= finding.lastLine(); ++n) {
    if (n < 1 || n > std::numeric_limits<int>::max()) break;
    const auto text = file.newLineText(static_cast<int>(n));
    if (!text) break;
    h.field(trimmed(*text));
  }
  static constexpr char hex[] = "0123456789abcdef";
  std::string out(16, '0');
  std::uint64_t v = h.value();
  for (int i = 15; i >= 0; --i, v >>= 4) out[static_cast<std::size_t>(i)] = hex[v & 0xf];
  return out;
}

}  // namespace revline::review
