#include "core/contract/feedback.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace revline::contract {
namespace {

const char* kValid =
    R"({"summary": "s", "findings": [{"file": "a.cpp", "line": 3, "endLine": null, "severity": "MAJOR",
        "category": "CORRECTNESS", "title": "t", "explanation": "e", "suggestedFix": null, "edit": null,
        "confidence": 0.9}], "verdict": "COMMENT"})";

TEST(Feedback, ContractProblemsOnePerLine) {
  std::string reply = kValid;
  reply.replace(reply.find("\"MAJOR\""), 7, "\"CRITICAL\"");
  reply.replace(reply.find("\"line\": 3"), 9, "\"line\": 0");
  EXPECT_EQ(feedbackMessage(parseReply(reply)),
            "Your previous reply does not follow the review contract. Fix these problems:\n"
            "/findings/0/line: got 0, expected a new-file line number >= 1\n"
            "/findings/0/severity: \"CRITICAL\" is not one of BLOCKER, MAJOR, MINOR, NIT\n"
            "Reply with only the corrected JSON object, and keep every value that was right unchanged.");
}

TEST(Feedback, Syntax) {
  EXPECT_EQ(feedbackMessage(parseReply(R"({"summary": "s" "findings": []})")),
            "Your previous reply does not follow the review contract. Fix these problems:\n"
            "invalid JSON: expected ',' or '}' after the value of \"summary\", got '\"' (a missing comma, or an "
            "unescaped quote inside a string?) at line 1, column 17\n"
            "Reply with only the corrected JSON object, and keep every value that was right unchanged.");
}

TEST(Feedback, TruncatedAsksForFewerShorterFindings) {
  EXPECT_EQ(feedbackMessage(parseReply(R"({"summary": "s", "findings": [{"file": "a.cpp", "explanation": "long)")),
            "Your previous reply was cut off before the JSON object was complete:\n"
            "/findings/0/explanation: the reply ends inside a string: the reply was cut off before the JSON was "
            "complete\n"
            "Reply again with the complete JSON object and fewer, shorter findings: keep only the most important "
            "problems and keep each explanation brief. Keep every value that was right.");
}

TEST(Feedback, EmptyAndNoJsonAskForOnlyTheObject) {
  const std::string tail = "Reply with only the JSON object: no prose and no code fences before or after it.";
  EXPECT_EQ(feedbackMessage(parseReply("  ")),
            "Your previous reply did not contain the review as JSON:\n"
            "the reply is empty; expected the review as one JSON object\n" + tail);
  EXPECT_EQ(feedbackMessage(parseReply("Looks good to me!")),
            "Your previous reply did not contain the review as JSON:\n"
            "the reply holds no JSON object; expected the review as one JSON object\n" + tail);
}

TEST(Feedback, Refusal) {
  EXPECT_EQ(feedbackMessage(parseReply("I'm sorry, I can't help with that.")),
            "Your previous reply did not contain the review:\n"
            "the reply holds no JSON and reads as a refusal: \"I'm sorry, I can't help with that.\"\n"
            "If you can review this change, reply with only the JSON object. If the change has no problems, send an "
            "empty findings list.");
}

TEST(Feedback, ProblemsStayOnOneLine) {
  ReplyParse p;
  p.problems.push_back(Problem{ErrorKind::Type, "/x", "/x: two\nlines"});
  EXPECT_EQ(feedbackMessage(p),
            "Your previous reply does not follow the review contract. Fix these problems:\n/x: two lines\n"
            "Reply with only the corrected JSON object, and keep every value that was right unchanged.");
}

TEST(Feedback, NothingToRetryIsAnError) {
  const ReplyParse ok = parseReply(kValid);
  ASSERT_TRUE(ok.ok());
  EXPECT_THROW(feedbackMessage(ok), std::invalid_argument);
}

}  // namespace
}  // namespace revline::contract
