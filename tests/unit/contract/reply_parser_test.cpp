// The reply parser against replies.md, one table row per rule: the input text
// and the expected outcome (a report, or an error kind at a JSON Pointer), plus
// the warning a repair must leave.
#include "core/contract/reply_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <optional>

#include "core/contract/serialize.h"
#include "core/contract/validate.h"

#include <random>

namespace revline::contract {
namespace {

using ::testing::HasSubstr;

// A valid reply with one finding; rows change one thing about it.
json baseReport() {
  return json::parse(R"({
    "summary": "Adds a cache in front of the user lookup.",
    "findings": [{
      "file": "src/cache.cpp", "line": 12, "endLine": null, "severity": "MAJOR", "category": "CORRECTNESS",
      "title": "Null dereference on a cache miss", "explanation": "lookup() returns null on a miss and p->id crashes.",
      "suggestedFix": null, "edit": null, "confidence": 0.8
    }],
    "verdict": "REQUEST_CHANGES"})");
}

std::string base() { return baseReport().dump(); }

std::string with(const std::function<void(json&)>& change) {
  json j = baseReport();
  change(j);
  return j.dump();
}

std::string withFinding(const char* key, json value) {
  return with([&](json& j) { j["findings"][0][key] = value; });
}

std::string withoutFinding(const char* key) {
  return with([&](json& j) { j["findings"][0].erase(key); });
}

// Replaces the first occurrence of `from` in the base reply text.
std::string edited(const std::string& from, const std::string& to) {
  std::string s = base();
  const auto at = s.find(from);
  if (at == std::string::npos) throw std::logic_error("test setup: '" + from + "' not in the base reply");
  return s.replace(at, from.size(), to);
}

using Check = std::function<void(const ReviewReport&)>;
const std::string kAnyPointer = "*";

struct Row {
  std::string name;
  std::string input;
  std::optional<ErrorKind> error;  // nullopt: the reply must parse
  std::string pointer;             // of the expected problem; kAnyPointer: not checked
  std::string warning;             // a warning code that must be present ("" none required)
  Check check;                     // further checks on the report
};

Row ok(std::string name, std::string input, std::string warning = "", Check check = {}) {
  return Row{std::move(name), std::move(input), std::nullopt, "", std::move(warning), std::move(check)};
}
Row bad(std::string name, std::string input, ErrorKind kind, std::string pointer = kAnyPointer,
        std::string warning = "") {
  return Row{std::move(name), std::move(input), kind, std::move(pointer), std::move(warning), {}};
}

Check finding(const std::function<void(const Finding&)>& f) {
  return [f](const ReviewReport& r) {
    ASSERT_EQ(r.findings.size(), 1u);
    f(r.findings[0]);
  };
}

const std::string kTruncatedTail = R"({"summary": "Second thoughts.", "findings": [{"file": "src/cache.cpp", "line": 1)";

std::vector<Row> rows() {
  std::vector<Row> r;
  const std::string b = base();

  // §1 Finding the report in the text.
  r.push_back(ok("plain object", b));
  r.push_back(ok("leading BOM", "\xEF\xBB\xBF" + b));
  r.push_back(ok("surrounding whitespace", "\n\n  " + b + "  \n"));
  r.push_back(bad("empty", "", ErrorKind::Empty));
  r.push_back(bad("whitespace only", " \n\t \r\n", ErrorKind::Empty));
  r.push_back(bad("BOM only", "\xEF\xBB\xBF  ", ErrorKind::Empty));
  r.push_back(ok("think block dropped", "<think>Let me draft {\"summary\": 1}</think>\n" + b));
  r.push_back(ok("thinking block dropped, case-insensitive", "<THINKING>hmm</Thinking>" + b));
  r.push_back(ok("several think blocks", "<think>a</think>\n<think>b</think>\n" + b));
  r.push_back(ok("a valid-looking draft in think is not a candidate",
                 "<think>" + with([](json& j) { j["verdict"] = "APPROVE"; }) + "</think>" + b, "",
                 [](const ReviewReport& rep) { EXPECT_EQ(rep.verdict, Verdict::RequestChanges); }));
  // DeepSeek-R1's and Qwen3's templates end the prompt with "<think>\n": a server
  // without a reasoning parser returns the thoughts with only their closing tag.
  r.push_back(bad("a draft before a closing tag nothing opened is not a candidate",
                  "Okay, the change adds ok(). Draft: " + with([](json& j) { j["verdict"] = "APPROVE"; }) +
                      "\n</think>\n\n" + withFinding("severity", "HIGH"),
                  ErrorKind::InvalidEnum, "/findings/0/severity"));
  r.push_back(ok("an answer that quotes a closing tag keeps it",
                 with([](json& j) { j["summary"] = "Strips </think> from replies."; }), "",
                 [](const ReviewReport& rep) { EXPECT_EQ(rep.summary, "Strips </think> from replies."); }));
  r.push_back(ok("prose, then an answer that quotes a closing tag",
                 "Here is the review:\n" + with([](json& j) { j["summary"] = "Strips </think> from replies."; }), "",
                 [](const ReviewReport& rep) { EXPECT_EQ(rep.summary, "Strips </think> from replies."); }));
  r.push_back(ok("thoughts whose closing tag ends their last line",
                 "Okay. Draft: " + with([](json& j) { j["verdict"] = "APPROVE"; }) + "</think>\n" + b, "",
                 [](const ReviewReport& rep) { EXPECT_EQ(rep.verdict, Verdict::RequestChanges); }));
  r.push_back(ok("prose, an answer, then a stray closing tag", "Here it is:\n" + b + "\n</think>\n"));
  r.push_back(ok("prose, an answer, then a closing tag quoted in a last fence",
                 "Here it is:\n" + b + "\nThe parser strips:\n```\n</think>\n```\n"));
  r.push_back(bad("unclosed think block", "<think>Still reasoning about " + b, ErrorKind::Truncated));
  r.push_back(bad("only a think block", "<think>done</think>\n  ", ErrorKind::Empty));
  r.push_back(ok("json fence", "```json\n" + b + "\n```"));
  r.push_back(ok("fence without a language tag", "```\n" + b + "\n```\n"));
  r.push_back(ok("tilde fence", "~~~json\n" + b + "\n~~~"));
  r.push_back(ok("four-backtick fence with an upper-case tag", "````JSON\n" + b + "\n````"));
  r.push_back(ok("fence inside prose", "Here is my review.\n\n```json\n" + b + "\n```\n\nLet me know."));
  r.push_back(ok("unclosed fence runs to the end", "Review:\n```json\n" + b + "\n"));
  r.push_back(ok("code fence before the JSON fence is ignored",
                 "The bug:\n```cpp\nif (p) { use(p); }\n```\n```json\n" + b + "\n```"));
  r.push_back(ok("prose around a bare object", "Sure! Here is the review:\n" + b + "\nHope this helps."));
  r.push_back(ok("stray balanced braces in prose", "I use the {file}:{line} style.\n" + b));
  r.push_back(ok("stray opening brace before the report", "The { on line 3 is odd. " + b));
  r.push_back(ok("citation-like brackets are not candidates", "See [1]. " + b + " [2]"));
  r.push_back(ok("double-encoded report", json(b).dump(), "double_encoded"));
  r.push_back(bad("double-encoded twice is not decoded twice", json(json(b).dump()).dump(), ErrorKind::Shape));
  r.push_back(bad("double-encoded invalid JSON", json(std::string("{\"summary\": ")).dump(), ErrorKind::Syntax));
  r.push_back(bad("valid report then a cut-off correction", b + "\nWait, correction:\n" + kTruncatedTail,
                  ErrorKind::Truncated, "/findings/0"));
  r.push_back(bad("unclosed fence with cut-off JSON", "```json\n" + kTruncatedTail, ErrorKind::Truncated));
  r.push_back(bad("whole reply cut off in a string", R"({"summary": "x", "findings": [{"file": "src/a)",
                  ErrorKind::Truncated, "/findings/0/file"));
  r.push_back(bad("whole reply cut off after a comma", R"({"summary": "x",)", ErrorKind::Truncated));
  r.push_back(bad("cut off inside a literal", R"({"summary": "x", "findings": [], "verdict": nu)", ErrorKind::Truncated));
  r.push_back(bad("cut off inside a comment", R"({"summary": "x", /* more)", ErrorKind::Truncated));
  r.push_back(ok("last valid candidate wins", with([](json& j) { j["verdict"] = "COMMENT"; }) + "\nActually:\n" + b,
                 "multiple_candidates",
                 [](const ReviewReport& rep) { EXPECT_EQ(rep.verdict, Verdict::RequestChanges); }));
  r.push_back(ok("a valid candidate beats a later invalid one",
                 b + "\nOr:\n" + with([](json& j) { j["verdict"] = "MAYBE"; }), "",
                 [](const ReviewReport& rep) { EXPECT_EQ(rep.verdict, Verdict::RequestChanges); }));
  r.push_back(bad("none valid: the error of the last candidate",
                  with([](json& j) { j.erase("verdict"); }) + "\n" + withFinding("severity", "CRITICAL"),
                  ErrorKind::InvalidEnum, "/findings/0/severity"));
  r.push_back(bad("refusal: I'm sorry", "I'm sorry, but I can't help with that.", ErrorKind::Refusal));
  r.push_back(bad("refusal: I cannot", "I cannot review this change.", ErrorKind::Refusal));
  r.push_back(bad("refusal: I am unable", "I am unable to comply.", ErrorKind::Refusal));
  r.push_back(bad("refusal with a typographic apostrophe", "I\xE2\x80\x99m sorry, no.", ErrorKind::Refusal));
  r.push_back(bad("prose without JSON", "The change looks fine to me.", ErrorKind::NoJson));
  r.push_back(bad("only a code fence", "Consider:\n```python\nprint('hi')\n```", ErrorKind::NoJson));
  r.push_back(bad("YAML is not JSON", "summary: fine\nfindings: []\nverdict: APPROVE", ErrorKind::NoJson));
  r.push_back(bad("missing comma in the whole reply", edited(R"(,"verdict")", R"( "verdict")"), ErrorKind::Syntax));
  r.push_back(bad("missing comma in prose: the outer span's error, not an inner object's",
                  "Review: " + edited(R"(,"summary")", R"( "summary")"), ErrorKind::Syntax, ""));
  r.push_back(bad("syntax error in a fence", "```json\n{\"summary\": \"x\" \"findings\": []}\n```", ErrorKind::Syntax));
  r.push_back(ok("a long reply is capped", b + std::string(kMaxReplyBytes, ' '), "reply_too_long"));
  r.push_back(bad("a report longer than the cap is truncated",
                  withFinding("explanation", std::string(kMaxReplyBytes, 'x')), ErrorKind::Truncated));

