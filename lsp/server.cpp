#include "lsp/server.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/contract/enums.h"
#include "core/config/user_config.h"
#include "core/git/git.h"
#include "core/review/pipeline.h"
#include "core/review/policy.h"
#include "core/support/text.h"
#include "core/support/version.h"
#include "core/support/repo_file.h"
#include "lsp/commands.h"
#include "lsp/file_watching.h"
#include "lsp/paths.h"

namespace revline::lsp {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// Counts model calls for revline/stats; otherwise transparent.
class CountingProvider : public review::Provider {
 public:
  CountingProvider(std::unique_ptr<review::Provider> inner, std::function<void()> onCall)
      : inner_(std::move(inner)), onCall_(std::move(onCall)) {}
  std::string name() const override { return inner_->name(); }
  std::string model() const override { return inner_->model(); }
  bool remote() const override { return inner_->remote(); }
  review::SecretFinder secretFinder() const override { return inner_->secretFinder(); }
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken& cancel) override {
    onCall_();
    return inner_->complete(request, cancel);
  }

 private:
  std::unique_ptr<review::Provider> inner_;
  std::function<void()> onCall_;
};

// The lines of a document as the editor counts them ("\r\n" and "\n" end a line).
std::vector<std::string> documentLines(std::string_view text) {
  const std::vector<std::string_view> views = splitLines(text);
  return {views.begin(), views.end()};
}

// `dir` or a parent holds `.git` (a cheap check before asking git again).
bool gitAbove(fs::path dir) {
  std::error_code ec;
  for (;;) {
    if (fs::exists(dir / ".git", ec)) return true;
    if (!dir.has_parent_path() || dir.parent_path() == dir) return false;
    dir = dir.parent_path();
  }
}

std::pair<fs::file_time_type, fs::file_time_type> configStamp(const fs::path& root) {
  auto stamp = [](const fs::path& file) {
    std::error_code ec;
    const auto t = file.empty() ? fs::file_time_type{} : fs::last_write_time(file, ec);
    return ec ? fs::file_time_type{} : t;
  };
  return {stamp(root / ".revline.json"), stamp(config::userConfigPath())};
}

std::string failureHint(const review::ProviderError& e) {
  using K = review::ProviderError::Kind;
  switch (e.kind()) {
    case K::Auth: return " Check the API key: the variable named by \"api_key_env\" must hold a valid key, in the environment the editor started revline from.";
    case K::Network:
    case K::Timeout: return " Check that the endpoint (\"base_url\") is reachable and running.";
    case K::NotFound: return " Check \"model\" and \"base_url\" in .revline.json or the editor settings.";
    case K::Quota:
    case K::RateLimited: return " The provider refused for quota or rate limits; try again later or change \"model\".";
    case K::Config: return "";  // the message already says how to fix it
    default: return " Check the provider settings (\"provider\", \"model\", \"base_url\") in .revline.json or the editor settings.";
  }
}

std::string argumentUri(const json& arguments) {
  if (arguments.empty()) return {};
  const json& a = arguments[0];
  if (a.is_string()) return a.get<std::string>();
  if (a.is_object() && a.contains("uri") && a["uri"].is_string()) return a["uri"].get<std::string>();
  throw LspError(ErrorCode::InvalidParams, "arguments[0]: expected a document URI or {\"uri\": ...}");
}

}  // namespace

struct Server::Job {
  std::string key;
  fs::path root;
  std::optional<std::string> path;  // repository-relative; nullopt: the whole working tree
  CancelToken cancel;
  std::optional<ReplyOnce> reply;
  std::string requestKey;  // id.dump() of the request waiting for it, if any
  Clock::time_point due;
  bool cacheOnly = false;  // publish a cached review or nothing; never call the provider
};

Server::Server(Transport& transport, ServerOptions options) : transport_(transport), options_(std::move(options)) {
  if (!options_.providerFactory) options_.providerFactory = session::defaultProviderFactory();
  reviews_.emplace(options_.providerFactory, &cache_, options_.gitDiff);
  if (!options_.sync) worker_ = std::thread([this] { workerLoop(); });
}

Server::~Server() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (auto& [key, job] : running_) job->cancel.cancel();
    workCv_.notify_all();
  }
  if (worker_.joinable()) worker_.join();
  for (auto& [key, job] : pending_)
    if (job->reply) (*job->reply)(LspError(ErrorCode::RequestCancelled, "the server is stopping"));
  pending_.clear();
}

