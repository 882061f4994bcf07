// Where a report may be in a reply's text (replies.md §1): the whole text as
// one value, else the content of fenced blocks and balanced {…}/[…] spans in
// the prose between them, in text order.
#pragma once
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "core/contract/json_repair.h"

namespace revline::contract {

struct Candidate {
  std::size_t begin = 0, end = 0;  // the span in the text
  ReadResult read;                 // Ok, or Syntax for a span that looks like JSON but does not parse
  bool topLevel = true;            // false: found inside a span that looked like JSON and failed
};

struct CandidateScan {
  std::vector<Candidate> candidates;    // in text order
  std::optional<ReadResult> truncated;  // set when the reply ends inside an unterminated value
};

// Scans text[begin, end of text).
CandidateScan findCandidates(std::string_view text, std::size_t begin);

}  // namespace revline::contract
