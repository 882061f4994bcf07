#include "core/reports/sarif_report.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "core/reports/coverage_text.h"
#include "core/reports/gate.h"
#include "core/reports/json_report.h"
#include "core/reports/usage_report.h"
#include "core/reports/names.h"

namespace revline::reports {

using contract::Category;
using contract::Severity;

namespace {

constexpr const char* kFingerprintKey = "revlineFindingId/v1";
constexpr const char* kSrcRoot = "%SRCROOT%";

struct RuleText {
  const char* name;   // PascalCase, as SARIF suggests for reportingDescriptor.name
  const char* shortDescription;
  const char* fullDescription;
  const char* tag;
};

RuleText ruleText(Category c) {
  switch (c) {
    case Category::Correctness:
      return {"Correctness", "A bug: the code does not do what it is meant to do.",
              "The changed code computes a wrong result, misses a case, or fails at run time "
              "(wrong comparison, off-by-one, unchecked null, wrong API use).",
              "correctness"};
    case Category::Security:
      return {"Security", "A security problem in the changed code.",
              "The change opens a vulnerability: injection (SQL, shell, script), a hard-coded secret, "
              "unsafe deserialization or evaluation, missing authorization, or a memory-safety hole.",
              "security"};
    case Category::Concurrency:
      return {"Concurrency", "A race, deadlock or unsafe sharing between threads.",
              "Shared state is read and written without the synchronization the code relies on, e.g. "
              "check-then-act on a non-concurrent map, or locks taken in inconsistent order.",
              "concurrency"};
    case Category::DataLoss:
      return {"DataLoss", "The change can lose or corrupt data.",
              "Data can be silently dropped, overwritten or corrupted: unchecked writes, truncation, "
              "wrong transaction boundaries, destructive migrations.",
              "reliability"};
    case Category::Performance:
      return {"Performance", "Needless work or an unbounded cost.",
              "The change does work whose cost grows badly with input size or repeats expensive "
              "operations (queries in loops, quadratic scans, unbounded buffering).",
              "performance"};
    case Category::Maintainability:
      return {"Maintainability", "Code that will be hard to change safely.",
              "Duplication, misleading names, dead code or tangled responsibilities that make the next "
              "change riskier than it needs to be.",
              "maintainability"};
    case Category::Style:
      return {"Style", "A matter of style or convention.",
              "The code works but departs from the conventions of the codebase or the language.", "style"};
    case Category::Testing:
      return {"Testing", "Missing or weak tests for the change.",
              "The change lacks a test for its behaviour, or a test does not check what it claims to.",
              "testing"};
  }
  return {"Correctness", "", "", "correctness"};
}

json ruleJson(Category c) {
  const RuleText t = ruleText(c);
  const std::string id(categoryName(c));
  const std::string help = std::string(t.fullDescription) +
                           " revline reports each finding with an explanation, a suggested fix and, when the fix "
                           "is mechanical, an edit.";
  return {
      {"id", id},
      {"name", t.name},
      {"shortDescription", {{"text", t.shortDescription}}},
      {"fullDescription", {{"text", t.fullDescription}}},
      {"help", {{"text", help}, {"markdown", "**" + id + "**: " + help}}},
      {"defaultConfiguration", {{"level", c == Category::Style ? "note" : "warning"}}},
      {"properties", {{"tags", json::array({t.tag})}}},
  };
}

int ruleIndex(Category c) {
  int i = 0;
  for (Category k : kAllCategories) {
    if (k == c) return i;
    ++i;
  }
  return 0;
}

// Length of the UTF-8 text in UTF-16 code units (SARIF's default columnKind).
std::int64_t utf16Length(std::string_view s) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
    n += len == 4 ? 2 : 1;
    i += len;
  }
  return n;
}

std::string_view lastLineOf(std::string_view text) {
  const std::size_t nl = text.rfind('\n');
  return nl == std::string_view::npos ? text : text.substr(nl + 1);
}

json artifactLocation(const std::string& file) { return {{"uri", sarifUri(file)}, {"uriBaseId", kSrcRoot}}; }

std::string messageText(const contract::Finding& f) {
  std::string text = f.title;
  if (!f.explanation.empty()) text += "\n\n" + f.explanation;
  if (f.suggestedFix) text += "\n\nSuggested fix: " + *f.suggestedFix;
  return text;
}

std::string fileUri(const std::filesystem::path& dir) {
  std::string p = std::filesystem::absolute(dir).lexically_normal().generic_string();
  std::string encoded = sarifUri(p);
  if (encoded.empty() || encoded.front() != '/') encoded = "/" + encoded;
  if (encoded.back() != '/') encoded += '/';
  return "file://" + encoded;
}

// One fingerprint per finding (empty without an id). An id leaves the line out,
// so findings sharing one (the same statement added twice in a file; the id
// holds the file) are told apart by their order by line: that survives lines
// moving above them, and a unique id, or the first of its kind, stays the bare id.
std::vector<std::string> fingerprints(const std::vector<review::PublishedFinding>& findings) {
  std::map<std::string, std::vector<std::size_t>> alike;
  for (std::size_t i = 0; i < findings.size(); ++i)
    if (!findings[i].id.empty()) alike[findings[i].id].push_back(i);
  std::vector<std::string> out(findings.size());
  for (auto& [id, indices] : alike) {
    std::stable_sort(indices.begin(), indices.end(), [&](std::size_t a, std::size_t b) {
      const contract::Finding& x = findings[a].finding;
      const contract::Finding& y = findings[b].finding;
      return std::tuple(x.line, x.lastLine()) < std::tuple(y.line, y.lastLine());
    });
    for (std::size_t n = 0; n < indices.size(); ++n)
      out[indices[n]] = n == 0 ? id : id + ":" + std::to_string(n + 1);
  }
  return out;
}

}  // namespace

