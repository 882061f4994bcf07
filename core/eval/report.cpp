#include "core/eval/report.h"

#include <cmath>
#include <fstream>
#include <functional>
#include <iomanip>
#include <map>
#include <sstream>

#include "core/contract/enums.h"

namespace revline::eval {
namespace {

// Every corpus-wide figure once: its JSON key, its label, and whether it is a
// ratio (printed as 0.00) or a count. JSON, text and --compare all walk this.
struct MetricSpec {
  const char* key;
  const char* label;
  bool ratio;
  std::function<std::optional<double>(const Metrics&)> get;
};

template <class T>
std::optional<double> num(T v) { return static_cast<double>(v); }

const std::vector<MetricSpec>& metricSpecs() {
  static const std::vector<MetricSpec> specs = {
      {"cases", "cases", false, [](const Metrics& m) { return num(m.cases); }},
      {"reviews", "reviews scored", false, [](const Metrics& m) { return num(m.reviews); }},
      {"providerFailures", "reviews that failed to run", false, [](const Metrics& m) { return num(m.providerFailures); }},
      {"truePositives", "true positives", false, [](const Metrics& m) { return num(m.tp); }},
      {"falsePositives", "false positives", false, [](const Metrics& m) { return num(m.fp); }},
      {"falseNegatives", "false negatives", false, [](const Metrics& m) { return num(m.fn); }},
      {"precision", "precision", true, [](const Metrics& m) { return m.precision; }},
      {"recall", "recall", true, [](const Metrics& m) { return m.recall; }},
      {"f1", "F1", true, [](const Metrics& m) { return m.f1; }},
      {"f05", "F0.5", true, [](const Metrics& m) { return m.f05; }},
      {"blockingFindings", "blocking findings", false, [](const Metrics& m) { return num(m.blockingFindings); }},
      {"blockingTruePositives", "blocking true positives", false, [](const Metrics& m) { return num(m.blockingTruePositives); }},
      {"blockingPrecision", "blocking precision", true, [](const Metrics& m) { return m.blockingPrecision; }},
      {"cleanFalseBlocks", "clean cases blocked", false, [](const Metrics& m) { return num(m.cleanFalseBlocks); }},
      {"cleanFalseBlockRate", "clean-case false-block rate", true, [](const Metrics& m) { return m.cleanFalseBlockRate; }},
      {"verdictMatches", "verdicts as expected", false, [](const Metrics& m) { return num(m.verdictMatches); }},
      {"verdictAccuracy", "verdict accuracy", true, [](const Metrics& m) { return m.verdictAccuracy; }},
      {"mustNotCommentViolations", "comments on must-not-comment files", false, [](const Metrics& m) { return num(m.mustNotCommentViolations); }},
      {"retriedReviews", "reviews that needed a retry", false, [](const Metrics& m) { return num(m.retriedReviews); }},
      {"retryRate", "retry rate", true, [](const Metrics& m) { return m.retryRate; }},
      {"contractFailures", "contract failures", false, [](const Metrics& m) { return num(m.contractFailures); }},
      {"groundingRejections", "findings rejected by grounding", false, [](const Metrics& m) { return num(m.groundingRejections); }},
      {"editsDropped", "edits dropped", false, [](const Metrics& m) { return num(m.editsDropped); }},
      {"requests", "model requests", false, [](const Metrics& m) { return num(m.requests); }},
      {"inputTokens", "input tokens", false, [](const Metrics& m) { return num(m.inputTokens); }},
      {"outputTokens", "output tokens", false, [](const Metrics& m) { return num(m.outputTokens); }},
      {"toolCalls", "tool calls", false, [](const Metrics& m) { return num(m.toolCalls); }},
      {"latencyP50Ms", "latency p50 (ms)", false, [](const Metrics& m) { return m.latencyP50Ms; }},
      {"latencyP95Ms", "latency p95 (ms)", false, [](const Metrics& m) { return m.latencyP95Ms; }},
  };
  return specs;
}

// The ratios whose spread over --runs is reported.
const char* const kSpreadKeys[] = {"precision", "recall", "f1", "f05", "blockingPrecision", "cleanFalseBlockRate",
                                   "verdictAccuracy", "retryRate"};

json optionalJson(std::optional<double> v, bool isRatio) {
  if (!v) return nullptr;
  if (isRatio) return std::round(*v * 10000.0) / 10000.0;  // 4 decimals: stable in a committed baseline
  if (*v == std::floor(*v)) return static_cast<std::int64_t>(*v);
  return std::round(*v * 10.0) / 10.0;
}

json metricsJson(const Metrics& m) {
  json j = json::object();
  for (const auto& s : metricSpecs()) j[s.key] = optionalJson(s.get(m), s.ratio);
  return j;
}

std::string fixed(double v, int decimals) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(decimals) << v;
  return o.str();
}

std::string ratioText(std::optional<double> v) { return v ? fixed(*v, 2) : "n/a"; }

json findingBrief(const ScoredFinding& f) {
  return {{"file", f.finding.file},
          {"line", f.finding.line},
          {"endLine", f.finding.endLine ? json(*f.finding.endLine) : json(nullptr)},
          {"severity", std::string(contract::enumName(f.finding.severity))},
          {"category", std::string(contract::enumName(f.finding.category))},
          {"title", f.finding.title},
          {"confidence", f.finding.confidence},
          {"blocking", f.blocking}};
}

json runJson(const EvalCase& c, const CaseRun& r, bool timings) {
  json j = {{"tp", r.tp()}, {"fp", r.fp()}, {"fn", r.fn()},
            {"verdict", r.verdict ? json(std::string(contract::enumName(*r.verdict))) : json(nullptr)},
            {"verdictOk", r.verdictOk},
            {"attempts", r.attempts}, {"toolCalls", r.toolCalls},
            {"groundingRejections", r.groundingRejections}, {"editsDropped", r.editsDropped},
            {"requests", r.requests},
            {"usage", {{"inputTokens", r.usage.inputTokens}, {"outputTokens", r.usage.outputTokens}}},
            {"latencyMs", timings ? json(std::round(r.latencyMs * 10.0) / 10.0) : json(nullptr)}};
  json matched = json::array(), fps = json::array(), missed = json::array(), forbidden = json::array();
  for (const auto& m : r.matches) {
    json f = findingBrief(r.findings[m.finding]);
    f["issue"] = m.issue;
    matched.push_back(std::move(f));
  }
  for (auto i : r.falsePositives) fps.push_back(findingBrief(r.findings[i]));
  for (auto i : r.forbidden) forbidden.push_back(findingBrief(r.findings[i]));
  for (auto i : r.missed) {
    const auto& e = c.expected[i];
    missed.push_back({{"issue", i}, {"file", e.file}, {"line", e.line},
                      {"endLine", e.endLine ? json(*e.endLine) : json(nullptr)}, {"note", e.note}});
  }
  j["matched"] = std::move(matched);
  j["falsePositives"] = std::move(fps);
  j["missed"] = std::move(missed);
  j["mustNotComment"] = std::move(forbidden);
  if (r.failureKind) j["failure"] = {{"kind", *r.failureKind}, {"message", r.failure}};
  return j;
}

std::vector<ScoredReview> reviewsOfRun(const EvalRun& run, std::size_t index) {
  std::vector<ScoredReview> out;
  for (std::size_t c = 0; c < run.cases.size(); ++c)
    if (index < run.results[c].size()) out.push_back({&run.cases[c], &run.results[c][index]});
  return out;
}

// A case is unstable when its runs do not all agree on TP/FP/FN and the verdict.
bool unstable(const std::vector<CaseRun>& runs) {
  for (const auto& r : runs) {
    const auto& first = runs.front();
    if (r.tp() != first.tp() || r.fp() != first.fp() || r.fn() != first.fn() || r.verdict != first.verdict) return true;
  }
  return false;
}

json spreadJson(const EvalRun& run, std::vector<Metrics>& perRun) {
  for (int i = 0; i < run.runs; ++i) perRun.push_back(computeMetrics(reviewsOfRun(run, static_cast<std::size_t>(i))));
  json spread = json::object();
  for (const char* key : kSpreadKeys) {
    const MetricSpec& spec = *std::find_if(metricSpecs().begin(), metricSpecs().end(),
                                           [&](const MetricSpec& s) { return std::string(s.key) == key; });
    std::vector<double> values;
    for (const auto& m : perRun)
      if (auto v = spec.get(m)) values.push_back(*v);
    if (values.empty()) {
      spread[key] = nullptr;
      continue;
    }
    double sum = 0, lo = values.front(), hi = values.front();
    for (double v : values) sum += v, lo = std::min(lo, v), hi = std::max(hi, v);
    const double mean = sum / static_cast<double>(values.size());
    double var = 0;
    for (double v : values) var += (v - mean) * (v - mean);
    const double stddev = std::sqrt(var / static_cast<double>(values.size()));
    spread[key] = {{"mean", optionalJson(mean, true)}, {"min", optionalJson(lo, true)},
                   {"max", optionalJson(hi, true)}, {"stddev", optionalJson(stddev, true)}};
  }
  json ids = json::array();
  for (std::size_t c = 0; c < run.cases.size(); ++c)
    if (unstable(run.results[c])) ids.push_back(run.cases[c].id);
  spread["unstableCases"] = std::move(ids);
  return spread;
}

std::string pad(std::string s, std::size_t width) {
  s.append(s.size() < width ? width - s.size() : 1, ' ');
  return s;
}

}  // namespace

