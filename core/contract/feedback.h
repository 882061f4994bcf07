// The retry message for a reply that failed (replies.md §4): every problem on
// its own line, and what to do next. Deterministic, so tests pin its text.
#pragma once
#include <string>

#include "core/contract/reply_parser.h"

namespace revline::contract {

// Throws std::invalid_argument when `failed` holds a report (nothing to retry).
std::string feedbackMessage(const ReplyParse& failed);

}  // namespace revline::contract
