// The builtin reviewer: deterministic, offline rules applied to the ADDED
// lines of a diff. Rules that depend on syntax run on files of their language
// (by extension); the secret and merge-conflict rules run on every file.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/contract/contract.h"
#include "core/diff/diff.h"
#include "core/support/cancel.h"

namespace revline::builtin {

// Version label of the rule set, reported as the builtin provider's model.
inline constexpr const char* kRulesVersion = "rules-v1";

// The whole new-file text of a changed file (e.g. read from the work tree), or
// nullopt. Optional: it lets rules see declarations outside the hunks, such as
// the type of a map field; without it they only trust what the diff shows.
using SourceLookup = std::function<std::optional<std::string>(const std::string& path)>;

// Findings in file order, then line order. Every finding is on lines the diff
// shows (grounded), and every edit's original is the exact text of its line.
// `cancel`, when given, is looked at before each file: throws Cancelled (Ctrl-C,
// SIGTERM from a CI timeout, a newer save) rather than finish a large change.
std::vector<contract::Finding> reviewDiff(const diff::Diff& diff, const SourceLookup& source = {},
                                          const CancelToken* cancel = nullptr);

}  // namespace revline::builtin