std::vector<ScoredReview> allReviews(const EvalRun& run) {
  std::vector<ScoredReview> out;
  for (std::size_t c = 0; c < run.cases.size(); ++c)
    for (const auto& r : run.results[c]) out.push_back({&run.cases[c], &r});
  return out;
}

json renderEvalJson(const EvalRun& run) {
  json j = json::object();
  j["format"] = "revline-eval";
  j["version"] = kReportFormat;
  j["corpus"] = run.corpus;
  j["provider"] = run.provider;
  j["model"] = run.model;
  j["runs"] = run.runs;
  j["tolerance"] = run.tolerance;
  j["metrics"] = metricsJson(computeMetrics(allReviews(run)));
  if (!run.timings) j["metrics"]["latencyP50Ms"] = j["metrics"]["latencyP95Ms"] = nullptr;
  if (run.runs > 1) {
    std::vector<Metrics> perRun;
    j["spread"] = spreadJson(run, perRun);
    json per = json::array();
    for (const auto& m : perRun) {
      per.push_back(metricsJson(m));
      if (!run.timings) per.back()["latencyP50Ms"] = per.back()["latencyP95Ms"] = nullptr;
    }
    j["perRun"] = std::move(per);
  }
  json cases = json::array();
  for (std::size_t c = 0; c < run.cases.size(); ++c) {
    const EvalCase& ec = run.cases[c];
    json runs = json::array();
    for (const auto& r : run.results[c]) runs.push_back(runJson(ec, r, run.timings));
    cases.push_back({{"id", ec.id}, {"language", ec.language}, {"clean", ec.clean}, {"expectBlock", ec.expectBlock},
                     {"expected", ec.expected.size()}, {"runs", std::move(runs)}});
  }
  j["cases"] = std::move(cases);
  return j;
}

