// Serialization, and the round trip through the reply parser: a report written
// by toJson reads back equal, however a model wraps it.
#include "core/contract/serialize.h"

#include <gtest/gtest.h>

#include <random>

#include "core/contract/reply_parser.h"
#include "core/contract/validate.h"

namespace revline::contract {
namespace {

ReviewReport sample() {
  ReviewReport r;
  r.summary = "Adds retries.";
  r.verdict = Verdict::RequestChanges;
  Finding a;
  a.file = "src/net.cpp";
  a.line = 40;
  a.endLine = 42;
  a.severity = Severity::Blocker;
  a.category = Category::DataLoss;
  a.title = "Retry drops the body";
  a.explanation = "The stream is consumed on the first try.";
  a.suggestedFix = "Buffer the body.";
  a.edit = Edit{"send(body);", "send(copy);"};
  a.confidence = 0.82;
  Finding b;
  b.file = "README.md";
  b.line = 1;
  b.severity = Severity::Nit;
  b.category = Category::Style;
  b.title = "Typo";
  b.explanation = "teh";
  b.confidence = 0.5;
  r.findings = {a, b};
  return r;
}

TEST(Serialize, WireNamesEnumsAndNulls) {
  const json j = toJson(sample());
  EXPECT_EQ(j["verdict"], "REQUEST_CHANGES");
  EXPECT_EQ(j["findings"][0]["severity"], "BLOCKER");
  EXPECT_EQ(j["findings"][0]["category"], "DATA_LOSS");
  EXPECT_EQ(j["findings"][0]["endLine"], 42);
  EXPECT_EQ(j["findings"][0]["edit"], json({{"original", "send(body);"}, {"replacement", "send(copy);"}}));
  EXPECT_TRUE(j["findings"][1]["endLine"].is_null());
  EXPECT_TRUE(j["findings"][1]["suggestedFix"].is_null());
  EXPECT_TRUE(j["findings"][1]["edit"].is_null());
  EXPECT_EQ(j["findings"][1].size(), 10u);  // nulls are written, never omitted
  const json viaAdl = sample();
  EXPECT_EQ(viaAdl, j);
  EXPECT_EQ(toJson(sample().findings[0]), j["findings"][0]);
}

TEST(Serialize, RoundTripsThroughTheParser) {
  const ReviewReport r = sample();
  const ReplyParse p = parseReply(toJson(r).dump(2));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p.report, r);
  EXPECT_TRUE(p.warnings.empty());
}

TEST(Enums, NamesAndExactParsing) {
  for (const auto& [v, name] : EnumTable<Severity>::names) {
    EXPECT_EQ(toString(v), name);
    EXPECT_EQ(parseSeverity(name), v);
  }
  for (const auto& [v, name] : EnumTable<Category>::names) EXPECT_EQ(parseCategory(toString(v)), v);
  for (const auto& [v, name] : EnumTable<Verdict>::names) EXPECT_EQ(parseVerdict(toString(v)), v);
  EXPECT_EQ(toString(Verdict::RequestChanges), "REQUEST_CHANGES");
  EXPECT_EQ(parseSeverity("blocker"), std::nullopt);  // canonical spelling only
  EXPECT_EQ(parseSeverity("CRITICAL"), std::nullopt);
  EXPECT_EQ(parseSeverity(""), std::nullopt);
  EXPECT_EQ(parseVerdict("APPROVED"), std::nullopt);
  EXPECT_EQ(allowedNames<Verdict>(), "APPROVE, COMMENT, REQUEST_CHANGES");
}

// Property: random valid reports, serialised and wrapped the ways models wrap
// them, parse back equal. Fixed seed: deterministic.
class RandomReports {
 public:
  explicit RandomReports(unsigned seed) : rng_(seed) {}

  ReviewReport next() {
    ReviewReport r;
    r.summary = text(1, 60);
    r.verdict = pick(EnumTable<Verdict>::names);
    const int n = between(0, 4);
    for (int i = 0; i < n; ++i) r.findings.push_back(finding());
    return r;
  }

