// The one secret detector (builtin rule and redaction): every format the
// redaction must see, in every spelling, with and without the prefixes the
// prompt adds, and the lookalikes it must leave alone.
#include <gtest/gtest.h>

#include "core/builtin/secrets.h"

namespace revline::builtin {
namespace {

std::vector<std::string> found(std::string_view text, std::string_view path = {}) {
  std::vector<std::string> out;
  for (const auto& m : findSecrets(text, path)) out.push_back(m.kind + "=" + std::string(text.substr(m.offset, m.length)));
  return out;
}
using V = std::vector<std::string>;

TEST(SecretFormats, EachFormatIsFound) {
  EXPECT_EQ(found("AIzaSyD9tSrke72PouQMnMXa7eZSW0jkFMBWYq1"), V{"google-api-key=AIzaSyD9tSrke72PouQMnMXa7eZSW0jkFMBWYq1"});
  EXPECT_EQ(found("key: sk_live_4eC39HqLyjWDarjtT1zdp7dc"), V{"stripe-key=sk_live_4eC39HqLyjWDarjtT1zdp7dc"});
  EXPECT_EQ(found("npm_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"), V{"npm-token=npm_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"});
  EXPECT_EQ(found("//registry.npmjs.org/:_authToken=4f1d2c3b-9a8e-47f6"), V{"npm-token=4f1d2c3b-9a8e-47f6"});
  const std::string jwt =
      "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
  EXPECT_EQ(found("Authorization: Bearer " + jwt), V{"jwt=" + jwt});
  EXPECT_EQ(found("DATABASE_URL=postgres://app:Sup3rS3cretPw@db:5432/app"), V{"password=Sup3rS3cretPw"});
  EXPECT_EQ(found("MY_SERVICE_TOKEN=Zx81Kq0pLm29Vn47Rt63"), V{"secret=Zx81Kq0pLm29Vn47Rt63"});
  EXPECT_EQ(found("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq81KEYz"),
            V{"secret=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq81KEYz"});
}

// Services' tokens of a fixed shape, found wherever they stand (before, only
// under a secret's name); and an AWS key id after a URL-encoded "=".
TEST(SecretFormats, ServicesTokensOfAFixedShape) {
  const std::string sendgrid = "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";
  EXPECT_EQ(found("sg = '" + sendgrid + "'"), V{"sendgrid-key=" + sendgrid});
  EXPECT_EQ(found("login(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)"),
            V{"huggingface-token=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"});
  const std::string doToken = "dop_v1_" + std::string(32, 'a') + std::string(32, '7');
  EXPECT_EQ(found("Authorization " + doToken), V{"digitalocean-token=" + doToken});
  const std::string pypi = "pypi-AgEIcHlwaS5vcmcCJDQ5ZjQ4YTI1LWU1MDItNDgzZS1hZjM2LTk1OGQ0ZTQ0YjFiNwACKlszLCI5";
  EXPECT_EQ(found("password = " + pypi), V{"pypi-token=" + pypi});
  EXPECT_EQ(found("shpat_" + std::string(16, 'a') + std::string(16, '0')),
            V{"shopify-token=shpat_" + std::string(16, 'a') + std::string(16, '0')});
  const std::string age = "AGE-SECRET-KEY-1" + std::string(29, 'Q') + std::string(29, '7');
  EXPECT_EQ(found(age), V{"age-secret-key=" + age});
  EXPECT_EQ(found("twilio SK" + std::string(32, 'e')), V{"twilio-key=SK" + std::string(32, 'e')});
  EXPECT_EQ(found("X-Amz-Credential%3DAKIAZ3MXQ7T2LKJH4P5Q%2F20240101"), V{"aws-access-key=AKIAZ3MXQ7T2LKJH4P5Q"});
  // Not these: a longer word, another length, a cache key named by its MD5.
  EXPECT_TRUE(found("MASK" + std::string(32, 'e')).empty());
  EXPECT_TRUE(found("hf_short_name").empty());
  EXPECT_TRUE(found("cache key-" + std::string(32, 'a')).empty());
  EXPECT_TRUE(found("XAKIAZ3MXQ7T2LKJH4P5Q").empty());
}

// More services' tokens found wherever they stand: each went to a remote model
// as it was, in a .env, a call's argument or a URL's path.
TEST(SecretFormats, MoreServicesTokens) {
  const std::vector<std::pair<std::string, std::string>> tokens{
      {"stripe-key", "whsec_C1IyBHr9vfMl61sMvcifF46749prriEy"},
      {"slack-token", "xapp-1-AGHVA1CC4XS-4031659524423-2ad706ab16c1c0e0f71b0e5e07a38b81aee95"},
      {"vault-token", "hvs.CAESIr13cDcehJk9Yq2rF0xTgP6Wb1LmN8vZ3sQ"},
      {"mapbox-token", "sk.eyJ1IjoiYWNtZS1tYXBzIiwiYSI6ImNsb2R1bW15MDAwMDAwMDBwcm9kIn0.t0E2KwDFqWs6ASuLkH_o7M"},
      {"google-oauth-token", "ya29.a0Ad52N31HMNxQvYp8KfLr2T7wZb0cJm4Ue9sRgDh"},
      {"google-oauth-token", "1//0gooVWXKMzhVbT5qR8sYw2LpN7cFj3HdKx9Zm"},
      {"sentry-token", "sntryu_266c259e" + std::string(52, 'a') + "5cf8"},
      {"heroku-key", "HRKU-AAPprZ7UIMAsh_WsQ2e8Lr4T9vYcN1bJ"},
      {"discord-bot-token", "MTk2NTE0NzA2NzA2MDY2NzU4NA.4_se93.caPNYpkdvutbkbsobc2mRmhYLI9Q0Z5rhnxHf1"},
  };
  for (const auto& [kind, token] : tokens)
    EXPECT_EQ(found("value(\"" + token + "\")"), V{kind + "=" + token}) << token;
  EXPECT_EQ(found("curl https://api.telegram.org/bot8949515853:AAY7wdufDAeSX6tS1622gwtb1lBfPoTPl6y/sendMessage"),
            V{"telegram-bot-token=8949515853:AAY7wdufDAeSX6tS1622gwtb1lBfPoTPl6y"});
  // Not these: a Python module path, a version, a time of day, a prose word.
  EXPECT_TRUE(found("import hvs.client").empty());
  EXPECT_TRUE(found("at 12345678:AA").empty());
  EXPECT_TRUE(found("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36").empty());
  EXPECT_TRUE(found("see docs/ya29.md").empty());
}

// Spellings of a password that went out as they were: an environment value
// with spaces (quoted) or '$', '.' and the like (unquoted), a Dockerfile's ENV,
// an index or a call naming the key, an XML element, names not listed before.
TEST(SecretFormats, MoreAssignmentSpellings) {
  EXPECT_EQ(found("DB_PASSWORD=\"correct horse battery staple 207\""), V{"password=correct horse battery staple 207"});
  EXPECT_EQ(found("DB_PASSWORD=p4$$w0rd.8x9B6u2024"), V{"password=p4$$w0rd.8x9B6u2024"});
  EXPECT_EQ(found("ENV DB_PASSWORD=DfgYRyq3S0da8"), V{"password=DfgYRyq3S0da8"});
  EXPECT_EQ(found("ENV ADMIN_PASSWORD DgYupeUulSoL8"), V{"password=DgYupeUulSoL8"});
  EXPECT_EQ(found("os.environ[\"DB_PASSWORD\"] = \"EnvIM1se8erGp5\""), V{"password=EnvIM1se8erGp5"});
  EXPECT_EQ(found("cfg['password'] = 'FcaUV0clezzb8'"), V{"password=FcaUV0clezzb8"});
  EXPECT_EQ(found("props.setProperty(\"password\", \"Sp0Udxj1Qf888\");"), V{"password=Sp0Udxj1Qf888"});
  EXPECT_EQ(found("    <password>Xm1YOR93nKmA8</password>"), V{"password=Xm1YOR93nKmA8"});
  EXPECT_EQ(found("pwd = \"PwdXGvm55Ni3x5\""), V{"password=PwdXGvm55Ni3x5"});
  EXPECT_EQ(found("ssh_passphrase = \"PphE18uF9b5PM5\""), V{"password=PphE18uF9b5PM5"});
  EXPECT_EQ(found("  accessToken: 'q8Zt4Rw9Lp2Xv7Nc0Jk3'"), V{"secret=q8Zt4Rw9Lp2Xv7Nc0Jk3"});
  EXPECT_EQ(found("DD_APP_KEY=f9ed55ea284a119b71620bf63f45b298b74ff60f"), V{"secret=f9ed55ea284a119b71620bf63f45b298b74ff60f"});
  EXPECT_EQ(found("LEGACY_PASSWORD = \"orange truck 1801 !\""), V{"password=orange truck 1801 !"});
  EXPECT_EQ(found("    replica_password = \"purple monkey dishwasher 284\""), V{"password=purple monkey dishwasher 284"});
  EXPECT_EQ(found("SMTP_PASSWORD='$mtpoUWTlw8A-Q7r'"), V{"password=$mtpoUWTlw8A-Q7r"});
  EXPECT_EQ(found("  password: \"my-3GiaLqRa!9\""), V{"password=my-3GiaLqRa!9"});
  EXPECT_EQ(found("{ \"auth\": \"YWNtZWNpOkRja0tFZDBNRmNad1l3dDk=\" }"), V{"secret=YWNtZWNpOkRja0tFZDBNRmNad1l3dDk="});
  EXPECT_EQ(found("  \"search\": { \"token\": \"4tCuXHaWDlZe0lvUqyQfkhlJJgO4rbrM0XdW2fsg\" }"),
            V{"secret=4tCuXHaWDlZe0lvUqyQfkhlJJgO4rbrM0XdW2fsg"});
  EXPECT_EQ(found("smbclient //files/share -U backup%SbxONurCYBdY8 -c ls"), V{"password=SbxONurCYBdY8"});
  EXPECT_EQ(found("    <add key=\"DbPassword\" value=\"Mv7drEnCh47z8\" />"), V{"password=Mv7drEnCh47z8"});
  EXPECT_EQ(found("const smtp = { host: \"smtp.corp.net\", user: \"mailer\", pass: \"PasEHHnWuNpn95\" };"),
            V{"password=PasEHHnWuNpn95"});
  EXPECT_EQ(found("legacy.url=jdbc:oracle:thin:scott/OrcTXmabGragb8@ora.corp.net:1521/ORCL"), V{"password=OrcTXmabGragb8"});
  EXPECT_EQ(found("2: db password=TlShXko5pCT88 (rotated monthly)"), V{"password=TlShXko5pCT88"});
  EXPECT_EQ(found("Deploy fix; set password=Hunter2m0VPli9 in vault"), V{"password=Hunter2m0VPli9"});
  EXPECT_EQ(found("apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ntype: Opaque\ndata:\n"
                  "  DATABASE_URL: cG9zdGdyZXM6Ly9hcHA6S3VrMHRF\n  .dockerconfigjson: \"eyJhdXRocyI6IHsi\"\n"
                  "stringData:\n  api-key: q8Zt4Rw9Lp2X\n---\nkind: ConfigMap\n"),
            V({"secret=cG9zdGdyZXM6Ly9hcHA6S3VrMHRF", "secret=eyJhdXRocyI6IHsi", "secret=q8Zt4Rw9Lp2X"}));
  // Not these: code, interpolation, a path, a sentence under a lower-case key, a key's name, a plain word.
  for (const char* text : {"DB_PASSWORD=$DB_PASS", "DB_PASSWORD=${DB_PASS:-x}", "PASSWORD=$(cat /run/secrets/pw)",
                           "DB_PASSWORD=settings.DB_PASSWORD", "PWD=/home/user/project", "pwd = os.getcwd()",
                           "password: \"Please enter your password\"", "SORT_KEY=created_at", "PRIMARY_KEY = \"id\"",
                           "cfg[\"password\"] = password", "setProperty(\"password\", pw)", "<password>${db.pw}</password>",
                           "<password/>", "refreshToken = \"refreshToken\"", "ENV PATH=/usr/local/bin:$PATH",
                           "DB_PASSWORD=\"$DB_PASS\"", "ERROR_KEY=\"not found\"",
                           "password_encoder = \"bcrypt\"", "passwordAlgorithm = \"argon2id\"",
                           "SECRET_BACKEND = \"aws-secrets-manager\"", "secretVersion = \"v20240517\"",
                           "PASSWORD_RESET_TEMPLATE = \"emails/reset.html\"", "secret_key_ref = \"projects/p/versions/3\"",
                           "  password: \"Please enter a password of 8 characters or more\"", "password: \"your-password\"",
                           "PASSWORD=$DB_PASSWORD", "\"token\": \"abc\"", "auth: true", "oauth: \"enabled-for-all-users\"",
                           "next_token = \"page2\"", "connect(host=h, password=pw_value1)", "f(password=self.pw1234)",
                           "kind: ConfigMap\ndata:\n  LOG_LEVEL: debug1234\n",
                           "    MovedAttribute(\"HTTPPasswordMgr\", \"urllib2\", \"urllib.request\"),",
                           "valid_token_types = ('access_token', 'refresh_token')", "    Token: '#ff0000 bold underline',",
                           "  token: `Basic ${Buffer.from('username:password').toString('base64')}`",
                           "<add key=\"PasswordLength\" value=\"12\" />", "jdbc:oracle:thin:@ora.corp.net:1521/ORCL",
                           "jdbc:oracle:thin:scott/${DB_PW}@db:1521/X", "  pass: \"skipped\",", "expect(result.pass).toBe(true)",
                           "bypass: \"cache2024\"", "  pass: 'v1'"}) {
    EXPECT_TRUE(findSecrets(text).empty()) << text << " -> " << (found(text).empty() ? "" : found(text)[0]);
  }
}

// Command lines and files that went out as they were: keytool, openssl, LDAP,
// sqlcmd and az logins, a curl form body, a .netrc and a .pgpass.
TEST(SecretFormats, MoreCommandLinesAndCredentialFiles) {
  EXPECT_EQ(found("keytool -importcert -keystore ks.jks -storepass KtmokgrQ5ykm8 -noprompt"), V{"password=KtmokgrQ5ykm8"});
  EXPECT_EQ(found("openssl pkcs12 -in a.p12 -passin pass:OsLgELmvnjLO8 -nodes"), V{"password=OsLgELmvnjLO8"});
  EXPECT_EQ(found("ldapsearch -x -D cn=admin -w LdBS1VkBhUXT8 -b dc=x"), V{"password=LdBS1VkBhUXT8"});
  EXPECT_EQ(found("sqlcmd -S db -U sa -P 'ScZcDzRGf8T08!' -Q 'select 1'"), V{"password=ScZcDzRGf8T08!"});
  EXPECT_EQ(found("az login -u ci@corp -p Az5dcoaNtoKa8"), V{"password=Az5dcoaNtoKa8"});
  EXPECT_EQ(found("echo \"EctIfrnXKm368\" | docker login registry.corp.net -u ci --password-stdin"),
            V{"password=EctIfrnXKm368"});
  EXPECT_EQ(found("printf 'Pr1ntfPw99' | helm registry login r.io -u ci --password-stdin"), V{"password=Pr1ntfPw99"});
  EXPECT_EQ(found("curl -X POST https://idp/token -d 'grant_type=password&username=u&password=Cp1MHLK5qywA8'"),
            V{"password=Cp1MHLK5qywA8"});
  EXPECT_EQ(found("machine api.example.org login ci password NtresgGND6bbxGO9"), V{"password=NtresgGND6bbxGO9"});
  EXPECT_EQ(found("machine h\n  login u\n  password NtresgGND6bbxGO9\n", "home/.netrc"), V{"password=NtresgGND6bbxGO9"});
  EXPECT_EQ(found("# host:port:db:user:password\ndb:5432:billing:app:PgptOev0hwbee8\n", "ops/.pgpass"),
            V{"password=PgptOev0hwbee8"});
  // Not these: flags of other commands, a form without a password, prose, a .pgpass line elsewhere.
  for (const char* text : {"docker run -p 5432:5432 -w /src image", "psql -P pager=off", "ls -w 80",
                           "curl -d 'a=1&b=2' https://x", "a && b & c", "Enter the password below",
                           "the password is set by login scripts", "db:5432:billing:app:PgptOev0hwbee8",
                           "echo \"$CR_PAT\" | docker login ghcr.io -u me --password-stdin",
                           "cat pw.txt | docker login --password-stdin", "echo ok; docker login --password-stdin < pw"}) {
    EXPECT_TRUE(findSecrets(text).empty()) << text << " -> " << (found(text).empty() ? "" : found(text)[0]);
  }
}

TEST(SecretFormats, AssignmentsAreFoundAfterTheLeadInsThePromptAdds) {
  for (const char* text : {"DB_PASSWORD=hunter2xyz", "   1 + DB_PASSWORD=hunter2xyz", "  12   DB_PASSWORD=hunter2xyz",
                           "config/.env:3: DB_PASSWORD=hunter2xyz", "+export DB_PASSWORD=hunter2xyz",
                           "DB_PASSWORD: hunter2xyz", "\"DB_PASSWORD\": \"hunter2xyz\""}) {
    EXPECT_EQ(found(text), V{"password=hunter2xyz"}) << text;
  }
  EXPECT_EQ(found("  7 + API_KEY=q8Zt4Rw9Lp2Xv7Nc\n"), V{"secret=q8Zt4Rw9Lp2Xv7Nc"});
}

TEST(SecretFormats, KeyBodiesWithoutTheirBeginLine) {
  const std::string line1 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj";
  const std::string line2 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKk";
  const std::string line3 = "hkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKjMIIEvQIBADANBgkq";
  // Above an END line.
  EXPECT_EQ(found(line1 + "\nabc+/Zx12\n-----END PRIVATE KEY-----\n"),
            V({"private-key=" + line1, "private-key=abc+/Zx12"}));
  // A run of PEM-width lines, even behind diff prefixes.
  EXPECT_EQ(found("  17   " + line1 + "\n  18 + " + line2 + "\n  19   " + line3 + "\n"),
            V({"private-key=" + line1, "private-key=" + line2, "private-key=" + line3}));
  // Any base64 line of a key file by name.
  EXPECT_EQ(found("Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5\n", "deploy/id_ed25519"), V{"private-key=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5"});
  EXPECT_EQ(found("Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5\n", "certs/server.pem").size(), 1u);
  EXPECT_TRUE(found("Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5\n", "src/Main.java").empty());
  // A key written as string literals, one per line (Java or JS concatenation, a Python list).
  EXPECT_EQ(found("  12 +     \"" + line1 + "\\n\" +\n  13 +     \"" + line2 + "\\n\" +\n  14 +     \"" + line3 + "\\n\" +\n"),
            V({"private-key=" + line1, "private-key=" + line2, "private-key=" + line3}));
  EXPECT_EQ(found("    '" + line1 + "',\n    '" + line2 + "',\n    '" + line3 + "')\n"),
            V({"private-key=" + line1, "private-key=" + line2, "private-key=" + line3}));
  // Not a literal of its own: a call's argument, mismatched quotes.
  EXPECT_TRUE(found("f(\"" + line1 + "\")\nf(\"" + line2 + "\")\nf(\"" + line3 + "\")\n").empty());
  EXPECT_TRUE(found("\"" + line1 + "'\n\"" + line2 + "'\n\"" + line3 + "'\n").empty());
  // A certificate's body is public, whether its BEGIN or its END line is in the text.
  EXPECT_TRUE(found("-----BEGIN CERTIFICATE-----\n" + line1 + "\n" + line2 + "\n" + line3 + "\n").empty());
  EXPECT_TRUE(found(line1 + "\n" + line2 + "\n" + line3 + "\nAbC+/\n-----END CERTIFICATE-----\n").empty());
}

// A PEM private key encoded as base64, as kubeconfig's client-key-data and a
// Helm value hold it; the certificates beside it are public.
TEST(SecretFormats, AnEncodedPrivateKeyButNotAnEncodedCertificate) {
  const std::string rsa = "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVBdTFTVTFMZlZMUEhDb3pNeEgyTW80bGdPRWVQek5tMHRSZ2VMZXpWNmZmQXQwZ3VuCi0tLS0tRU5EIFJTQSBQUklWQVRFIEtFWS0tLS0tCg==";
  const std::string ec = "LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0tCk1IY0NBUUVFSUJrZzRMVldNOW51d05TazN5Qnl4WnBZUlRCblZKazVvR3FLNGhUUjBOeDlvQW9HQ0NxR1NNNDkKLS0tLS1FTkQgRUMgUFJJVkFURSBLRVktLS0tLQo=";
  const std::string cert = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM1ekNDQWMrZ0F3SUJBZ0lCQVRBTkJna3Foa2lHOXcwQkFRc0ZBREFWTVJNd0VRWURWUVFERXdwdGFXNXAKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=";
  EXPECT_EQ(found("    client-key-data: " + rsa + "\n"), V{"private-key=" + rsa});
  EXPECT_EQ(found("  18 +     tls.key: \"" + ec + "\"\n"), V{"private-key=" + ec});
  EXPECT_TRUE(found("    client-certificate-data: " + cert + "\n").empty());
  EXPECT_TRUE(found("    certificate-authority-data: " + cert + "\n").empty());
  EXPECT_TRUE(found("x = \"LS0tLS1CRUdJTiBQUklWQVRF\"\n").empty());  // too short to hold a key
  // After '=' (an environment variable, kubectl --from-literal).
  EXPECT_EQ(found("CLIENT_KEY_DATA=" + rsa + "\n"), V{"private-key=" + rsa});
  // Wrapped at 76 columns (`base64`, a YAML block scalar): every line of it, up to the next key.
  const std::vector<std::string> lines = {"LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVBdTFTVTFMZlZM", "UEhDb3pNeEgyTW80bGdPRWVQek5tMHRSZ2VMZXpWNmZmQXQwZ3VuClZUTHc3b25MUm5ycTAvSXpX", "N3lXUjdRa3JtQkw3alRLRW41dStxS2hid0tmQnN0SXMrYk1ZMlprcDE4Z25UeEsKLS0tLS1FTkQg", "UlNBIFBSSVZBVEUgS0VZLS0tLS0K"};
  std::string block = "tls.key: |\n";
  for (const auto& l : lines) block += "    " + l + "\n";
  const std::string text = block + "tls.crt: abc\n";
  const auto matches = findSecrets(text);
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(text.substr(matches[0].offset, matches[0].length), block.substr(15, block.size() - 16));
}

// A default a lookup falls back to when the setting is unset is the password
// itself wherever the variable is not set (a developer's machine, CI).
TEST(SecretFormats, ALookupsDefaultValue) {
  const V pw{"password=Xq7vL2pR9tKw"};
  EXPECT_EQ(found("DB_PASSWORD = os.environ.get(\"DB_PASSWORD\", \"Xq7vL2pR9tKw\")"), pw);
  EXPECT_EQ(found("pw = os.getenv('DB_PASSWORD', 'Xq7vL2pR9tKw')"), pw);
  EXPECT_EQ(found("password = ENV.fetch(\"DB_PASSWORD\", \"Xq7vL2pR9tKw\")"), pw);
  EXPECT_EQ(found("String p = System.getenv().getOrDefault(\"DB_PASSWORD\", \"Xq7vL2pR9tKw\");"), pw);
  EXPECT_EQ(found("'password' => env('DB_PASSWORD', 'Xq7vL2pR9tKw'),"), pw);
  EXPECT_EQ(found("const pw = process.env.DB_PASSWORD || \"Xq7vL2pR9tKw\";"), pw);
  EXPECT_EQ(found("const pw = import.meta.env.DB_PASSWORD ?? 'Xq7vL2pR9tKw';"), pw);
  // A default by keyword, and a fallback after the lookup or the variable.
  EXPECT_EQ(found("pw = os.getenv(\"DB_PASSWORD\", default=\"Xq7vL2pR9tKw\")"), pw);
  EXPECT_EQ(found("DB_PASSWORD = config('DB_PASSWORD', default='Xq7vL2pR9tKw')"), pw);
  EXPECT_EQ(found("pw = os.environ.get(\"DB_PASSWORD\") or \"Xq7vL2pR9tKw\""), pw);
  EXPECT_EQ(found("val pw = System.getenv(\"DB_PASSWORD\") ?: \"Xq7vL2pR9tKw\""), pw);
  EXPECT_EQ(found("pw = ENV[\"DB_PASSWORD\"] || \"Xq7vL2pR9tKw\""), pw);
  EXPECT_EQ(found("const pw = process.env[\"DB_PASSWORD\"] ?? \"Xq7vL2pR9tKw\";"), pw);
  EXPECT_EQ(found("pw = ENV.fetch(\"DB_PASSWORD\") { \"Xq7vL2pR9tKw\" }"), pw);
  EXPECT_EQ(found("pw = ENV.fetch(\"DB_PASSWORD\") do \"Xq7vL2pR9tKw\" end"), pw);
  EXPECT_EQ(found("pw = env.str(\"DB_PASSWORD\", default=\"Xq7vL2pR9tKw\")"), pw);
  EXPECT_EQ(found("$pw = $_ENV['DB_PASSWORD'] ?? 'Xq7vL2pR9tKw';"), pw);
  // The call split over lines, as black formats a Django settings file.
  EXPECT_EQ(found("    \"PASSWORD\": config(\n        \"DB_PASSWORD\",\n        default=\"Xq7vL2pR9tKw\",\n    ),"), pw);
  // No literal default, an empty or a placeholder one, a getter's other argument.
  for (const char* text : {"pw = os.environ.get(\"DB_PASSWORD\", \"\")", "pw = os.environ.get(\"DB_PASSWORD\", fallback)",
                           "pw = request.form.get(\"password\", \"\")", "pw = os.getenv(\"DB_PASSWORD\", \"changeme\")",
                           "const pw = process.env.DB_PASSWORD || \"\";", "const pw = process.env.DB_PASSWORD || defaults.pw;",
                           "const pw = opts.password || \"Xq7vL2pR9tKw\";", "x = cfg.lookup(\"password\", \"Xq7vL2pR9tKw\")",
                           // A setting about the secret, not the secret.
                           "mode = os.environ.get(\"PASSWORD_MODE\", \"strict2\")",
                           "String a = props.getOrDefault(\"passwordHashAlgorithm\", \"bcrypt12\");",
                           "m = ENV.fetch(\"PASSWORD_MODE\", \"bcrypt12\")", "'driver' => env('PASSWORD_DRIVER', 'bcrypt12'),",
                           "m = os.environ.get(\"PASSWORD_MODE\") or \"bcrypt12\"", "m = ENV[\"PASSWORD_MODE\"] || \"bcrypt12\"",
                           "reset = ENV.fetch(\"PASSWORD_RESET_WITHIN\") { \"6.hours\" }",
                           "r = os.getenv(\"PASSWORD_RESET_WITHIN\", default=\"6.hours\")",
                           // A fallback that is not a lookup's, and a keyword that is not the default.
                           "pw = check(\"password\") or \"Xq7vL2pR9tKw\"", "pw = cfg[\"password\"] || \"Xq7vL2pR9tKw\"",
                           "pw = os.getenv(\"DB_PASSWORD\", cast=\"Xq7vL2pR9tKw\")",
                           "pw = os.getenv(\"DB_PASSWORD\", default=None)",
                           "pw = str(\"password\", \"Xq7vL2pR9tKw\")",
                           // A blank line between: another statement, not the call's default.
                           "pw = config(\"DB_PASSWORD\",\n\n\"Xq7vL2pR9tKw\")"})
    EXPECT_TRUE(found(text).empty()) << text << " -> " << found(text).front();
}

TEST(SecretFormats, LookalikesAreLeftAlone) {
  for (const char* text : {
           "token = lexer.next()", "String token;", "CSRF_TOKEN = \"csrf_token\"", "NEXT_TOKEN=next",
           "const tokenType = 'Bearer'", "http://example.com/path:8080@x", "https://user@example.com/",
           "postgres://app:${DB_PASSWORD}@db/app", "AIzaShort", "sk_live_short", "npm_install_dir",
           "eyJ.eyJ.x", "ACCESS_TOKEN_URL=https://auth.example.com/token", "let x = 'aGVsbG8gd29ybGQ=';",
           "MAX_TOKENS=4096", "refresh_token: ${REFRESH}",
       }) {
    EXPECT_TRUE(findSecrets(text).empty()) << text << " -> " << (found(text).empty() ? "" : found(text)[0]);
  }
}

TEST(SecretFormats, CredentialsOnACommandLineAndInAnAuthorizationHeader) {
  EXPECT_EQ(found("curl -u deploy:Hunt3r22 https://ci.example.com/api"), V{"password=Hunt3r22"});
  EXPECT_EQ(found("  12 + curl --user 'deploy:letmein' $URL"), V{"password=letmein"});
  EXPECT_EQ(found("wget --user=bot:S3cretPw --password=Tr0ub4dor x"), V({"password=S3cretPw", "password=Tr0ub4dor"}));
  EXPECT_EQ(found("psql --password \"pa55word!\" app"), V{"password=pa55word!"});
  EXPECT_EQ(found("deploy-cli --token q8Zt4Rw9Lp2Xv7Nc --region eu"), V{"secret=q8Zt4Rw9Lp2Xv7Nc"});
  EXPECT_EQ(found("mysql -u root -pS3cret99 app"), V{"password=S3cret99"});
  EXPECT_EQ(found("sshpass -p 'Wint3r!' ssh host"), V{"password=Wint3r!"});
  EXPECT_EQ(found("curl -H \"Authorization: Bearer 0a1b2c3d4e5f67890abc\" $URL"), V{"bearer-token=0a1b2c3d4e5f67890abc"});
  EXPECT_EQ(found("Authorization: Basic ZGVwbG95OmxldG1laW4="), V{"basic-auth=ZGVwbG95OmxldG1laW4="});
  EXPECT_EQ(found("headers = {'Authorization': 'token 0a1b2c3d4e5f6789'}"), V{"bearer-token=0a1b2c3d4e5f6789"});
  EXPECT_EQ(found("fetch(url, {headers: {x: 'Bearer Zx81Kq0pLm29Vn47Rt63'}})"), V{"bearer-token=Zx81Kq0pLm29Vn47Rt63"});
}

TEST(SecretFormats, ConnectionStringsEnvironmentPrefixesAndMoreCommandLines) {
  EXPECT_EQ(found("CONN = \"Server=db;Database=x;User Id=sa;Password=AdoNetPa55w0rd;\""), V{"password=AdoNetPa55w0rd"});
  EXPECT_EQ(found("JDBC = \"jdbc:sqlserver://db;user=sa;password=Jdbc_Pa55word!\""), V{"password=Jdbc_Pa55word!"});
  EXPECT_EQ(found("ODBC = \"Driver={ODBC Driver 18};Server=db;Uid=sa;Pwd=OdbcPa55w0rd;\""), V{"password=OdbcPa55w0rd"});
  const std::string accountKey = "dGhpc2lzYXZlcnlsb25nYXp1cmVzdG9yYWdla2V5MTIzNDU2Nzg5MA==";
  EXPECT_EQ(found("AZ = \"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + accountKey + ";EndpointSuffix=x\""),
            V{"secret=" + accountKey});
  EXPECT_EQ(found("PGPASSWORD=PgEnvPa55w0rd psql -h db -U app prod"), V{"password=PgEnvPa55w0rd"});
  EXPECT_EQ(found("  run: env DEPLOY_TOKEN=q8Zt4Rw9Lp2Xv7Nc ./deploy.sh"), V{"secret=q8Zt4Rw9Lp2Xv7Nc"});
  EXPECT_EQ(found("docker login -u deploy -p Dock3rPassw0rd registry.example.com"), V{"password=Dock3rPassw0rd"});
  EXPECT_EQ(found("redis-cli -a R3disCliPa55 ping"), V{"password=R3disCliPa55"});
  EXPECT_EQ(found("aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEZ"),
            V{"secret=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEZ"});
  EXPECT_EQ(found("GL = \"glpat-AbCdEf1234567890xYzW\""), V{"gitlab-token=glpat-AbCdEf1234567890xYzW"});
  EXPECT_EQ(found("HOOK = \"https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX\""),
            V{"slack-webhook=T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"});
}

TEST(SecretFormats, ConnectionStringsAndPrefixesWithoutASecretAreLeftAlone) {
  for (const char* text : {
           "conn = \"Server=db;Password={0};\"", "\"Server=db;Password=${DB_PASSWORD};\"", "Server=db;Integrated Security=true;",
           "PGPASSWORD=$PGPASS psql", "PGPASSWORD= psql", "MY_TOKEN=short ./run", "docker login -u deploy --password-stdin",
           "docker run -p 8080:80 image", "redis-cli -a \"$REDIS_PASSWORD\" ping", "aws configure set region eu-west-1",
           "glpat-short", "see https://hooks.slack.com/services/ for the docs", "if (password == other) {}",
           // Found in ordinary code by a re-test of the first version of these detectors:
           "log.warning(\"Invalid authorization token provided\")", "raise ValueError(\"Authorization token validation failed\")",
           "// The authorization header uses basic authentication for legacy clients",
           "\"\"\"Authorization: token required. Pass it with --token.\"\"\"",
           "Pass `--token` as `Authorization: Bearer ACCESS_TOKEN`.", "cmd = f\"--token={self.token}\"",
           "args = [f\"--password={password}\"]", "chpst -u www-data:www-data /usr/bin/app",
           "docker exec -u www-data:www-data app php artisan migrate",
           "docker login -u \"$U\" -p \"$P\" reg && docker run -d -p 5432:5432 postgres", "cd /src;PWD=/src/build make",
       }) {
    EXPECT_TRUE(findSecrets(text).empty()) << text << " -> " << (found(text).empty() ? "" : found(text)[0]);
  }
}

TEST(SecretFormats, CommandLinesAndHeadersWithoutASecretAreLeftAlone) {
  for (const char* text : {
           "docker run -u 1000:1000 image", "docker run --user app:app image", "git commit -u", "ps -u root",
           "curl -u \"$USER:$PASSWORD\" $URL", "curl -u user:${PASSWORD} x", "curl --user deploy: x",
           "Use --password when the server asks for one.", "cli --token \"$TOKEN\"", "cli --token-file ~/.tok",
           "cli --password=<password>", "mysql -u root -p app", "mysql -u root -p\"$MYSQL_PWD\"", "tar -p x",
           "Authorization: Bearer <token>", "Authorization: Bearer ${TOKEN}", "'Authorization': 'Bearer ' + token",
           "Authorization: Bearer YOUR_API_KEY", "the bearer token goes in a header", "Basic authentication is off",
       }) {
    EXPECT_TRUE(findSecrets(text).empty()) << text << " -> " << (found(text).empty() ? "" : found(text)[0]);
  }
}

// Spellings a re-test found sent unredacted: argv lists, attached and quoted
// values, libpq keywords, JDBC queries, ADO.NET spaces, ODBC braces, kubectl
// literals, *_PASS names, more GitLab tokens, webhooks and API-key headers.
TEST(SecretFormats, MoreSpellingsOfTheSameCredentials) {
  EXPECT_EQ(found("subprocess.run([\"curl\", \"-u\", \"admin:Sup3rS3cretPw\", url])"), V{"password=Sup3rS3cretPw"});
  EXPECT_EQ(found("subprocess.run([\"sshpass\", \"-p\", \"Sup3rS3cretPw\", \"ssh\", host])"), V{"password=Sup3rS3cretPw"});
  EXPECT_EQ(found("subprocess.run(['mysql', '-pSup3rS3cretPw', 'db'])"), V{"password=Sup3rS3cretPw"});
  EXPECT_EQ(found("[\"docker\", \"login\", \"-u\", \"x\", \"-p\", \"Sup3rS3cretPw\"]"), V{"password=Sup3rS3cretPw"});
  EXPECT_EQ(found("args: [\"--password\", \"Tr0ub4dor&3\"]"), V{"password=Tr0ub4dor&3"});
  EXPECT_EQ(found("curl -uadmin:Sup3rS3cretPw https://api.internal/x"), V{"password=Sup3rS3cretPw"});
  EXPECT_EQ(found("sshpass -pSup3rS3cretPw ssh host"), V{"password=Sup3rS3cretPw"});
  EXPECT_EQ(found("sshpass -p 'Sup3r S3cret' ssh host"), V{"password=Sup3r S3cret"});
  EXPECT_EQ(found("psql --password \"correct horse 9\" app"), V{"password=correct horse 9"});
  EXPECT_EQ(found("PGPASSWORD='Sup3r S3cretPw' psql -h db"), V{"password=Sup3r S3cretPw"});
  EXPECT_EQ(found("DB_PASS=Sup3rS3cretPw ./run.sh"), V{"password=Sup3rS3cretPw"});
  EXPECT_EQ(found("DB_PASS=Sup3rS3cretPw\n"), V{"password=Sup3rS3cretPw"});
  EXPECT_EQ(found("wget --http-passwd=Sup3rS3cretPw https://x"), V{"password=Sup3rS3cretPw"});
  EXPECT_EQ(found("aws  configure  set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEZ"),
            V{"secret=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEZ"});
  EXPECT_EQ(found("psql \"host=db user=app password=Sup3rS3cretPw dbname=prod\""), V{"password=Sup3rS3cretPw"});
  EXPECT_EQ(found("JDBC = \"jdbc:mysql://db:3306/app?user=root&password=JdbcPa55w0rd\""), V{"password=JdbcPa55w0rd"});
  EXPECT_EQ(found("https://acct.blob.core.windows.net/c?sv=2022-11-02&sig=AbCdEf1234567890GhIjKlMnOpQrStUvWxYz%3D"),
            V{"secret=AbCdEf1234567890GhIjKlMnOpQrStUvWxYz%3D"});
  EXPECT_EQ(found("CONN = \"Server=db;Database=x;User Id=sa;Password = AdoNetPa55w0rd;\""), V{"password=AdoNetPa55w0rd"});
  EXPECT_EQ(found("CONN = \"Server=db;User Id=sa; Password=AdoNetPa55w0rd\""), V{"password=AdoNetPa55w0rd"});
  EXPECT_EQ(found("ODBC = \"Driver={ODBC Driver 18};Server=db;Uid=sa;Pwd={OdbcPa;55w0rd};\""), V{"password=OdbcPa;55w0rd"});
  EXPECT_EQ(found("kubectl create secret generic x --from-literal=password=S3cretVal1"), V{"password=S3cretVal1"});
  EXPECT_EQ(found("GL = \"gldt-AbCdEf1234567890xYzW\""), V{"gitlab-token=gldt-AbCdEf1234567890xYzW"});
  EXPECT_EQ(found("GL = \"glrt-AbCdEf1234567890xYzW\""), V{"gitlab-token=glrt-AbCdEf1234567890xYzW"});
  EXPECT_EQ(found("curl -H \"PRIVATE-TOKEN: glpat-AbCdEf1234567890xYzW\" x"), V{"gitlab-token=glpat-AbCdEf1234567890xYzW"});
  EXPECT_EQ(found("HOOK = \"https://hooks.slack.com/workflows/T0A1B2C3D/A0A1B2C3D/123456789/abcDEF123ghiJKL456\""),
            V{"slack-webhook=T0A1B2C3D/A0A1B2C3D/123456789/abcDEF123ghiJKL456"});
  EXPECT_EQ(found("https://discord.com/api/webhooks/123456789012345678/abcDEF123ghiJKL456mnoPQR-_x"),
            V{"discord-webhook=123456789012345678/abcDEF123ghiJKL456mnoPQR-_x"});
  EXPECT_EQ(found("curl -H \"X-API-Key: a8f5f167f44f4964e6c998dee827110c\" https://x"),
            V{"api-key-header=a8f5f167f44f4964e6c998dee827110c"});
  EXPECT_EQ(found("req.setHeader(\"x-api-key\", \"a8f5f167f44f4964e6c998dee827110c\")"),
            V{"api-key-header=a8f5f167f44f4964e6c998dee827110c"});
  // Found by a re-test of the first version of these:
  EXPECT_EQ(found("conn = psycopg2.connect(\"host=db password=Sup3rS3cretPw\")"), V{"password=Sup3rS3cretPw"});
  EXPECT_EQ(found("kubectl create secret docker-registry r --docker-password=Sup3rS3cretPw"), V{"password=Sup3rS3cretPw"});
  EXPECT_EQ(found("headers[\"X-API-Key\"] = \"a8f5f167f44f4964e6c998dee827110c\""),
            V{"api-key-header=a8f5f167f44f4964e6c998dee827110c"});
  EXPECT_EQ(found("https://discord.com/api/v10/webhooks/123456789012345678/abcDEF123ghiJKL456mnoPQR"),
            V{"discord-webhook=123456789012345678/abcDEF123ghiJKL456mnoPQR"});
}

TEST(SecretFormats, TheNewSpellingsLeaveCodeAlone) {
  for (const char* text : {
           "gcc $(mysql_config --cflags) -pthread -o app app.c", "  password=getPw();", "  password=cfg[key];",
           "user=user, password=password, netloc=netloc", "connect(host=h, password=pw_value)",
           "parser.add_argument(\"--password\", \"-p\", help=\"the password\")", "parser.add_argument(\"--token\", help=\"API token\")",
           "cmd = [\"--token\", token]", "[\"sshpass\", \"-p\", pw, \"ssh\", host]", "sshpass -p \"$PASS\" ssh host",
           "[\"docker\", \"run\", \"-p\", \"8080:80\", image]", "ls -a -p", "grep -a pattern file", "ps -aux",
           "url = base + \"?password=\" + pw", "f\"?token={token}\"", "url + \"&token=\" + token", "/search?page=2&key=value",
           "\"Server=db;Pwd={0};\"", "\"Server=db;Pwd={password};\"", "\"Server=db;Pwd={self.pw};\"",
           "DB_PASSTHROUGH=enabled1 ./run", "BYPASS_CACHE=1 make", "setHeader(\"X-API-Key\", apiKey)",
           "X-API-Key: YOUR_API_KEY", "\"x-api-key\": process.env.KEY", "headers['api-key'] = key",
           "kubectl create secret generic x --from-literal=password=$PW", "--from-file=password=./pw.txt",
           "redis-cli -h host -a \"$REDIS_PASSWORD\"", "host=db password=$PGPASS", "curl -u${USER}:${PASS} x",
           "PGPASSWORD=\"$PW\" psql", "dsn = \"host=db user=app dbname=prod\"",
           "void f(const std::string&pass=opts.value);", "CFLAGS = -I/usr/include/mysql -pthread",
           "x = cond ? password=1 : 0",
       }) {
    EXPECT_TRUE(findSecrets(text).empty()) << text << " -> " << (found(text).empty() ? "" : found(text)[0]);
  }
}

// Lines of real commits in Ruby, Java, Kotlin, C#, TS and compose files that
// were called hard-coded credentials (most of them MAJOR, blocking): code that
// reads the key, interpolation, a setting's own name, a file that holds the
// secret, a boolean.
TEST(SecretFormats, ValuesThatAreNoLiteralCredential) {
  for (const char* text : {
           "  password = \"#{password}#{klass.pepper}\"", "    config.secret_key = '#{SecureRandom.hex(64)}'",
           "String authToken = \"authToken\";", "public static final String JAVA_NET_SOCKS_PASSWORD = \"java.net.socks.password\";",
           "String PROP_JDBC_PASSWORD = \"JDBC.Password\";", "config.secret_key = 'secret_key_base'",
           "  'x-api-key': process.env.ANTHROPIC_API_KEY,", ".addHeader(\"x-api-key\", BuildConfig.WEATHER_API_KEY)",
           "client.DefaultRequestHeaders.Add(\"X-Api-Key\", _options.Value.ApiKey);",
           "  headers: {'x-auth-token': session.refreshedToken},", "      - DATABASE_PASSWORD=/run/secrets/db-password",
           "const stringParams = '?pass=true';",
       }) {
    EXPECT_TRUE(findSecrets(text).empty()) << text << " -> " << (found(text).empty() ? "" : found(text)[0]);
  }
  // The same shapes holding a credential are still found.
  EXPECT_EQ(found("  password = \"Sup3rS3cretPw\""), V{"password=Sup3rS3cretPw"});
  EXPECT_EQ(found("String authToken = \"authToken8f7dK2LmQ9xZ\";"), V{"secret=authToken8f7dK2LmQ9xZ"});
  EXPECT_EQ(found("  'x-api-key': 'a8f5f167f44f4964e6c998dee827110c',"), V{"api-key-header=a8f5f167f44f4964e6c998dee827110c"});
  EXPECT_EQ(found("      - DATABASE_PASSWORD=/Xk9vQz7Lm2/Pq8Wr"), V{"password=/Xk9vQz7Lm2/Pq8Wr"});
  // Found by a re-test of the first version: what a real credential may look like.
  EXPECT_EQ(found("DB_PASSWORD = \"Xk9${mQ2!pLr7\""), V{"password=Xk9${mQ2!pLr7"});
  EXPECT_EQ(found("postgres://app:Zq8${Lp2xW9@db.internal/prod"), V{"password=Zq8${Lp2xW9"});
  EXPECT_EQ(found("admin_password = \"admin\""), V{"password=admin"});
  EXPECT_EQ(found("password = \"SuperSecretPassword\""), V{"password=SuperSecretPassword"});
  EXPECT_EQ(found("setHeader(\"X-Api-Key\", \"a8f3k2.b7x9q1.zz9key\")"), V{"api-key-header=a8f3k2.b7x9q1.zz9key"});
  EXPECT_EQ(found("client_secret = \"/k3j9x2m/q8z7w1v0p5n\""), V{"secret=/k3j9x2m/q8z7w1v0p5n"});
}

// Lines of real commits (express, redis, curl) the builtin flagged as hard-coded
// credentials; two of them blocked the change.
TEST(SecretFormats, RealCommitsLinesThatHoldNoCredential) {
  for (const char* text : {
           "    \"pbkdf2-password\": \"1.2.1\",", "password-hash = \"0.5.0\"", "\"secret-handshake\": \"^2.0.1\",",
           "\"  redis-cli -u redis://default:PASSWORD@localhost:6379/0\\n\"",
           "PASSWORD_HASH = \"pbkdf2:sha256:260000$abc$def\"",
       }) {
    EXPECT_TRUE(findSecrets(text).empty()) << text << " -> " << (found(text).empty() ? "" : found(text)[0]);
  }
  // A password at a host reserved for examples is found (the redaction hides
  // it; the rule leaves documentation's examples alone: text_rules_test).
  EXPECT_EQ(found("http://alberto:einstein@somewhere.example/"), V{"password=einstein"});
  EXPECT_EQ(found("remote[] = \"sftp://user:pass@example.com/path/filename\";"), V{"password=pass"});
  // The same shapes with a real value are still found.
  EXPECT_EQ(found("redis-cli -u redis://default:R3disPa55@cache.internal:6379/0"), V{"password=R3disPa55"});
  EXPECT_EQ(found("\"db-password\": \"Sup3rS3cretPw\","), V{"password=Sup3rS3cretPw"});
  EXPECT_EQ(found("sftp://deploy:Sup3rS3cretPw@files.acme.io/in"), V{"password=Sup3rS3cretPw"});
  // A value that only starts like a version is a secret (the first version of the rule let these through).
  EXPECT_EQ(found("DB_PASSWORD = \"1.2Xk9vQz7LmPw\""), V{"password=1.2Xk9vQz7LmPw"});
  EXPECT_EQ(found("export DB_PASSWORD=\"2.5Hx8Lq\""), V{"password=2.5Hx8Lq"});
  EXPECT_TRUE(findSecrets("\"secret-sauce\": \"~1.4.0-beta.2\",").empty());
}

// Secrets a user's repository held that left the machine (a recorded session with
// 118 planted): an AWS secret key beside its key id in IAM's CSV, session
// cookies, YAML block-scalar and flow-mapping passwords.
TEST(SecretFormats, SecretsKnownByWhatStandsBesideThem) {
  EXPECT_EQ(found("ci-bot,,AKIAZ3MSJV4WWNKWW5FA,Fy7rPzq2Kd9LmWx4Tn8Vb3Hc6Jg1Qs5Re0Yu/A+b,https://123.signin.aws.amazon.com/console"),
            (V{"aws-access-key=AKIAZ3MSJV4WWNKWW5FA", "aws-secret-key=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"}));
  EXPECT_EQ(found("| AKIAZ3MSJV4WWNKWW5FA | Fy7rPzq2Kd9LmWx4Tn8Vb3Hc6Jg1Qs5Re0Yu/A+b |"),
            (V{"aws-access-key=AKIAZ3MSJV4WWNKWW5FA", "aws-secret-key=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"}));
  EXPECT_EQ(found("curl -H 'Cookie: sessionid=8f2k3j4h5g6f7d8s9a0qwertyuZXCV; csrftoken=abc' https://x"),
            V{"session-cookie=8f2k3j4h5g6f7d8s9a0qwertyuZXCV"});
  EXPECT_EQ(found("Set-Cookie: SESSION=YTg5ZjQ2NmItNzE4Zi00ZTk3LWI5ZjMtOTg4; Path=/; HttpOnly"),
            V{"session-cookie=YTg5ZjQ2NmItNzE4Zi00ZTk3LWI5ZjMtOTg4"});
  EXPECT_EQ(found("headers = {'Cookie': 'auth=Zq81Kq0pLm29Vn47Rt63Xy'}"), V{"session-cookie=Zq81Kq0pLm29Vn47Rt63Xy"});
  EXPECT_EQ(found("curl -b 'PHPSESSID=k2j4h6g8f0d2s4a6q8w0e2r4t6' https://x"), V{"session-cookie=k2j4h6g8f0d2s4a6q8w0e2r4t6"});
  EXPECT_EQ(found("curl --cookie \"sid=k2j4h6g8f0d2s4a6q8w0e2r4t6\" https://x"), V{"session-cookie=k2j4h6g8f0d2s4a6q8w0e2r4t6"});
  EXPECT_EQ(found("db:\n  password: |\n    Hunt3r2Sup3r!\n  user: app\n"), V{"password=Hunt3r2Sup3r!"});
  EXPECT_EQ(found("  12 +   password: >-\n  13 +     Hunt3r2Sup3r\n"), V{"password=Hunt3r2Sup3r"});
  EXPECT_EQ(found("creds: {user: admin, password: Hunt3r2Sup3r}"), V{"password=Hunt3r2Sup3r"});
  EXPECT_EQ(found("- {name: db, password: Hunt3r2Sup3r, host: x}"), V{"password=Hunt3r2Sup3r"});
  EXPECT_EQ(found("AKIAZ3MSJV4WWNKWW5FA\nFy7rPzq2Kd9LmWx4Tn8Vb3Hc6Jg1Qs5Re0Yu/A+b"), V{"aws-access-key=AKIAZ3MSJV4WWNKWW5FA"});
  // Their lookalikes: a commit id beside no key id, cookies that are no session,
  // code that sets a cookie, a block scalar that is a template or not indented,
  // an object of variables.
  for (const char* text : {
           "Fy7rPzq2Kd9LmWx4Tn8Vb3Hc6Jg1Qs5Re0Yu/A+b,ci-bot",
           "Cookie: theme=dark; lang=en-US", "res.cookie('token', token, {httpOnly: true})",
           "document.cookie = `session=${id}`", "cookie_secret = settings.COOKIE", "Set-Cookie: sid=abc; Path=/",
           "password: |\n  {{ .Values.db.password }}\n", "password: |\nHunt3r2Sup3r\n",
           "login({ user: name, password: password })", "{password: string, token: string}",
           "f({ password: hashPassword(pw1234) })", "{ password: user.password2 }",
           "Set-Cookie: PART_NUMBER=ROCKET_LAUNCHER_0001; path=/", "{a:1,refresh_token:c.body.refresh_token?.length||0}",
       }) {
    EXPECT_TRUE(findSecrets(text).empty()) << text << " -> " << (found(text).empty() ? "" : found(text)[0]);
  }
}

// A token of a known shape is that token wherever it stands: as a URL's
// password, in an Authorization header, after curl -u, under a secret's name
// (these were "password" or "bearer-token", which never block: a GitHub token
// in a clone URL passed CI). The match keeps the whole span the context found.
TEST(SecretFormats, AKnownTokenIsThatTokenInAnyContext) {
  const std::string ghp = "ghp_R7xq2LmWv9Tn4Kd8Hc3Jg6Qs1Pz5Yb0Ea2Uf";
  EXPECT_EQ(found("git clone https://x-access-token:" + ghp + "@github.com/o/r.git"), V{"github-token=" + ghp});
  EXPECT_EQ(found("curl -H \"Authorization: token " + ghp + "\" https://api.github.com"), V{"github-token=" + ghp});
  EXPECT_EQ(found("curl -u bot:" + ghp + " https://api.github.com"), V{"github-token=" + ghp});
  EXPECT_EQ(found("headers = {\"Authorization\": \"Bearer " + ghp + "\"}"), V{"github-token=" + ghp});
  EXPECT_EQ(found("GH_TOKEN=" + ghp), V{"github-token=" + ghp});
  const std::string slack = "xoxb-2048337719-1152938276504-Rk8LmWv9Tn4Kd8Hc3Jg6Qs1P";
  EXPECT_EQ(found("SLACK_BOT_TOKEN: " + slack), V{"slack-token=" + slack});
  // A context's match that is no known token keeps its kind.
  EXPECT_EQ(found("curl -u bot:Hunt3r2Sup3rPw https://x"), V{"password=Hunt3r2Sup3rPw"});
}

TEST(SecretFormats, RedactionReplacesOnlyTheSecret) {
  EXPECT_EQ(redactSecrets("   3 + DB_PASSWORD=hunter2xyz\n"), "   3 + DB_PASSWORD=[REDACTED:password]\n");
  EXPECT_EQ(redactSecrets("postgres://app:Sup3rS3cretPw@db/app"), "postgres://app:[REDACTED:password]@db/app");
}

}  // namespace
}  // namespace revline::builtin