std::string renderEvalText(const EvalRun& run) {
  const Metrics m = computeMetrics(allReviews(run));
  std::ostringstream o;
  o << "revline eval: " << m.cases << " cases (" << m.bugCases << " with bugs, " << m.cleanCases << " clean), provider "
    << run.provider << (run.model.empty() ? "" : " (" + run.model + ")") << ", " << run.runs
    << (run.runs == 1 ? " run" : " runs") << ", tolerance +/-" << run.tolerance << " lines\n\n";
  o << pad("case", 38) << pad("lang", 11) << pad("issues", 7) << pad("TP", 4) << pad("FP", 4) << pad("FN", 4)
    << pad("verdict", 16) << "expected\n";
  for (std::size_t c = 0; c < run.cases.size(); ++c) {
    const EvalCase& ec = run.cases[c];
    int tp = 0, fp = 0, fn = 0, ok = 0;
    std::string verdict;
    for (const auto& r : run.results[c]) {
      tp += r.tp(), fp += r.fp(), fn += r.fn(), ok += r.verdictOk ? 1 : 0;
      const std::string v = r.failureKind ? "(" + *r.failureKind + " failure)"
                                          : std::string(contract::enumName(*r.verdict));
      if (verdict.empty()) verdict = v;
      else if (verdict != v) verdict = "(varies)";
    }
    const std::size_t n = run.results[c].size();
    std::string expectation = std::string(ec.expectBlock ? "block" : "no block") +
                              (ok == static_cast<int>(n) ? "  ok" : n == 1 ? "  MISS" : "  " + std::to_string(ok) + "/" + std::to_string(n) + " ok");
    o << pad(ec.id, 38) << pad(ec.language, 11) << pad(std::to_string(ec.expected.size()), 7)
      << pad(std::to_string(tp), 4) << pad(std::to_string(fp), 4) << pad(std::to_string(fn), 4) << pad(verdict, 16)
      << expectation << "\n";
  }
  o << "\n";
  o << "precision " << ratioText(m.precision) << "   recall " << ratioText(m.recall) << "   F1 " << ratioText(m.f1)
    << "   F0.5 " << ratioText(m.f05) << "   (TP " << m.tp << ", FP " << m.fp << ", FN " << m.fn << ")\n";
  o << "blocking precision " << ratioText(m.blockingPrecision) << " (" << m.blockingTruePositives << " of "
    << m.blockingFindings << " blocking findings are real bugs)\n";
  o << "clean-case false-block rate " << ratioText(m.cleanFalseBlockRate) << " (" << m.cleanFalseBlocks
    << " blocked)   verdict as expected in " << m.verdictMatches << " of " << m.reviews << " reviews\n";
  if (m.mustNotCommentViolations)
    o << "comments on must-not-comment files: " << m.mustNotCommentViolations << "\n";
  o << "contract health: " << m.retriedReviews << " of " << m.reviews << " reviews needed a retry ("
    << (m.retryRate ? fixed(*m.retryRate * 100, 1) : "n/a") << "%), " << m.contractFailures << " contract failures, "
    << m.groundingRejections << " findings rejected by grounding, " << m.editsDropped << " edits dropped\n";
  o << "cost: " << m.requests << " requests, " << m.inputTokens << " input / " << m.outputTokens
    << " output tokens, " << m.toolCalls << " tool calls, latency p50 "
    << (m.latencyP50Ms ? fixed(*m.latencyP50Ms, 1) : "n/a") << " ms, p95 "
    << (m.latencyP95Ms ? fixed(*m.latencyP95Ms, 1) : "n/a") << " ms\n";
  if (m.providerFailures) o << "NOT SCORED: " << m.providerFailures << " reviews failed to run (see the failures above)\n";
  if (run.runs > 1) {
    std::vector<Metrics> perRun;
    const json spread = spreadJson(run, perRun);
    o << "spread over " << run.runs << " runs (mean, min..max, stddev):";
    for (const char* key : {"precision", "recall", "f1"}) {
      const json& s = spread[key];
      if (s.is_null()) continue;
      o << "  " << key << " " << fixed(s["mean"].get<double>(), 2) << ", " << fixed(s["min"].get<double>(), 2) << ".."
        << fixed(s["max"].get<double>(), 2) << ", " << fixed(s["stddev"].get<double>(), 3);
    }
    o << "\nunstable cases: " << (spread["unstableCases"].empty() ? "none" : "");
    for (std::size_t i = 0; i < spread["unstableCases"].size(); ++i)
      o << (i ? ", " : "") << spread["unstableCases"][i].get<std::string>();
    o << "\n";
  }
  return o.str();
}