  // §2 Syntax repairs: accepted, each with a warning.
  r.push_back(ok("trailing comma in an object", edited(R"("REQUEST_CHANGES"})", R"("REQUEST_CHANGES",})"),
                 "trailing_comma"));
  r.push_back(ok("trailing comma in an array", edited(R"(}],)", R"(},],)"), "trailing_comma"));
  r.push_back(ok("line comment", "// the review\n" + edited(R"(,"verdict")", ", // verdict next\n\"verdict\""),
                 "comment"));
  r.push_back(ok("block comment", edited(R"(,"verdict")", R"(, /* the verdict */ "verdict")"), "comment"));
  r.push_back(ok("comment markers inside strings are text", withFinding("title", "a // b /* c */"), "",
                 finding([](const Finding& f) { EXPECT_EQ(f.title, "a // b /* c */"); })));
  r.push_back(ok("single-quoted strings", edited(R"("summary")", "'summary'"), "single_quoted_string"));
  r.push_back(ok("single-quoted string holding a double quote",
                 edited(R"("Null dereference on a cache miss")", R"('say "hi"')"), "single_quoted_string",
                 finding([](const Finding& f) { EXPECT_EQ(f.title, "say \"hi\""); })));
  r.push_back(ok("unquoted keys", edited(R"("summary":)", "summary:"), "unquoted_key"));
  r.push_back(ok("Python None", edited(R"("suggestedFix":null)", R"("suggestedFix":None)"), "python_literal",
                 finding([](const Finding& f) { EXPECT_FALSE(f.suggestedFix); })));
  r.push_back(ok("Python True in an unknown key", edited(R"("summary":)", R"("draft": True, "summary":)"),
                 "python_literal"));
  r.push_back(ok("raw newline in a string", edited("p->id crashes.", "p->id\ncrashes."), "raw_control_character",
                 finding([](const Finding& f) { EXPECT_THAT(f.explanation, HasSubstr("p->id\ncrashes")); })));
  r.push_back(ok("raw tab in a string", edited("p->id crashes.", "p->id\tcrashes."), "raw_control_character"));
  r.push_back(ok("unknown escape kept literally", edited("p->id crashes.", R"(regex \d+ fails.)"), "unknown_escape",
                 finding([](const Finding& f) { EXPECT_THAT(f.explanation, HasSubstr(R"(regex \d+ fails)")); })));
  r.push_back(ok("escaped apostrophe", edited("p->id crashes.", R"(it\'s bad.)"), "unknown_escape",
                 finding([](const Finding& f) { EXPECT_THAT(f.explanation, HasSubstr("it's bad")); })));
  r.push_back(ok("lone high surrogate", edited("p->id crashes.", R"(bad \ud800 char)"), "lone_surrogate",
                 finding([](const Finding& f) { EXPECT_THAT(f.explanation, HasSubstr("bad \xEF\xBF\xBD char")); })));
  r.push_back(ok("lone low surrogate", edited("p->id crashes.", R"(bad \udc00)"), "lone_surrogate"));
  r.push_back(ok("surrogate pair is not a repair", edited("p->id crashes.", R"(\ud83d\ude00)"), "",
                 finding([](const Finding& f) { EXPECT_THAT(f.explanation, HasSubstr("\xF0\x9F\x98\x80")); })));
  r.push_back(ok("invalid UTF-8 becomes U+FFFD", edited("p->id crashes.", "bad \xFF byte"), "invalid_utf8"));

