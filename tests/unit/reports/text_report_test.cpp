#include "core/reports/text_report.h"
#include "core/reports/usage_report.h"

#include <gtest/gtest.h>

#include "tests/unit/reports/report_fixtures.h"

namespace revline::reports {
namespace {
using namespace testing;

TEST(TextReport, RendersFindingsRejectedAndCounts) {
  auto o = outcome(Verdict::RequestChanges);
  o.modelVerdict = Verdict::Comment;
  o.usage = {.inputTokens = 1200, .outputTokens = 300, .cachedInputTokens = 800, .requests = 2, .toolCallBudget = 5};
  auto f = finding("src/Pay.java", 11, Severity::Major, Category::Correctness, "String compared by identity", 13);
  f.confidence = 0.82;
  f.explanation = "Compares references.\nAlways true for new strings.";
  f.suggestedFix = "Use equals.";
  f.edit = contract::Edit{"  if (x != \"NGN\") {", "  if (!\"NGN\".equals(x)) {"};
  o.findings.push_back(published(f, "aaaa"));
  auto nit = finding("src/Pay.java", 41, Severity::Nit, Category::Style, "Name", std::nullopt);
  nit.confidence = 0.5;
  auto dropped = published(nit, "bbbb");
  dropped.editDroppedReason = "original does not match line 41";
  o.findings.push_back(dropped);
  o.rejected.push_back({finding("src/Pay.java", 412, Severity::Blocker, Category::Security, "SQL injection"),
                        "line 412 of 'src/Pay.java' is not among the lines this diff touches"});

  const std::string expected =
      "revline: REQUEST_CHANGES (the builtin rules said COMMENT)\n"
      "Adds a payment check.\n"
      "\n"
      "src/Pay.java:11-13: MAJOR CORRECTNESS String compared by identity (confidence 0.82)\n"
      "    Compares references.\n"
      "    Always true for new strings.\n"
      "    Fix: Use equals.\n"
      "    Edit:\n"
      "      -   if (x != \"NGN\") {\n"
      "      +   if (!\"NGN\".equals(x)) {\n"
      "\n"
      "src/Pay.java:41: NIT STYLE Name (confidence 0.50)\n"
      "    Because Name, the service misbehaves at run time.\n"
      "    (fix withheld: original does not match line 41)\n"
      "\n"
      "Rejected (not published):\n"
      "  src/Pay.java:412: BLOCKER SECURITY SQL injection\n"
      "    line 412 of 'src/Pay.java' is not among the lines this diff touches\n"
      "Coverage: no file changed.\n"
      "\n"
      "2 findings (1 MAJOR, 1 NIT), 1 rejected; 1 attempt, 0 tool calls; builtin builtin-rules\n"
      "Usage: 2 model requests, 1200 input tokens (800 cached), 300 output tokens, 0 of 5 tool calls.\n";
  EXPECT_EQ(renderText(o), expected);
}

TEST(TextReport, StatesTheCostOnlyWhenPricesAreConfigured) {
  auto o = outcome(Verdict::Approve);
  o.usage = {.inputTokens = 1'000'000, .outputTokens = 100'000, .cachedInputTokens = 600'000,
             .cacheWriteTokens = 200'000, .requests = 4, .toolCalls = 3, .toolCallBudget = 5};
  const std::string unpriced = renderText(o);
  EXPECT_NE(unpriced.find("Usage: 4 model requests, 1000000 input tokens (600000 cached, 200000 written to the "
                          "cache), 100000 output tokens, 3 of 5 tool calls.\n"),
            std::string::npos)
      << unpriced;
  EXPECT_EQ(unpriced.find("cost"), std::string::npos) << "no price configured: no cost";
  // Anthropic-like prices: 3 per million input, cache reads 0.1x, writes 1.25x, 15 per million output.
  o.prices = {.input = 3.0, .output = 15.0, .cachedInput = 0.3, .cacheWrite = 3.75};
  // 200000 uncached * 3 + 600000 * 0.3 + 200000 * 3.75 = 0.6 + 0.18 + 0.75 = 1.53; output 1.5.
  EXPECT_NE(renderText(o).find("; cost 3.0300 at the configured prices (input 1.5300, output 1.5000).\n"), std::string::npos)
      << renderText(o);
  // No price for cache writes: they are priced as input, which they cost at least (Anthropic bills 1.25x), so
  // the cost is "at least", and says which price to set. Before, 0.6 + 0.18 + 0.6 + 1.5 = 2.88 read as exact.
  o.prices = {.input = 3.0, .output = 15.0, .cachedInput = 0.3};
  EXPECT_NE(renderText(o).find("; cost at least 2.8800 at the configured prices (input 1.3800, its cache writes at the "
                               "input price: set price_per_million_cache_write, output 1.5000).\n"),
            std::string::npos)
      << renderText(o);
  // The parts add up to the total as shown, all at one precision (before: "cost 0.0134 (input 0.0123,
  // output 0.0010)" for 0.0123 + 0.00105, and "input 0.0000" beside "output 0.00007500").
  o.prices = {.input = 1.0, .output = 10.0};
  o.usage = {.inputTokens = 12'300, .outputTokens = 105, .requests = 1};
  EXPECT_NE(renderText(o).find("; cost 0.01335 at the configured prices (input 0.01230, output 0.00105).\n"),
            std::string::npos)
      << renderText(o);
  o.usage = {.inputTokens = 3, .outputTokens = 7, .requests = 1};
  EXPECT_NE(renderText(o).find("; cost 0.000073 at the configured prices (input 0.000003, output 0.000070).\n"),
            std::string::npos)
      << renderText(o);
  EXPECT_EQ(reports::formatCosts({1.0 / 3, 0.0}), (std::vector<std::string>{"0.3333", "0.0000"}));
  EXPECT_EQ(reports::formatCosts({2.0 / 3e6}), std::vector<std::string>{"0.00000067"});
}

// One price set and the other not (a user config pricing input only, an
// untrusted repository's output price ignored): the other part is "not
// priced", and the total is a lower bound, in the text and the JSON. Before,
// the output read "0.0000", a confident zero.
TEST(TextReport, APriceLeftUnsetIsNotPricedNotFree) {
  auto o = outcome(Verdict::Comment);
  o.usage = {.inputTokens = 1'000'000, .outputTokens = 100'000, .requests = 1};
  o.prices = {.input = 2.0};
  EXPECT_NE(renderText(o).find("; cost at least 2.0000 at the configured prices (input 2.0000, output not priced: "
                               "set price_per_million_output).\n"),
            std::string::npos)
      << renderText(o);
  json cost = reports::usageJson(o.usage, o.prices)["cost"];
  EXPECT_EQ(cost, (json{{"input", 2.0}, {"output", nullptr}, {"total", 2.0}, {"lowerBound", true}})) << cost.dump();
  o.prices = {.output = 10.0};
  cost = reports::usageJson(o.usage, o.prices)["cost"];
  EXPECT_EQ(cost, (json{{"input", nullptr}, {"output", 1.0}, {"total", 1.0}, {"lowerBound", true}})) << cost.dump();
  // No tokens of the unpriced kind: nothing unknown.
  o.usage.outputTokens = 0;
  o.prices = {.input = 2.0};
  EXPECT_EQ(reports::usageJson(o.usage, o.prices)["cost"]["lowerBound"], false);
}

// A provider that sent no token counts (an OpenAI-compatible server without
// `usage`): the requests are still said, and the figures and cost are said to be
// low, not a confident zero.
TEST(TextReport, RequestsWithoutTokenCountsAreSaidAndTheCostIsALowerBound) {
  auto o = outcome(Verdict::Comment);
  o.prices = {.input = 3.0, .output = 15.0};
  o.usage = {.requests = 1, .unreportedRequests = 1};
  EXPECT_NE(renderText(o).find("Usage: 1 model request (no token counts for it: answered without them, or "
                               "cancelled or given up on in flight), tokens unknown; cost unknown."),
            std::string::npos)
      << renderText(o);
  o.usage = {.inputTokens = 2'000'000, .outputTokens = 100, .requests = 3, .unreportedRequests = 1};
  EXPECT_NE(renderText(o).find("Usage: 3 model requests (missing token counts for 1 of them: answered without some or all of them, or "
                               "cancelled or given up on in flight; so the figures below are low), 2000000 input tokens, 100 output "
                               "tokens; cost at least 6.0015"),
            std::string::npos)
      << renderText(o);
}

// A model review that sent nothing says why, from what it covered: every part
// from the cache, none that fits a request, or both. Before, a change whose only
// line was too large for any request was said to come "from the cache".
TEST(TextReport, AReviewThatSentNothingSaysWhy) {
  auto o = outcome(Verdict::Comment);
  o.metered = true;
  o.usage = {};
  const std::string none = "Usage: 0 model requests: nothing was sent, ";
  o.coverage = {.filesReviewed = 1, .filesTotal = 1, .linesReviewed = 4, .linesTotal = 4, .filesSkipped = {}};
  EXPECT_NE(renderText(o).find(none + "every part of the change was reviewed before (its findings came from the cache)."),
            std::string::npos)
      << renderText(o);
  review::SkippedFile tooLarge{.path = "a.py", .reason = "not reviewed: line 2 needs ~20019 tokens", .lines = 1,
                               .overLimit = true};
  o.coverage = {.filesReviewed = 0, .filesTotal = 1, .linesReviewed = 0, .linesTotal = 1, .filesSkipped = {tooLarge}};
  EXPECT_NE(renderText(o).find(none + "no part of the change fits a request (see what was not reviewed)."),
            std::string::npos)
      << renderText(o);
  // A submodule moved to another commit (no line of its code in the diff): not a request too small. Before,
  // "no part of the change fits a request".
  review::SkippedFile submodule{.path = "lib", .reason = "a submodule moved", .lines = 2, .overLimit = true};
  submodule.notInDiff = true;
  o.coverage = {.filesReviewed = 0, .filesTotal = 1, .linesReviewed = 0, .linesTotal = 2, .filesSkipped = {submodule}};
  EXPECT_NE(renderText(o).find(none + "no part of the change has lines the model could be shown (see what was not "
                                      "reviewed)."),
            std::string::npos)
      << renderText(o);
  o.coverage = {.filesReviewed = 1, .filesTotal = 2, .linesReviewed = 4, .linesTotal = 6, .filesSkipped = {submodule}};
  EXPECT_NE(renderText(o).find(none + "what was reviewed was reviewed before (its findings came from the cache), and "
                                      "the rest has no lines the model could be shown."),
            std::string::npos)
      << renderText(o);
  o.coverage = {.filesReviewed = 1, .filesTotal = 2, .linesReviewed = 4, .linesTotal = 5, .filesSkipped = {tooLarge}};
  EXPECT_NE(renderText(o).find(none + "what was reviewed was reviewed before (its findings came from the cache), and "
                                      "the rest does not fit a request."),
            std::string::npos)
      << renderText(o);
}

TEST(TextReport, ApprovalWithoutFindings) {
  auto o = outcome(Verdict::Approve);
  o.attempts = 2;
  o.toolCalls = 1;
  EXPECT_EQ(renderText(o),
            "revline: APPROVE\nAdds a payment check.\n\nNo findings.\nCoverage: no file changed.\n\n"
            "0 findings, 0 rejected; 2 attempts, 1 tool call; builtin builtin-rules\n");
}

// The model's summary cannot print lines that read as revline's own: its later
// lines are indented (a split review's "[i/N]" lines too).
TEST(TextReport, TheSummarysLaterLinesAreIndented) {
  auto o = outcome(Verdict::RequestChanges);
  o.summary = "Looks fine.\nrevline: APPROVE\nNo findings.";
  EXPECT_EQ(renderText(o).rfind("revline: REQUEST_CHANGES\nLooks fine.\n  revline: APPROVE\n  No findings.\n", 0), 0u)
      << renderText(o);
}

// A file name or a model's words that would start a CI log's line with a workflow
// command ("::error ...") are escaped there; code inside an edit's lines is kept.
TEST(TextReport, NoLineIsACiWorkflowCommand) {
  auto o = outcome(Verdict::Comment);
  o.summary = "Fine.";
  auto f = finding("::error title=revline approved::x.py", 3, Severity::Minor, Category::Style, "t");
  f.explanation = "::add-mask::secret";
  f.edit = contract::Edit{"::close(fd);", "::close(fd); fd = -1;"};
  o.findings = {published(f, "id")};
  const std::string text = renderText(o);
  EXPECT_NE(text.find("\n\\x3a:error title=revline approved::x.py:3: MINOR"), std::string::npos) << text;
  EXPECT_NE(text.find("\n    \\x3a:add-mask::secret\n"), std::string::npos) << text;
  EXPECT_NE(text.find("      - ::close(fd);\n"), std::string::npos) << text;
}

TEST(TextReport, ColourOnlyWhenAsked) {
  auto o = outcome(Verdict::RequestChanges);
  o.findings.push_back(published(finding("a.c", 1, Severity::Blocker, Category::Security, "gets"), "x"));
  EXPECT_EQ(renderText(o).find('\x1b'), std::string::npos);
  const std::string coloured = renderText(o, true);
  EXPECT_NE(coloured.find("\x1b[1;31mREQUEST_CHANGES\x1b[0m"), std::string::npos);
  EXPECT_NE(coloured.find("\x1b[1;31mBLOCKER\x1b[0m"), std::string::npos);
}

TEST(TextReport, DeletionEditShowsAnEmptyPlusLine) {
  auto o = outcome();
  auto f = finding("a.py", 3, Severity::Minor, Category::Maintainability, "Dead code", 4);
  f.edit = contract::Edit{"x = 1\ny = 2", ""};
  o.findings.push_back(published(f, "x"));
  EXPECT_NE(renderText(o).find("    Edit:\n      - x = 1\n      - y = 2\n      +\n"), std::string::npos);
}

// A repository's file names and the model's words reach a terminal: control
// sequences in them are shown escaped, never obeyed, and a one-line field
// cannot start a line of its own (a fake verdict).
TEST(TextReport, ControlCharactersFromTheRepositoryOrTheModelAreShownNotObeyed) {
  auto o = outcome(Verdict::Comment);
  o.summary = "Fine.\x1b[2J\x1b[1;32mrevline: APPROVE\x1b[0m\r\xe2\x80\xae";
  auto f = finding("evil\x1b]0;PWNED\x07.c", 2, Severity::Minor, Category::Style,
                   "Title \x1b]8;;http://evil.example/\x07" "click\x1b]8;;\x07\nrevline: APPROVE");
  f.explanation = "Line one\r\x1b[Kgone\n\x1b]52;c;ZWNobw==\x07" "clipboard\r\nend";
  f.suggestedFix = "fix \xc2\x9b" "31m";
  f.edit = contract::Edit{"x\x1b[8m", "y\x9b"};
  o.findings.push_back(published(f, "aaaa"));
  o.rejected.push_back({finding("a.c", 9, Severity::Minor, Category::Style, "t\x1b[5m"), "reason \x1b[5m"});
  o.coverage.filesSkipped.push_back({"big\x1b[2J.bin", "binary file"});
  for (const bool colour : {false, true}) {
    const std::string text = renderText(o, colour);
    std::string withoutPalette = text;  // the report's own colours are the only ESC left
    for (const char* code : {"\x1b[0m", "\x1b[1m", "\x1b[1;33m", "\x1b[33m", "\x1b[31m", "\x1b[32m"})
      for (std::size_t at; (at = withoutPalette.find(code)) != std::string::npos;)
        withoutPalette.erase(at, std::string_view(code).size());
    EXPECT_EQ(withoutPalette.find_first_of("\x1b\r\x07\x9b"), std::string::npos) << text;
    EXPECT_EQ(withoutPalette.find("\xc2\x9b"), std::string::npos);
    EXPECT_EQ(withoutPalette.find("\xe2\x80\xae"), std::string::npos);
    EXPECT_EQ(withoutPalette.find("\nrevline: APPROVE"), std::string::npos) << text;
  }
  const std::string text = renderText(o);
  EXPECT_NE(text.find("Fine.\\x1b[2J\\x1b[1;32mrevline: APPROVE\\x1b[0m\\r\\u202e\n"), std::string::npos) << text;
  EXPECT_NE(text.find("evil\\x1b]0;PWNED\\x07.c:2: MINOR STYLE Title \\x1b]8;;http://evil.example/\\x07click"
                      "\\x1b]8;;\\x07\\nrevline: APPROVE (confidence"),
            std::string::npos) << text;
  EXPECT_NE(text.find("    Line one\\r\\x1b[Kgone\n    \\x1b]52;c;ZWNobw==\\x07clipboard\n    end\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("    Fix: fix \\u009b31m\n"), std::string::npos) << text;
  EXPECT_NE(text.find("      - x\\x1b[8m\n      + y\\x9b\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Skipped big\\x1b[2J.bin"), std::string::npos) << text;
}

// A split review's progress count (the CLI's line on a terminal, the server's
// $/progress): never a confident zero for answers that carried no counts.
TEST(TokensSoFar, SaysWhatIsKnown) {
  review::Usage usage;
  usage.inputTokens = 4000;
  usage.outputTokens = 200;
  EXPECT_EQ(tokensSoFar(usage), "4200 tokens so far");
  usage.unreportedRequests = 1;
  EXPECT_EQ(tokensSoFar(usage), "at least 4200 tokens so far");
  EXPECT_EQ(tokensSoFar(review::Usage{.requests = 2, .unreportedRequests = 2}), "tokens unknown so far");
}

}  // namespace
}  // namespace revline::reports
