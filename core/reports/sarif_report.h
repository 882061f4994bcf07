// `revline review --format sarif`: SARIF 2.1.0 as GitHub code scanning accepts it.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/review/pipeline.h"
#include "core/support/json.h"
#include "core/support/version.h"

namespace revline::reports {

struct SarifOptions {
  std::string toolVersion = kVersion;
  std::optional<std::string> informationUri;  // the project's home page, when it has a public one
  // When set, run.originalUriBaseIds maps %SRCROOT% to this directory's file:// URI.
  // GitHub does not need it (it resolves %SRCROOT% to the checkout itself).
  std::optional<std::filesystem::path> sourceRoot;
};

// One run with tool.driver "revline" and one rule per category (all eight, so
// rule indices are stable), one result per published finding:
//   ruleId = category (e.g. "DATA_LOSS"), level BLOCKER/MAJOR -> error, MINOR -> warning, NIT -> note,
//   message = title, explanation and suggested fix,
//   location = %SRCROOT%-relative percent-encoded uri + region startLine..endLine,
//   partialFingerprints {"revlineFindingId/v1": id} so re-runs update the same alert; findings
//     sharing an id (it leaves the line out) get "id:2", "id:3"... after the first, by line in the file,
//   fixes from the edit (the region of the edited lines replaced by the replacement).
// Rejected findings are not results (they are not on the diff); their count is in run.properties.
// The review's warnings are run.invocations[0].toolExecutionNotifications (level "warning").
json renderSarif(const review::ReviewOutcome& outcome, const SarifOptions& options = {});

// A repository-relative path as a SARIF/RFC 3986 relative reference: every byte
// other than unreserved characters and '/' percent-encoded (UTF-8), "./" dropped.
std::string sarifUri(std::string_view repositoryPath);

// "error" / "warning" / "note".
std::string_view sarifLevel(contract::Severity severity);

}  // namespace revline::reports
