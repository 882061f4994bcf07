// RedactingProvider: every outgoing text is redacted for a remote provider, and
// nothing is touched for a local one.
#include <gtest/gtest.h>

#include "core/providers/redacting_provider.h"

namespace revline::providers {
namespace {

const std::string kSecret = "AKIAZ7QXK2LM4PN8RT5W";

class Recorder : public review::Provider {
 public:
  explicit Recorder(bool remote) : remote_(remote) {}
  std::string name() const override { return "recorder"; }
  std::string model() const override { return "m"; }
  bool remote() const override { return remote_; }
  review::ModelResponse complete(const review::ModelRequest& request, const CancelToken&) override {
    seen.push_back(request);
    return {};
  }
  std::vector<review::ModelRequest> seen;

 private:
  bool remote_;
};

review::ModelRequest requestWithSecrets() {
  review::ModelRequest r;
  r.system = "system " + kSecret;
  r.messages.push_back({review::Role::User, "diff + aws = \"" + kSecret + "\"", {}, {}});
  r.messages.push_back({review::Role::Assistant, "I saw " + kSecret,
                        {{"c1", "search_text", {{"query", kSecret}, {"nested", {kSecret}}}}}, {}});
  r.messages.push_back({review::Role::Tool, "", {}, {{"c1", "search_text", true, "a.txt:1: " + kSecret}}});
  return r;
}

TEST(Redacting, RemoteProvidersNeverSeeSecrets) {
  auto inner = std::make_unique<Recorder>(true);
  Recorder* rec = inner.get();
  auto provider = redactIfRemote(std::move(inner));
  EXPECT_NE(dynamic_cast<RedactingProvider*>(provider.get()), nullptr);
  EXPECT_EQ(provider->name(), "recorder");
  provider->complete(requestWithSecrets(), CancelToken());
  ASSERT_EQ(rec->seen.size(), 1u);
  const auto& r = rec->seen[0];
  EXPECT_EQ(r.system, "system [REDACTED:aws-access-key]");
  EXPECT_EQ(r.messages[0].text, "diff + aws = \"[REDACTED:aws-access-key]\"");
  EXPECT_EQ(r.messages[1].text, "I saw [REDACTED:aws-access-key]");
  EXPECT_EQ(r.messages[1].toolCalls[0].arguments["query"], "[REDACTED:aws-access-key]");
  EXPECT_EQ(r.messages[1].toolCalls[0].arguments["nested"][0], "[REDACTED:aws-access-key]");
  EXPECT_EQ(r.messages[2].toolResults[0].content, "a.txt:1: [REDACTED:aws-access-key]");
}

// The key revline sends is redacted whole and in pieces of 12 characters or
// more (a log line cut inside it), when it reads as random; a "key" that is a
// word or a host (a gateway's) is left alone, or ordinary code was mangled.
TEST(Redacting, TheKeySentIsRedactedWhenItReadsAsRandom) {
  const std::string key = "Zq81LmWv9Tn4Kd8Hc3Jg6";
  auto send = [](const std::string& apiKey, const std::string& text) {
    auto inner = std::make_unique<Recorder>(true);
    Recorder* rec = inner.get();
    RedactingProvider provider(std::move(inner), {}, apiKey);
    review::ModelRequest r;
    r.messages.push_back({review::Role::User, text, {}, {}});
    provider.complete(r, CancelToken());
    return rec->seen.at(0).messages.at(0).text;
  };
  EXPECT_EQ(send(key, "called with " + key + " ok"), "called with [REDACTED:api-key] ok");
  EXPECT_EQ(send(key, "prefix " + key.substr(0, 14) + " suffix " + key.substr(8)),
            "prefix [REDACTED:api-key] suffix [REDACTED:api-key]");
  EXPECT_EQ(send("authorizationauthorization", "def authorizationauthorization_header(): pass"),
            "def authorizationauthorization_header(): pass");
  EXPECT_EQ(send("localhost:8080", "url = 'http://localhost:8080/v1'"), "url = 'http://localhost:8080/v1'");
}

TEST(Redacting, LocalProvidersAreUntouched) {
  Recorder* rec = nullptr;
  {
    auto inner = std::make_unique<Recorder>(false);
    rec = inner.get();
    RedactingProvider provider(std::move(inner));
    provider.complete(requestWithSecrets(), CancelToken());
    ASSERT_EQ(rec->seen.size(), 1u);
    EXPECT_EQ(rec->seen[0].system, "system " + kSecret);
    EXPECT_EQ(rec->seen[0].messages[2].toolResults[0].content, "a.txt:1: " + kSecret);
  }
}

TEST(Redacting, CustomRedactor) {
  auto inner = std::make_unique<Recorder>(true);
  Recorder* rec = inner.get();
  RedactingProvider provider(std::move(inner), [](std::string_view) { return std::string("x"); });
  provider.complete(requestWithSecrets(), CancelToken());
  EXPECT_EQ(rec->seen[0].messages[0].text, "x");
}

}  // namespace
}  // namespace revline::providers
