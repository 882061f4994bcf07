// The revline language server: LSP lifecycle, document sync, review on save,
// diagnostics that follow edits, code actions, hover and commands. Transport-
// and provider-agnostic: messages arrive through a Transport, the Provider
// comes from a factory (providers::makeProvider unless a test injects one).
//
// Threads (docs/ARCHITECTURE.md "Threads and state"): the loop thread owns all
// protocol and workspace state and is the only one to touch it, so it needs no
// lock. A review job carries an immutable snapshot (repository, path, the
// effective config); the worker runs it (git, the review session, reads of the
// reviewed files) and posts the result back to the loop (Transport::post),
// which publishes it. Locks guard only the job queue, the statistics and the
// in-flight table, and no I/O is done while one is held. A third thread, the
// prober, tells whether a save made while the same review runs changed the diff
// (lsp/change_probe.cpp). A fourth, for a client that watches no files, only
// wakes the loop once a second to look at git's state (lsp/git_state_poll.cpp).
// With `sync`, reviews run inline on the loop thread without debounce (tests).
#pragma once
#include <chrono>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/config/config.h"
#include "core/review/provider.h"
#include "core/review/cost.h"
#include "core/session/review_service.h"
#include "core/session/spend_meter.h"
#include "lsp/dismissals.h"
#include "lsp/document_store.h"
#include "lsp/findings.h"
#include "lsp/progress.h"
#include "lsp/pull_diagnostics.h"
#include "lsp/transport.h"