  // §2 Not repaired.
  r.push_back(bad("unquoted string value", edited(R"("MAJOR")", "MAJOR"), ErrorKind::Syntax, "/findings/0/severity"));
  r.push_back(bad("missing comma between fields", edited(R"(,"line")", R"( "line")"), ErrorKind::Syntax));
  r.push_back(bad("unescaped quote inside a string", edited("Null dereference", R"(Null "deref")"), ErrorKind::Syntax));
  r.push_back(bad("NaN", edited("0.8", "NaN"), ErrorKind::Syntax, "/findings/0/confidence"));
  r.push_back(bad("Infinity", edited("0.8", "Infinity"), ErrorKind::Syntax));
  r.push_back(bad("-Infinity", edited("0.8", "-Infinity"), ErrorKind::Syntax));
  r.push_back(bad("hex number", edited(R"("line":12)", R"("line":0xC)"), ErrorKind::Syntax, "/findings/0/line"));
  r.push_back(bad("leading plus", edited(R"("line":12)", R"("line":+12)"), ErrorKind::Syntax));
  r.push_back(bad("leading dot", edited("0.8", ".8"), ErrorKind::Syntax));
  r.push_back(bad("leading zero", edited(R"("line":12)", R"("line":012)"), ErrorKind::Syntax));
  r.push_back(bad("unterminated array is not closed for the model", R"({"summary": "x", "findings": [)",
                  ErrorKind::Truncated, "/findings"));
  r.push_back(bad("unterminated object is not closed for the model", b.substr(0, b.size() - 1), ErrorKind::Truncated));

