// A fake model for incremental-review tests: it reads the annotated diff it is
// sent and answers one MINOR finding on the first added line of every hunk it
// sees (title and explanation do not depend on the position, so a finding's id
// is the same wherever its hunk moves). It records every first user message, so
// a test can count the hunks that went to the model.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "core/review/provider.h"

namespace revline::testing {

struct PerHunkLog {
  std::mutex mu;
  std::vector<std::string> prompts;  // the diff message of each review (first user message)

  // "@@" hunk headers in the annotated diff of review `i` (function context lines are ':' lines, not headers).
  int hunksSent(std::size_t i) {
    std::lock_guard<std::mutex> lock(mu);
    int n = 0;
    std::istringstream in(prompts.at(i));
    for (std::string line; std::getline(in, line);) n += line.rfind("@@ ", 0) == 0;
    return n;
  }
  std::size_t reviews() {
    std::lock_guard<std::mutex> lock(mu);
    return prompts.size();
  }
};

// A Python file of five 13-line functions, `f0` at line 1, `f1` at 14 ...;
// line 7 of function i (13 * i + 7) is `changed[i]` when given, else the
// committed text. Five changed functions are five hunks of `git diff`.
inline std::string fiveFunctions(const std::vector<std::string>& changed = {}) {
  std::string out;
  for (std::size_t i = 0; i < 5; ++i) {
    out += "def f" + std::to_string(i) + "(x):\n";
    for (int j = 0; j < 10; ++j) {
      if (j == 5 && i < changed.size() && !changed[i].empty()) out += changed[i] + "\n";
      else out += "    v" + std::to_string(j) + " = x + " + std::to_string(j) + "\n";
    }
    out += "    return v9\n\n";
  }
  return out;
}

// Every function changed on its line 7: `revision` tells the saves apart.
inline std::vector<std::string> allChanged(const std::string& revision = "a") {
  std::vector<std::string> c;
  for (int i = 0; i < 5; ++i) c.push_back("    v5 = x * " + std::to_string(i + 2) + "  # " + revision);
  return c;
}

class PerHunkModel : public review::Provider {
 public:
  explicit PerHunkModel(PerHunkLog& log, std::string model = "m1") : log_(log), model_(std::move(model)) {}
  std::string name() const override { return "per-hunk"; }
  std::string model() const override { return model_; }
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken&) override {
    const std::string& prompt = request.messages.at(0).text;
    {
      std::lock_guard<std::mutex> lock(log_.mu);
      log_.prompts.push_back(prompt);
    }
    static const std::regex fileHeader(R"(^File: (\S+) \()");
    static const std::regex added(R"(^ *(\d+) \+ (.*)$)");
    json findings = json::array();
    std::string file;
    bool hunkHasFinding = true;
    std::istringstream in(prompt);
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
      if (std::regex_search(line, m, fileHeader)) {
        file = m[1].str();
      } else if (line.rfind("@@ ", 0) == 0) {
        hunkHasFinding = false;
      } else if (!hunkHasFinding && std::regex_match(line, m, added)) {
        findings.push_back({{"file", file}, {"line", std::stoi(m[1].str())}, {"endLine", nullptr}, {"severity", "MINOR"},
                            {"category", "CORRECTNESS"}, {"title", "Check this change"},
                            {"explanation", "The changed line needs a second look."}, {"suggestedFix", nullptr},
                            {"edit", nullptr}, {"confidence", 0.8}});
        hunkHasFinding = true;
      }
    }
    review::ModelResponse r;
    r.text = json{{"summary", "Looked at every hunk."}, {"verdict", "COMMENT"}, {"findings", findings}}.dump();
    r.usage.inputTokens = static_cast<std::int64_t>(prompt.size() / 4);
    return r;
  }

 private:
  PerHunkLog& log_;
  std::string model_;
};

}  // namespace revline::testing