int Server::run() {
  const bool stoppedByExit = transport_.loop(*this);
  std::lock_guard<std::mutex> lock(mu_);
  if (!stoppedByExit) logMessage(MessageType::Log, "input ended; stopping");
  return shutdownRequested_ ? 0 : 1;
}

ServerStats Server::stats() {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

// ---------------------------------------------------------------- dispatch

bool Server::onCall(const std::string& method, const json& params, const json& id) {
  ReplyOnce reply(id, method, [this](const json& replyId, const ReplyValue& value) {
    {
      std::lock_guard<std::mutex> lock(inflightMu_);
      inflight_.erase(replyId.dump());
    }
    transport_.reply(replyId, value);
  });
  bool cancelledAlready;
  {
    std::lock_guard<std::mutex> lock(inflightMu_);
    cancelledAlready = cancelledEarly_.erase(id.dump()) != 0;
  }
  if (cancelledAlready) {
    reply(LspError(ErrorCode::RequestCancelled, "request " + id.dump() + " was cancelled"));
    return true;
  }
  bool initialized, shuttingDown;
  {
    std::lock_guard<std::mutex> lock(mu_);
    initialized = initialized_;
    shuttingDown = shutdownRequested_;
  }
  try {
    if (method == "initialize") {
      if (initialized) throw LspError(ErrorCode::InvalidRequest, "initialize was already received");
      handleInitialize(params, reply);
      return true;
    }
    if (!initialized) throw LspError(ErrorCode::ServerNotInitialized, "the server is not initialized: send initialize first");
    if (shuttingDown) throw LspError(ErrorCode::InvalidRequest, "the server is shutting down; only exit is accepted");
    if (method == "shutdown") {
      std::lock_guard<std::mutex> lock(mu_);
      shutdownRequested_ = true;
      for (auto& [key, job] : running_) job->cancel.cancel();
      for (auto& [key, job] : pending_)
        if (job->reply) (*job->reply)(LspError(ErrorCode::RequestCancelled, "the server is shutting down"));
      pending_.clear();
      reply(json(nullptr));
    } else if (method == "textDocument/codeAction") {
      handleCodeAction(params, reply);
    } else if (method == "textDocument/hover") {
      handleHover(params, reply);
    } else if (method == "textDocument/diagnostic") {
      handleDocumentDiagnostic(params, reply);
    } else if (method == "workspace/executeCommand") {
      handleExecuteCommand(params, reply, id);
    } else if (method == "revline/stats") {
      ServerStats s = stats();
      reply(json{{"reviewsStarted", s.reviewsStarted}, {"providerCalls", s.providerCalls}, {"cacheHits", s.cacheHits},
                 {"reviewsCancelled", s.reviewsCancelled}, {"providerFailures", s.providerFailures}});
    } else {
      throw LspError(ErrorCode::MethodNotFound, "method not found: " + method);
    }
  } catch (const LspError& e) {
    if (reply) reply(e);
  } catch (const DecodeError& e) {
    if (reply) reply(LspError(ErrorCode::InvalidParams, "invalid params for " + method + ": " + e.what()));
  } catch (const std::exception& e) {
    if (reply) reply(LspError(ErrorCode::InternalError, method + " failed: " + e.what()));
  }
  return true;
}

bool Server::onNotify(const std::string& method, const json& params) {
  if (method == "exit") return false;
  if (method == "$/cancelRequest") {
    handleCancel(params);
    return true;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!initialized_ || shutdownRequested_) return true;  // dropped, as LSP requires
  }
  try {
    if (method == "textDocument/didOpen") handleDidOpen(params);
    else if (method == "textDocument/didChange") handleDidChange(params);
    else if (method == "textDocument/didSave") handleDidSave(params);
    else if (method == "textDocument/didClose") handleDidClose(params);
    else if (method == "workspace/didChangeConfiguration") handleDidChangeConfiguration(params);
    else if (method == "workspace/didChangeWorkspaceFolders") handleDidChangeWorkspaceFolders(params);
    else if (method == "workspace/didChangeWatchedFiles") handleDidChangeWatchedFiles(params);
    else if (method == "initialized") handleInitialized();
    // Everything else ($/setTrace, unknown notifications) is ignored.
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(mu_);
    logMessage(MessageType::Error, method + ": " + e.what());
  }
  return true;
}

bool Server::onReply(const json& id, const std::optional<json>&, const std::optional<json>& error) {
  // A progress token is used only once the client accepted it.
  if (progress_.onReply(id, !error)) return true;
  // Other replies (registerCapability, diagnostic refresh): nothing waits on them.
  if (error) {
    std::lock_guard<std::mutex> lock(mu_);
    logMessage(MessageType::Log, "client answered a server request with an error: " + error->dump());
  }
  return true;
}

