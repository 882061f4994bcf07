// What the model and the repository send cannot reshape the conversation:
// closing-delimiter variants are defused, one reply's tool calls are capped,
// and a remote provider's diff is redacted before lines are numbered.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/review/attempt_loop.h"
#include "core/review/prompt.h"
#include "core/review/redaction.h"

namespace revline::review {
namespace {

TEST(Delimiters, EveryClosingVariantIsDefused) {
  for (const std::string variant : {"</diff>", "</DIFF>", "</Diff>", "</ diff>", "</diff >", "< /diff>", "</diff\n>",
                                    "<\t/ DiFf\n>"}) {
    const diff::Diff d = diff::parse("diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+" +
                                     std::string(variant == "</diff\n>" ? "</diff" : variant) + "\n");
    const std::string prompt = userPrompt(d);
    // The only closing delimiter left is the prompt's own.
    std::string lowered;
    for (char c : prompt) {
      if (c != ' ' && c != '\t' && c != '\n') lowered += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    std::size_t closings = 0;
    for (auto at = lowered.find("</diff>"); at != std::string::npos; at = lowered.find("</diff>", at + 1)) ++closings;
    EXPECT_EQ(closings, 1u) << variant << "\n" << prompt;
    const std::string tool = delimitToolResult("read_file", "a " + variant + " </TOOL_RESULT> </ tool_result>");
    EXPECT_EQ(tool.find("</TOOL_RESULT>"), std::string::npos) << tool;
    EXPECT_EQ(tool.find("</ tool_result>"), std::string::npos) << tool;
    EXPECT_NE(tool.find("<\\/TOOL_RESULT>"), std::string::npos) << tool;
  }
  EXPECT_EQ(delimitToolResult("t", "</diffx> <b>").find("</diffx> <b>") != std::string::npos, true)
      << "other tags are left alone";
}

// Answers with `calls` tool calls, then with an empty report; records each request.
class ToolHappyProvider : public Provider {
 public:
  explicit ToolHappyProvider(std::size_t calls) : calls_(calls) {}
  std::string name() const override { return "scripted"; }
  std::string model() const override { return "m"; }
  ModelResponse complete(const ModelRequest& request, const CancelToken&) override {
    requests.push_back(request);
    ModelResponse r;
    if (requests.size() == 1) {
      for (std::size_t i = 0; i < calls_; ++i)  // each another call (the same one again is not run)
        r.toolCalls.push_back({"c" + std::to_string(i), "read_file", json{{"path", "f" + std::to_string(i)}}});
      r.finish = FinishReason::ToolCalls;
      return r;
    }
    r.text = R"({"summary":"ok","findings":[],"verdict":"APPROVE"})";
    return r;
  }
  std::vector<ModelRequest> requests;

 private:
  std::size_t calls_;
};

class CountingTools : public ToolExecutor {
 public:
  std::vector<ToolSpec> specs() const override { return {{"read_file", "reads", json::object()}}; }
  ToolResult execute(const ToolCall& call, const CancelToken&) override {
    ++executed;
    return {call.id, call.name, true, "content"};
  }
  int executed = 0;
};

TEST(ToolCallCap, TwentyThousandCallsInOneReplyAreCappedAndCounted) {
  ToolHappyProvider provider(20000);
  CountingTools tools;
  ModelRequest request;
  request.messages.push_back({Role::User, "review", {}, {}});
  const AttemptResult result = runAttempts(provider, request, {2, 50}, &tools, CancelToken());
  EXPECT_EQ(tools.executed, static_cast<int>(kMaxToolCallsPerReply));
  EXPECT_EQ(result.toolCalls, 50) << "the refused calls count against the budget";
  ASSERT_EQ(provider.requests.size(), 2u);
  const ModelRequest& second = provider.requests[1];
  std::size_t resultsSent = 0, callsSent = 0;
  std::string notes;
  for (const Message& m : second.messages) {
    resultsSent += m.toolResults.size();
    callsSent += m.toolCalls.size();
    if (m.role == Role::User) notes += m.text + "\n";
  }
  EXPECT_EQ(callsSent, kMaxToolCallsPerReply);
  EXPECT_EQ(resultsSent, kMaxToolCallsPerReply);
  EXPECT_NE(notes.find("Your reply asked for 20000 tool calls; at most 8 are run per reply, so the other 19992 were "
                       "refused and count against the budget of 50 tool calls."),
            std::string::npos)
      << notes;
  // The budget is spent, but the tools stay offered (the provider's cached
  // prefix is unchanged); the budget note tells the model to answer.
  EXPECT_EQ(second.tools.size(), 1u);
  EXPECT_NE(notes.find(toolBudgetSpentMessage(50)), std::string::npos) << notes;
}

TEST(RedactDiff, SecretsLeaveTheLinesBeforeTheyAreNumbered) {
  const diff::Diff d = diff::parse(
      "diff --git a/.env b/.env\nnew file mode 100644\n--- /dev/null\n+++ b/.env\n@@ -0,0 +1,3 @@\n+A=1\n+KEY=abc\n+"
      "SPLIT=xy\n");
  // A finder that reports "abc" and a span crossing the line break after it.
  SecretFinder finder = [](std::string_view text, std::string_view path) {
    EXPECT_EQ(path, ".env");
    std::vector<SecretSpan> spans;
    const auto at = text.find("abc");
    spans.push_back({at, 3, "k"});
    const auto split = text.find("xy");
    spans.push_back({split, 2, "s"});
    return spans;
  };
  const diff::Diff r = redactDiff(d, finder);
  ASSERT_EQ(r.files.size(), 1u);
  const auto& lines = r.files[0].hunks[0].lines;
  EXPECT_EQ(lines[0].text, "A=1");
  EXPECT_EQ(lines[1].text, "KEY=[REDACTED:k]");
  EXPECT_EQ(lines[2].text, "SPLIT=[REDACTED:s]");
  EXPECT_EQ(lines[1].newLine, 2);
  EXPECT_EQ(d.files[0].hunks[0].lines[1].text, "KEY=abc") << "the original diff is unchanged";
  EXPECT_EQ(userPrompt(r).find("abc"), std::string::npos);
}

// The text after a hunk's "@@ ... @@" is a line of the file (git's nearest line
// above the hunk that starts with a letter): before, it went out as it was, a
// .env's SECRET_KEY=... or a line of a key's body with it.
TEST(RedactDiff, TheLineAHunkHeaderQuotesIsRedactedToo) {
  const diff::Diff d = diff::parse(
      "diff --git a/.env b/.env\n--- a/.env\n+++ b/.env\n@@ -4,2 +4,2 @@ SECRET_KEY=abc123\n HOST=x\n-MODE=dev\n+MODE=prod\n"
      "diff --git a/key.js b/key.js\n--- a/key.js\n+++ b/key.js\n@@ -9,2 +9,2 @@ MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcw\n"
      " keyline1\n-keyline2\n+keyline3\n"
      "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -9,2 +9,2 @@ def handler(request):\n x = 1\n-y = 2\n+y = 3\n"
      "diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -9,2 +9,2 @@ def connect(host):\n x = 1\n-y = 2\n+token = abc123\n");
  SecretFinder finder = [](std::string_view text, std::string_view) {
    std::vector<SecretSpan> spans;
    for (std::string_view secret : {"abc123", "keyline"})
      for (auto at = text.find(secret); at != std::string_view::npos; at = text.find(secret, at + 1))
        spans.push_back({at, secret.size(), "k"});
    std::sort(spans.begin(), spans.end(), [](const SecretSpan& a, const SecretSpan& b) { return a.offset < b.offset; });
    return spans;
  };
  const diff::Diff r = redactDiff(d, finder);
  ASSERT_EQ(r.files.size(), 4u);
  EXPECT_EQ(r.files[0].hunks[0].section, "SECRET_KEY=[REDACTED:k]");  // a secret of its own
  EXPECT_EQ(r.files[1].hunks[0].section, "");  // a line of the secret the hunk holds (a key's body)
  EXPECT_EQ(r.files[2].hunks[0].section, "def handler(request):");  // nothing secret: kept
  EXPECT_EQ(r.files[3].hunks[0].section, "");  // beside a secret: not kept
  const std::string prompt = userPrompt(r);
  EXPECT_EQ(prompt.find("abc123"), std::string::npos) << prompt;
  EXPECT_EQ(prompt.find("MIIEvQ"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("def handler(request):"), std::string::npos) << prompt;
  EXPECT_EQ(d.files[0].hunks[0].section, "SECRET_KEY=abc123") << "the original diff is unchanged";
}

// A hunk header's line that is a run of base64 (a key's body the finder cannot
// tell alone) is left out; a long snake_case name is no such run.
TEST(RedactDiff, AHunkHeaderOfEncodedTextIsLeftOutAndALongNameIsKept) {
  const diff::Diff d = diff::parse(
      "diff --git a/k.txt b/k.txt\n--- a/k.txt\n+++ b/k.txt\n@@ -9,2 +9,2 @@ MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcw\n"
      " x\n-y\n+z\n"
      "diff --git a/t.py b/t.py\n--- a/t.py\n+++ b/t.py\n"
      "@@ -9,2 +9,2 @@ def test_should_reject_expired_tokens_after_a_day(self):\n x\n-y\n+z\n");
  const SecretFinder none = [](std::string_view, std::string_view) { return std::vector<SecretSpan>{}; };
  const diff::Diff r = redactDiff(d, none);
  EXPECT_EQ(r.files[0].hunks[0].section, "");
  EXPECT_EQ(r.files[1].hunks[0].section, "def test_should_reject_expired_tokens_after_a_day(self):");
}

// A span over several lines is a marker per line, each line break and each
// line's indentation kept: what follows keeps its line number.
TEST(RedactSpans, ASpanOverLinesKeepsTheirBreaksAndIndentation) {
  const std::string text = "a = 1\nkey: |\n  AAAA\n  BBBB\n\n  CCCC\nb = 2\n";
  const std::size_t from = text.find("AAAA"), to = text.find("CCCC") + 4;
  EXPECT_EQ(redactSpans(text, {{from, to - from, "private-key"}}),
            "a = 1\nkey: |\n  [REDACTED:private-key]\n  [REDACTED:private-key]\n\n  [REDACTED:private-key]\nb = 2\n");
  EXPECT_EQ(redactSpans("x=SECRET;", {{2, 6, "k"}}), "x=[REDACTED:k];");  // within a line: as before
  EXPECT_EQ(redactSpans("ab\ncd", {{1, 2, "k"}}), "a[REDACTED:k]\ncd");  // a span ending at a line break
}

}  // namespace
}  // namespace revline::review
