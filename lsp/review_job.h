// A scheduled review (private to the server's files): what the worker runs,
// keyed so a newer save of the same file replaces or cancels it.
#pragma once
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/session/review_service.h"
#include "core/support/cancel.h"
#include "lsp/jsonrpc.h"
#include "lsp/server.h"

namespace revline::lsp {

// Made on the loop thread; the worker reads only the snapshot fields, which
// never change once the job is queued.
struct Server::Job {
  // Snapshot.
  std::string key;
  std::filesystem::path root;
  std::optional<std::string> path;  // repository-relative; nullopt: the whole working tree
  config::Config config;            // the effective configuration when the review was asked for
  bool reportProgress = false;      // the client takes $/progress
  bool cacheOnly = false;           // publish a cached review or nothing; never call the provider
  bool fullReview = false;          // asked for ("review this file now"): the whole change goes to the model
  std::chrono::steady_clock::time_point due;
  CancelToken cancel;
  // Loop thread only: the request waiting for the result, if any.
  std::optional<ReplyOnce> reply;
  std::string requestKey;  // id.dump() of that request
  std::string progressToken;  // set by the worker when it starts (ProgressReporter is thread-safe)
};

// What the worker found, for the loop thread to apply.
struct Server::JobOutcome {
  enum class Kind { Reviewed, NothingCached, Cancelled, Failed } kind = Kind::Failed;
  std::optional<session::ReviewResult> result;
  // The reviewed files that have findings, as read by the worker (repository-relative path -> lines).
  std::map<std::string, std::vector<std::string>> fileLines;
  std::vector<std::string> logs;  // for window/logMessage
  std::string failure;            // Failed: the message shown to the user
  bool providerFailure = false;   // Failed: a ProviderError (counted, shown once a minute)
};

}  // namespace revline::lsp