  // §3 Coercion: keys.
  r.push_back(ok("capitalised key", edited(R"("severity")", R"("Severity")")));
  r.push_back(ok("snake_case key", edited(R"("suggestedFix":null)", R"("suggested_fix":"Check for null.")"), "",
                 finding([](const Finding& f) { EXPECT_EQ(f.suggestedFix, "Check for null."); })));
  r.push_back(ok("kebab-case key", edited(R"("endLine":null)", R"("end-line":13)"), "",
                 finding([](const Finding& f) { EXPECT_EQ(f.endLine, 13); })));
  r.push_back(ok("key with spaces", edited(R"("suggestedFix")", R"("Suggested Fix")")));
  r.push_back(ok("upper-case root keys", edited(R"("summary")", R"("SUMMARY")")));
  r.push_back(bad("two keys that normalise alike", edited(R"("line":12)", R"("line":12,"Line":13)"),
                  ErrorKind::Ambiguous, "/findings/0/line"));
  r.push_back(bad("the same key twice", edited(R"("line":12)", R"("line":12,"line":13)"), ErrorKind::Ambiguous,
                  "/findings/0/line"));
  r.push_back(bad("other names are not aliases", edited(R"("line":12)", R"("line_number":12)"),
                  ErrorKind::MissingField, "/findings/0/line", "unknown_key"));
  r.push_back(ok("unknown key ignored with a warning", edited(R"("line":12)", R"("line":12,"rule":"X1")"),
                 "unknown_key"));

  // §3 Enums.
  r.push_back(ok("lower-case enum", withFinding("severity", "blocker"), "",
                 finding([](const Finding& f) { EXPECT_EQ(f.severity, Severity::Blocker); })));
  r.push_back(ok("enum with surrounding spaces", withFinding("severity", "  Major "), ""));
  r.push_back(ok("enum with spaces inside", with([](json& j) { j["verdict"] = "Request Changes"; }), "",
                 [](const ReviewReport& rep) { EXPECT_EQ(rep.verdict, Verdict::RequestChanges); }));
  r.push_back(ok("enum with hyphens", with([](json& j) { j["verdict"] = "request-changes"; })));
  r.push_back(ok("enum with a run of spaces and hyphens", withFinding("category", "data - loss"), "",
                 finding([](const Finding& f) { EXPECT_EQ(f.category, Category::DataLoss); })));
  r.push_back(bad("no synonyms: CRITICAL", withFinding("severity", "CRITICAL"), ErrorKind::InvalidEnum,
                  "/findings/0/severity"));
  r.push_back(bad("no synonyms: high", withFinding("severity", "high"), ErrorKind::InvalidEnum));
  r.push_back(bad("no synonyms: BUG", withFinding("category", "BUG"), ErrorKind::InvalidEnum, "/findings/0/category"));
  r.push_back(bad("no synonyms: APPROVED", with([](json& j) { j["verdict"] = "APPROVED"; }), ErrorKind::InvalidEnum,
                  "/verdict"));
  r.push_back(bad("enum as a number", withFinding("severity", 1), ErrorKind::Type, "/findings/0/severity"));
  r.push_back(bad("enum null", withFinding("severity", nullptr), ErrorKind::MissingField, "/findings/0/severity"));
  r.push_back(bad("enum absent", withoutFinding("category"), ErrorKind::MissingField, "/findings/0/category"));

