// The server: lifecycle (initialize, shutdown, exit), the dispatch of every
// request and notification to its handler, configuration and workspace folders.
// The other rooms of Server: document_events.cpp, hover_and_commands.cpp,
// review_scheduler.cpp, workspace_state.cpp, code_actions.cpp,
// dismiss_commands.cpp, diagnostics_delivery.cpp, file_watching.cpp.
#include "lsp/server.h"

#include <algorithm>
#include <chrono>
#include <iostream>

#include "core/config/user_config.h"
#include "core/reports/usage_report.h"
#include "core/support/version.h"
#include "lsp/commands.h"
#include "lsp/file_watching.h"
#include "lsp/paths.h"
#include "lsp/review_job.h"

namespace revline::lsp {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

Server::Server(Transport& transport, ServerOptions options) : transport_(transport), options_(std::move(options)) {
  if (!options_.sync) {
    for (int i = 0; i < kWorkers; ++i) workers_.emplace_back([this] { workerLoop(); });
    prober_ = std::thread([this] { proberLoop(); });
  }
}

Server::~Server() {
  {
    std::lock_guard<std::mutex> lock(queueMu_);
    stopping_ = true;
    for (auto& [key, job] : running_) job->cancel.cancel();
    for (auto& [key, job] : pending_) job->cancel.cancel();  // stops a probe of it
    workCv_.notify_all();
    probeCv_.notify_all();
    pollCv_.notify_all();
  }
  for (std::thread& worker : workers_) worker.join();
  if (prober_.joinable()) prober_.join();
  if (gitPoller_.joinable()) gitPoller_.join();
  // Results the worker posted that the loop did not run: they would touch this server.
  transport_.discardPosted();
  for (auto& [key, job] : pending_)
    if (job->reply) (*job->reply)(LspError(ErrorCode::RequestCancelled, "the server is stopping"));
  pending_.clear();
}

int Server::run() {
  const bool stoppedByExit = transport_.loop(*this);
  if (!stoppedByExit) logMessage(MessageType::Log, "input ended; stopping");
  return shutdownRequested_ ? 0 : 1;
}

void ServerStats::add(const review::Usage& spent, const review::Prices& prices) {
  if (!spent.metered()) return;  // the builtin reviewer asks no model: nothing was spent
  usage += spent;
  if (!review::costOf(spent, prices)) return;
  review::addCostOf(cost, spent, prices);
  pricedRequests += spent.requests;
  if (lastPrices && *lastPrices != prices) pricesChanged = true;
  lastPrices = prices;
}

std::string ServerStats::sentence() const {
  std::string pricedAs;
  if (pricedRequests < usage.requests)
    pricedAs = "for the " + std::to_string(pricedRequests) + " of " + std::to_string(usage.requests) +
               " requests made while prices were configured";
  if (pricesChanged)
    pricedAs += pricedAs.empty() ? "at the prices configured when each review ran" : ", each at the prices of its time";
  return pricedAs.empty() ? reports::usageSentence(usage, cost) : reports::usageSentence(usage, cost, pricedAs);
}

namespace {
// The JSON report's usage shape; with a cost, the requests it covers (pricedRequests).
json sessionUsageJson(const ServerStats& s) {
  json u = reports::usageJson(s.usage, s.cost);
  if (s.cost) u["pricedRequests"] = s.pricedRequests;
  // Requests made while no price was set cost something too: the total is what it is at least.
  if (s.pricedRequests < s.usage.requests && u.contains("cost") && !u["cost"]["total"].is_null())
    u["cost"]["lowerBound"] = true;
  return u;
}
}  // namespace

ServerStats Server::stats() {
  std::lock_guard<std::mutex> lock(statsMu_);
  ServerStats s = stats_;
  for (const auto& [meter, prices] : inFlight_) s.add(meter->total(), prices);  // the reviews running now, as far as answered
  return s;
}

// ---------------------------------------------------------------- dispatch

bool Server::onCall(const std::string& method, const json& params, const json& id) {
  ReplyOnce reply(id, method, [this](const json& replyId, const ReplyValue& value) {
    {
      std::lock_guard<std::mutex> lock(inflightMu_);
      inflight_.erase(replyId.dump());
      cancelledByClient_.erase(replyId.dump());
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
  const bool initialized = initialized_, shuttingDown = shutdownRequested_;
  try {
    if (method == "initialize") {
      if (initialized) throw LspError(ErrorCode::InvalidRequest, "initialize was already received");
      handleInitialize(params, reply);
      return true;
    }
    if (!initialized) throw LspError(ErrorCode::ServerNotInitialized, "the server is not initialized: send initialize first");
    if (shuttingDown) throw LspError(ErrorCode::InvalidRequest, "the server is shutting down; only exit is accepted");
    if (method == "shutdown") {
      shutdownRequested_ = true;
      std::map<std::string, std::shared_ptr<Job>> dropped;
      {
        std::lock_guard<std::mutex> lock(queueMu_);
        for (auto& [key, job] : running_) job->cancel.cancel();
        for (auto& [key, job] : pending_) job->cancel.cancel();
        dropped.swap(pending_);
      }
      for (auto& [key, job] : dropped)
        if (job->reply) (*job->reply)(LspError(ErrorCode::RequestCancelled, "the server is shutting down"));
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
                 {"reviewsCancelled", s.reviewsCancelled}, {"providerFailures", s.providerFailures},
                 {"usage", sessionUsageJson(s)}});
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
  if (!initialized_ || shutdownRequested_) return true;  // dropped, as LSP requires
  try {
    if (method == "window/workDoneProgress/cancel") handleProgressCancel(params);
    else if (method == "textDocument/didOpen") handleDidOpen(params);
    else if (method == "textDocument/didChange") handleDidChange(params);
    else if (method == "textDocument/didSave") handleDidSave(params);
    else if (method == "textDocument/didClose") handleDidClose(params);
    else if (method == "workspace/didChangeConfiguration") handleDidChangeConfiguration(params);
    else if (method == "workspace/didChangeWorkspaceFolders") handleDidChangeWorkspaceFolders(params);
    else if (method == "workspace/didChangeWatchedFiles") handleDidChangeWatchedFiles(params);
    else if (method == "initialized") handleInitialized();
    // Everything else ($/setTrace, unknown notifications) is ignored.
  } catch (const std::exception& e) {
    logMessage(MessageType::Error, method + ": " + e.what());
  }
  return true;
}

bool Server::onReply(const json& id, const std::optional<json>&, const std::optional<json>& error) {
  // A progress token is used only once the client accepted it.
  if (progress_.onReply(id, !error)) return true;
  if (refresh_.answered(id)) return true;  // pulled or not, a later change may refresh again
  // Other replies (registerCapability, diagnostic refresh): nothing waits on them.
  if (error) {
    logMessage(MessageType::Log, "client answered a server request with an error: " + error->dump());
  }
  return true;
}

// The cancel button of a review's progress: the review stops where it is, as a
// command's $/cancelRequest stops it. Its findings shown before stay.
void Server::handleProgressCancel(const json& params) {
  if (!params.is_object() || !params.contains("token")) return;
  const json& token = params["token"];
  if (!token.is_string()) return;  // revline's tokens are strings
  std::string what;
  {
    std::lock_guard<std::mutex> lock(queueMu_);
    for (const auto& [key, job] : running_)
      if (job->progressToken == token.get<std::string>() && stopFromEditor(*job)) what = reviewName(*job);
  }
  if (!what.empty()) logMessage(MessageType::Log, "revline: review of " + what + " cancelled from the editor");
}

// Under queueMu_: a running review stops as its progress's cancel button stops it.
// False when it has delivered its outcome already (too late to stop), or is
// stopping already (cancelled before, by the editor or a newer review, and not
// yet out of running_): a second cancel counts it again otherwise.
bool Server::stopFromEditor(Job& job) {
  if (job.delivered || job.cancel.cancelled()) return false;
  job.cancelledInEditor = true;
  job.cancel.cancel();
  return true;
}

// A command whose review the user cancelled from the editor: ServerCancelled, the
// server having stopped it, with data saying why (a newer review of the same file
// takes the place of the other ServerCancelled ones). Not RequestCancelled, which
// answers the client's own $/cancelRequest: Neovim drops that reply without
// calling back whoever asked.
LspError Server::cancelledFromEditor() {
  return LspError(ErrorCode::ServerCancelled, "review cancelled from the editor", json{{"cancelledFromEditor", true}});
}

std::string Server::reviewName(const Job& job) {
  return job.path ? *job.path : "working tree of " + job.root.filename().string();
}

// The revline.cancelReviews command: every review that would ask the model,
// running or waiting for its turn (a save's debounce, a review of the same file
// before it), stops. For the editors that show no cancel button for a server's
// progress (Neovim, Emacs, VS Code's status bar). Lookups of a cached review
// and the rechecks after a commit cost nothing and go on.
std::vector<std::string> Server::cancelReviewsFromEditor() {
  std::vector<std::string> stopped;
  std::vector<std::shared_ptr<Job>> dropped;
  {
    std::lock_guard<std::mutex> lock(queueMu_);
    for (const auto& [key, job] : running_)
      if (!job->cacheOnly && !job->recheckOnly && stopFromEditor(*job)) stopped.push_back(reviewName(*job));
    for (auto it = pending_.begin(); it != pending_.end();) {
      if (it->second->cacheOnly || it->second->recheckOnly) {
        ++it;
        continue;
      }
      it->second->cancel.cancel();
      stopped.push_back(reviewName(*it->second));
      dropped.push_back(std::move(it->second));
      it = pending_.erase(it);
    }
    if (!dropped.empty()) workCv_.notify_all();  // a job only a dropped one held back may run now
  }
  // A waiting review never started: no progress to end, only its request to answer.
  for (auto& job : dropped) {
    count(&ServerStats::reviewsCancelled);  // cancelled as the command's answer says, though never started
    if (job->reply) (*job->reply)(cancelledFromEditor());
  }
  for (const auto& what : stopped) logMessage(MessageType::Log, "revline: review of " + what + " cancelled from the editor");
  return stopped;  // a file's running review and its save waiting behind it: named twice
}

void Server::handleCancel(const json& params) {
  if (!params.is_object() || !params.contains("id")) return;
  const std::string key = params["id"].dump();
  std::lock_guard<std::mutex> lock(inflightMu_);
  if (auto it = inflight_.find(key); it != inflight_.end()) {
    it->second.cancel();
    cancelledByClient_.insert(key);
  } else {
    if (cancelledEarly_.size() > 1000) cancelledEarly_.clear();
    cancelledEarly_.insert(key);  // not seen yet (same batch): answered -32800 on arrival
  }
}

ErrorCode Server::stoppedCode(const std::string& requestKey) {
  std::lock_guard<std::mutex> lock(inflightMu_);
  return cancelledByClient_.count(requestKey) ? ErrorCode::RequestCancelled : ErrorCode::ServerCancelled;
}

// ---------------------------------------------------------------- lifecycle

namespace {

// eglot sends every server the project's whole configuration, one section per
// server ({"pylsp": {...}, "gopls": {...}}): an object with no key of revline's
// is for other servers; their names, or "" for anything else. (One key of
// revline's beside unknown ones is revline's, misspelt: said as such.)
std::string otherServersSections(const json& settings) {
  if (!settings.is_object() || settings.empty()) return "";
  std::string sections;
  for (const auto& item : settings.items()) {
    if (item.key() == "sync" || config::isConfigKey(item.key())) return "";
    sections += (sections.empty() ? "" : ", ") + item.key();
  }
  return sections;
}

}  // namespace

void Server::handleInitialize(const json& params, ReplyOnce& reply) {
  InitializeParams p = parseParams<InitializeParams>(params, "initialize");
  clientProgress_ = p.workDoneProgress;
  if (p.workspaceFolders) {
    for (const auto& f : *p.workspaceFolders) addFolder(f.uri);
  } else if (p.rootUri) {
    addFolder(*p.rootUri);
  } else if (p.rootPath && !p.rootPath->empty()) {
    folders_.push_back(canonicalPath(*p.rootPath));
  }
  pullDiagnostics_ = p.pullDiagnostics && p.diagnosticRefresh;
  watchFiles_ = p.watchFiles;
  watchRelativePatterns_ = p.watchRelativePatterns;
  hoverMarkdown_ = p.hoverMarkdown;
  // Neovim 0.7 encodes an empty Lua table ({}: "no settings") as [].
  if (p.initializationOptions.is_array() && p.initializationOptions.empty()) p.initializationOptions = json::object();
  // The section didChangeConfiguration takes, {"revline": {...}}, is what users copy.
  if (p.initializationOptions.is_object() && p.initializationOptions.contains("revline"))
    p.initializationOptions = json(p.initializationOptions["revline"]);
  if (const std::string sections = otherServersSections(p.initializationOptions); !sections.empty()) {
    logMessage(MessageType::Log, "initializationOptions: no revline settings in them (sections " + sections +
                                     ": other servers')");
    p.initializationOptions = json();
  }
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
    // Settings that apply are the ones kept when later ones fail, even when those
    // come before the first review reads them (eglot sends its workspace
    // configuration at once).
    try {
      config::applyJson(config::Config{}, clientSettings_, "initializationOptions");
      lastGoodClientSettings_ = clientSettings_;
    } catch (const std::exception&) {  // said by the first review that reads them
    }
  }
  initialized_ = true;
  // One wrong value in an editor's configuration must not leave it without a server.
  if (!p.initializationOptions.is_null() && !p.initializationOptions.is_object())
    logMessage(MessageType::Warning, "initializationOptions: expected an object of revline settings, got " +
                                         std::string(p.initializationOptions.type_name()) + "; ignored");
  json capabilities{
      {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
      {"codeActionProvider", {{"codeActionKinds", {"quickfix", "source"}}}},
      {"hoverProvider", true},
      {"executeCommandProvider",
       {{"commands", {kReviewFile, kReviewWorkspace, kClearDiagnostics, kDismissFinding, kUndismiss, kShowDismissed,
                     kCancelReviews}}}},
      {"workspace", {{"workspaceFolders", {{"supported", true}, {"changeNotifications", true}}}}},
  };
  if (pullDiagnostics_)
    capabilities["diagnosticProvider"] = {{"identifier", "revline"}, {"interFileDependencies", false},
                                          {"workspaceDiagnostics", false}};
  reply(json{{"capabilities", capabilities}, {"serverInfo", {{"name", "revline"}, {"version", kVersion}}}});
}

void Server::handleInitialized() {
  if (watchFiles_)
    transport_.call("client/registerCapability", watchedFilesRegistration(config::userConfigPath(), watchRelativePatterns_),
                    "revline-" + std::to_string(++nextOutgoingId_));
  // No watchers: a commit in a terminal would leave findings on committed lines
  // until the next save. The server looks at git's state itself; with watchers,
  // only for a repository whose git directory no folder holds (a linked work
  // tree's, a submodule's opened alone), which the client's patterns never see.
  const auto every = options_.gitStatePoll.value_or(options_.sync ? std::chrono::milliseconds(0) : std::chrono::seconds(1));
  if (every.count() > 0 && !gitPoller_.joinable()) gitPoller_ = std::thread([this, every] { gitPollerLoop(every); });
}

void Server::handleDidChangeConfiguration(const json& params) {
  json settings = params.is_object() && params.contains("settings") ? params["settings"] : json();
  if (settings.is_object() && settings.contains("revline")) settings = settings["revline"];
  // eglot sends {"settings": {}} right after connecting (no workspace
  // configuration): nothing for revline there, so initializationOptions stay.
  else if (settings.is_object() && settings.empty()) return;
  else if (const std::string sections = otherServersSections(settings); !sections.empty()) {
    logMessage(MessageType::Log, "workspace/didChangeConfiguration: no revline settings in it (sections " + sections +
                                     ": other servers'); the settings in use stay");
    return;
  }
  if (settings.is_array() && settings.empty()) settings = json::object();  // Neovim 0.7's {}
  if (!settings.is_object()) return;  // pull-model clients send null: keep what we have
  settings.erase("sync");
  // The notification carries the whole settings section: a key the user removed
  // must fall back to .revline.json / the default, so replace, never merge.
  clientSettings_ = std::move(settings);
  configs_.clear();
}

void Server::handleDidChangeWorkspaceFolders(const json& params) {
  auto p = parseParams<DidChangeWorkspaceFoldersParams>(params, "workspace/didChangeWorkspaceFolders");
  std::vector<fs::path> removed;
  for (const auto& f : p.event.removed) {
    try {
      // One entry: the same folder added twice (through a link, as file://localhost/)
      // is still in the workspace while the other stays.
      const fs::path path = canonicalPath(pathFromUri(f.uri));
      if (const auto it = std::find(folders_.begin(), folders_.end(), path); it != folders_.end()) folders_.erase(it);
      if (std::find(folders_.begin(), folders_.end(), path) == folders_.end()) {
        folderAsSpelt_.erase(path);
        removedFolders_.push_back(path);
      }
      removed.push_back(path);
    } catch (const DecodeError&) {  // never added (addFolder skipped it)
    }
  }
  for (const auto& f : p.event.added) addFolder(f.uri);
  forgetRemovedFolders(removed);
}

void Server::addFolder(const std::string& uri) {
  // A folder that is no local file (vscode-vfs://, a remote host) holds nothing
  // revline can review: skipped, while the others are kept.
  try {
    const fs::path spelt = fs::path(pathFromUri(uri)).lexically_normal();
    folders_.push_back(canonicalPath(spelt));
    folderAsSpelt_.try_emplace(folders_.back(), spelt.has_filename() ? spelt : spelt.parent_path());
    std::erase(removedFolders_, folders_.back());
  } catch (const DecodeError& e) {
    logMessage(MessageType::Log, std::string("workspace folder skipped: ") + e.what());
  }
}

// ---------------------------------------------------------------- documents

namespace {
// A line of the server's log on stderr: "revline lsp: " once (the client's copy
// often starts "revline: " already, and read "revline lsp: revline: ...").
void logToStderr(std::string_view text) {
  if (text.starts_with("revline: ")) text.remove_prefix(9);
  std::cerr << "revline lsp: " << text << "\n";
}
}  // namespace

void Server::logMessage(MessageType type, const std::string& text) {
  logToStderr(text);
  if (initialized_) transport_.notify("window/logMessage", json{{"type", static_cast<int>(type)}, {"message", text}});
}

void Server::showMessage(MessageType type, const std::string& text) {
  logToStderr(text);
  transport_.notify("window/showMessage", json{{"type", static_cast<int>(type)}, {"message", text}});
}

}  // namespace revline::lsp