void Server::handleCancel(const json& params) {
  if (!params.is_object() || !params.contains("id")) return;
  const std::string key = params["id"].dump();
  std::lock_guard<std::mutex> lock(inflightMu_);
  if (auto it = inflight_.find(key); it != inflight_.end()) {
    it->second.cancel();
  } else {
    if (cancelledEarly_.size() > 1000) cancelledEarly_.clear();
    cancelledEarly_.insert(key);  // not seen yet (same batch): answered -32800 on arrival
  }
}

// ---------------------------------------------------------------- lifecycle

void Server::handleInitialize(const json& params, ReplyOnce& reply) {
  InitializeParams p = parseParams<InitializeParams>(params, "initialize");
  std::lock_guard<std::mutex> lock(mu_);
  clientProgress_ = p.workDoneProgress;
  if (p.workspaceFolders) {
    for (const auto& f : *p.workspaceFolders) folders_.push_back(canonicalPath(pathFromUri(f.uri)));
  } else if (p.rootUri) {
    folders_.push_back(canonicalPath(pathFromUri(*p.rootUri)));
  }
  pullDiagnostics_ = p.pullDiagnostics && p.diagnosticRefresh;
  watchFiles_ = p.watchFiles;
  watchRelativePatterns_ = p.watchRelativePatterns;
  // Neovim 0.7 encodes an empty Lua table ({}: "no settings") as [].
  if (p.initializationOptions.is_array() && p.initializationOptions.empty()) p.initializationOptions = json::object();
  if (p.initializationOptions.is_object()) {
    json settings = p.initializationOptions;
    if (settings.contains("sync")) {
      if (!settings["sync"].is_boolean())
        throw LspError(ErrorCode::InvalidParams, "initializationOptions.sync: expected true or false");
      if (settings["sync"].get<bool>() && !options_.sync)
        logMessage(MessageType::Warning, "initializationOptions.sync needs `revline lsp --sync`; ignored");
      settings.erase("sync");
    }
    clientSettings_ = settings;
  } else if (!p.initializationOptions.is_null()) {
    throw LspError(ErrorCode::InvalidParams, "initializationOptions: expected an object");
  }
  initialized_ = true;
  json capabilities{
      {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
      {"codeActionProvider", {{"codeActionKinds", {"quickfix", "source"}}}},
      {"hoverProvider", true},
      {"executeCommandProvider",
       {{"commands", {kReviewFile, kReviewWorkspace, kClearDiagnostics, kDismissFinding, kUndismiss, kShowDismissed}}}},
      {"workspace", {{"workspaceFolders", {{"supported", true}, {"changeNotifications", true}}}}},
  };
  if (pullDiagnostics_)
    capabilities["diagnosticProvider"] = {{"identifier", "revline"}, {"interFileDependencies", false},
                                          {"workspaceDiagnostics", false}};
  reply(json{{"capabilities", capabilities}, {"serverInfo", {{"name", "revline"}, {"version", kVersion}}}});
}

void Server::handleInitialized() {
  std::lock_guard<std::mutex> lock(mu_);
  if (watchFiles_)
    transport_.call("client/registerCapability", watchedFilesRegistration(config::userConfigPath(), watchRelativePatterns_),
                    "revline-" + std::to_string(++nextOutgoingId_));
}

void Server::handleDidChangeConfiguration(const json& params) {
  json settings = params.is_object() && params.contains("settings") ? params["settings"] : json();
  if (settings.is_object() && settings.contains("revline")) settings = settings["revline"];
  // eglot sends {"settings": {}} right after connecting (no workspace
  // configuration): nothing for revline there, so initializationOptions stay.
  else if (settings.is_object() && settings.empty()) return;
  if (settings.is_array() && settings.empty()) settings = json::object();  // Neovim 0.7's {}
  std::lock_guard<std::mutex> lock(mu_);
  if (!settings.is_object()) return;  // pull-model clients send null: keep what we have
  settings.erase("sync");
  // The notification carries the whole settings section: a key the user removed
  // must fall back to .revline.json / the default, so replace, never merge.
  clientSettings_ = std::move(settings);
  configs_.clear();
}

void Server::handleDidChangeWorkspaceFolders(const json& params) {
  auto p = parseParams<DidChangeWorkspaceFoldersParams>(params, "workspace/didChangeWorkspaceFolders");
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& f : p.event.removed) {
    const fs::path path = canonicalPath(pathFromUri(f.uri));
    folders_.erase(std::remove(folders_.begin(), folders_.end(), path), folders_.end());
  }
  for (const auto& f : p.event.added) folders_.push_back(canonicalPath(pathFromUri(f.uri)));
}