  // §3 line and endLine.
  r.push_back(ok("line 46.0", withFinding("line", 46.0), "", finding([](const Finding& f) { EXPECT_EQ(f.line, 46); })));
  r.push_back(ok("line \"46\"", withFinding("line", "46"), "", finding([](const Finding& f) { EXPECT_EQ(f.line, 46); })));
  r.push_back(ok("line 2^31-1", withFinding("line", 2147483647)));
  r.push_back(bad("line 0", withFinding("line", 0), ErrorKind::OutOfRange, "/findings/0/line"));
  r.push_back(bad("negative line", withFinding("line", -3), ErrorKind::OutOfRange, "/findings/0/line"));
  r.push_back(bad("line 2^31", withFinding("line", 2147483648LL), ErrorKind::OutOfRange, "/findings/0/line"));
  r.push_back(bad("line beyond int64", edited(R"("line":12)", R"("line":99999999999999999999)"), ErrorKind::OutOfRange));
  r.push_back(bad("line \"0\"", withFinding("line", "0"), ErrorKind::OutOfRange));
  r.push_back(bad("line 46.5 is never rounded", withFinding("line", 46.5), ErrorKind::Type, "/findings/0/line"));
  r.push_back(bad("line range as a string", withFinding("line", "77-82"), ErrorKind::Type, "/findings/0/line"));
  r.push_back(bad("line as words", withFinding("line", "line 4"), ErrorKind::Type));
  r.push_back(bad("line true", withFinding("line", true), ErrorKind::Type));
  r.push_back(bad("line absent", withoutFinding("line"), ErrorKind::MissingField, "/findings/0/line"));
  r.push_back(bad("line null", withFinding("line", nullptr), ErrorKind::MissingField, "/findings/0/line"));
  r.push_back(ok("endLine absent reads as null", withoutFinding("endLine"), "",
                 finding([](const Finding& f) { EXPECT_FALSE(f.endLine); })));
  r.push_back(ok("endLine \"14\"", withFinding("endLine", "14"), "",
                 finding([](const Finding& f) { EXPECT_EQ(f.endLine, 14); })));
  r.push_back(ok("endLine equal to line", withFinding("endLine", 12)));
  r.push_back(bad("endLine before line", withFinding("endLine", 11), ErrorKind::OutOfRange, "/findings/0/endLine"));
  r.push_back(bad("endLine 0", withFinding("endLine", 0), ErrorKind::OutOfRange, "/findings/0/endLine"));
  r.push_back(bad("endLine 12.5", withFinding("endLine", 12.5), ErrorKind::Type, "/findings/0/endLine"));
  r.push_back(bad("endLine as an array", withFinding("endLine", json::array({12, 14})), ErrorKind::Type));

  // §3 confidence.
  r.push_back(ok("confidence \"0.9\"", withFinding("confidence", "0.9"), "",
                 finding([](const Finding& f) { EXPECT_DOUBLE_EQ(f.confidence, 0.9); })));
  r.push_back(ok("confidence \"90%\"", withFinding("confidence", "90%"), "",
                 finding([](const Finding& f) { EXPECT_DOUBLE_EQ(f.confidence, 0.9); })));
  r.push_back(ok("confidence 0", withFinding("confidence", 0)));
  r.push_back(ok("confidence 1", withFinding("confidence", 1)));
  r.push_back(bad("bare 90", withFinding("confidence", 90), ErrorKind::OutOfRange, "/findings/0/confidence"));
  r.push_back(bad("confidence 1.2", withFinding("confidence", 1.2), ErrorKind::OutOfRange, "/findings/0/confidence"));
  r.push_back(bad("confidence -0.1", withFinding("confidence", -0.1), ErrorKind::OutOfRange));
  r.push_back(bad("confidence \"150%\"", withFinding("confidence", "150%"), ErrorKind::OutOfRange));
  r.push_back(bad("confidence \"high\"", withFinding("confidence", "high"), ErrorKind::Type, "/findings/0/confidence"));
  r.push_back(bad("confidence \"0,9\"", withFinding("confidence", "0,9"), ErrorKind::Type));
  r.push_back(bad("confidence absent", withoutFinding("confidence"), ErrorKind::MissingField));
  r.push_back(bad("confidence false", withFinding("confidence", false), ErrorKind::Type));