 private:
  Finding finding() {
    Finding f;
    f.file = text(1, 30);
    f.line = chance(10) ? 2147483647 : between(1, 5000);
    if (chance(2)) f.endLine = f.line + between(0, 30);
    if (f.endLine && *f.endLine > 2147483647) f.endLine = f.line;
    f.severity = pick(EnumTable<Severity>::names);
    f.category = pick(EnumTable<Category>::names);
    f.title = text(1, 120);
    f.explanation = text(1, 300);
    if (chance(2)) f.suggestedFix = text(1, 80);
    if (chance(3)) f.edit = Edit{text(1, 40), chance(4) ? "" : "//" + text(1, 40)};
    f.confidence = chance(8) ? (chance(2) ? 0.0 : 1.0) : std::uniform_real_distribution<double>(0, 1)(rng_);
    return f;
  }

  int between(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(int oneIn) { return between(1, oneIn) == 1; }
  template <class E, std::size_t N>
  E pick(const std::array<std::pair<E, std::string_view>, N>& t) {
    return t[static_cast<std::size_t>(between(0, static_cast<int>(N) - 1))].first;
  }
  // Non-blank text of 1..max code points, with the characters that break naive
  // extraction: quotes, braces, fences, think tags, backslashes, newlines.
  std::string text(int min, int max) {
    static const std::vector<std::string> pieces = {
        "a", "b", "Z", "0", " ", "\n", "\t", "\"", "'", "\\", "{", "}", "[", "]", "```", "~~~", "<think>", "</think>",
        "//", "/*", "*/", ",", ":", "\xC3\xA9", "\xF0\x9F\x98\x80", "\xE2\x80\x99", "I'm sorry"};
    std::string out = "x";  // never blank
    int count = 1;
    const int target = between(min, max);
    while (count < target) {
      const std::string& piece = pieces[static_cast<std::size_t>(between(0, static_cast<int>(pieces.size()) - 1))];
      int cps = 0;
      for (char c : piece) cps += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
      if (count + cps > max) break;
      out += piece;
      count += cps;
    }
    return out;
  }

  std::mt19937 rng_;
};

TEST(Serialize, PropertyRandomReportsSurviveWrapping) {
  RandomReports gen(20261129);
  const std::vector<std::function<std::string(const std::string&)>> wrappers = {
      [](const std::string& j) { return j; },
      [](const std::string& j) { return "```json\n" + j + "\n```"; },
      [](const std::string& j) { return "Here is the review:\n\n```\n" + j + "\n```\n\nThanks!"; },
      [](const std::string& j) { return "~~~~json\n" + j + "\n~~~~\n"; },
      [](const std::string& j) { return "Sure, {reviewing} now. " + j + " Done [1]."; },
      [](const std::string& j) { return "<think>Draft: {\"summary\": \"no\"</think>\n" + j; },
      [](const std::string& j) { return "\xEF\xBB\xBF<thinking>hmm { [</thinking>```json\n" + j + "\n```"; },
      [](const std::string& j) { return "The report:\n```json\n" + j; },  // unclosed fence
  };
  for (int i = 0; i < 250; ++i) {
    const ReviewReport r = gen.next();
    ASSERT_TRUE(validate(r).empty()) << "generator made an invalid report #" << i;
    const json j = toJson(r);
    for (std::size_t w = 0; w < wrappers.size(); ++w) {
      for (int indent : {-1, 2}) {
        const std::string input = wrappers[w](j.dump(indent));
        const ReplyParse p = parseReply(input);
        ASSERT_TRUE(p.ok()) << "report #" << i << " wrapper " << w << ": "
                            << (p.problems.empty() ? "" : p.problems[0].message) << "\n" << input;
        ASSERT_EQ(*p.report, r) << "report #" << i << " wrapper " << w;
        EXPECT_TRUE(p.warnings.empty()) << p.warnings.front();
      }
    }
    // Double encoding is decoded once, with a warning.
    const ReplyParse twice = parseReply(json(j.dump()).dump());
    ASSERT_TRUE(twice.ok());
    EXPECT_EQ(*twice.report, r);
  }
}

}  // namespace
}  // namespace revline::contract