// ---------------------------------------------------------------- documents

void Server::handleDidOpen(const json& params) {
  auto p = parseParams<DidOpenTextDocumentParams>(params, "textDocument/didOpen");
  fs::path file, root;
  std::string scope;
  {
    std::lock_guard<std::mutex> lock(mu_);
    documents_.open(p.textDocument);
    editsSinceSave_[p.textDocument.uri].clear();
    switchToPull(p.textDocument.uri);
    try {
      file = canonicalPath(pathFromUri(p.textDocument.uri));
    } catch (const DecodeError&) {
      return;
    }
    uriByPath_[file.string()] = p.textDocument.uri;
    auto r = repositoryOf(file);
    if (!r) return;
    root = *r;
    scope = configFor(root).reviewScope;
  }
  // The last review of this diff (a reopen, a restart) is shown without a save.
  if (scope == "workspace") scheduleWorkspaceReview(root, true, std::nullopt, json(), true);
  else scheduleReview(file, true, std::nullopt, json(), true);
}

void Server::handleDidClose(const json& params) {
  auto p = parseParams<DidCloseTextDocumentParams>(params, "textDocument/didClose");
  std::lock_guard<std::mutex> lock(mu_);
  documents_.close(p.textDocument.uri);
  editsSinceSave_.erase(p.textDocument.uri);
  if (pullDiagnostics_) {  // no longer pulled: pushed again
    pulledResultId_.erase(p.textDocument.uri);
    publish(p.textDocument.uri);
  }
}

void Server::handleDidChange(const json& params) {
  auto p = parseParams<DidChangeTextDocumentParams>(params, "textDocument/didChange");
  std::lock_guard<std::mutex> lock(mu_);
  const std::vector<LineEdit> edits = documents_.change(p);
  const std::string& uri = p.textDocument.uri;
  auto& log = editsSinceSave_[uri];
  log.insert(log.end(), edits.begin(), edits.end());
  auto it = files_.find(uri);
  if (it == files_.end() || it->second.findings.empty()) return;
  const std::vector<std::string> lines = currentLines(uri);
  std::vector<PlacedFinding> kept;
  bool changed = false;
  for (auto f : it->second.findings) {
    const int first = f.firstLine, last = f.lastLine;
    bool alive = true;
    for (const auto& e : edits) {
      if (e.start.line <= f.lastLine && e.end.line >= f.firstLine) changed = true;  // its end column may move
      alive = alive && moveLines(f.firstLine, f.lastLine, e);
    }
    // A fix that was applied (the lines now read as its replacement) is done.
    if (alive && f.published.finding.edit && f.lastLine < static_cast<int>(lines.size())) {
      std::string text;
      for (int l = f.firstLine; l <= f.lastLine; ++l) text += (l > f.firstLine ? "\n" : "") + lines[l];
      if (text == f.published.finding.edit->replacement && text != f.published.finding.edit->original) alive = false;
    }
    // An undo gave the lines back their committed text: the reviewed change is gone.
    if (alive && !f.revertedText.empty() && f.lastLine < static_cast<int>(lines.size())) {
      bool reverted = true;
      for (int l = f.firstLine; l <= f.lastLine && reverted; ++l)
        reverted = lines[static_cast<std::size_t>(l)] == f.revertedText[static_cast<std::size_t>(l - f.firstLine)];
      if (reverted) alive = false;
    }
    if (!alive || f.firstLine != first || f.lastLine != last) changed = true;
    if (alive) kept.push_back(std::move(f));
  }
  it->second.findings = std::move(kept);
  if (changed) publish(uri);
}

void Server::handleDidSave(const json& params) {
  auto p = parseParams<DidSaveTextDocumentParams>(params, "textDocument/didSave");
  fs::path file;
  fs::path root;
  std::string scope;
  {
    std::lock_guard<std::mutex> lock(mu_);
    editsSinceSave_[p.textDocument.uri].clear();
    file = canonicalPath(pathFromUri(p.textDocument.uri));
    uriByPath_[file.string()] = p.textDocument.uri;
    auto r = repositoryOf(file);
    if (!r) {
      logMessage(MessageType::Log, file.string() + " is not in a git repository; not reviewed");
      return;
    }
    root = *r;
    if (file.filename() == ".revline.json") configs_.erase(root);
    scope = configFor(root).reviewScope;
  }
  if (scope == "workspace") scheduleWorkspaceReview(root, false, std::nullopt, json());
  else scheduleReview(file, false, std::nullopt, json());
}

