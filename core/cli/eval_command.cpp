// `revline eval`: runs every case of a labelled corpus through the same review
// path as `revline review` (review_session.h: provider, prompt, policy,
// grounding) and scores the findings (core/eval); `--compare` diffs two reports.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/cli/args.h"
#include "core/cli/review_session.h"
#include "core/cli/subcommands.h"
#include "core/eval/corpus.h"
#include "core/eval/metered_provider.h"
#include "core/eval/report.h"
#include "core/eval/scoring.h"
#include "core/eval/workspace.h"
#include "core/git/git.h"
#include "core/session/review_service.h"

namespace revline::cli {
namespace {

namespace fs = std::filesystem;

const char* const kHelp =
    "usage: revline eval CORPUS [--provider P] [--model M] [--config FILE] [--runs N] [--jobs N]\n"
    "                    [--format text|json] [--out FILE] [--tolerance N] [--record DIR] [--cassettes DIR]\n"
    "       revline eval --compare A.json B.json [--format text|json]\n"
    "       revline eval --schema\n\n"
    "Reviews every case of CORPUS (a directory of cases: case.json, base/, change.patch; see docs/EVAL.md)\n"
    "exactly as `revline review` would, and scores the findings against the issues each case expects:\n"
    "precision, recall, F1, F0.5, blocking precision, clean-case false blocks, contract health and cost.\n\n"
    "  --config FILE        settings in .revline.json form (policy, instructions, provider...); flags override it\n"
    "  --runs N             review each case N times and report the spread (models are not deterministic)\n"
    "  --jobs N             cases reviewed in parallel (default 1)\n"
    "  --tolerance N        lines a finding may be off an expected issue and still match (default 2)\n"
    "  --format F           text (default) or json (the report --compare and CI read)\n"
    "  --out FILE           write the report to FILE (with --format json the text table still goes to stdout)\n"
    "  --record DIR         write each review's model turns as a replay cassette DIR/CASE.json\n"
    "  --cassettes DIR      with --provider replay: read DIR/CASE.json instead of CASE/cassette.json\n"
    "  --no-timings         leave latencies out of the json report (for a committed baseline)\n"
    "  --compare A B        print the metrics that moved and the cases that flipped between two json reports\n"
    "  --schema             print the JSON Schema of case.json\n"
    "Provider options (as for `revline review`; --cassette is per case here, see --cassettes):\n";

struct Task {
  std::size_t caseIndex;
  int run;
};

config::Config loadConfigFile(const std::optional<std::string>& path) {
  config::Config defaults;
  if (!path) return defaults;
  return config::applyJson(std::move(defaults), eval::readJsonFile(*path, "--config file"), *path);
}

void writeFile(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw UsageError("cannot write " + file.string());
}

// How many model turns a cassette holds (the replay provider validates it in full when it loads it).
std::size_t interactionCount(const fs::path& cassette) {
  try {
    const json doc = eval::readJsonFile(cassette, "cassette");
    return doc.contains("interactions") && doc["interactions"].is_array() ? doc["interactions"].size() : 0;
  } catch (const eval::CorpusError&) {
    return 0;  // the replay provider has already reported what is wrong with it
  }
}

std::string cassetteName(const std::string& caseId, int run) {
  return caseId + (run == 0 ? "" : ".run" + std::to_string(run + 1)) + ".json";
}

int runCompare(const ParsedArgs& parsed, const std::string& format, std::ostream& out) {
  std::vector<std::string> files = parsed.positional();
  files.insert(files.begin(), *parsed.value("compare"));
  if (files.size() != 2) throw UsageError("--compare takes two reports: revline eval --compare A.json B.json");
  const auto a = eval::readReport(files[0]), b = eval::readReport(files[1]);
  if (format == "json") out << eval::compareJson(a, b).dump(2) << "\n";
  else out << eval::compareText(a, b);
  return 0;
}

}  // namespace

int runEvalCommand(const std::vector<std::string>& args, std::istream&, std::ostream& out, std::ostream& err) {
  std::vector<OptionSpec> specs = reviewOptionSpecs();
  specs.insert(specs.end(), {{"config", true}, {"runs", true}, {"jobs", true}, {"format", true}, {"out", true},
                             {"tolerance", true}, {"record", true}, {"cassettes", true}, {"compare", true},
                             {"no-timings"}, {"schema"}, {"help"}});
  const ParsedArgs parsed("revline eval", specs, args);
  if (parsed.has("help")) {
    out << kHelp << kReviewOptionsHelp
        << "\nexit: 0 every review ran, 1 some reviews failed to run (provider errors; listed), 2 error\n";
    return 0;
  }
  if (parsed.has("schema")) {
    out << eval::caseSchema().dump(2) << "\n";
    return 0;
  }
  const std::string format = parsed.wordValue("format").value_or("text");
  if (format != "text" && format != "json") throw UsageError("--format expects text or json, got \"" + format + "\"");
  try {
    if (parsed.has("compare")) return runCompare(parsed, format, out);

    if (parsed.positional().size() != 1)
      throw UsageError(parsed.positional().empty() ? "missing CORPUS (a directory of cases; see `revline eval --help`)"
                                                   : "one CORPUS expected, got \"" + parsed.positional()[1] + "\" too");
    if (parsed.has("cassette"))
      throw UsageError("--cassette names one file; eval replays CASE/cassette.json per case, or DIR/CASE.json with --cassettes DIR");
    const std::string corpusPath = parsed.positional()[0];
    const int runs = parsed.intValue("runs", 1, 100).value_or(1);
    const int jobs = parsed.intValue("jobs", 1, 64).value_or(1);
    eval::ScoringOptions scoring;
    scoring.tolerance = parsed.intValue("tolerance", 0, 1000).value_or(2);

    const config::Config config = applyReviewFlags(loadConfigFile(parsed.value("config")), parsed);
    scoring.policy = config.review.policy;
    const bool replay = config.provider == "replay";
    const std::optional<std::string> cassettes = parsed.value("cassettes");
    if (cassettes && !replay) throw UsageError("--cassettes is for --provider replay");
    const std::optional<std::string> record = parsed.value("record");
    if (record) fs::create_directories(*record);

    eval::EvalRun run;
    run.corpus = corpusPath;
    run.runs = runs;
    run.tolerance = scoring.tolerance;
    run.timings = !parsed.has("no-timings");
    run.provider = config.provider;
    run.model = config.model;
    run.cases = eval::loadCorpus(corpusPath);
    run.results.assign(run.cases.size(), std::vector<eval::CaseRun>(static_cast<std::size_t>(runs)));

    auto cassetteOf = [&](const eval::EvalCase& c) {
      return cassettes ? fs::path(*cassettes) / cassetteName(c.id, 0) : c.dir / "cassette.json";
    };
    if (replay) {  // every cassette up front: a missing one is a setup error, not a failed review
      std::string missing;
      for (const auto& c : run.cases)
        if (!fs::is_regular_file(cassetteOf(c))) missing += "\n  " + cassetteOf(c).string();
      if (!missing.empty())
        throw UsageError("--provider replay needs a cassette per case; missing:" + missing +
                         "\n(record them from a live run with --record DIR, then pass --cassettes DIR)");
    }

    std::vector<Task> tasks;
    for (int r = 0; r < runs; ++r)
      for (std::size_t c = 0; c < run.cases.size(); ++c) tasks.push_back({c, r});
    std::atomic<std::size_t> next{0};
    std::mutex lock;  // guards err, setupErrors, run.model and the progress count
    std::size_t done = 0;
    std::string setupErrors;
    std::vector<std::string> unusedCassettes;  // cassettes the review no longer walks to the end

    auto work = [&] {
      for (std::size_t t; (t = next++) < tasks.size();) {
        const Task task = tasks[t];
        const eval::EvalCase& c = run.cases[task.caseIndex];
        eval::CaseRun result;
        try {
          eval::Workspace workspace(c);
          // The same review as `revline review` in the case's repository.
          config::Config caseConfig = config;
          if (replay) caseConfig.cassette = fs::absolute(cassetteOf(c)).string();
          if (caseConfig.review.description.empty()) caseConfig.review.description = c.description;
          caseConfig.maxParallelRequests = 1;  // the recording is one sequence of model calls
          eval::Recording recording;
          const auto started = std::chrono::steady_clock::now();
          try {
            const review::ReviewOutcome outcome =
                session::ReviewService()
                    .review({diff::parse(git::diffText(workspace.root(), {})), workspace.root(), caseConfig, {}},
                            CancelToken(),
                            [&](std::unique_ptr<review::Provider> p) {
                              return std::make_unique<eval::MeteredProvider>(std::move(p), recording);
                            })
                    .outcome;
            result = eval::scoreReview(c, outcome, scoring);
            std::lock_guard<std::mutex> g(lock);
            if (run.model.empty()) run.model = outcome.model;
          } catch (const review::ContractFailure& e) {
            result = eval::scoreFailure(c, "contract", e.what());
          } catch (const review::ProviderError& e) {
            result = eval::scoreFailure(c, "provider", e.what());
          }
          result.latencyMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
          result.requests = recording.requests;
          if (replay && result.scored() && static_cast<std::size_t>(recording.requests) < interactionCount(cassetteOf(c))) {
            std::lock_guard<std::mutex> g(lock);
            unusedCassettes.push_back(c.id);
          }
          if (record && result.scored())
            writeFile(fs::path(*record) / cassetteName(c.id, task.run), recording.cassette().dump(2) + "\n");
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> g(lock);
          setupErrors += std::string("\n  ") + e.what();
          ++done;
          continue;
        }
        std::lock_guard<std::mutex> g(lock);
        ++done;
        err << "[" << done << "/" << tasks.size() << "] " << c.id << (runs > 1 ? " run " + std::to_string(task.run + 1) : "")
            << ": ";
        if (result.failureKind) err << result.failureKind.value() << " failure: " << result.failure.substr(0, 200);
        else err << "TP " << result.tp() << " FP " << result.fp() << " FN " << result.fn() << ", "
                 << contract::enumName(*result.verdict) << (result.verdictOk ? "" : " (expected " + std::string(c.expectBlock ? "a block" : "no block") + ")");
        err << " (" << static_cast<long>(result.latencyMs) << " ms)\n";
        run.results[task.caseIndex][static_cast<std::size_t>(task.run)] = std::move(result);
      }
    };
    std::vector<std::thread> workers;
    for (int i = 1; i < std::min<int>(jobs, static_cast<int>(tasks.size())); ++i) workers.emplace_back(work);
    work();
    for (auto& w : workers) w.join();
    if (!setupErrors.empty()) throw eval::CorpusError("some cases could not be set up:" + setupErrors);
    if (!unusedCassettes.empty()) {
      std::sort(unusedCassettes.begin(), unusedCassettes.end());
      err << "revline eval: warning: " << unusedCassettes.size()
          << " cassettes have interactions the review did not use (the review path changed since they were recorded?):";
      for (const auto& id : unusedCassettes) err << " " << id;
      err << "\n";
    }

    const std::string text = eval::renderEvalText(run);
    const std::string report = format == "json" ? eval::renderEvalJson(run).dump(2) + "\n" : text;
    if (auto file = parsed.value("out")) {
      writeFile(*file, report);
      if (format == "json") out << text;
    } else {
      out << report;
    }
    return eval::computeMetrics(eval::allReviews(run)).providerFailures > 0 ? 1 : 0;
  } catch (const eval::CorpusError& e) {
    err << "revline eval: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace revline::cli