namespace revline::lsp {

using ProviderFactory = session::ProviderFactory;

struct ServerOptions {
  bool sync = false;                // reviews inline, no debounce
  ProviderFactory providerFactory;  // empty: providers::makeProvider
  session::GitDiff gitDiff;         // empty: git::diffText
  // What "now" is for the once-a-minute failure popup; empty: steady_clock (tests inject one).
  std::function<std::chrono::steady_clock::time_point()> clock;
  // How often git's state is looked at for a client that registers no file
  // watchers (lsp/git_state_poll.cpp); zero: never. Empty: every second, never with sync.
  std::optional<std::chrono::milliseconds> gitStatePoll;
  // How long the lookup of a file's repository may take (git on the loop
  // thread); empty: Server::kRepositoryLookupTimeout. Tests shorten it.
  std::optional<std::chrono::milliseconds> repositoryLookupTimeout;
};

// Counters for tests and troubleshooting, returned by the `revline/stats` request.
struct ServerStats {
  int reviewsStarted = 0;   // review jobs that ran (after debounce / cancellation)
  int providerCalls = 0;    // Provider::complete calls
  int cacheHits = 0;        // reviews answered from the cache
  int reviewsCancelled = 0;
  int providerFailures = 0;
  review::Usage usage;               // the session's running totals over the reviews that asked a model
  std::optional<review::Cost> cost;  // summed over those whose model has prices configured
  std::int64_t pricedRequests = 0;   // of usage.requests: made with prices configured (what `cost` covers)
  bool pricesChanged = false;        // `cost` sums requests priced at different prices
  std::optional<review::Prices> lastPrices;
  // The session's clause ("4 model requests, ...; cost 0.03 at the configured
  // prices"), saying when the cost covers only some requests or several prices.
  std::string sentence() const;
  void add(const review::Usage& spent, const review::Prices& prices);
};

class Server : public MessageHandler {
 public:
  // The lookup of a file's repository runs git on the loop thread: bounded
  // tighter than a review's git (120 s), and a failure beside a .git that took
  // git long (a hang, a stalled mount) is asked again only after a while.
  static constexpr std::chrono::seconds kRepositoryLookupTimeout{10};
  static constexpr std::chrono::seconds kRetryRepositoryProblem{30};
  Server(Transport& transport, ServerOptions options);
  ~Server() override;
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Runs the transport loop; returns the process exit code (0 after
  // shutdown + exit, 1 for exit without shutdown or input ending before it).
  int run();

  bool onNotify(const std::string& method, const json& params) override;
  bool onCall(const std::string& method, const json& params, const json& id) override;
  bool onReply(const json& id, const std::optional<json>& result, const std::optional<json>& error) override;

  ServerStats stats();

 private:
  struct Job;
  struct FileState {
    std::filesystem::path root;
    std::string path;  // repository-relative
    std::vector<PlacedFinding> findings;
    // The digest of the file's diff the findings were computed on (lsp/diff_fingerprint.h);
    // empty: the file had no diff.
    std::string reviewedDiff;
    // The file as the worker read it for the review (ranges of a file not open
    // are measured on it, without reading the disk on the loop thread).
    std::optional<std::vector<std::string>> reviewedLines;
  };
  // What the worker hands back to the loop thread for one job.
  struct JobOutcome;

  // Request handlers (loop thread). They throw LspError.
  // A handler that throws leaves `reply` unanswered; onCall answers with the error.
  void handleInitialize(const json& params, ReplyOnce& reply);
  void handleCodeAction(const json& params, ReplyOnce& reply);
  void handleHover(const json& params, ReplyOnce& reply);
  void handleExecuteCommand(const json& params, ReplyOnce& reply, const json& id);
  // Notification handlers.
  void handleDidOpen(const json& params);
  void handleDidChange(const json& params);
  void handleDidSave(const json& params);
  void handleDidClose(const json& params);
  void handleDidChangeConfiguration(const json& params);
  void handleDidChangeWorkspaceFolders(const json& params);
  void addFolder(const std::string& uri);  // a workspace folder's URI; one that is no local file is skipped
  void handleCancel(const json& params);
  void handleProgressCancel(const json& params);
  std::vector<std::string> cancelReviewsFromEditor();
  bool stopFromEditor(Job& job);
  static std::string reviewName(const Job& job);
  static LspError cancelledFromEditor();
  void handleInitialized();
  // lsp/file_watching.cpp
  void handleDidChangeWatchedFiles(const json& params);
  void reloadConfigs();  // a config file changed: re-read now (its errors and notices show at once)
  // lsp/git_state_poll.cpp: for a client that watches no files, the server looks at
  // git's state itself. The poller thread only wakes the loop every `every`;
  // pollGitState (loop thread) compares each repository's stamp with the last one.
  void gitPollerLoop(std::chrono::milliseconds every);
  void pollGitState();
  // A repository whose git directory is inside a workspace folder of a client
  // that registers watchers: the client reports its index and HEAD, no poll needed.
  bool watchedByTheClient(const std::filesystem::path& root) const;
  // Keeps `root`'s stamp now, if it has none (a review is queued: a commit while it
  // runs must read as a change). Nothing when no poller runs.
  void noteGitState(const std::filesystem::path& root);
  // lsp/diagnostics_delivery.cpp: push (publishDiagnostics) or pull (textDocument/diagnostic).
  void handleDocumentDiagnostic(const json& params, ReplyOnce& reply);
  // lsp/dismiss_commands.cpp: revline.dismissFinding, revline.undismiss, revline.showDismissed.
  void handleDismissCommand(const std::string& command, const json& arguments, ReplyOnce& reply);

  // Reviews.
  // `cacheOnly`: publish the cached review of the current diff, if there is one,
  // and never call the provider (didOpen, restart).
  void scheduleReview(const std::filesystem::path& file, bool immediate, std::optional<ReplyOnce> reply,
                      const json& requestId, bool cacheOnly = false);
  void scheduleWorkspaceReview(const std::filesystem::path& root, bool immediate, std::optional<ReplyOnce> reply,
                               const json& requestId, bool cacheOnly = false);
  // The last review of `file`'s diff (of its repository's, with review_scope
  // "workspace"), shown from the cache without a provider call: an open, a close
  // that drops unsaved edits.
  void showLastReview(const std::filesystem::path& file, const std::filesystem::path& root, const std::string& scope);
  void enqueue(std::shared_ptr<Job> job);
  // lsp/change_probe.cpp: a save while the same review runs is probed (its diff read
  // again) instead of cancelling that review; the review goes on when nothing changed.
  void proberLoop();
  // Under queueMu_: settles the save `job` probed, whose change read as `change` (null: unknown).
  void settleProbe(const std::shared_ptr<Job>& job, const std::shared_ptr<const std::string>& change);
  // Under queueMu_, once the review in flight for `key` has read its diff: settles
  // the save that was probed before it had.
  void settleDeferredProbe(const std::string& key);
  // Worker (or the loop, with sync): runs the job over its snapshot, doing all
  // of its I/O with no lock held, then delivers what it found to the loop.
  void runJob(const std::shared_ptr<Job>& job);
  // Loop thread: publishes a job's outcome and answers the request waiting for it.
  void applyOutcome(Job& job, JobOutcome& outcome);
  void readShownDiffs(const Job& job, JobOutcome& outcome);
  // Whether `uri` is open, and was opened after a job queued when opens_ was `opensBefore`.
  bool reopenedSince(const std::string& uri, std::uint64_t opensBefore) const;
  // Runs `task` on the loop thread: posted, or at once with sync.
  void onLoop(std::function<void()> task);
  void workerLoop();
  // True when a running job must finish before `job` starts (its file, or its
  // repository for a workspace review or a recheck), or a pending review of
  // its whole repository was due first. Callers hold queueMu_.
  bool conflicts(const Job& job) const;
  // What the diagnostics shown in a repository are when its review failed (the message says so).
  enum class Shown {
    None,
    LastReview,             // of earlier reviews, still shown
    AnsweredBeforeFailure,  // of a split review's requests answered before another failed
  };
  // Logs a review's failure and returns it as the user is told it. Shown in a
  // message: a new failure at once, the same one once a minute. Not shown when
  // `toldInReply` (a command asked for the review: its client shows the error
  // reply, and a message beside it said the same twice).
  std::string reportFailure(const std::string& message, Shown shown, bool providerFailed, bool toldInReply);
  // Worker: reads the files the findings of outcome.result are on (outcome.fileLines).
  void readFilesOfFindings(const Job& job, JobOutcome& outcome);
  void count(int ServerStats::*counter);           // any thread
  // Adds a review's spend (and its cost, when priced) to revline/stats, ending
  // its in-flight count in the same step (nothing counted twice); any thread.
  // Adds a review's spending to the session's totals; its running meter is no longer counted.
  void addToSessionTotals(const review::Usage& usage, const review::Prices& prices, const session::SpendMeter* meter);

  // lsp/findings_lifetime.cpp: when shown findings go (loop thread).
  // Clears the file's diagnostics and drops what the server keeps of it.
  void forgetFile(const std::string& uri);
  // The same for the files at or under `uri` (a deleted folder) that no longer exist;
  // true when some went.
  bool forgetIfGone(const std::string& uri);
  // The same for the closed files of workspace folders removed that no folder left holds.
  void forgetRemovedFolders(const std::vector<std::filesystem::path>& removed);
  // Whether a file (repository root, relative path) was held only by the folders
  // `removed`: inside one, or of its repository, and no folder left holds it.
  std::function<bool(const std::filesystem::path& root, const std::string& rel)> leftOnlyIn(
      const std::vector<std::filesystem::path>& removed);
  // A cached-review lookup found no review of the current diff: files in its scope
  // whose findings were computed on another diff (`current`, the lookup's) are cleared.
  void dropStaleFindings(const Job& job, const std::map<std::string, std::string>& current);
  // A file's review read `change`, the diff now of the job's other shownFiles: of
  // one whose diff is not the one its findings were computed on (a commit, a
  // checkout, a stash since), only those whose line the change still adds, as it
  // read then, stay (a hunk committed on its own leaves the others). An open buffer
  // is judged only when its text is the file's on disk (`diskLines`): its lines are
  // the diff's then (a reload after `git pull` moved them as the pull did); otherwise
  // its findings stay, placed by its own edits, and its next save decides.
  void keepFindingsStillInChange(const Job& job, const diff::Diff& change,
                                 const std::map<std::string, std::vector<std::string>>& diskLines,
                                 const std::set<std::string>& gone);
  // git's index or HEAD changed in `root` (a commit, stash or checkout outside the
  // editor): a job reads the diff of its files that show findings, and keeps only
  // those the change still adds (keepFindingsStillInChange). No review: nothing is
  // sent. A buffer that does not read as its file on disk is left to its next save.
  void recheckShownFindings(const std::filesystem::path& root);
  // Whether `uri` is open with edits since its last save (its findings are placed
  // on the buffer, which the diff on disk does not describe).
  bool hasUnsavedEdits(const std::string& uri) const;
  // After a recheck of `root`: the files of it whose findings a change of the diff
  // took, and that show none now, get the cached review of their diff now, if any
  // (a cached-review lookup, as on open: nothing is sent). An open one only when
  // it reads as its file on disk (`diskLines`, read by the recheck): the editor
  // reloaded it after `git stash pop`, as an edit.
  void restoreClearedFindings(const std::filesystem::path& root,
                              const std::map<std::string, std::vector<std::string>>& diskLines);
  // didChange's edits applied to the document and to the findings shown on it.
  void applyChange(const DidChangeTextDocumentParams& params);
  // Whether `uri` is open and reads as `rel` did when the worker read it (`diskLines`, by path).
  bool openBufferReadsAs(const std::string& uri, const std::string& rel,
                         const std::map<std::string, std::vector<std::string>>& diskLines) const;
  // Notes that a change took the findings of `uri` (clearedByDiffChange_, bounded).
  void noteCleared(const std::string& uri, const std::filesystem::path& root, const std::string& rel);
  // (uri, repository-relative path) of the files of `root` that show findings.
  std::vector<std::pair<std::string, std::string>> filesShownIn(const std::filesystem::path& root) const;

  // State helpers (loop thread).
  std::optional<std::filesystem::path> repositoryOf(const std::filesystem::path& file);
  config::Config configFor(const std::filesystem::path& root);
  DismissedFindings& dismissedFor(const std::filesystem::path& root);
  std::string uriFor(const std::filesystem::path& absolutePath);
  // The uri of canonical `file` in the spelling of the workspace folder that
  // holds it (the nearest), else its own; not the one a client opened it by.
  std::string spelledUri(const std::filesystem::path& file) const;
  std::vector<std::string> currentLines(const std::string& uri);
  std::optional<int> versionOf(const std::string& uri);
  // The line break of the document's text ("\r\n" in a CRLF file), which a
  // multi-line fix's new text is written with.
  std::string lineBreakOf(const std::string& uri);
  // Takes the client's spelling of `file`'s URI (didOpen, didSave) as the one its
  // findings are kept and published under; a copy published under another
  // spelling (a workspace review's, before the file was open) is cleared.
  void adoptClientUri(const std::filesystem::path& file, const std::string& uri);
  // The diagnostics of `uri` now (dismissed findings left out).
  std::vector<Diagnostic> diagnosticsFor(const std::string& uri);
  // Pushes them, or (pull clients) asks the client to pull when they changed.
  // `unlessNothingToClear`: not an empty list for a closed file whose last push
  // was empty too (a workspace review: one for each of thousands of clean files).
  void publish(const std::string& uri, bool unlessNothingToClear = false);
  int debounceFor(const config::Config& config) const;
  // Pull clients: `uri` was opened; its pushed diagnostics (if any) are withdrawn.
  void switchToPull(const std::string& uri);
  void logMessage(MessageType type, const std::string& text);
  void showMessage(MessageType type, const std::string& text);

  Transport& transport_;
  ServerOptions options_;

  // ---- Loop-thread state: only the loop thread reads or writes it (no lock).
  bool initialized_ = false;
  bool shutdownRequested_ = false;
  bool clientProgress_ = false;
  bool pullDiagnostics_ = false;  // the client pulls (and supports refresh): no push
  bool watchFiles_ = false;       // the client registers file watchers dynamically
  bool watchRelativePatterns_ = false;  // ... and takes RelativePattern globs
  RefreshGate refresh_;
  std::map<std::string, std::string> pulledResultId_;  // by uri: what the client last pulled
  std::set<std::string> pushedToPullClient_;           // uris not open, pushed non-empty diagnostics
  // Push clients: uris whose last push was not empty (publish's unlessNothingToClear).
  std::set<std::string> shownByPush_;
  json clientSettings_ = json::object();
  std::optional<json> lastGoodClientSettings_;  // the last editor settings that applied (kept when new ones fail)
  std::vector<std::filesystem::path> folders_;
  // Workspace folders removed (and not added again): a review of one that ends
  // after, and a buffer of one closed after, leave no findings behind.
  std::vector<std::filesystem::path> removedFolders_;
  DocumentStore documents_;
  std::map<std::string, std::vector<LineEdit>> editsSinceSave_;  // by uri
  // Files the client edits without having opened them to the server (a buffer
  // renamed by `:saveas`, whose new name was never opened): the client holds a
  // text the server cannot see until the next save, so it offers no fix there.
  bool hoverMarkdown_ = true;  // the client's hover shows markdown (capabilities.textDocument.hover.contentFormat)
  std::set<std::string> editedUnseen_;  // by uri
  // Documents published to (with their version) since their last didChange: a
  // client that drops diagnostics of another version than its own dropped them
  // if the user typed meanwhile, so the next didChange publishes again, once.
  std::set<std::string> publishedBeforeChange_;  // by uri
  // didOpen count, and each uri's count when it was last opened: a review queued
  // before a document's reopen (an editor's reload after `git stash`) read a file
  // the reopened text may no longer be (lsp/review_scheduler.cpp, publishing).
  std::uint64_t opens_ = 0;
  std::map<std::string, std::uint64_t> openedAt_;  // by uri
  // Changes of git's index or HEAD the watcher reported: a review that read its
  // diff before one (a commit while the model answered) is checked again once
  // published (recheckShownFindings), or its findings stay on committed lines.
  std::uint64_t gitStateChanges_ = 0;
  // When git's state last changed: a whole-text didChange soon after is the editor's reload of a file git rewrote.
  std::chrono::steady_clock::time_point lastGitStateChange_{};
  // Files whose findings a change of the diff took (`git stash`; or an edit, an
  // editor's reload of the stashed file as one), by uri: when git's state changes
  // again (`git stash pop`), the cached review of their diff now, if there is
  // one, is shown again (restoreClearedFindings).
  struct ClearedFile {
    std::filesystem::path root;
    std::string path;  // repository-relative
  };
  std::map<std::string, ClearedFile> clearedByDiffChange_;
  // Each polled repository's git state as last seen
  // (git::gitStateStamp), looked at again every poll.
  std::map<std::filesystem::path, std::string> gitStamps_;
  std::map<std::string, FileState> files_;                       // by uri
  std::map<std::string, std::string> uriByPath_;                 // canonical path -> client's uri
  // Each workspace folder's path as the client spells it (through a symlink,
  // /home/u/proj for /mnt/data/proj), by its canonical path: a file the client
  // never opened is named in the folder's spelling, as the client lists it.
  std::map<std::filesystem::path, std::filesystem::path> folderAsSpelt_;
  struct KnownRoot {
    std::optional<std::filesystem::path> root;  // none: not in a repository
    std::filesystem::path nearestGit;           // the nearest directory holding a .git when it was looked up
    std::string whyNone;                        // git's reason, when it gave one
    std::chrono::steady_clock::time_point lookedUp;  // when git was asked
    bool slow = false;  // no repository, and git took long (or hung) to say so
  };
  std::map<std::filesystem::path, KnownRoot> rootByDir_;
  // The same, by the directory holding the .git: a folder of a repository seen
  // before needs no git (each first lookup runs git on the loop thread).
  std::map<std::filesystem::path, KnownRoot> rootByGit_;
  // Why the last repositoryOf found no repository, as git said it ("git was not
  // found on PATH", "git refuses to read the repository ... safe.directory"): what
  // a review command answers, rather than "not in a git repository".
  std::string whyNoRepository_;
  // "PATH is not in a git repository", or git's reason for it, from whyNoRepository_.
  std::string notReviewable(const std::filesystem::path& path) const;
  // Why a directory under a `.git` is no usable repository, as already shown (once each).
  std::set<std::string> repositoryProblemsShown_;
  std::map<std::filesystem::path, config::Config> configs_;
  // By repository: the configuration its files last gave (before the editor's
  // settings), kept when a later edit breaks a file; and why its files give none
  // (a syntax error, a bad key) while there is no such earlier one: no review runs.
  std::map<std::filesystem::path, config::Config> lastReadConfigs_;
  std::map<std::filesystem::path, std::string> configErrors_;
  // The modification times of .revline.json and of the user config when configs_
  // was filled (an edit on disk reloads, with or without a watcher event).
  std::map<std::filesystem::path, std::pair<std::filesystem::file_time_type, std::filesystem::file_time_type>>
      configStamps_;
  std::map<std::filesystem::path, std::unique_ptr<DismissedFindings>> dismissed_;
  // By repository: the git settings last warned of as not run (untrusted), so a save does not repeat it.
  std::map<std::filesystem::path, std::vector<std::string>> ignoredGitSettingsShown_;
  std::string lastFailureShown_;
  std::chrono::steady_clock::time_point lastFailureShownAt_{};
  // By repository: the parts of its change last warned of as not reviewed (a request
  // limit, a file the diff cannot show), so the same save does not repeat it.
  std::map<std::filesystem::path, std::string> notReviewedShown_;
  // By repository: the max_findings cap last warned of as holding ("" when it does not).
  std::map<std::filesystem::path, std::string> overCapShown_;

  // ---- Shared with the worker.
  std::atomic<int> nextProgress_{0};
  std::atomic<int> nextOutgoingId_{0};
  std::mutex statsMu_;  // stats_ and inFlight_ (read by tests from their own thread)
  ServerStats stats_;
  // The reviews running now (one a worker), each by its meter: what their answered
  // model calls spent so far, so revline/stats is live during a review of many
  // requests, not only after it; with the prices they are costed at.
  std::map<const session::SpendMeter*, review::Prices> inFlight_;
  // Thread-safe, and used by the worker only (the cache locks its own files).
  session::ReviewCache cache_;
  session::HunkCache hunks_;
  session::ReviewService reviews_{options_.providerFactory, &cache_, options_.gitDiff, &hunks_};  // empty ones: the defaults
  ProgressReporter progress_{transport_};                                                // locks its own state

  // Requests in flight (cancellable) and cancellations that arrived first.
  std::mutex inflightMu_;
  std::map<std::string, CancelToken> inflight_;  // by id.dump()
  std::set<std::string> cancelledEarly_;
  std::set<std::string> cancelledByClient_;  // of inflight_, those $/cancelRequest named
  // The code a request stopped before its end is answered with: RequestCancelled
  // when the client cancelled it, else ServerCancelled (a newer review superseded it).
  ErrorCode stoppedCode(const std::string& requestKey);

  // Worker: the job queue, under queueMu_ (held only to move jobs, never over I/O).
  std::mutex queueMu_;
  std::condition_variable workCv_;
  std::map<std::string, std::shared_ptr<Job>> pending_;  // by job key
  std::map<std::string, std::shared_ptr<Job>> running_;  // by job key
  std::set<std::string> probes_;                         // job keys whose pending save is to be probed
  std::condition_variable probeCv_;
  std::condition_variable pollCv_;  // the git-state poller's wait (ends at stopping_)
  bool stopping_ = false;
  // Reviews of different files run at once (a slow or hung model answer for one
  // file holds up no other); of one file, or beside a workspace review or a
  // recheck of the same repository, one at a time (conflicts()).
  static constexpr int kWorkers = 3;
  // More start when every worker is busy with other repositories' reviews (enqueue).
  static constexpr std::size_t kMaxWorkers = 8;
  std::vector<std::thread> workers_;  // grown on the loop thread only; joined when the server ends
  std::thread prober_;
  std::thread gitPoller_;  // started by `initialized` (with watchers, for git directories outside the folders)
};

}  // namespace revline::lsp