ComparedReport readReport(const std::string& path) {
  ComparedReport r{path, readJsonFile(path, "report")};
  if (!r.doc.is_object() || r.doc.value("format", "") != "revline-eval" || !r.doc.contains("metrics") ||
      !r.doc["metrics"].is_object() || !r.doc.contains("cases") || !r.doc["cases"].is_array()) {
    throw CorpusError(path + ": not a revline eval report (write one with `revline eval CORPUS --format json --out FILE`)");
  }
  if (r.doc.value("version", 0) != kReportFormat)
    throw CorpusError(path + ": report version " + r.doc.value("version", json()).dump() + ", this revline reads version " +
                      std::to_string(kReportFormat));
  return r;
}

namespace {

struct CaseSummary {
  int tp = 0, fp = 0, fn = 0, ok = 0, runs = 0;
  bool operator==(const CaseSummary&) const = default;
};

std::map<std::string, CaseSummary> caseSummaries(const json& doc) {
  std::map<std::string, CaseSummary> out;
  for (const auto& c : doc["cases"]) {
    CaseSummary s;
    for (const auto& r : c.value("runs", json::array())) {
      s.tp += r.value("tp", 0), s.fp += r.value("fp", 0), s.fn += r.value("fn", 0);
      s.ok += r.value("verdictOk", false) ? 1 : 0;
      ++s.runs;
    }
    out[c.value("id", "?")] = s;
  }
  return out;
}

std::string describe(const CaseSummary& s) {
  return "TP " + std::to_string(s.tp) + " FP " + std::to_string(s.fp) + " FN " + std::to_string(s.fn) + ", verdict " +
         (s.ok == s.runs ? "as expected" : std::to_string(s.runs - s.ok) + (s.runs == 1 ? " wrong" : " of " + std::to_string(s.runs) + " wrong"));
}

std::string valueText(const json& v, bool isRatio) {
  if (v.is_null()) return "n/a";
  if (!v.is_number()) return v.dump();
  return isRatio ? fixed(v.get<double>(), 4) : (v.is_number_integer() ? std::to_string(v.get<std::int64_t>()) : fixed(v.get<double>(), 1));
}

}  // namespace