  // §3 suggestedFix and edit.
  r.push_back(ok("suggestedFix absent", withoutFinding("suggestedFix")));
  r.push_back(ok("blank suggestedFix reads as null", withFinding("suggestedFix", "  \n"), "",
                 finding([](const Finding& f) { EXPECT_FALSE(f.suggestedFix); })));
  r.push_back(ok("empty suggestedFix reads as null", withFinding("suggestedFix", ""), "",
                 finding([](const Finding& f) { EXPECT_FALSE(f.suggestedFix); })));
  r.push_back(bad("suggestedFix as a number", withFinding("suggestedFix", 5), ErrorKind::Type, "/findings/0/suggestedFix"));
  r.push_back(ok("edit absent", withoutFinding("edit")));
  r.push_back(ok("edit object", withFinding("edit", {{"original", "use(p);"}, {"replacement", "if (p) use(p);"}}), "",
                 finding([](const Finding& f) {
                   ASSERT_TRUE(f.edit);
                   EXPECT_EQ(f.edit->replacement, "if (p) use(p);");
                 })));
  r.push_back(ok("edit that deletes the lines", withFinding("edit", {{"original", "use(p);"}, {"replacement", ""}})));
  r.push_back(bad("edit as a string", withFinding("edit", "replace use(p)"), ErrorKind::Type, "/findings/0/edit"));
  r.push_back(bad("edit with an empty original", withFinding("edit", {{"original", ""}, {"replacement", "x"}}),
                  ErrorKind::EmptyString, "/findings/0/edit/original"));
  r.push_back(bad("edit that changes nothing", withFinding("edit", {{"original", "a"}, {"replacement", "a"}}),
                  ErrorKind::OutOfRange, "/findings/0/edit/replacement"));
  r.push_back(bad("edit without a replacement", withFinding("edit", {{"original", "a"}}), ErrorKind::MissingField,
                  "/findings/0/edit/replacement"));

  // §3 strings.
  r.push_back(bad("summary absent", with([](json& j) { j.erase("summary"); }), ErrorKind::MissingField, "/summary"));
  r.push_back(bad("summary null", with([](json& j) { j["summary"] = nullptr; }), ErrorKind::MissingField, "/summary"));
  r.push_back(bad("summary blank", with([](json& j) { j["summary"] = " \t"; }), ErrorKind::EmptyString, "/summary"));
  r.push_back(bad("summary as a number is never turned into a string", with([](json& j) { j["summary"] = 42; }),
                  ErrorKind::Type, "/summary"));
  r.push_back(ok("strings are kept verbatim", withFinding("title", "  Padded title  "), "",
                 finding([](const Finding& f) { EXPECT_EQ(f.title, "  Padded title  "); })));
  r.push_back(ok("title of 120 characters", withFinding("title", std::string(120, 't'))));
  r.push_back(ok("title of 120 two-byte characters", withFinding("title", [] {
                   std::string s;
                   for (int i = 0; i < 120; ++i) s += "\xC3\xA9";
                   return s;
                 }())));
  r.push_back(bad("title of 121 characters", withFinding("title", std::string(121, 't')), ErrorKind::OutOfRange,
                  "/findings/0/title"));
  r.push_back(bad("title empty", withFinding("title", ""), ErrorKind::EmptyString, "/findings/0/title"));
  r.push_back(bad("file blank", withFinding("file", "   "), ErrorKind::EmptyString, "/findings/0/file"));
  r.push_back(bad("file as a number", withFinding("file", 7), ErrorKind::Type, "/findings/0/file"));
  r.push_back(bad("explanation absent", withoutFinding("explanation"), ErrorKind::MissingField,
                  "/findings/0/explanation"));
  r.push_back(bad("explanation as an array", withFinding("explanation", json::array({"a", "b"})), ErrorKind::Type));

  // §3 findings, verdict, root.
  r.push_back(ok("no findings", with([](json& j) { j["findings"] = json::array(); }), "",
                 [](const ReviewReport& rep) { EXPECT_TRUE(rep.findings.empty()); }));
  r.push_back(bad("findings null is not \"no findings\"", with([](json& j) { j["findings"] = nullptr; }),
                  ErrorKind::MissingField, "/findings"));
  r.push_back(bad("findings absent", with([](json& j) { j.erase("findings"); }), ErrorKind::MissingField, "/findings"));
  r.push_back(bad("findings as one object", with([](json& j) { j["findings"] = j["findings"][0]; }), ErrorKind::Shape,
                  "/findings"));
  r.push_back(bad("findings as a string", with([](json& j) { j["findings"] = "none"; }), ErrorKind::Shape, "/findings"));
  r.push_back(bad("a finding that is not an object", with([](json& j) { j["findings"].push_back("x"); }),
                  ErrorKind::Shape, "/findings/1"));
  r.push_back(bad("verdict absent is never inferred", with([](json& j) { j.erase("verdict"); }),
                  ErrorKind::MissingField, "/verdict"));
  r.push_back(bad("verdict null", with([](json& j) { j["verdict"] = nullptr; }), ErrorKind::MissingField, "/verdict"));
  r.push_back(bad("report in an array is not unwrapped", "[" + b + "]", ErrorKind::Shape, ""));
  r.push_back(bad("report in an array in prose", "Result: [" + b + "]", ErrorKind::Shape, ""));
  r.push_back(bad("top-level array", R"([{"file": "a"}])", ErrorKind::Shape, ""));
  r.push_back(bad("envelope is not unwrapped", "{\"review\": " + b + "}", ErrorKind::MissingField, "/summary",
                  "unknown_key"));
  r.push_back(bad("a JSON string that is not a report", R"("The change is fine.")", ErrorKind::Shape, ""));
  r.push_back(bad("a number", "42", ErrorKind::Shape, ""));
  return r;
}

