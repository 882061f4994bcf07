// The evaluation corpus (docs/EVAL.md): a directory of cases, each a directory
// with case.json (what the change is and what a reviewer should find), a base/
// tree (the repository before the change) and a patch (the change). Loading
// validates every case against one field list, from which the JSON Schema of
// case.json is also derived, and reports every problem of a broken case with
// the file and the field, so a corpus author can fix it without guessing.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/contract/enums.h"
#include "core/support/json.h"

namespace revline::eval {

// One problem a reviewer should report: where (new-file lines) and why.
struct ExpectedIssue {
  std::string file;                     // repository path in the new version
  std::int64_t line = 0;
  std::optional<std::int64_t> endLine;  // last line of a multi-line issue
  std::optional<contract::Category> category;  // informational (not required to match)
  std::optional<contract::Severity> severity;  // informational (not required to match)
  std::string note;                     // what the bug is, for people reading the report

  std::int64_t lastLine() const { return endLine ? *endLine : line; }
};

// Where a case came from (eval/README.md lists these).
struct CaseSource {
  std::string repository;  // "owner/name"
  std::string commit;      // the fix commit that was reversed (or the commit a clean change comes from)
  std::string licence;     // SPDX id: MIT, Apache-2.0, BSD-2-Clause, BSD-3-Clause
};

struct EvalCase {
  std::string id;                     // the directory name
  std::filesystem::path dir;
  std::string language;
  std::string description;            // the intent a user would give (informational)
  std::optional<CaseSource> source;
  std::filesystem::path patch;        // absolute: dir / case.json "patch" (default change.patch)
  std::vector<ExpectedIssue> expected;
  bool clean = false;                 // a change that should draw no blocking finding
  bool expectBlock = false;           // the verdict should be REQUEST_CHANGES (default: !clean)
  std::vector<std::string> mustNotComment;  // paths the reviewer must not comment on
};

// A case (or the corpus) is malformed; what() lists every problem, one a line,
// each naming the file and the field and saying what is expected.
class CorpusError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads and parses a JSON file of the corpus or a report; CorpusError names the
// file and says whether it was unreadable or not JSON. `what` names the file's role.
json readJsonFile(const std::filesystem::path& file, const std::string& what);

// Validates one parsed case.json; `origin` names the file in messages. Also
// checks that the base/ tree and the patch exist in `dir`.
EvalCase parseCase(const json& doc, const std::filesystem::path& dir, const std::string& origin);

// Reads `dir/case.json` and validates it.
EvalCase loadCase(const std::filesystem::path& dir);

// A corpus directory: every subdirectory holding a case.json is a case (sorted
// by name); a directory that itself holds case.json is a corpus of one. Every
// broken case is reported together; a corpus without cases is an error.
std::vector<EvalCase> loadCorpus(const std::filesystem::path& dir);

// The JSON Schema of case.json (docs/eval-case.schema.json; `revline eval --schema`).
json caseSchema();

}  // namespace revline::eval
