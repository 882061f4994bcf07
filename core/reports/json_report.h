// `revline review --format json` (cli.md): the outcome as one JSON object.
#pragma once
#include "core/review/pipeline.h"
#include "core/support/json.h"

namespace revline::reports {

// {"verdict", "modelVerdict", "summary", "findings": [Finding + "id"],
//  "rejected": [{"finding": Finding, "reason"}], "attempts", "toolCalls",
//  "provider", "model", "usage": {"inputTokens", "outputTokens"}}
// Finding fields use the contract's JSON names; nothing else is added, so the
// shape is exactly the documented one.
json renderJson(const review::ReviewOutcome& outcome);

}  // namespace revline::reports
