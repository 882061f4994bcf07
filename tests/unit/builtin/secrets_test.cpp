// The secret detector and redaction, on plain text.
#include "core/builtin/secrets.h"

#include <gtest/gtest.h>

#include <string>

namespace revline::builtin {
namespace {

// Kinds of the matches, each followed by the matched text.
std::vector<std::string> found(std::string_view text) {
  std::vector<std::string> out;
  for (const auto& m : findSecrets(text)) out.push_back(m.kind + "=" + std::string(text.substr(m.offset, m.length)));
  return out;
}

using V = std::vector<std::string>;

TEST(FindSecrets, CloudAndServiceTokens) {
  EXPECT_EQ(found("aws_access_key_id: AKIAQ3EGRMTX2WJ7KZ5N\n"), V{"aws-access-key=AKIAQ3EGRMTX2WJ7KZ5N"});
  EXPECT_EQ(found("key=ASIAY34FZKBOKMUTVV7A;"), V{"aws-access-key=ASIAY34FZKBOKMUTVV7A"});
  EXPECT_EQ(found("token ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5 end"),
            V{"github-token=ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"});
  const std::string pat = "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUV";
  EXPECT_EQ(found("GH=" + pat), V{"github-token=" + pat});
  EXPECT_EQ(found("SLACK=xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
            V{"slack-token=xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"});
  EXPECT_EQ(found("\"sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56\""), V{"api-key=sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56"});
}

TEST(FindSecrets, PrivateKeyBlockIsCoveredFromBeginToEnd) {
  const std::string text =
      "x\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabc\n-----END RSA PRIVATE KEY-----\ny\n";
  const auto m = findSecrets(text);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].kind, "private-key");
  EXPECT_EQ(m[0].offset, 2u);
  EXPECT_EQ(text.substr(m[0].offset + m[0].length), "\ny\n");
  EXPECT_EQ(found("-----BEGIN OPENSSH PRIVATE KEY-----"), V{"private-key=-----BEGIN OPENSSH PRIVATE KEY-----"});
  EXPECT_TRUE(found("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----").empty());
  EXPECT_TRUE(found("-----BEGIN PUBLIC KEY-----").empty());
}

TEST(FindSecrets, PasswordAndSecretAssignmentsCoverOnlyTheValue) {
  EXPECT_EQ(found("String password = \"hunter22\";"), V{"password=hunter22"});
  EXPECT_EQ(found("db_passwd := 'S3cr3t!x'"), V{"password=S3cr3t!x"});
  EXPECT_EQ(found("  \"client_secret\": \"f00b4rb4z\","), V{"secret=f00b4rb4z"});
  EXPECT_EQ(found("connect(host, password=\"tr0ub4dor\")"), V{"password=tr0ub4dor"});
  EXPECT_EQ(found("DB_PASSWORD=pa55w0rd99\n"), V{"password=pa55w0rd99"});        // .env
  EXPECT_EQ(found("  password: hunter2hunter2\n"), V{"password=hunter2hunter2"});  // YAML
  EXPECT_EQ(found("private static final String SECRET_KEY = \"k3y-m4t3r14l\";"), V{"secret=k3y-m4t3r14l"});
}

TEST(FindSecrets, NoFalsePositivesOnPlaceholdersLookupsAndLookalikes) {
  for (const char* text : {
           "password = \"\"", "password = os.environ[\"DB_PASSWORD\"]", "password = getenv(\"PW\")",
           "password: ${DB_PASSWORD}", "password = \"changeme\"", "password = \"<your password>\"",
           "String passwordPrompt = \"Enter password:\";", "if (password == \"admin1\")", "password != \"abcd\"",
           "secretary = \"Jane Doe\"", "PASSWORD_MIN_LENGTH = 12", "password = \"****\"", "password = user.password",
           "pip install scikit-learn sk-learn", "task-0123456789abcdefghijkl", "sk-this-is-a-long-slug-name-2024",
           "AKIA1234", "XAKIAQ3EGRMTX2WJ7KZ5N0", "ghp_short", "xoxb-token-here", "strncpy(dst, src, n)",
           "api_key = config[\"api_key\"]", "secret: !vault |"}) {
    EXPECT_TRUE(findSecrets(text).empty()) << text;
  }
}

TEST(FindSecrets, MatchesAreInTextOrderAndDoNotOverlap) {
  const std::string text = "a=AKIAQ3EGRMTX2WJ7KZ5N b: password=\"AKIAQ3EGRMTX2WJ7KZ5N\" c=ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5";
  const auto m = findSecrets(text);
  ASSERT_EQ(m.size(), 3u);
  for (std::size_t i = 1; i < m.size(); ++i) EXPECT_GE(m[i].offset, m[i - 1].offset + m[i - 1].length);
}

TEST(RedactSecrets, ReplacesEachSecretByItsKind) {
  EXPECT_EQ(redactSecrets("key AKIAQ3EGRMTX2WJ7KZ5N and password = \"hunter22\";\n"),
            "key [REDACTED:aws-access-key] and password = \"[REDACTED:password]\";\n");
  EXPECT_EQ(redactSecrets("+-----BEGIN EC PRIVATE KEY-----\n+MHcCAQEE\n+-----END EC PRIVATE KEY-----\n+done\n"),
            "+[REDACTED:private-key]\n[REDACTED:private-key]\n[REDACTED:private-key]\n+done\n")
      << "a marker per line: the lines after the key keep their numbers";
  EXPECT_EQ(redactSecrets("nothing to see"), "nothing to see");
  EXPECT_EQ(redactSecrets(""), "");
}

}  // namespace
}  // namespace revline::builtin