json compareJson(const ComparedReport& a, const ComparedReport& b) {
  json metrics = json::array();
  for (const auto& s : metricSpecs()) {
    const json va = a.doc["metrics"].value(s.key, json()), vb = b.doc["metrics"].value(s.key, json());
    if (va == vb) continue;
    json d = {{"metric", s.key}, {"a", va}, {"b", vb}};
    if (va.is_number() && vb.is_number()) d["change"] = optionalJson(vb.get<double>() - va.get<double>(), s.ratio);
    metrics.push_back(std::move(d));
  }
  const auto ca = caseSummaries(a.doc), cb = caseSummaries(b.doc);
  json flipped = json::array(), onlyA = json::array(), onlyB = json::array();
  for (const auto& [id, sa] : ca) {
    auto it = cb.find(id);
    if (it == cb.end()) {
      onlyA.push_back(id);
      continue;
    }
    const CaseSummary& sb = it->second;
    if (sa == sb) continue;
    std::string how;
    if ((sa.tp > 0) != (sb.tp > 0)) how = sb.tp > 0 ? "now caught" : "no longer caught";
    else if ((sa.ok == sa.runs) != (sb.ok == sb.runs)) how = sb.ok == sb.runs ? "verdict fixed" : "verdict broke";
    else how = "scores changed";
    flipped.push_back({{"id", id}, {"change", how}, {"a", describe(sa)}, {"b", describe(sb)}});
  }
  for (const auto& [id, sb] : cb)
    if (!ca.count(id)) onlyB.push_back(id);
  return {{"a", a.origin}, {"b", b.origin}, {"metrics", metrics}, {"cases", flipped}, {"onlyInA", onlyA}, {"onlyInB", onlyB}};
}

std::string compareText(const ComparedReport& a, const ComparedReport& b) {
  const json d = compareJson(a, b);
  std::ostringstream o;
  auto label = [](const ComparedReport& r) {
    return r.doc.value("provider", "?") + (r.doc.value("model", "").empty() ? "" : " (" + r.doc.value("model", "") + ")");
  };
  o << "A: " << a.origin << "  " << label(a) << "\nB: " << b.origin << "  " << label(b) << "\n\n";
  if (d["metrics"].empty() && d["cases"].empty() && d["onlyInA"].empty() && d["onlyInB"].empty()) {
    o << "no differences\n";
    return o.str();
  }
  if (!d["metrics"].empty()) {
    o << pad("metric", 38) << pad("A", 12) << pad("B", 12) << "change\n";
    for (const auto& m : d["metrics"]) {
      const std::string key = m["metric"].get<std::string>();
      const MetricSpec& spec = *std::find_if(metricSpecs().begin(), metricSpecs().end(),
                                             [&](const MetricSpec& s) { return key == s.key; });
      std::string change = m.contains("change") ? valueText(m["change"], spec.ratio) : "";
      if (m.contains("change") && m["change"].get<double>() > 0) change = "+" + change;
      o << pad(spec.label, 38) << pad(valueText(m["a"], spec.ratio), 12) << pad(valueText(m["b"], spec.ratio), 12)
        << change << "\n";
    }
  } else {
    o << "metrics: no differences\n";
  }
  o << "\n";
  if (d["cases"].empty()) o << "cases: none flipped\n";
  else o << "cases that changed (" << d["cases"].size() << "):\n";
  for (const auto& c : d["cases"])
    o << "  " << pad(c["id"].get<std::string>(), 32) << pad(c["change"].get<std::string>(), 18) << "A: "
      << c["a"].get<std::string>() << "  B: " << c["b"].get<std::string>() << "\n";
  for (const auto& id : d["onlyInA"]) o << "  " << pad(id.get<std::string>(), 32) << "only in A\n";
  for (const auto& id : d["onlyInB"]) o << "  " << pad(id.get<std::string>(), 32) << "only in B\n";
  return o.str();
}

}  // namespace revline::eval