// ---------------------------------------------------------------- code actions, hover, commands

void Server::handleHover(const json& params, ReplyOnce& reply) {
  auto p = parseParams<TextDocumentPositionParams>(params, "textDocument/hover");
  std::lock_guard<std::mutex> lock(mu_);
  auto it = files_.find(p.textDocument.uri);
  if (it == files_.end()) return reply(json(nullptr));
  DismissedFindings& dismissed = dismissedFor(it->second.root);
  std::string markdown;
  std::optional<Range> range;
  const std::vector<std::string> lines = currentLines(p.textDocument.uri);
  for (const auto& f : it->second.findings) {
    if (dismissed.contains(f.published.id)) continue;
    if (p.position.line < f.firstLine || p.position.line > f.lastLine) continue;
    if (!markdown.empty()) markdown += "\n---\n\n";
    markdown += hoverMarkdown(f.published.finding);
    if (!range) {
      const int lastLen = f.lastLine < static_cast<int>(lines.size()) ? utf16Length(lines[f.lastLine]) : 0;
      range = Range{{f.firstLine, 0}, {f.lastLine, lastLen}};
    }
  }
  if (markdown.empty()) return reply(json(nullptr));
  reply(json(Hover{markdown, range}));
}

void Server::handleExecuteCommand(const json& params, ReplyOnce& reply, const json& id) {
  auto p = parseParams<ExecuteCommandParams>(params, "workspace/executeCommand");
  if (p.command == kReviewFile) {
    const std::string uri = argumentUri(p.arguments);
    if (uri.empty()) throw LspError(ErrorCode::InvalidParams, kReviewFile + std::string(": needs the document URI"));
    const fs::path file = canonicalPath(pathFromUri(uri));
    scheduleReview(file, true, std::move(reply), id);
  } else if (p.command == kReviewWorkspace) {
    std::vector<fs::path> roots;
    {
      std::lock_guard<std::mutex> lock(mu_);
      const std::string uri = argumentUri(p.arguments);
      std::vector<fs::path> from = uri.empty() ? folders_ : std::vector<fs::path>{canonicalPath(pathFromUri(uri))};
      for (const auto& f : from)
        if (auto r = repositoryOf(f); r && std::find(roots.begin(), roots.end(), *r) == roots.end()) roots.push_back(*r);
    }
    if (roots.empty()) throw LspError(ErrorCode::RequestFailed, "no workspace folder is inside a git repository");
    // One repository: the reply waits for its review. Several: each runs; the reply comes now.
    if (roots.size() == 1) {
      scheduleWorkspaceReview(roots[0], true, std::move(reply), id);
    } else {
      for (const auto& r : roots) scheduleWorkspaceReview(r, true, std::nullopt, json());
      reply(json(nullptr));
    }
  } else if (p.command == kClearDiagnostics) {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string uri = argumentUri(p.arguments);
    for (auto& [u, state] : files_) {
      if (!uri.empty() && u != uri) continue;
      state.findings.clear();
      publish(u);
    }
    reply(json(nullptr));
  } else if (p.command == kDismissFinding || p.command == kUndismiss || p.command == kShowDismissed) {
    handleDismissCommand(p.command, p.arguments, reply);
  } else {
    throw LspError(ErrorCode::InvalidParams, "unknown command: " + p.command);
  }
}

// ---------------------------------------------------------------- reviews

void Server::scheduleReview(const fs::path& file, bool immediate, std::optional<ReplyOnce> reply, const json& requestId,
                            bool cacheOnly) {
  auto job = std::make_shared<Job>();
  job->cacheOnly = cacheOnly;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto root = repositoryOf(file);
    if (!root) {
      if (reply) (*reply)(LspError(ErrorCode::RequestFailed, file.string() + " is not in a git repository"));
      return;
    }
    job->root = *root;
    job->path = file.lexically_relative(*root).generic_string();
    job->key = "file:" + file.string();
    job->due = Clock::now() + std::chrono::milliseconds(immediate ? 0 : debounceFor(configFor(*root)));
  }
  job->reply = std::move(reply);
  if (job->reply) job->requestKey = requestId.dump();
  enqueue(std::move(job));
}

