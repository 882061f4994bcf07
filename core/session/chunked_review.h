// A review within a token budget per request: a change that fits is one
// review::runReview as before; one that does not is planned into requests
// (chunk_plan.h), up to max_parallel_requests of them run at once (each with
// its own provider from the factory and its own repository tools), and their
// outcomes are merged into one: findings deduplicated by id (the graver kept), usage summed,
// the verdict decided over all of them by policy, and coverage listing every
// part that was not sent (which keeps the verdict from APPROVE).
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/diff/diff.h"
#include "core/review/pipeline.h"
#include "core/session/review_service.h"
#include "core/support/cancel.h"

namespace revline::session {

// The budget of a request under `config` for `provider` (max_input_tokens, or
// config::defaultInputTokens when 0); 0: no limit.
std::int64_t inputTokenBudget(const config::Config& config, const review::Provider& provider);


// What surrounds the review of one (selected) diff.
struct ChunkedReviewSetup {
  const config::Config& config;
  const std::filesystem::path& root;   // empty: no repository tools
  const ProviderFactory& factory;      // a provider per request past the first
  const ProviderWrapper& wrap;         // applied to each of them
  const ProgressSink& progress;        // may be empty
  // When a split review fails, called before the failure is thrown with what
  // the answered requests found: their findings, and in coverage every part
  // not answered (so what was paid for can be kept; may be empty).
  std::function<void(const review::ReviewOutcome&)> keepAnswered = {};
};

// What one request of a review of `diff` holds of the diff, in tokens: the
// budget less every request's fixed part and the reserve for its later turns;
// 0 without a budget. Throws as reviewInChunks does for a budget too small.
std::int64_t diffCapacity(const diff::Diff& diff, const review::ReviewInputs& inputs, review::Provider& provider,
                          const ChunkedReviewSetup& setup);

// Reviews `diff` with `provider` (built for the whole diff: it serves a change
// that fits, and names the provider and model for the budget). Throws what
// review::runReview throws (the first failure of any request; the requests not
// yet started are not sent; setup.keepAnswered gets the answered ones first),
// and ProviderError (Config) when the budget cannot hold even the fixed part of a request.
review::ReviewOutcome reviewInChunks(const diff::Diff& diff, const review::ReviewInputs& inputs,
                                     review::Provider& provider, const ChunkedReviewSetup& setup,
                                     const CancelToken& cancel);

// The first request of each request reviewInChunks would send, in order, byte
// for byte (the same plan; calls no model). `notSent`, when given, gets one
// line per file a limit leaves out: "path: reason".
std::vector<review::ModelRequest> previewRequests(const diff::Diff& diff, const review::ReviewInputs& inputs,
                                                  review::Provider& provider, const ChunkedReviewSetup& setup,
                                                  std::vector<std::string>* notSent = nullptr);

}  // namespace revline::session
