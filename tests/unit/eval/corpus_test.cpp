// Loading a corpus: a broken case is reported with the file, the field and
// what is expected, every problem at once; the committed schema is the one
// the code derives.
#include <gtest/gtest.h>

#include <fstream>

#include "core/eval/corpus.h"
#include "tests/support/temp_repo.h"

namespace revline::eval {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

// A case directory with base/, change.patch and the given case.json.
fs::path makeCase(const fs::path& corpus, const std::string& id, const std::string& caseJson) {
  const fs::path dir = corpus / id;
  write(dir / "base" / "A.java", "class A {}\n");
  write(dir / "change.patch", "--- a/A.java\n+++ b/A.java\n@@ -1 +1 @@\n-class A {}\n+class A { }\n");
  write(dir / "case.json", caseJson);
  return dir;
}

std::string loadError(const fs::path& dir) {
  try {
    loadCorpus(dir);
  } catch (const CorpusError& e) {
    return e.what();
  }
  return "";
}

TEST(EvalCorpus, LoadsAValidCase) {
  testing::TempDir tmp;
  makeCase(tmp.path(), "b-case", R"({"language": "java", "description": "d",
    "source": {"repository": "o/r", "commit": "abc", "licence": "MIT"},
    "expected": [{"file": "./A.java", "line": 1, "endLine": 2, "severity": "MAJOR", "category": "CORRECTNESS", "note": "n"}],
    "mustNotComment": ["gen.h"]})");
  makeCase(tmp.path(), "a-clean", R"({"language": "go", "clean": true})");
  fs::create_directories(tmp.path() / "not-a-case");  // no case.json: ignored
  const auto cases = loadCorpus(tmp.path());
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].id, "a-clean");
  EXPECT_TRUE(cases[0].clean);
  EXPECT_FALSE(cases[0].expectBlock);
  const EvalCase& c = cases[1];
  EXPECT_TRUE(c.expectBlock);
  ASSERT_EQ(c.expected.size(), 1u);
  EXPECT_EQ(c.expected[0].file, "A.java");
  EXPECT_EQ(c.expected[0].lastLine(), 2);
  EXPECT_EQ(c.expected[0].severity, contract::Severity::Major);
  EXPECT_EQ(c.source->licence, "MIT");
  EXPECT_EQ(c.mustNotComment, std::vector<std::string>{"gen.h"});
  EXPECT_EQ(c.patch, c.dir / "change.patch");
  // A case directory on its own is a corpus of one.
  EXPECT_EQ(loadCorpus(c.dir).size(), 1u);
}

TEST(EvalCorpus, BrokenCaseListsEveryProblemWithFileAndField) {
  testing::TempDir tmp;
  const fs::path dir = makeCase(tmp.path(), "broken", R"({"language": "java", "severity": "MAJOR",
    "expected": [{"file": "A.java", "line": 0, "note": "n"},
                 {"file": "A.java", "line": 5, "endLine": 3, "severity": "CRITICAL", "note": "n"},
                 {"file": "A.java", "line": 2}],
    "source": {"repository": "o/r", "commit": "abc", "licence": "GPL-3.0"}})");
  const std::string e = loadError(tmp.path());
  EXPECT_NE(e.find("broken case \"broken\""), std::string::npos) << e;
  EXPECT_NE(e.find((dir / "case.json").string()), std::string::npos) << e;
  EXPECT_NE(e.find("severity: unknown key (expected one of language, description"), std::string::npos) << e;
  EXPECT_NE(e.find("expected[0].line: got 0, expected a new-file line number >= 1"), std::string::npos) << e;
  EXPECT_NE(e.find("expected[1].severity: got \"CRITICAL\", expected one of BLOCKER, MAJOR, MINOR, NIT"), std::string::npos) << e;
  EXPECT_NE(e.find("expected[2].note: missing"), std::string::npos) << e;
  EXPECT_NE(e.find("source.licence: \"GPL-3.0\" is not a permissive licence"), std::string::npos) << e;
}