void Server::scheduleWorkspaceReview(const fs::path& root, bool immediate, std::optional<ReplyOnce> reply,
                                     const json& requestId, bool cacheOnly) {
  auto job = std::make_shared<Job>();
  job->cacheOnly = cacheOnly;
  job->root = root;
  job->key = "workspace:" + root.string();
  {
    std::lock_guard<std::mutex> lock(mu_);
    job->due = Clock::now() + std::chrono::milliseconds(immediate ? 0 : debounceFor(configFor(root)));
  }
  job->reply = std::move(reply);
  if (job->reply) job->requestKey = requestId.dump();
  enqueue(std::move(job));
}

void Server::enqueue(std::shared_ptr<Job> job) {
  if (!job->requestKey.empty()) {
    std::lock_guard<std::mutex> lock(inflightMu_);
    inflight_[job->requestKey] = job->cancel;
  }
  if (options_.sync) {
    runJob(*job);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  // A cached-review lookup never displaces a real review of the same file.
  if (job->cacheOnly && (pending_.count(job->key) || running_.count(job->key))) return;
  if (auto it = pending_.find(job->key); it != pending_.end()) {
    if (it->second->reply) (*it->second->reply)(LspError(ErrorCode::RequestCancelled, "superseded by a newer review"));
    pending_.erase(it);
  }
  if (auto it = running_.find(job->key); it != running_.end()) it->second->cancel.cancel();
  pending_[job->key] = std::move(job);
  workCv_.notify_all();
}

void Server::workerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    if (pending_.empty()) {
      workCv_.wait(lock);
      continue;
    }
    auto next = std::min_element(pending_.begin(), pending_.end(),
                                 [](const auto& a, const auto& b) { return a.second->due < b.second->due; });
    // A job waits for its debounce, and for the previous review of the same key to stop.
    if (next->second->due > Clock::now()) {
      // A copy: wait_until reads its deadline after waking, and by then enqueue()
      // may have replaced (freed) this job.
      const Clock::time_point due = next->second->due;
      workCv_.wait_until(lock, due);
      continue;
    }
    std::shared_ptr<Job> job = next->second;
    pending_.erase(next);
    running_[job->key] = job;
    lock.unlock();
    runJob(*job);
    lock.lock();
    if (auto it = running_.find(job->key); it != running_.end() && it->second == job) running_.erase(it);
  }
}

