// Rules on the raw text of added lines, for every file type: hard-coded
// credentials and leftover merge-conflict markers.
#include <string>

#include "core/builtin/rule_sets.h"
#include "core/builtin/secrets.h"

namespace revline::builtin {
namespace {

using contract::Category;
using contract::Severity;

struct SecretRule {
  std::string_view what;
  Severity severity;
  double confidence;
};

SecretRule describe(const std::string& kind) {
  if (kind == "aws-access-key") return {"an AWS access key id", Severity::Blocker, 0.9};
  if (kind == "private-key") return {"a private key", Severity::Blocker, 0.95};
  if (kind == "github-token") return {"a GitHub token", Severity::Blocker, 0.9};
  if (kind == "slack-token") return {"a Slack token", Severity::Blocker, 0.85};
  if (kind == "api-key") return {"an API key", Severity::Blocker, 0.7};
  if (kind == "password") return {"a password", Severity::Major, 0.6};
  return {"a secret", Severity::Major, 0.6};
}

enum class Marker { None, Start, Middle, End, Base };

Marker markerOf(std::string_view s) {
  auto is = [&](char c) {
    if (s.size() < 7 || s.substr(0, 7) != std::string(7, c)) return false;
    return s.size() == 7 || s[7] == ' ' || s[7] == '\t' || s[7] == '\r';
  };
  if (is('<')) return Marker::Start;
  if (is('>')) return Marker::End;
  if (is('|')) return Marker::Base;
  if (s == "=======" || s == "=======\r") return Marker::Middle;
  return Marker::None;
}

contract::Finding conflictFinding(const ScanFile& file, int line, int endLine) {
  return makeFinding(file, line, endLine,
                     {Severity::Blocker, Category::Correctness, 0.95, "Unresolved merge-conflict markers",
                      "The change still contains the <<<<<<< / ======= / >>>>>>> markers of a merge conflict: the file "
                      "no longer compiles or parses, and both sides of the conflict are present.",
                      "Resolve the conflict: keep the intended version of the lines and delete the marker lines."});
}

}  // namespace

void checkSecrets(const ScanFile& file, Findings& out) {
  for (const auto& hunk : file.hunks) {
    for (const auto& l : hunk.lines) {
      if (!l.added()) continue;
      const auto matches = findSecrets(l.text());
      if (matches.empty()) continue;
      const SecretRule r = describe(matches.front().kind);
      out.push_back(makeFinding(
          file, l.number(), l.number(),
          {r.severity, Category::Security, r.confidence, "Hard-coded credential: " + std::string(r.what) + " in the source",
           "This line adds " + std::string(r.what) +
               " to the repository. Anyone with read access to the code or its history can use it, and it stays in "
               "the history after the line is removed.",
           "Load it from the environment or a secret manager instead, and revoke/rotate this one since it has been "
           "exposed."}));
    }
  }
}

void checkConflictMarkers(const ScanFile& file, Findings& out) {
  const bool prose = isProseFile(file.path);
  for (const auto& hunk : file.hunks) {
    std::optional<int> open;  // line of an unclosed <<<<<<< in this hunk
    for (const auto& l : hunk.lines) {
      if (!l.added()) continue;
      switch (markerOf(l.text())) {
        case Marker::Start:
          if (open) out.push_back(conflictFinding(file, *open, *open));
          open = l.number();
          break;
        case Marker::End:
          out.push_back(conflictFinding(file, open ? *open : l.number(), l.number()));
          open.reset();
          break;
        case Marker::Middle:
          // In prose "=======" underlines a heading; only a conflict block makes it a marker there.
          if (!open && !prose) out.push_back(conflictFinding(file, l.number(), l.number()));
          break;
        case Marker::Base:
        case Marker::None:
          break;
      }
    }
    if (open) out.push_back(conflictFinding(file, *open, *open));
  }
}

}  // namespace revline::builtin
