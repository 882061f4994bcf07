#include "core/contract/feedback.h"

#include <stdexcept>

namespace revline::contract {
namespace {

bool hasKind(const ReplyParse& p, ErrorKind kind) {
  for (const auto& problem : p.problems)
    if (problem.kind == kind) return true;
  return false;
}

std::string problemLines(const ReplyParse& p) {
  std::string out;
  for (const auto& problem : p.problems) {
    std::string line = problem.message;
    for (char& c : line)
      if (c == '\n' || c == '\r') c = ' ';  // one problem, one line
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::string feedbackMessage(const ReplyParse& failed) {
  if (failed.ok()) throw std::invalid_argument("feedbackMessage: the reply parsed into a report; there is nothing to retry");
  const std::string lines = problemLines(failed);
  if (hasKind(failed, ErrorKind::Truncated))
    return "Your previous reply was cut off before the JSON object was complete:\n" + lines +
           "Reply again with the complete JSON object and fewer, shorter findings: keep only the most important "
           "problems and keep each explanation brief. Keep every value that was right.";
  if (hasKind(failed, ErrorKind::Refusal))
    return "Your previous reply did not contain the review:\n" + lines +
           "If you can review this change, reply with only the JSON object. If the change has no problems, send an "
           "empty findings list.";
  if (failed.problems.empty() || hasKind(failed, ErrorKind::Empty) || hasKind(failed, ErrorKind::NoJson))
    return "Your previous reply did not contain the review as JSON:\n" + lines +
           "Reply with only the JSON object: no prose and no code fences before or after it.";
  return "Your previous reply does not follow the review contract. Fix these problems:\n" + lines +
         "Reply with only the corrected JSON object, and keep every value that was right unchanged.";
}

}  // namespace revline::contract