bool hasWarning(const ReplyParse& p, const std::string& code) {
  for (const auto& w : p.warnings)
    if (w.rfind(code + ":", 0) == 0) return true;
  return false;
}

std::string describe(const ReplyParse& p) {
  std::string out = p.ok() ? "ok" : "failed";
  for (const auto& pr : p.problems) out += "\n  problem [" + std::string(toString(pr.kind)) + "] " + pr.message;
  for (const auto& w : p.warnings) out += "\n  warning " + w;
  return out;
}

TEST(ReplyParserTable, EveryRow) {
  const auto table = rows();
  EXPECT_GE(table.size(), 100u);
  for (const Row& row : table) {
    SCOPED_TRACE(row.name);
    const ReplyParse p = parseReply(row.input);
    if (!row.error) {
      ASSERT_TRUE(p.ok()) << describe(p);
      EXPECT_TRUE(p.problems.empty());
      if (row.check) row.check(*p.report);
    } else {
      ASSERT_FALSE(p.ok()) << describe(p);
      bool found = false;
      for (const auto& pr : p.problems) found |= pr.kind == *row.error && (row.pointer == kAnyPointer || pr.pointer == row.pointer);
      EXPECT_TRUE(found) << "expected [" << toString(*row.error) << "] at '" << row.pointer << "', got "
                         << describe(p);
    }
    if (!row.warning.empty()) {
      EXPECT_TRUE(hasWarning(p, row.warning)) << describe(p);
    }
  }
}

TEST(ReplyParser, WarningsOnlyForRepairsMade) {
  const ReplyParse p = parseReply(base());
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p.warnings.empty()) << describe(p);
}

TEST(ReplyParser, EqualCandidatesDoNotWarn) {
  const ReplyParse p = parseReply(base() + "\nAgain:\n```json\n" + base() + "\n```");
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(hasWarning(p, "multiple_candidates")) << describe(p);
}

TEST(ReplyParser, CollectsEveryProblemOfACandidate) {
  const std::string input = with([](json& j) {
    j["summary"] = "";
    j["findings"][0]["line"] = 0;
    j["findings"][0]["severity"] = "CRITICAL";
    j["findings"][0]["confidence"] = "high";
    j["verdict"] = nullptr;
  });
  const ReplyParse p = parseReply(input);
  ASSERT_FALSE(p.ok());
  std::vector<std::string> messages;
  for (const auto& pr : p.problems) messages.push_back(pr.message);
  EXPECT_EQ(messages, (std::vector<std::string>{
                          R"(/summary: got "", expected non-blank text)",
                          "/findings/0/line: got 0, expected a new-file line number >= 1",
                          R"(/findings/0/severity: "CRITICAL" is not one of BLOCKER, MAJOR, MINOR, NIT)",
                          R"(/findings/0/confidence: "high" is not a number)",
                          "/verdict: null is not allowed, expected one of APPROVE, COMMENT, REQUEST_CHANGES",
                      }));
}

TEST(ReplyParser, MessagesNameValueAndRule) {
  auto firstMessage = [](const std::string& input) {
    const ReplyParse p = parseReply(input);
    return p.problems.empty() ? std::string("<parsed>") : p.problems.front().message;
  };
  EXPECT_EQ(firstMessage(withFinding("line", "77-82")),
            R"(/findings/0/line: "77-82" is not a new-file line number (one integer))");
  EXPECT_EQ(firstMessage(withFinding("confidence", 90)),
            "/findings/0/confidence: got 90, expected a number from 0.0 to 1.0 (write 0.9 for 90%)");
  EXPECT_EQ(firstMessage(withFinding("endLine", 11)),
            "/findings/0/endLine: got 11, expected null or a new-file line number >= line (12)");
  EXPECT_EQ(firstMessage(with([](json& j) { j["findings"] = nullptr; })),
            "/findings: null is not allowed, expected an array (send [] when there is nothing)");
  EXPECT_EQ(firstMessage(edited(R"("line":12)", R"("line":12,"Line":13)")),
            R"(/findings/0/line: keys "Line" and "line" both name the field "line"; send it once)");
  // Long values are cut for the model, on a UTF-8 boundary.
  const std::string msg = firstMessage(withFinding("severity", std::string(200, 'X')));
  EXPECT_LT(msg.size(), 160u);
  EXPECT_THAT(msg, HasSubstr("XXX… is not one of"));
}

