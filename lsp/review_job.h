// A scheduled review (private to the server's files): what the worker runs,
// keyed so a newer save of the same file replaces or cancels it.
#pragma once
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "core/support/cancel.h"
#include "lsp/jsonrpc.h"
#include "lsp/server.h"

namespace revline::lsp {

struct Server::Job {
  std::string key;
  std::filesystem::path root;
  std::optional<std::string> path;  // repository-relative; nullopt: the whole working tree
  CancelToken cancel;
  std::optional<ReplyOnce> reply;
  std::string requestKey;  // id.dump() of the request waiting for it, if any
  std::chrono::steady_clock::time_point due;
  bool cacheOnly = false;  // publish a cached review or nothing; never call the provider
  bool fullReview = false;  // asked for ("review this file now"): the whole change goes to the model
};

}  // namespace revline::lsp
