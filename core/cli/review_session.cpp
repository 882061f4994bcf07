#include "core/cli/review_session.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <iostream>
#include <memory>

#include "core/cli/interrupt.h"
#include "core/config/user_config.h"
#include "core/git/git.h"
#include "core/support/repo_file.h"
#include "core/reports/usage_report.h"
#include "core/session/spend_meter.h"
#include "core/support/terminal_text.h"
#include "core/support/cancel.h"

namespace revline::cli {

const std::vector<OptionSpec>& reviewOptionSpecs() {
  static const std::vector<OptionSpec> specs = {
      {"provider", true},     {"model", true},        {"base-url", true},       {"api-key-env", true},
      {"cassette", true},     {"max-attempts", true}, {"max-tool-calls", true}, {"description", true},
      {"max-input-tokens", true}, {"max-parallel-requests", true}, {"max-requests", true},
  };
  return specs;
}

const char* const kReviewOptionsHelp =
    "  --provider P         builtin (default: offline rules), replay, openai, anthropic, ollama\n"
    "  --model M            model id for the provider\n"
    "  --base-url URL       provider endpoint (OpenAI-compatible servers: .../v1)\n"
    "  --api-key-env NAME   environment variable that holds the API key\n"
    "  --cassette FILE      recorded model replies for --provider replay\n"
    "  --max-attempts N     answers the model may give, retries included (default 2)\n"
    "  --max-tool-calls N   repository tool calls per request (default 5; each request of a split review has its own)\n"
    "  --description TEXT   what the change is for, shown to the model as the author's intent\n"
    "  --max-input-tokens N estimated input tokens per model request; a larger change is split into\n"
    "                       requests that fit (0: the provider's default; builtin: no limit)\n"
    "  --max-parallel-requests N  requests of one review sent at once (default 4)\n"
    "  --max-requests N     requests per review at most; what does not fit is listed as not reviewed\n"
    "                       and the verdict is not APPROVE (default 10). A request is one part of the\n"
    "                       change with its tool rounds (up to --max-tool-calls) and a retry, so the\n"
    "                       model calls can be several times N: the Usage line counts those\n";

// The flags that choose where code and credentials go, and the keys they set.
constexpr std::pair<const char*, const char*> kRoutingFlags[] = {
    {"provider", "provider"}, {"model", "model"}, {"base-url", "base_url"}, {"api-key-env", "api_key_env"}};

config::UserConfig userConfigUnderFlags(const ParsedArgs& args) {
  config::UserConfig user = config::loadUserConfig();  // read once: the trust list and the layer
  for (const auto& [flag, key] : kRoutingFlags)
    if (args.value(flag)) user.setAbove.insert(key);
  return user;
}

config::Config applyReviewFlags(config::Config config, const ParsedArgs& args) {
  // A flag that sets a configuration key is checked as the key is in a file (one
  // table says what is valid): `--api-key-env sk-...`, a key where its variable's
  // name belongs, is refused without being echoed, as it is in a file.
  for (const auto& [flag, key] : kRoutingFlags)
    if (auto v = args.value(flag)) {
      try {
        config = config::applyJson(config, json{{key, *v}}, std::string("option --") + flag);
      } catch (const config::ConfigError& e) {
        throw UsageError(e.what());
      }
    }
  if (auto v = args.value("cassette")) {
    config.cassette = *v;
    if (!args.value("provider")) config.provider = "replay";  // a cassette only makes sense replayed
  }
  if (auto v = args.intValue("max-attempts", 1, 10)) config.review.maxAttempts = *v;
  if (auto v = args.intValue("max-tool-calls", 0, 100)) config.review.maxToolCalls = *v;
  if (auto v = args.value("description")) config.review.description = *v;
  if (auto v = args.intValue("max-input-tokens", 0, 100000000)) {
    config.maxInputTokens = *v;
    config.maxInputTokensCeiling.reset();  // the user's own choice
  }
  if (auto v = args.intValue("max-parallel-requests", 1, 64)) config.maxParallelRequests = *v;
  if (auto v = args.intValue("max-requests", 1, 10000)) config.maxRequests = *v;
  return config;
}

session::ProgressSink terminalProgress(std::ostream& err, const std::string& command) {
  if (&err != &std::cerr || !isatty(STDERR_FILENO)) return {};  // nothing on a pipe or a file
  return [&err, command](const session::ReviewProgress& p) {
    if (p.waiting) {  // a line of its own, over the count's (\33[K clears the rest of it); nothing when it ends
      if (!p.waiting->empty()) err << "\r" << command << ": " << *p.waiting << "\33[K\n" << std::flush;
      return;
    }
    if (p.total < 2) return;  // one request: nothing to count
    err << "\r" << command << ": " << p.done << " of " << p.total << " requests done, " << reports::tokensSoFar(p.usage)
        << (p.done == p.total ? "\n" : "") << std::flush;
  };
}

namespace {

// The settings of a review of a branch (--base) in a repository that is not
// trusted come from the base's `.revline.json`: a pull request's own could
// otherwise turn its gate off (`"exclude": ["**"]`, a policy that blocks
// nothing). Said when the change edits the file; its settings apply once merged.
config::Config settingsOfTheBase(const std::filesystem::path& root, const config::UserConfig& user,
                                 const std::string& base, std::vector<std::string>& said) {
  const git::FileAtRevision atBase = git::fileAtRevision(root, base, ".revline.json", support::kMaxRepositoryFileBytes);
  const std::string label = base + ":.revline.json";
  if (atBase.kind == git::FileAtRevision::Kind::NotRegular || atBase.kind == git::FileAtRevision::Kind::TooLarge)
    throw config::ConfigError(label + ": " +
                              (atBase.kind == git::FileAtRevision::Kind::TooLarge ? "over " : "not a regular file of at most ") +
                              std::to_string(support::kMaxRepositoryFileBytes / 1024) +
                              " KB; the configuration must be a regular JSON file");
  const bool present = atBase.kind == git::FileAtRevision::Kind::File;
  config::Config config = config::loadForRepositoryFrom(root, user, present ? std::optional(atBase.text) : std::nullopt, label, &said);
  const support::RepoFileRead own = support::readRepositoryFile(root, ".revline.json");
  const bool ownPresent = own || (own.skipped && own.skipped->reason != support::RepoFileSkip::Reason::Missing);
  if (ownPresent != present || (own && *own.content != atBase.text))
    said.push_back(".revline.json: this change " + std::string(!present ? "adds" : ownPresent ? "edits" : "deletes") +
                   " it, and its settings do not apply to this review: in a repository that is not trusted, a change "
                   "is not judged by rules it sets itself, so " +
                   (present ? "those of " + base + " apply" : std::string("the defaults apply, as " + base + " has none")) +
                   " (the change's apply once it is merged). If you trust this repository, run `revline trust " +
                   root.string() + "`.");
  return config;
}

// The same for a patch (--stdin, as CI pipes `git diff origin/main...`) that
// adds, edits or deletes `.revline.json` in a repository that is not trusted:
// the work tree holds the change's own file, which could turn its gate off, so
// the file as it was before the patch applies (its blob, by the patch's index
// line), or the defaults when the patch adds it or that blob is not here.
std::optional<config::Config> settingsBeforeThePatch(const std::filesystem::path& root, const config::UserConfig& user,
                                                     const diff::Diff& patch, std::vector<std::string>& said) {
  // The root's file, also under a prefix the parser cannot tell from a path (the
  // same one on both sides: --src-prefix=./ --dst-prefix=./): a `.revline.json`
  // the work tree has not at that path is the root's.
  const auto touches = [&root](const std::optional<std::string>& p) {
    if (!p) return false;
    std::string_view path = *p;
    while (path.starts_with("./")) path.remove_prefix(2);
    if (path == ".revline.json") return true;
    std::error_code ec;
    return path.ends_with("/.revline.json") && !std::filesystem::exists(root / std::string(path), ec);
  };
  const auto file = std::find_if(patch.files.begin(), patch.files.end(),
                                 [&](const diff::FileDiff& f) { return touches(f.oldPath) || touches(f.newPath); });
  if (file == patch.files.end()) return std::nullopt;
  std::optional<std::string> before;
  std::string what = "the defaults apply, as the file was not there before it";
  if (touches(file->oldPath)) {
    what = "the defaults apply, as the file before it (blob " + file->oldBlob.value_or("unknown") +
           ") is not in this repository";
    if (file->oldBlob) {
      const auto texts = git::blobTexts(root, {*file->oldBlob}, support::kMaxRepositoryFileBytes);
      if (auto t = texts.find(*file->oldBlob); t != texts.end() && t->second) {
        before = *t->second;
        what = "those of the file before it (blob " + *file->oldBlob + ") apply";
      }
    }
  }
  config::Config config =
      config::loadForRepositoryFrom(root, user, before, ".revline.json (before the patch)", &said);
  said.push_back(".revline.json: the patch " + std::string(!touches(file->oldPath) ? "adds" : touches(file->newPath) ? "edits" : "deletes") +
                 " it, and its settings do not apply to this review: in a repository that is not trusted, a change "
                 "is not judged by rules it sets itself, so " + what +
                 " (the change's apply once it is merged). If you trust this repository, run `revline trust " +
                 root.string() + "`.");
  return config;
}

}  // namespace

session::ReviewRequest reviewRequestFor(DiffSource source, const ParsedArgs& args, const std::string& command,
                                        std::ostream& err, std::vector<std::string>* notices) {
  std::vector<std::string> said;
  const auto base = args.value("base");
  const bool ofAChange = base || args.has("stdin");  // a pull request's, in CI most often
  bool untrusted = false;
  const auto configFor = [&](const std::filesystem::path& root) {
    const config::UserConfig user = userConfigUnderFlags(args);
    if (config::isTrusted(user, root)) return config::loadForRepository(root, user, &said);
    untrusted = true;
    if (!ofAChange) return config::loadForRepository(root, user, &said);
    if (base) return settingsOfTheBase(root, user, *base, said);
    if (auto before = settingsBeforeThePatch(root, user, source.diff, said)) return std::move(*before);
    return config::loadForRepository(root, user, &said);
  };
  const config::Config config =
      applyReviewFlags(source.root ? configFor(*source.root) : config::loadWithoutRepository(), args);
  // Trusting a pull request's checkout lets the pull request choose how it is
  // reviewed (exclude everything, block nothing) and where its code and the key
  // go: where a notice says `revline trust`, a review of a change says not to there.
  if (untrusted && ofAChange &&
      std::any_of(said.begin(), said.end(), [](const std::string& n) { return n.find("revline trust") != std::string::npos; }))
    said.push_back("in CI, do not run `revline trust` on a pull request's checkout: its .revline.json would then "
                   "decide how the pull request is reviewed (exclude everything, block nothing) and where its code "
                   "and your key go; set what you need with flags (--provider, --model, --base-url, --api-key-env) "
                   "or keep the settings on the base branch");
  for (std::string& w : warningsOf(source)) said.push_back(std::move(w));
  if (notices) notices->insert(notices->end(), said.begin(), said.end());
  else for (const auto& n : said) err << logLine(command + ": warning: ", n);
  // No repository (--stdin elsewhere): no root, so no tools and no file reads,
  // never the current directory (it may be $HOME).
  session::ReviewRequest request{std::move(source.diff), source.root.value_or(std::filesystem::path()), config, {}};
  request.leftOut = std::move(source.leftOut);
  // The index (--staged) or a patch (--stdin): the work tree's copies of its files may hold other edits.
  using NewSide = session::ReviewRequest::NewSide;
  request.newSide = args.has("stdin") ? NewSide::Patch : args.has("staged") ? NewSide::Index : NewSide::WorkTree;
  // With --base, the branch's commits say what the change is for.
  if (base && source.root) request.commits = git::commitsSince(*source.root, *base);
  return request;
}

session::ReviewResult reviewReportingSpend(const session::ReviewService& service, session::ReviewRequest request,
                                           std::ostream& err, const std::string& command) {
  const review::Prices prices = request.config.review.prices;
  session::SpendMeter spent;
  // A terminal's progress line left open by a failure is ended, so the error starts a line of its own.
  auto lineOpen = std::make_shared<std::atomic<bool>>(false);
  if (request.progress)
    request.progress = [inner = std::move(request.progress), lineOpen](const session::ReviewProgress& p) {
      inner(p);
      *lineOpen = p.total >= 2 && p.done < p.total;
    };
  // The model calls answered before a failure or an interruption were still
  // paid for: said before the error (which main_command prints) goes on.
  auto sayWhatWasSpent = [&](const char* before, const char* kept) {
    if (*lineOpen) err << "\n";
    const review::Usage used = spent.total();
    if (const std::string s = reports::usageSentence(used, prices); !s.empty())
      err << command << ": spent before " << before << ": " << s << "."
          << (used.inputTokens + used.outputTokens > 0 ? kept : "") << "\n";
  };
  // A split review that fails partway keeps what its answered requests found (per hunk): said, as for Ctrl-C.
  const char* const keptNote = " What the answered requests reviewed is kept: the next review sends only the rest.";
  auto answeredKept = std::make_shared<bool>(false);
  request.answeredBeforeFailure = [answeredKept](const session::ReviewResult&) { *answeredKept = true; };
  installInterruptHandlers();  // Ctrl-C cancels the review: what was answered is kept, and said
  try {
    return service.review(std::move(request), interruptToken(), session::meteredBy(spent));
  } catch (const Cancelled&) {
    sayWhatWasSpent("the interruption", keptNote);
    throw;
  } catch (...) {
    sayWhatWasSpent("the failure", *answeredKept ? keptNote : "");
    throw;
  }
}

}  // namespace revline::cli