void Server::runJob(Job& job) {
  auto finish = [&](ReplyValue value) {
    if (job.reply) (*job.reply)(std::move(value));
    job.reply.reset();
  };
  if (job.cancel.cancelled()) {
    if (job.cacheOnly) return;
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.reviewsCancelled;
    finish(LspError(ErrorCode::RequestCancelled, "review cancelled"));
    return;
  }
  config::Config config;
  std::string progressToken;
  const std::string what = job.path ? *job.path : "working tree of " + job.root.filename().string();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!job.cacheOnly) ++stats_.reviewsStarted;
    config = configFor(job.root);
    if (clientProgress_ && !job.cacheOnly) {
      progressToken = "revline-review-" + std::to_string(++nextProgress_);
      progress_.create(progressToken, "revline-" + std::to_string(++nextOutgoingId_),
                       json{{"kind", "begin"}, {"title", "revline review"}, {"message", what}, {"cancellable", false}});
    }
  }
  auto progress = [&](const json& value) {
    if (progressToken.empty()) return;
    if (value["kind"] == "end") progress_.end(progressToken, value["message"].get<std::string>());
    else progress_.report(progressToken, value);
  };
  std::string endMessage = "done";
  try {
    git::DiffRequest request;
    request.mode = git::DiffRequest::Mode::WorkingTree;
    request.includeUntracked = true;
    if (job.path) request.paths = {*job.path};
    std::vector<std::string> skippedUntracked;  // too large or not a regular file: reported, not read
    diff::Diff parsed = reviews_->readChange(job.root, request, &skippedUntracked);
    for (const auto& s : skippedUntracked) {
      std::lock_guard<std::mutex> lock(mu_);
      logMessage(MessageType::Log, "revline: " + s);
    }
    if (job.cancel.cancelled()) throw Cancelled();
    // The session selects the files (settings and default exclusions) and answers from cache when it can.
    session::ReviewRequest reviewRequest{std::move(parsed), job.root, config, {}};
    std::optional<session::ReviewResult> result;
    if (job.cacheOnly) {
      result = reviews_->cached(std::move(reviewRequest));
      if (!result || result->reviewed.files.empty()) return;  // not reviewed yet, or nothing changed: the next save does it
    } else {
      progress(json{{"kind", "report"}, {"message", "reviewing " + what}});
      result = reviews_->review(std::move(reviewRequest), job.cancel, [this](std::unique_ptr<review::Provider> p) {
        return std::make_unique<CountingProvider>(std::move(p), [this] {
          std::lock_guard<std::mutex> lock(mu_);
          ++stats_.providerCalls;
        });
      });
    }
    if (result->fromCache) {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.cacheHits;
    }
    const diff::Diff& selected = result->reviewed;
    const std::vector<review::PublishedFinding>& findings = result->outcome.findings;
    if (job.cancel.cancelled()) throw Cancelled();

    // Publish: every reviewed file gets its findings (or none, which clears it).
    std::lock_guard<std::mutex> lock(mu_);
    std::set<std::string> reviewed;
    std::map<std::string, std::vector<PlacedFinding>> byUri;
    for (const auto& f : selected.files) {
      if (!f.newPath) continue;  // deleted: nothing to show it on
      reviewed.insert(uriFor(job.root / *f.newPath));
    }
    if (job.path) reviewed.insert(uriFor(job.root / *job.path));
    for (const auto& pf : findings) {
      const std::string uri = uriFor(job.root / diff::normalizePath(pf.finding.file));
      PlacedFinding placed = place(pf, selected.findFile(pf.finding.file));
      bool alive = true;
      if (auto e = editsSinceSave_.find(uri); e != editsSinceSave_.end())
        for (const auto& edit : e->second) alive = alive && moveLines(placed.firstLine, placed.lastLine, edit);
      if (alive) byUri[uri].push_back(std::move(placed));
      reviewed.insert(uri);
    }
    if (!job.path) {  // workspace: files of this repository that left the diff are cleared
      for (const auto& [uri, state] : files_)
        if (state.root == job.root) reviewed.insert(uri);
    }
    for (const auto& uri : reviewed) {
      FileState& state = files_[uri];
      state.root = job.root;
      state.findings = std::move(byUri[uri]);
      publish(uri);
    }
    if (job.cacheOnly) return;
    lastFailureShown_.clear();
    // Dismissed findings are counted apart; the verdict is policy's, over the others.
    std::vector<review::PublishedFinding> shown;
    std::size_t dismissedCount = 0;
    DismissedFindings& dismissed = dismissedFor(job.root);
    for (const auto& f : findings) {
      if (dismissed.contains(f.id)) ++dismissedCount;
      else shown.push_back(f);
    }
    // No false approval here either: the review's evidence (unplaced blocking findings) still counts.
    const std::string verdict(contract::toString(review::decideVerdict(shown, config.review.policy, result->evidence)));
    endMessage = std::to_string(shown.size()) + (shown.size() == 1 ? " finding" : " findings") + ", verdict " + verdict;
    if (dismissedCount) endMessage += " (" + std::to_string(dismissedCount) + " dismissed)";
    finish(json{{"findings", shown.size()}, {"dismissed", dismissedCount}, {"verdict", verdict}});
  } catch (const Cancelled&) {
    if (job.cacheOnly) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.reviewsCancelled;
    }
    endMessage = "cancelled";
    finish(LspError(ErrorCode::RequestCancelled, "review cancelled"));
  } catch (const review::ProviderError& e) {
    if (job.cacheOnly) {  // e.g. a missing API key: the save says so
      std::lock_guard<std::mutex> lock(mu_);
      logMessage(MessageType::Log, std::string("cached review lookup: ") + e.what());
      return;
    }
    if (job.cancel.cancelled()) {  // the call failed because the review was cancelled
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.reviewsCancelled;
      endMessage = "cancelled";
      finish(LspError(ErrorCode::RequestCancelled, "review cancelled"));
    } else {
      const std::string message = std::string("revline: the review provider failed: ") + e.what() + failureHint(e);
      reportFailure(message);
      endMessage = "failed";
      finish(LspError(ErrorCode::RequestFailed, message));
    }
  } catch (const std::exception& e) {
    if (job.cacheOnly) {
      std::lock_guard<std::mutex> lock(mu_);
      logMessage(MessageType::Log, std::string("cached review lookup: ") + e.what());
      return;
    }
    const std::string message = std::string("revline: review of ") + what + " failed: " + e.what();
    reportFailure(message);
    endMessage = "failed";
    finish(LspError(ErrorCode::RequestFailed, message));
  }
  progress(json{{"kind", "end"}, {"message", endMessage}});
}