TEST(ReplyParser, SyntaxErrorsSayWhereAndWhat) {
  const ReplyParse p = parseReply("{\"summary\": \"x\"\n \"findings\": []}");
  ASSERT_EQ(p.problems.size(), 1u);
  EXPECT_EQ(p.problems[0].kind, ErrorKind::Syntax);
  EXPECT_EQ(p.problems[0].message,
            "invalid JSON: expected ',' or '}' after the value of \"summary\", got '\"' (a missing comma, or an "
            "unescaped quote inside a string?) at line 2, column 2");
}

TEST(ReplyParser, TruncatedMessageNamesWhere) {
  const ReplyParse p = parseReply(R"({"summary": "x", "findings": [{"file": "src/a)");
  ASSERT_EQ(p.problems.size(), 1u);
  EXPECT_EQ(p.problems[0].message,
            "/findings/0/file: the reply ends inside a string: the reply was cut off before the JSON was complete");
}

TEST(ReplyParser, ErrorKindNames) {
  EXPECT_EQ(toString(ErrorKind::NoJson), "no_json");
  EXPECT_EQ(toString(ErrorKind::MissingField), "missing_field");
  EXPECT_EQ(toString(ErrorKind::EmptyString), "empty_string");
  EXPECT_EQ(toString(ErrorKind::InvalidEnum), "invalid_enum");
  EXPECT_EQ(toString(ErrorKind::OutOfRange), "out_of_range");
  EXPECT_EQ(toString(ErrorKind::Ambiguous), "ambiguous");
}

// Random damage to a valid reply (cuts, deletions, insertions, swaps) must end
// in a report or in problems, never a crash, and a report it gives is valid
// and serialisable. Fixed seed: deterministic.
TEST(ReplyParser, DamagedRepliesNeverCrash) {
  std::mt19937 rng(7);
  const std::string original = "Review:\n```json\n" + with([](json& j) {
    j["findings"][0]["edit"] = {{"original", "p->id"}, {"replacement", "p ? p->id : 0"}};
    j["findings"][0]["title"] = "Quote \" brace { fence ``` \u00e9";
  }) + "\n```\n";
  const std::string alphabet = "{}[]\",:'\\/*` \n0123456789aeTtNnu-.%\xC3\xA9\xFF";
  int parsed = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string s = original;
    const int edits = std::uniform_int_distribution<int>(1, 4)(rng);
    for (int e = 0; e < edits && !s.empty(); ++e) {
      const std::size_t at = std::uniform_int_distribution<std::size_t>(0, s.size() - 1)(rng);
      switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
        case 0: s.resize(at); break;
        case 1: s.erase(at, 1); break;
        case 2: s.insert(at, 1, alphabet[std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(rng)]); break;
        default: s[at] = alphabet[std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(rng)]; break;
      }
    }
    const ReplyParse p = parseReply(s);
    if (p.ok()) {
      ++parsed;
      EXPECT_TRUE(p.problems.empty());
      EXPECT_TRUE(validate(*p.report).empty()) << s;
      EXPECT_NO_THROW((void)toJson(*p.report).dump()) << s;
    } else {
      EXPECT_FALSE(p.problems.empty()) << s;
      for (const auto& pr : p.problems) EXPECT_FALSE(pr.message.empty());
    }
  }
  EXPECT_GT(parsed, 0);  // some damage lands in prose or is a repair
}

TEST(ReplyParser, HostileInputsDoNotCrash) {
  const std::vector<std::string> inputs = {
      std::string(100000, '{'), std::string(100000, '['), std::string(50000, '"'), "{\"a\":" + std::string(5000, '['),
      std::string("\0\0\0", 3), "```", "~~~~", "<think>", "</think>", "{'", "\\u", "\"\\ud800", "{\"a\": \"\\u12",
      std::string(3000, '{') + std::string(3000, '}'), "[" + std::string(2000, ' ') + "1e99999]",
  };
  for (const auto& in : inputs) {
    const ReplyParse p = parseReply(in);
    EXPECT_FALSE(p.ok());
    EXPECT_FALSE(p.problems.empty());
  }
}

}  // namespace
}  // namespace revline::contract
