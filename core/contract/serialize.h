// The report as JSON, derived from the field lists in contract.h: wire names,
// enums as their names ("BLOCKER"), absent optionals as null. Pure.
#pragma once
#include "core/contract/contract.h"
#include "core/support/json.h"

namespace revline::contract {

json toJson(const ReviewReport& report);
json toJson(const Finding& finding);
json toJson(const Edit& edit);

// For nlohmann's `json j = report;`. There is deliberately no from_json: JSON
// from a model goes through parseReply / coerceReport, which report problems.
void to_json(json& j, const ReviewReport& report);
void to_json(json& j, const Finding& finding);
void to_json(json& j, const Edit& edit);

}  // namespace revline::contract
