// The text around the report: size cap, BOM, leading <think> blocks, and how
// a reply without JSON reads (replies.md §1). Pure string work.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/contract/problem.h"

namespace revline::contract {

struct PreparedReply {
  std::string text;                   // the reply, capped, without a leading BOM
  std::size_t answerBegin = 0;        // where the answer starts, after leading <think> blocks
  std::vector<std::string> warnings;  // e.g. the cap was applied
  std::optional<Problem> problem;     // empty reply, or cut inside a <think> block
};

PreparedReply prepareReply(std::string_view raw, std::size_t maxBytes);

// Whether text without any JSON reads like a refusal ("I'm sorry", "I can't").
bool readsLikeRefusal(std::string_view text);

}  // namespace revline::contract
