// The token estimate (bytes / 3) of a request: what it counts, and how far it
// is from real tokenizer counts. The fixtures are samples of this repository
// (code, an annotated diff, prose, dense string literals) with their counts
// under o200k_base and cl100k_base, measured offline when they were committed
// (fixtures/tokens/counts.json); docs/PROVIDERS.md "Token budget" gives the
// figures over the whole repository.
#include "core/review/token_estimate.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace revline::review {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(REVLINE_SOURCE_DIR) + "/tests/unit/review/fixtures/tokens/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(TokenEstimate, ThreeBytesATokenRoundedUp) {
  EXPECT_EQ(estimateTokens(""), 0);
  EXPECT_EQ(estimateTokens("abc"), 1);
  EXPECT_EQ(estimateTokens("abcd"), 2);
  EXPECT_EQ(estimateTokens(std::string(3000, 'x')), 1000);
}

// A Latin-1 or binary-ish file reaches the model as one U+FFFD per bad byte,
// and a control character as a JSON escape: a token each, not a third of one.
TEST(TokenEstimate, BytesThatAreNotTextCountATokenEach) {
  EXPECT_EQ(estimateTokens(std::string(300, '\xe9')), 300);       // Latin-1 "é" alone
  EXPECT_EQ(estimateTokens(std::string(300, '\0')), 300);         // NUL bytes
  EXPECT_EQ(estimateTokens(std::string(100, '\x1b')), 100);       // ESC
  EXPECT_EQ(estimateTokens("r\xe9sum\xe9"), 4);                    // 4 text bytes + 2 bad ones: (4 + 6) / 3, up
  EXPECT_EQ(estimateTokens("caf\xc3\xa9\n\tok"), 3);               // valid UTF-8, newline and tab: bytes as usual
  EXPECT_EQ(estimateTokens("\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"), 3);  // three euro signs
}

TEST(TokenEstimate, ARequestCountsEverythingItHolds) {
  ModelRequest r;
  r.system = std::string(300, 's');
  const std::int64_t bare = estimateTokens(r);
  EXPECT_EQ(bare, 100 + kMessageOverheadTokens);
  r.messages.push_back({Role::User, std::string(600, 'u'), {}, {}});
  EXPECT_EQ(estimateTokens(r), bare + 200 + kMessageOverheadTokens);
  const std::int64_t withUser = estimateTokens(r);
  r.messages.push_back({Role::Tool, "", {}, {{"call-1", "read_file", true, std::string(900, 'r')}}});
  EXPECT_GE(estimateTokens(r), withUser + 300);
  const std::int64_t withTool = estimateTokens(r);
  r.schema = nlohmann::ordered_json{{"type", "object"}, {"description", std::string(300, 'd')}};
  EXPECT_GE(estimateTokens(r), withTool + 100);
  const std::int64_t withSchema = estimateTokens(r);
  r.tools.push_back({"read_file", std::string(150, 't'), json{{"type", "object"}}});
  EXPECT_GE(estimateTokens(r), withSchema + 50);
}

// Against real tokenizers: over-counts code, diffs and prose; under-counts
// only dense literals (keys, hashes), by at most a quarter.
TEST(TokenEstimate, ErrsOnTheSafeSideOfRealTokenizersExceptOnDenseLiterals) {
  const json counts = json::parse(fixture("counts.json"));
  for (const auto& [name, c] : counts.items()) {
    const std::string text = fixture(name);
    ASSERT_EQ(static_cast<std::int64_t>(text.size()), c["bytes"].get<std::int64_t>()) << name << " changed";
    const double estimate = static_cast<double>(estimateTokens(text));
    for (const char* tokenizer : {"o200k_base", "cl100k_base"}) {
      const double real = c[tokenizer].get<double>();
      if (name == "dense_literals.txt") {
        EXPECT_GE(estimate, 0.7 * real) << name << " " << tokenizer;
      } else {
        EXPECT_GE(estimate, real) << name << " " << tokenizer;  // never under
        EXPECT_LE(estimate, 1.6 * real) << name << " " << tokenizer;
      }
    }
  }
}

}  // namespace
}  // namespace revline::review