std::string sarifUri(std::string_view path) {
  while (path.substr(0, 2) == "./") path.remove_prefix(2);
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                            c == '.' || c == '_' || c == '~' || c == '/';
    if (unreserved) {
      out += ch;
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 0xF];
    }
  }
  return out;
}

std::string_view sarifLevel(Severity severity) {
  switch (severity) {
    case Severity::Blocker:
    case Severity::Major: return "error";
    case Severity::Minor: return "warning";
    case Severity::Nit: return "note";
  }
  return "warning";
}

json renderSarif(const review::ReviewOutcome& outcome, const SarifOptions& options) {
  json rules = json::array();
  for (Category c : kAllCategories) rules.push_back(ruleJson(c));

  json results = json::array();
  const std::vector<std::string> fingerprintOf = fingerprints(outcome.findings);
  for (std::size_t i = 0; i < outcome.findings.size(); ++i) {
    const review::PublishedFinding& published = outcome.findings[i];
    const contract::Finding& f = published.finding;
    const std::int64_t start = f.line < 1 ? 1 : f.line;
    const std::int64_t end = f.lastLine() < start ? start : f.lastLine();
    json result = {
        {"ruleId", std::string(categoryName(f.category))},
        {"ruleIndex", ruleIndex(f.category)},
        {"level", sarifLevel(f.severity)},
        {"message", {{"text", messageText(f)}}},
        {"locations",
         json::array({{{"physicalLocation",
                        {{"artifactLocation", artifactLocation(f.file)},
                         {"region", {{"startLine", start}, {"endLine", end}}}}}}})},
        {"properties",
         {{"severity", severityName(f.severity)}, {"category", categoryName(f.category)}, {"confidence", f.confidence}}},
    };
    if (!fingerprintOf[i].empty()) result["partialFingerprints"] = {{kFingerprintKey, fingerprintOf[i]}};
    if (published.editDroppedReason) {
      result["message"]["text"] = messageText(f) + "\n\nFix withheld: " + *published.editDroppedReason;
      result["properties"]["editDroppedReason"] = *published.editDroppedReason;
    }
    if (f.edit) {
      // The region spans exactly the text of lines start..end (columns given
      // explicitly, so no reader has to guess whether a line's newline is part
      // of it); the replacement text goes in its place.
      // An edit that deletes the lines takes their last newline too (to the start
      // of the next line), or the fix would leave an empty line where they were.
      const bool deletesLines = f.edit->replacement.empty();
      const json deleted = {{"startLine", start},
                            {"startColumn", 1},
                            {"endLine", deletesLines ? end + 1 : end},
                            {"endColumn", deletesLines ? 1 : utf16Length(lastLineOf(f.edit->original)) + 1}};
      result["fixes"] = json::array({{
          {"description", {{"text", f.suggestedFix ? *f.suggestedFix : f.title}}},
          {"artifactChanges",
           json::array({{{"artifactLocation", artifactLocation(f.file)},
                         {"replacements",
                          json::array({{{"deletedRegion", deleted},
                                        {"insertedContent", {{"text", f.edit->replacement}}}}})}}})},
      }});
    }
    results.push_back(std::move(result));
  }

  json run = {
      {"tool",
       {{"driver",
         {{"name", "revline"},
          {"version", options.toolVersion},
          {"semanticVersion", options.toolVersion},
          {"rules", std::move(rules)}}}}},
      {"columnKind", "utf16CodeUnits"},
      {"results", std::move(results)},
      {"properties",
       {{"verdict", verdictName(outcome.verdict)},
        {"modelVerdict", outcome.modelVerdict ? json(verdictName(*outcome.modelVerdict)) : json(nullptr)},
        {"summary", outcome.summary},
        {"rejectedFindings", outcome.rejected.size()},
        {"unplacedBlocking", outcome.unplacedBlocking},
        {"coverage", coverageJson(outcome.coverage)},
        {"coverageText", coverageSentence(outcome.coverage)},
        {"provider", outcome.provider},
        {"model", outcome.model},
        {"usage", usageJson(outcome.usage, outcome.prices)}}},
  };
  // The review's warnings as SARIF says a tool's are: notifications of its invocation.
  json notifications = json::array();
  for (const auto& w : outcome.warnings) notifications.push_back({{"level", "warning"}, {"message", {{"text", w}}}});
  // Code scanning shows results only: a blocking finding with no line of the diff
  // to go on (a deleted file's) is said where a reader of the run looks.
  for (const auto& u : unplacedBlockingLines(outcome))
    notifications.push_back({{"level", "error"}, {"message", {{"text", u}}}});
  run["invocations"] = json::array({{{"executionSuccessful", true}, {"toolExecutionNotifications", std::move(notifications)}}});
  if (options.informationUri) run["tool"]["driver"]["informationUri"] = *options.informationUri;
  if (options.sourceRoot) run["originalUriBaseIds"] = {{kSrcRoot, {{"uri", fileUri(*options.sourceRoot)}}}};

  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", json::array({std::move(run)})}};
}

}  // namespace revline::reports
