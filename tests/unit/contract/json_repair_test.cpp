// The tolerant reader on its own: positions, pointers, types and repairs.
#include "core/contract/json_repair.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace revline::contract {
namespace {

using ::testing::ElementsAre;
using ::testing::StartsWith;

ReadResult doc(std::string_view text) { return readJsonDocument(text, 0, text.size()); }

TEST(JsonRepair, StrictJsonNeedsNoRepair) {
  const ReadResult r = doc(R"({"a": [1, -2.5e3, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9"], "b": {}})");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.repairs.empty());
  EXPECT_EQ(r.value["a"][0], 1);
  EXPECT_TRUE(r.value["a"][0].is_number_integer());
  EXPECT_DOUBLE_EQ(r.value["a"][1].get<double>(), -2500.0);
  EXPECT_EQ(r.value["a"][5], "x\"\\/\b\f\n\r\t\xC3\xA9");
}

TEST(JsonRepair, ValueEndsWhereItEnds) {
  const std::string text = "xx {\"a\": 1} tail";
  const ReadResult r = readJsonValue(text, 3, text.size());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.end, 11u);
  EXPECT_FALSE(doc(text.substr(3)).ok());  // a document must be the value alone
}

TEST(JsonRepair, OneWarningPerKindOfRepair) {
  const ReadResult r = doc("{a: [1,2,], b: {'c': 3,}, // note\n d: None}");
  ASSERT_TRUE(r.ok()) << r.error;
  std::vector<std::string> codes;
  for (const auto& w : r.repairs) codes.push_back(w.substr(0, w.find(':')));
  EXPECT_THAT(codes, ElementsAre("unquoted_key", "trailing_comma", "single_quoted_string", "comment", "python_literal"));
  EXPECT_THAT(r.repairs[1], StartsWith("trailing_comma: removed a trailing comma (first at line 1, column 10)"));
}

TEST(JsonRepair, DuplicateKeysAreRecorded) {
  const ReadResult r = doc(R"({"f": [{"line": 1, "line": 2}], "a/b": 1, "a/b": 2})");
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r.duplicateKeys, ElementsAre("/a~1b", "/f/0/line"));
  EXPECT_EQ(r.value["f"][0]["line"], 1);
}

TEST(JsonRepair, SyntaxErrorsCarryPointerAndPosition) {
  const ReadResult r = doc("{\"f\": [{\"line\": 1,\n  \"title\": oops}]}");
  EXPECT_EQ(r.status, ReadStatus::Syntax);
  EXPECT_EQ(r.pointer, "/f/0/title");
  EXPECT_EQ(r.error,
            "unquoted text oops is not a JSON value (strings need double quotes) at line 2, column 12");
}

TEST(JsonRepair, TruncationIsNotASyntaxError) {
  for (const char* text : {"{", "[1,", "{\"a\"", "{\"a\":", "\"abc", "\"\\", "\"\\u00", "-", "1.", "1e", "tr", "Fal",
                           "{\"a\": 1 /* c", "\"\xC3", "\"\\ud83d"}) {
    const ReadResult r = doc(text);
    EXPECT_EQ(r.status, ReadStatus::Truncated) << text << ": " << r.error;
  }
}

TEST(JsonRepair, NotRepaired) {
  for (const char* text : {"{\"a\": b}", "{\"a\": 1 \"b\": 2}", "[1 2]", "NaN", "Infinity", "-Infinity", "0x10", "+1",
                           ".5", "01", "1.e5", "{\"a\" 1}", "{1: 2}", "[,]", "{,}", "\"a\\u12G4\"", "1e99999",
                           "\"a\" \"b\"", "{\"a\": 1}}", "undefined"}) {
    const ReadResult r = doc(text);
    EXPECT_EQ(r.status, ReadStatus::Syntax) << text;
    EXPECT_FALSE(r.error.empty());
  }
}

TEST(JsonRepair, StringRepairs) {
  const ReadResult r = doc("['a\"b', \"c\\d\", \"x\ty\", \"\\ud800z\", \"\\udc00\", \"\\ud83d\\ude00\", \"\xFF\"]");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.value[0], "a\"b");
  EXPECT_EQ(r.value[1], "c\\d");
  EXPECT_EQ(r.value[2], "x\ty");
  EXPECT_EQ(r.value[3], "\xEF\xBF\xBDz");
  EXPECT_EQ(r.value[4], "\xEF\xBF\xBD");
  EXPECT_EQ(r.value[5], "\xF0\x9F\x98\x80");
  EXPECT_EQ(r.value[6], "\xEF\xBF\xBD");
  EXPECT_NO_THROW((void)r.value.dump());  // nlohmann would throw on invalid UTF-8
}

TEST(JsonRepair, NumbersKeepTheirKind) {
  const ReadResult r = doc("[46, 46.0, 18446744073709551615, 99999999999999999999, -0]");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.value[0].is_number_integer());
  EXPECT_TRUE(r.value[1].is_number_float());
  EXPECT_TRUE(r.value[2].is_number_unsigned());
  EXPECT_TRUE(r.value[3].is_number_float());
}

TEST(JsonRepair, DeepNestingIsAnErrorNotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const ReadResult r = doc(deep);
  EXPECT_EQ(r.status, ReadStatus::Syntax);
  EXPECT_THAT(r.error, StartsWith("objects and arrays are nested too deeply"));
}

TEST(JsonRepair, DescribePosition) {
  EXPECT_EQ(describePosition("ab\ncd", 4), "line 2, column 2");
  EXPECT_EQ(describePosition("ab", 99), "line 1, column 3");
}

}  // namespace
}  // namespace revline::contract
