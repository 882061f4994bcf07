#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/config/config.h"

namespace revline::config {
namespace {

const std::filesystem::path kSchemaFile = std::filesystem::path(REVLINE_SOURCE_DIR) / "docs" / "revline.schema.json";

TEST(ConfigSchema, ShippedFileIsUpToDate) {
  const json schema = configSchema();
  if (std::getenv("REVLINE_UPDATE_SCHEMA")) {
    std::ofstream(kSchemaFile, std::ios::binary | std::ios::trunc) << schema.dump(2) << "\n";
  }
  std::ifstream in(kSchemaFile, std::ios::binary);
  ASSERT_TRUE(in) << kSchemaFile << " is missing";
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), schema.dump(2) + "\n")
      << kSchemaFile << " differs from configSchema(); regenerate it with "
      << "REVLINE_UPDATE_SCHEMA=1 and this test binary, and commit the result";
}

TEST(ConfigSchema, ClosedObjectsWithDescriptions) {
  const json schema = configSchema();
  EXPECT_EQ(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
  EXPECT_EQ(schema["additionalProperties"], false);
  EXPECT_EQ(schema["properties"]["policy"]["additionalProperties"], false);
  for (const auto& [name, property] : schema["properties"].items()) {
    EXPECT_TRUE(property.contains("description") && !property["description"].get<std::string>().empty()) << name;
  }
  EXPECT_FALSE(schema["properties"].contains("api_key"));
  EXPECT_EQ(schema["properties"]["policy"]["properties"]["blocking_severity"]["enum"],
            json({"BLOCKER", "MAJOR", "MINOR", "NIT"}));
  EXPECT_EQ(schema["properties"]["max_attempts"]["minimum"], 1);
}

// The documented defaults are exactly what Config{} holds, and the reader accepts them.
TEST(ConfigSchema, DefaultsRoundTripThroughTheReader) {
  const json schema = configSchema();
  json defaults = json::object();
  for (const auto& [name, property] : schema["properties"].items()) {
    if (property.contains("default")) defaults[name] = property["default"];
  }
  defaults["policy"] = json::object();
  for (const auto& [name, property] : schema["properties"]["policy"]["properties"].items()) {
    defaults["policy"][name] = property["default"];
  }
  const Config c = applyJson(Config{}, defaults, "schema defaults");
  const Config d;
  EXPECT_EQ(c.provider, d.provider);
  EXPECT_EQ(c.connectTimeout, d.connectTimeout);
  EXPECT_EQ(c.review.maxAttempts, d.review.maxAttempts);
  EXPECT_EQ(c.review.policy.blockingCategories, d.review.policy.blockingCategories);
  EXPECT_EQ(c.review.policy.blockingSeverity, d.review.policy.blockingSeverity);
  EXPECT_EQ(c.review.policy.maxFindings, d.review.policy.maxFindings);
  EXPECT_EQ(c.debounceMs, d.debounceMs);
  EXPECT_EQ(defaults["policy"]["blocking_categories"], json({"CORRECTNESS", "SECURITY", "CONCURRENCY", "DATA_LOSS"}));
}

}  // namespace
}  // namespace revline::config