void Server::reportFailure(const std::string& message) {
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.providerFailures;
  logMessage(MessageType::Error, message);
  // A new failure is shown at once; the same one again after a minute (a
  // provider that stays down must not go quiet while old diagnostics stay).
  const auto now = options_.clock ? options_.clock() : Clock::now();
  if (message != lastFailureShown_ || now - lastFailureShownAt_ >= std::chrono::minutes(1)) {
    showMessage(MessageType::Error, message + (message == lastFailureShown_ ? " (still failing; the diagnostics shown are from the last successful review)" : ""));
    lastFailureShown_ = message;
    lastFailureShownAt_ = now;
  }
}

// ---------------------------------------------------------------- state helpers

std::optional<fs::path> Server::repositoryOf(const fs::path& file) {
  std::error_code ec;
  const fs::path dir = fs::is_directory(file, ec) ? file : file.parent_path();
  if (auto it = rootByDir_.find(dir); it != rootByDir_.end()) {
    // "Not in a repository" holds until a .git appears (git init after a first save).
    if (it->second || !gitAbove(dir)) return it->second;
  }
  std::optional<fs::path> root;
  try {
    root = canonicalPath(git::findRepositoryRoot(dir));
  } catch (const std::exception& e) {
    logMessage(MessageType::Log, dir.string() + ": " + e.what());
  }
  rootByDir_[dir] = root;
  return root;
}

config::Config Server::configFor(const fs::path& root) {
  const auto stamp = configStamp(root);
  if (auto it = configs_.find(root); it != configs_.end()) {
    if (configStamps_[root] == stamp) return it->second;  // else edited on disk (git pull, another editor)
  }
  configStamps_[root] = stamp;
  config::Config c;
  try {
    std::vector<std::string> notices;  // an untrusted repository's routing keys, ignored
    c = config::loadForRepository(root, &notices);
    for (const auto& n : notices) showMessage(MessageType::Warning, "revline: " + n);
  } catch (const std::exception& e) {
    showMessage(MessageType::Error, std::string("revline: ") + e.what() + " (using the defaults)");
  }
  if (!clientSettings_.empty()) {
    try {
      c = config::applyJson(c, clientSettings_, "the editor settings (initializationOptions / didChangeConfiguration)");
    } catch (const std::exception& e) {
      showMessage(MessageType::Error, std::string("revline: ") + e.what() + " (editor settings ignored)");
    }
  }
  configs_[root] = c;
  return c;
}

DismissedFindings& Server::dismissedFor(const fs::path& root) {
  auto& slot = dismissed_[root];
  if (!slot) slot = std::make_unique<DismissedFindings>(root);
  else slot->refresh();  // another server on this repository may have changed it
  return *slot;
}

std::string Server::uriFor(const fs::path& absolutePath) {
  const fs::path c = canonicalPath(absolutePath);
  if (auto it = uriByPath_.find(c.string()); it != uriByPath_.end()) return it->second;
  return uriFromPath(c.string());
}

std::vector<std::string> Server::currentLines(const std::string& uri) {
  if (const Document* doc = documents_.get(uri)) return documentLines(doc->text());
  try {
    // An unopened file of a repository nobody here wrote: through the confined
    // read (no FIFO, device or huge file; symlinks only inside the repository).
    const fs::path path = pathFromUri(uri);
    std::error_code ec;
    const fs::path canonical = fs::canonical(path, ec);
    if (ec) return {};
    support::RepoFileRead read = support::readRegularFile(canonical, path.string());
    if (!read) {
      logMessage(MessageType::Log, "revline: " + read.skipped->message());
      return {};
    }
    return documentLines(*read.content);
  } catch (const std::exception&) {
    return {};
  }
}

std::optional<int> Server::versionOf(const std::string& uri) {
  if (const Document* doc = documents_.get(uri)) return doc->version();
  return std::nullopt;
}

int Server::debounceFor(const config::Config& c) const {
  if (c.debounceSet) return c.debounceMs;
  // A local review costs milliseconds: wait only long enough to coalesce a
  // "save all"; a remote model call is worth waiting a few hundred ms for.
  return (c.provider == "builtin" || c.provider == "replay") ? 5 : 300;
}

void Server::logMessage(MessageType type, const std::string& text) {
  std::cerr << "revline lsp: " << text << "\n";
  if (initialized_) transport_.notify("window/logMessage", json{{"type", static_cast<int>(type)}, {"message", text}});
}

void Server::showMessage(MessageType type, const std::string& text) {
  std::cerr << "revline lsp: " << text << "\n";
  transport_.notify("window/showMessage", json{{"type", static_cast<int>(type)}, {"message", text}});
}

}  // namespace revline::lsp
