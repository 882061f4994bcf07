// A finding's stable identity across reviews: a fingerprint of what the problem
// is and where it sits in the code's text, never of line numbers, so an editor
// can keep one diagnostic alive while the lines above it move.
#pragma once
#include <string>

#include "core/contract/contract.h"
#include "core/diff/diff.h"

namespace revline::review {

// 16 lowercase hex digits: FNV-1a 64 over a versioned, length-prefixed encoding
// of the file's canonical path, the category name, the trimmed title and the
// whitespace-trimmed new-file text of line..lastLine (up to the first line the
// diff does not show; a grounded finding has none). Identical on every platform
// and run; changing this function changes every id, which a golden test pins.
std::string findingId(const contract::Finding& finding, const diff::FileDiff& file);

}  // namespace revline::review
