// `revline review --format json` (cli.md): the outcome as one JSON object.
#pragma once
#include "core/review/pipeline.h"
#include "core/support/json.h"

namespace revline::reports {

// {"verdict", "modelVerdict" (null when no model answered: nothing sent, every hunk cached), "summary",
//  "findings": [Finding + "id" (+ "editDroppedReason" when the edit was withheld,
//               + "rangeClamped" when endLine was cut back to the shown lines)],
//  "rejected": [{"finding": Finding, "reason"}], "unplacedBlocking",
//  ("groundingRetry": {"rejected", "placed"} when the feedback round ran),
//  "coverage": {"filesReviewed", "filesTotal", "linesReviewed", "linesTotal" (totals of the whole change),
//               "filesExcluded", "linesExcluded" (of those totals, left out by choice: include/exclude,
//               default exclusions; the filesSkipped entries without "overLimit"),
//               "filesSkipped": [{"path", "reason" (+ "overLimit", "partial" when true)}]},
//  "attempts", "toolCalls", "requests", "provider", "model",
//  "usage": {"requests", "inputTokens", "outputTokens", "cachedInputTokens", "cacheWriteTokens",
//            "toolCalls", "toolCallBudget", "unreportedRequests" (of requests: answered without token
//            counts from the provider) (+ "cost": {"input", "output", "total"} when priced)},
//  ("chunking": {"budgetTokens", "fixedTokens", "reserveTokens", "diffTokens", "requests",
//                "minimumRequests"} when a token budget applied),
//  "warnings": [string] (what the review worked around: a reply repaired, turns shortened
//               to fit the budget, a cache not written; the same lines as on stderr)}
// Finding fields use the contract's JSON names (cli.md).
json renderJson(const review::ReviewOutcome& outcome);

// The report's "chunking" object (review/pipeline.h Chunking).
json chunkingJson(const review::Chunking& chunking);

// The report's "coverage" object.
json coverageJson(const review::Coverage& coverage);

}  // namespace revline::reports
