// Which lines two versions of a text differ in, as a shortest edit script
// (Myers' O(ND) algorithm): a document's whole new text (an editor's reload
// after `git checkout -m`, a client that sends the text whole) becomes one edit
// per place it changed, so the lines between them count as kept.
#pragma once
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace revline {

// Lines [oldBegin, oldEnd) of the old text replaced by [newBegin, newEnd) of the new.
struct DifferingLines {
  std::size_t oldBegin = 0, oldEnd = 0;
  std::size_t newBegin = 0, newEnd = 0;
  bool operator==(const DifferingLines&) const = default;
};

// The runs of lines that differ, in order, separated by lines both keep, with
// the fewest lines removed and added; nullopt when that is more than
// `maxChanged` lines in all (the search grows with its square: the caller then
// takes everything from the first difference to the last as one run).
std::optional<std::vector<DifferingLines>> differingLines(const std::vector<std::string_view>& before,
                                                          const std::vector<std::string_view>& after,
                                                          std::size_t maxChanged);

}  // namespace revline