TEST(EvalCorpus, RangeAndCleanConsistency) {
  testing::TempDir tmp;
  makeCase(tmp.path(), "range", R"({"language": "java", "expected": [{"file": "A.java", "line": 5, "endLine": 3, "note": "n"}]})");
  makeCase(tmp.path(), "both", R"({"language": "java", "clean": true, "expected": [{"file": "A.java", "line": 1, "note": "n"}]})");
  makeCase(tmp.path(), "neither", R"({"language": "java"})");
  makeCase(tmp.path(), "forbidden", R"({"language": "java", "mustNotComment": ["A.java"], "expected": [{"file": "A.java", "line": 1, "note": "n"}]})");
  const std::string e = loadError(tmp.path());
  EXPECT_NE(e.find("expected[0].endLine: got 3, expected a line >= line (5)"), std::string::npos) << e;
  EXPECT_NE(e.find("a clean case expects no issues"), std::string::npos) << e;
  EXPECT_NE(e.find("missing or empty: list the issues a reviewer should find, or set \"clean\": true"), std::string::npos) << e;
  EXPECT_NE(e.find("\"A.java\" is also listed in mustNotComment"), std::string::npos) << e;
  // All four cases are reported, not just the first.
  for (const char* id : {"range", "both", "neither", "forbidden"})
    EXPECT_NE(e.find("broken case \"" + std::string(id) + "\""), std::string::npos) << id << "\n" << e;
}

TEST(EvalCorpus, MissingFilesAndBadJson) {
  testing::TempDir tmp;
  const fs::path dir = makeCase(tmp.path(), "nobase", R"({"language": "java", "patch": "fix.diff", "clean": true})");
  fs::remove_all(dir / "base");
  std::string e = loadError(tmp.path());
  EXPECT_NE(e.find("no base/ directory next to case.json"), std::string::npos) << e;
  EXPECT_NE(e.find("patch: the change"), std::string::npos) << e;
  EXPECT_NE(e.find("fix.diff does not exist"), std::string::npos) << e;

  testing::TempDir tmp2;
  makeCase(tmp2.path(), "json", "{\"language\": \"java\",,}");
  e = loadError(tmp2.path());
  EXPECT_NE(e.find("case.json: not valid JSON"), std::string::npos) << e;

  testing::TempDir empty;
  e = loadError(empty.path());
  EXPECT_NE(e.find("no cases"), std::string::npos) << e;
  EXPECT_NE(loadError(empty.path() / "missing").find("not a directory"), std::string::npos);
}

TEST(EvalCorpus, CommittedSchemaIsTheDerivedOne) {
  std::ifstream in(std::string(REVLINE_SOURCE_DIR) + "/docs/eval-case.schema.json");
  ASSERT_TRUE(in) << "docs/eval-case.schema.json is missing; write it with `revline eval --schema`";
  const json committed = json::parse(in);
  EXPECT_EQ(committed, caseSchema()) << "docs/eval-case.schema.json is stale: regenerate it with "
                                        "`build/revline eval --schema > docs/eval-case.schema.json`";
  EXPECT_EQ(caseSchema()["additionalProperties"], false);
  EXPECT_EQ(caseSchema()["required"], json::array({"language"}));
}

}  // namespace
}  // namespace revline::eval

#include "core/eval/workspace.h"

namespace revline::eval {
namespace {

TEST(EvalWorkspace, MaterialisesBaseAndPatchAndKeepsSymlinksAsLinks) {
  testing::TempDir tmp;
  testing::TempDir outside;
  write(outside.path() / "secret.txt", "do not copy\n");
  const fs::path dir = makeCase(tmp.path(), "ws", R"({"language": "java", "clean": true})");
  fs::create_symlink(outside.path() / "secret.txt", dir / "base" / "link.txt");
  fs::path root;
  {
    Workspace ws(loadCase(dir));
    root = ws.root();
    std::ifstream in(root / "A.java");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, "class A { }\n");  // the patch is applied to the work tree
    EXPECT_TRUE(fs::is_symlink(root / "link.txt"));
    EXPECT_TRUE(fs::exists(root / ".git"));
  }
  EXPECT_FALSE(fs::exists(root));  // removed with the workspace
}

}  // namespace
}  // namespace revline::eval
