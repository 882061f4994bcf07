#include "core/contract/reply_parser.h"

#include "core/contract/candidates.h"
#include "core/contract/coerce.h"
#include "core/contract/reply_text.h"
#include "core/contract/rules.h"
#include "core/contract/serialize.h"
#include "core/contract/validate.h"

namespace revline::contract {
namespace {

struct Outcome {
  std::optional<ReviewReport> report;
  std::vector<Problem> problems;
  std::vector<std::string> warnings;
};

Problem syntaxProblem(const ReadResult& r, std::string_view where = "") {
  return makeProblem(ErrorKind::Syntax, r.pointer, "invalid JSON" + std::string(where) + ": " + r.error);
}

void append(std::vector<std::string>& to, const std::vector<std::string>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

// A JSON string holding {...} is the report encoded twice: decode it once, never more.
std::optional<ReadResult> decodeOnce(const json& value) {
  if (!value.is_string()) return std::nullopt;
  const std::string& s = value.get_ref<const std::string&>();
  std::size_t b = 0;
  while (b < s.size() && isBlank(std::string_view(s).substr(b, 1))) ++b;
  if (b >= s.size() || s[b] != '{') return std::nullopt;
  return readJsonDocument(s, b, s.size());
}

Outcome evaluate(const Candidate& candidate) {
  Outcome out;
  if (!candidate.read.ok()) {
    out.problems.push_back(syntaxProblem(candidate.read));
    out.warnings = candidate.read.repairs;
    return out;
  }
  const json* value = &candidate.read.value;
  const std::set<std::string>* duplicates = &candidate.read.duplicateKeys;
  out.warnings = candidate.read.repairs;
  std::optional<ReadResult> inner = decodeOnce(*value);
  if (inner) {
    out.warnings.push_back("double_encoded: the report was a JSON string holding JSON; decoded it once");
    append(out.warnings, inner->repairs);
    if (!inner->ok()) {
      out.problems.push_back(syntaxProblem(*inner, " inside the JSON string that holds the report"));
      return out;
    }
    value = &inner->value;
    duplicates = &inner->duplicateKeys;
  }
  Coerced coerced = coerceReport(*value, *duplicates);
  append(out.warnings, coerced.warnings);
  out.problems = std::move(coerced.problems);
  if (out.problems.empty()) {
    // Coercion applies the same rules; this keeps "parsed" and "valid" one promise.
    out.problems = validate(coerced.report);
    if (out.problems.empty()) out.report = std::move(coerced.report);
  }
  return out;
}

}  // namespace

ReplyParse parseReply(std::string_view raw) {
  ReplyParse result;
  PreparedReply prepared = prepareReply(raw, kMaxReplyBytes);
  result.warnings = std::move(prepared.warnings);
  if (prepared.problem) {
    result.problems.push_back(std::move(*prepared.problem));
    return result;
  }
  const std::string& text = prepared.text;
  CandidateScan scan = findCandidates(text, prepared.answerBegin);

  // A cut-off reply is truncated even after a valid candidate: the lost part
  // may have been the model's correction.
  if (scan.truncated) {
    result.problems.push_back(makeProblem(ErrorKind::Truncated, scan.truncated->pointer,
                                          scan.truncated->error + ": the reply was cut off before the JSON was complete"));
    return result;
  }
  if (scan.candidates.empty()) {
    const std::string_view answer = std::string_view(text).substr(prepared.answerBegin);
    if (readsLikeRefusal(answer))
      result.problems.push_back(makeProblem(ErrorKind::Refusal, "",
                                            "the reply holds no JSON and reads as a refusal: " + showString(answer)));
    else
      result.problems.push_back(makeProblem(ErrorKind::NoJson, "",
                                            "the reply holds no JSON object; expected the review as one JSON object"));
    return result;
  }

  std::vector<Outcome> outcomes;
  outcomes.reserve(scan.candidates.size());
  for (const Candidate& c : scan.candidates) outcomes.push_back(evaluate(c));

  std::optional<std::size_t> winner, lastTopLevel;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].report) winner = i;
    if (scan.candidates[i].topLevel) lastTopLevel = i;
  }
  if (winner) {
    Outcome& w = outcomes[*winner];
    const json chosen = toJson(*w.report);
    std::size_t differing = 0;
    for (std::size_t i = 0; i < outcomes.size(); ++i)
      if (i != *winner && outcomes[i].report && toJson(*outcomes[i].report) != chosen) ++differing;
    append(result.warnings, w.warnings);
    if (differing)
      result.warnings.push_back("multiple_candidates: the reply holds " + std::to_string(differing + 1) +
                                " different valid reports; used the last one");
    result.report = std::move(w.report);
    return result;
  }
  Outcome& failed = outcomes[lastTopLevel.value_or(outcomes.size() - 1)];
  append(result.warnings, failed.warnings);
  result.problems = std::move(failed.problems);
  return result;
}

}  // namespace revline::contract
