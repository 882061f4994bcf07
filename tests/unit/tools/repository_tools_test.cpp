// The repository tools and their sandbox: schemas derived from the typed inputs,
// argument validation, path escapes (.., absolute, symlinks, NUL), skipped
// directories, binary/size limits and result caps.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/tools/repository_tools.h"
#include "tests/support/temp_repo.h"

namespace revline::tools {
namespace {

namespace fs = std::filesystem;
using revline::testing::TempDir;

class ToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root = dir.path() / "repo";
    fs::create_directories(root);
    write("src/Service.java",
          "class Service {\n  boolean ok(String s) {\n    return s == \"OK\";\n  }\n  void callOk() { ok(\"x\"); }\n}\n");
    write("src/util/Helper.java", "class Helper {\n  static int okay() { return 1; }\n}\n");
    write("README.md", "# Demo\nService docs\n");
    write(".git/config", "[core]\n\tsecret = hidden\n");
    write("node_modules/lib/index.js", "function ok() {}\n");
    write("build/out.txt", "ok(\n");
    write("vendor/dep.go", "ok(\n");
    std::string binary("abc\0def ok(", 11);
    write("data/blob.bin", binary);
    // Outside the repository: a file a symlink points to.
    write("../outside/secret.txt", "TOP SECRET ok(\n");
  }

  void write(const std::string& rel, const std::string& content) {
    fs::path p = root / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
  }

  review::ToolResult call(const std::string& name, json args) {
    RepositoryTools tools(root);
    return tools.execute({"call_1", name, std::move(args)}, CancelToken());
  }

  TempDir dir;
  fs::path root;
};

TEST_F(ToolsTest, SchemasAreDerivedFromTheInputStructs) {
  RepositoryTools tools(root);
  auto specs = tools.specs();
  ASSERT_EQ(specs.size(), 4u);
  EXPECT_EQ(specs[0].name, "read_file");
  const json& s = specs[0].inputSchema;
  EXPECT_EQ(s["type"], "object");
  EXPECT_EQ(s["additionalProperties"], false);
  EXPECT_EQ(s["required"], json::array({"path"}));
  EXPECT_EQ(s["properties"]["path"]["type"], "string");
  EXPECT_EQ(s["properties"]["start_line"]["type"], "integer");
  EXPECT_EQ(s["properties"]["end_line"]["type"], "integer");
  EXPECT_EQ(specs[1].name, "search_text");
  EXPECT_EQ(specs[1].inputSchema["required"], json::array({"query"}));
  EXPECT_TRUE(specs[1].inputSchema["properties"].contains("path_glob"));
  EXPECT_EQ(specs[2].name, "glob");
  EXPECT_EQ(specs[3].name, "find_usages");
  for (const auto& spec : specs) EXPECT_FALSE(spec.description.empty());
}

TEST_F(ToolsTest, ReadFileReturnsNumberedLines) {
  auto r = call("read_file", {{"path", "src/Service.java"}, {"start_line", 3}, {"end_line", 4}});
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_EQ(r.callId, "call_1");
  EXPECT_EQ(r.content, "src/Service.java lines 3-4 of 6:\n3:     return s == \"OK\";\n4:   }\n");
  // Integers written as strings are accepted; arguments as a JSON string too.
  auto r2 = call("read_file", json(R"({"path": "./src//Service.java", "start_line": "6"})"));
  ASSERT_TRUE(r2.ok) << r2.content;
  EXPECT_EQ(r2.content, "src/Service.java lines 6-6 of 6:\n6: }\n");
}

TEST_F(ToolsTest, ReadFileCapsLinesAndSaysSo) {
  std::string big;
  for (int i = 1; i <= 700; ++i) big += "line " + std::to_string(i) + "\n";
  write("big.txt", big);
  auto r = call("read_file", {{"path", "big.txt"}});
  ASSERT_TRUE(r.ok);
  EXPECT_NE(r.content.find("big.txt lines 1-500 of 700"), std::string::npos);
  EXPECT_NE(r.content.find("[truncated: 200 more lines; call read_file again with start_line=501]"),
            std::string::npos);
}

// Under the result cap (a small request budget's share) the result ends on the
// last whole line shown, and its header and note name that line: before, the
// header said "lines 1-500" and the note "start_line=501" of a result cut at
// line 289, and a model that read on never saw lines 290 to 500.
TEST_F(ToolsTest, ReadFileCutByTheResultCapNamesTheLastLineShown) {
  std::string big;
  for (int i = 1; i <= 700; ++i) big += "line " + std::to_string(i) + " of a file read through a small cap\n";
  write("big.txt", big);
  ToolLimits limits;
  limits.maxResultBytes = 2048;
  RepositoryTools tools(root, limits);
  auto r = tools.execute({"call_1", "read_file", {{"path", "big.txt"}}}, CancelToken());
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_LE(r.content.size(), 2048u);
  const auto header = r.content.substr(0, r.content.find('\n'));
  ASSERT_EQ(header.rfind("big.txt lines 1-", 0), 0u) << header;
  const int last = std::stoi(header.substr(16));
  EXPECT_GT(last, 20);
  EXPECT_LT(last, 500);
  EXPECT_NE(r.content.find("\n" + std::to_string(last) + ": line " + std::to_string(last) + " of a file"), std::string::npos);
  EXPECT_EQ(r.content.find("\n" + std::to_string(last + 1) + ": "), std::string::npos);
  EXPECT_NE(r.content.find("[truncated: lines " + std::to_string(last + 1) + "-500 not shown, a result holds 2 KB; "
                           "call read_file again with start_line=" + std::to_string(last + 1) + "]"),
            std::string::npos)
      << r.content;
  // Read on from there: the next lines, nothing skipped.
  auto next = tools.execute({"call_2", "read_file", {{"path", "big.txt"}, {"start_line", last + 1}}}, CancelToken());
  EXPECT_EQ(next.content.rfind("big.txt lines " + std::to_string(last + 1) + "-", 0), 0u) << next.content;
  // One line longer than a result holds: its start, said.
  write("wide.txt", std::string(5000, 'w') + "\nshort\n");
  auto wide = tools.execute({"call_3", "read_file", {{"path", "wide.txt"}}}, CancelToken());
  EXPECT_LE(wide.content.size(), 2048u);
  EXPECT_EQ(wide.content.rfind("wide.txt lines 1-1 of 2:\n1: www", 0), 0u) << wide.content;
  EXPECT_NE(wide.content.find("[line 1 is cut: a result holds 2 KB]"), std::string::npos) << wide.content;
  EXPECT_NE(wide.content.find("[truncated: lines 2-2 not shown, a result holds 2 KB; call read_file again with start_line=2]"), std::string::npos)
      << wide.content;
  // Cut far down a long file, with more after it: both notes, and where to read on (the notes were cut off).
  std::string lines;
  for (int i = 1; i <= 300; ++i) lines += (i == 150 ? std::string(70000, 'v') : "line " + std::to_string(i)) + "\n";
  write("long.txt", lines);
  auto at150 = tools.execute({"call_4", "read_file", {{"path", "long.txt"}, {"start_line", 150}}}, CancelToken());
  EXPECT_NE(at150.content.find("[line 150 is cut: a result holds 2 KB]\n[truncated: lines 151-300 not shown, a result "
                               "holds 2 KB; call read_file again with start_line=151]"),
            std::string::npos)
      << at150.content;
  // A cap a long path leaves no room under: a line's start is still shown.
  ToolLimits tiny;
  tiny.maxResultBytes = 512;
  RepositoryTools small(root, tiny);
  const std::string deep = std::string(120, 'd') + "/" + std::string(120, 'e') + "/" + std::string(120, 'f') + ".txt";
  write(deep, "first line of text\nsecond\n");
  auto shown = small.execute({"call_5", "read_file", {{"path", deep}}}, CancelToken());
  EXPECT_NE(shown.content.find("\n1: first line of text\n"), std::string::npos) << shown.content;
}

TEST_F(ToolsTest, BadArgumentsBecomeToolErrors) {
  auto missing = call("read_file", json::object());
  EXPECT_FALSE(missing.ok);
  EXPECT_EQ(missing.content, "read_file: missing required argument \"path\" (a string)");
  auto wrongType = call("read_file", {{"path", 42}});
  EXPECT_FALSE(wrongType.ok);
  EXPECT_EQ(wrongType.content, "read_file: argument \"path\" must be a string, got 42");
  auto badInt = call("read_file", {{"path", "README.md"}, {"start_line", "ten"}});
  EXPECT_FALSE(badInt.ok);
  EXPECT_EQ(badInt.content, "read_file: argument \"start_line\" must be an integer, got \"ten\"");
  auto unknown = call("read_file", {{"file", "README.md"}});
  EXPECT_FALSE(unknown.ok);
  EXPECT_EQ(unknown.content, "read_file: unknown argument \"file\"; the arguments are: path, start_line, end_line");
  auto notJson = call("glob", json("{pattern: oops"));
  EXPECT_FALSE(notJson.ok);
  EXPECT_NE(notJson.content.find("not a valid JSON object"), std::string::npos);
  auto array = call("glob", json::array({"*.java"}));
  EXPECT_FALSE(array.ok);
  // Arguments 100,000 levels deep (a hostile model's): refused, not parsed and
  // printed into the error, which overflowed the stack (exit 139).
  auto deep = call("read_file", json("{\"path\":" + std::string(100000, '[') + std::string(100000, ']') + "}"));
  EXPECT_FALSE(deep.ok);
  EXPECT_NE(deep.content.find("the arguments nest JSON 100001 levels deep"), std::string::npos) << deep.content;
  auto backwards = call("read_file", {{"path", "README.md"}, {"start_line", 2}, {"end_line", 1}});
  EXPECT_FALSE(backwards.ok);
  EXPECT_NE(backwards.content.find("end_line (1) is before start_line (2)"), std::string::npos);
  auto past = call("read_file", {{"path", "README.md"}, {"start_line", 99}});
  EXPECT_FALSE(past.ok);
  EXPECT_NE(past.content.find("past the end of README.md (2 lines)"), std::string::npos);
  auto zero = call("read_file", {{"path", "README.md"}, {"start_line", 0}});
  EXPECT_FALSE(zero.ok);
  // A number far beyond any integer is refused, not converted (that was undefined behaviour).
  for (const double huge : {8.88889e56, -1e300, 1e15}) {
    auto r = call("read_file", {{"path", "README.md"}, {"start_line", huge}});
    EXPECT_FALSE(r.ok) << huge;
    EXPECT_NE(r.content.find("argument \"start_line\" must be an integer"), std::string::npos) << r.content;
  }
  auto whole = call("read_file", {{"path", "README.md"}, {"start_line", 2.0}});
  EXPECT_TRUE(whole.ok) << whole.content;
  auto tool = call("rm_rf", json::object());
  EXPECT_FALSE(tool.ok);
  EXPECT_NE(tool.content.find("unknown tool \"rm_rf\""), std::string::npos);
}

TEST_F(ToolsTest, SandboxRefusesEscapes) {
  auto dotdot = call("read_file", {{"path", "../../etc/passwd"}});
  EXPECT_FALSE(dotdot.ok);
  EXPECT_NE(dotdot.content.find("points outside the repository"), std::string::npos) << dotdot.content;
  auto sneaky = call("read_file", {{"path", "src/../../outside/secret.txt"}});
  EXPECT_FALSE(sneaky.ok);
  EXPECT_NE(sneaky.content.find("outside the repository"), std::string::npos) << sneaky.content;
  auto absolute = call("read_file", {{"path", "/etc/passwd"}});
  EXPECT_FALSE(absolute.ok);
  EXPECT_NE(absolute.content.find("is absolute"), std::string::npos) << absolute.content;
  auto absoluteInside = call("read_file", {{"path", (root / "README.md").string()}});
  EXPECT_FALSE(absoluteInside.ok);
  auto home = call("read_file", {{"path", "~/.ssh/id_rsa"}});
  EXPECT_FALSE(home.ok);
  auto nul = call("read_file", {{"path", std::string("README.md\0.txt", 14)}});
  EXPECT_FALSE(nul.ok);
  EXPECT_NE(nul.content.find("NUL byte"), std::string::npos) << nul.content;
  auto git = call("read_file", {{"path", ".git/config"}});
  EXPECT_FALSE(git.ok);
  EXPECT_NE(git.content.find("'.git'"), std::string::npos) << git.content;
  auto globUp = call("glob", {{"pattern", "../**"}});
  EXPECT_FALSE(globUp.ok);
  auto globAbs = call("search_text", {{"query", "x"}, {"path_glob", "/etc/*"}});
  EXPECT_FALSE(globAbs.ok);
  // Each character of a pattern is work at every path: a long one is refused.
  std::string stars;
  for (int i = 0; i < 151; ++i) stars += "*a";
  auto long_ = call("glob", {{"pattern", stars}});
  EXPECT_FALSE(long_.ok);
  EXPECT_EQ(long_.content, "glob: pattern is longer than 300 characters; use a shorter pattern");
}

TEST_F(ToolsTest, SandboxRefusesSymlinksPointingOutside) {
  fs::create_symlink(dir.path() / "outside" / "secret.txt", root / "src" / "link.txt");
  fs::create_directory_symlink(dir.path() / "outside", root / "out");
  fs::create_symlink("/etc/passwd", root / "passwd");
  fs::create_symlink(root / "src" / "Service.java", root / "inside-link.java");
  fs::create_symlink(root / ".git" / "config", root / "gitconfig");

  for (const char* p : {"src/link.txt", "out/secret.txt", "passwd"}) {
    auto r = call("read_file", {{"path", p}});
    EXPECT_FALSE(r.ok) << p;
    EXPECT_NE(r.content.find("outside the repository"), std::string::npos) << r.content;
  }
  auto intoGit = call("read_file", {{"path", "gitconfig"}});
  EXPECT_FALSE(intoGit.ok);
  auto inside = call("read_file", {{"path", "inside-link.java"}});
  EXPECT_TRUE(inside.ok) << inside.content;

  // Listings and searches never reach through them either.
  auto listing = call("glob", {{"pattern", "**"}});
  ASSERT_TRUE(listing.ok);
  EXPECT_EQ(listing.content.find("link.txt"), std::string::npos) << listing.content;
  EXPECT_EQ(listing.content.find("secret"), std::string::npos) << listing.content;
  EXPECT_EQ(listing.content.find("passwd"), std::string::npos) << listing.content;
  EXPECT_NE(listing.content.find("inside-link.java"), std::string::npos) << listing.content;
  auto search = call("search_text", {{"query", "TOP SECRET"}});
  ASSERT_TRUE(search.ok);
  EXPECT_NE(search.content.find("No text file"), std::string::npos) << search.content;
}

TEST_F(ToolsTest, SkipsIgnoredDirectoriesAndBinaryFiles) {
  auto r = call("find_usages", {{"symbol", "ok"}});
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find("src/Service.java:2:"), std::string::npos) << r.content;
  EXPECT_NE(r.content.find("src/Service.java:5:"), std::string::npos) << r.content;
  EXPECT_EQ(r.content.find("okay"), std::string::npos) << "whole words only: " << r.content;
  for (const char* skipped : {"node_modules", "build/", "vendor", ".git", "blob.bin"}) {
    EXPECT_EQ(r.content.find(skipped), std::string::npos) << skipped << " in " << r.content;
  }
  auto bin = call("read_file", {{"path", "data/blob.bin"}});
  EXPECT_FALSE(bin.ok);
  EXPECT_NE(bin.content.find("binary"), std::string::npos);
  write("large.txt", std::string(300 * 1024, 'a'));
  auto large = call("read_file", {{"path", "large.txt"}});
  EXPECT_FALSE(large.ok);
  EXPECT_NE(large.content.find("256 KB limit"), std::string::npos) << large.content;
  auto dirRead = call("read_file", {{"path", "src"}});
  EXPECT_FALSE(dirRead.ok);
  EXPECT_NE(dirRead.content.find("is a directory"), std::string::npos);
  auto missing = call("read_file", {{"path", "src/Nope.java"}});
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.content.find("no such file"), std::string::npos);
}

// What git ignores (a local .env, build output) is neither read nor listed, as the
// diff does not show it; git is asked once, at the first path the model names.
TEST_F(ToolsTest, WhatGitIgnoresIsNeitherReadNorListed) {
  write(".env", "API_TOKEN=ok(\n");
  write("out/gen/Gen.java", "class Gen { void ok() {} }\n");
  write("src/Generated.java", "class Generated { void ok() {} }\n");
  RepositoryTools tools(root);
  int asked = 0;
  tools.hideWhatGitHides([&] {
    ++asked;
    return Sandbox::GitHidden{{".env", "out/", "src/Generated.java"}};
  });
  auto run = [&](const std::string& name, json args) {
    return tools.execute({"call_1", name, std::move(args)}, CancelToken());
  };
  for (const char* path : {".env", "out/gen/Gen.java", "./src/Generated.java"}) {
    auto r = run("read_file", {{"path", path}});
    EXPECT_FALSE(r.ok) << path;
    EXPECT_NE(r.content.find("is ignored by git (.gitignore)"), std::string::npos) << r.content;
  }
  fs::create_symlink(root / ".env", root / "src" / "env-link");  // no way round it through a symlink
  EXPECT_FALSE(run("read_file", {{"path", "src/env-link"}}).ok);
  for (const auto& [name, args] : std::vector<std::pair<std::string, json>>{
           {"search_text", {{"query", "ok("}}}, {"find_usages", {{"symbol", "ok"}}}, {"glob", {{"pattern", "**"}}}}) {
    auto r = run(name, args);
    ASSERT_TRUE(r.ok) << r.content;
    for (const char* hidden : {".env", "Gen.java", "Generated.java", "env-link"})
      EXPECT_EQ(r.content.find(hidden), std::string::npos) << name << " shows " << hidden << ": " << r.content;
  }
  EXPECT_TRUE(run("read_file", {{"path", "src/Service.java"}}).ok);
  EXPECT_EQ(asked, 1);
  EXPECT_TRUE(tools.newFileText("src/Generated.java").has_value()) << "a file of the diff is read as it is";
}

// Another repository's work tree inside this one (a directory holding a `.git`
// entry: a submodule's file, a nested clone's directory) is not this
// repository's: never read, searched or listed, even through a symlink; nor is
// a `.git` file (a linked work tree's names the main repository's path).
TEST_F(ToolsTest, AnotherRepositorysWorkTreeIsNotRead) {
  write("sm/.git", "gitdir: ../.git/modules/sm\n");
  write("sm/secret.txt", "ok( SUBMODULE\n");
  write("clone/.git/config", "[core]\n");
  write("clone/deep/a.txt", "ok( NESTED\n");
  fs::create_symlink(root / "clone" / "deep", root / "into-clone");
  write("wt/.git", "gitdir: /elsewhere/.git/worktrees/wt\n");  // as the root of a linked work tree has
  RepositoryTools tools(root);
  auto run = [&](const std::string& name, json args) {
    return tools.execute({"call_1", name, std::move(args)}, CancelToken());
  };
  for (const char* path : {"sm/secret.txt", "clone/deep/a.txt", "into-clone/a.txt"}) {
    auto r = run("read_file", {{"path", path}});
    EXPECT_FALSE(r.ok) << path;
    EXPECT_NE(r.content.find("the work tree of another git repository"), std::string::npos) << r.content;
  }
  for (const auto& [name, args] : std::vector<std::pair<std::string, json>>{
           {"search_text", {{"query", "ok("}}}, {"search_text", {{"query", "gitdir"}}}, {"glob", {{"pattern", "**"}}}}) {
    auto r = run(name, args);
    ASSERT_TRUE(r.ok) << r.content;
    for (const char* hidden : {"SUBMODULE", "NESTED", "sm/", "clone/", "into-clone", "gitdir:", "wt/.git"})
      EXPECT_EQ(r.content.find(hidden), std::string::npos) << name << " shows " << hidden << ": " << r.content;
  }
}

// A backslash in a path is a separator (a model writing a Windows-style path),
// unless a file has that very name: `back\slash.txt` is read. Before, it was
// "no such file", though glob and search_text listed it.
TEST_F(ToolsTest, AFileNamedWithABackslashIsRead) {
  write("back\\slash.txt", "named with a backslash\n");
  RepositoryTools tools(root);
  auto named = tools.execute({"call_1", "read_file", {{"path", "back\\slash.txt"}}}, CancelToken());
  EXPECT_TRUE(named.ok) << named.content;
  EXPECT_NE(named.content.find("named with a backslash"), std::string::npos) << named.content;
  auto windows = tools.execute({"call_2", "read_file", {{"path", "src\\Service.java"}}}, CancelToken());
  EXPECT_TRUE(windows.ok) << windows.content;
  EXPECT_NE(windows.content.find("class Service"), std::string::npos) << windows.content;
  auto escape = tools.execute({"call_3", "read_file", {{"path", "..\\outside\\secret.txt"}}}, CancelToken());
  EXPECT_FALSE(escape.ok) << escape.content;
}

// A name holding a newline is listed as the diff names it, quoted: listed raw,
// `x<newline>src/Service.java` read as two paths, one of them another file's.
// Given back quoted, it is the file it names.
TEST_F(ToolsTest, ANameWithANewlineIsListedQuotedAndReadBack) {
  write("x\nsrc/Service.java", "the odd one\n");
  RepositoryTools tools(root);
  const auto listed = tools.execute({"call_1", "glob", {{"pattern", "**"}}}, CancelToken());
  ASSERT_TRUE(listed.ok) << listed.content;
  EXPECT_NE(listed.content.find("\n\"x\\nsrc/Service.java\"\n"), std::string::npos) << listed.content;
  EXPECT_EQ(listed.content.find("\nx\n"), std::string::npos) << listed.content;
  const auto found = tools.execute({"call_2", "search_text", {{"query", "the odd one"}}}, CancelToken());
  EXPECT_NE(found.content.find("\"x\\nsrc/Service.java\":1: the odd one"), std::string::npos) << found.content;
  const auto read = tools.execute({"call_3", "read_file", {{"path", "\"x\\nsrc/Service.java\""}}}, CancelToken());
  EXPECT_TRUE(read.ok) << read.content;
  EXPECT_NE(read.content.find("the odd one"), std::string::npos) << read.content;
  // A name that begins with a quote, listed quoted, read back.
  write("\"q\".py", "quoted\n");
  const auto q = tools.execute({"call_4", "read_file", {{"path", "\"\\\"q\\\".py\""}}}, CancelToken());
  EXPECT_TRUE(q.ok) << q.content;
  EXPECT_NE(q.content.find("quoted"), std::string::npos) << q.content;
}

// Git's own directory inside the work tree under another name (GitHidden::gitData) is refused as such.
TEST_F(ToolsTest, GitsOwnDataUnderAnotherNameIsNotRead) {
  write(".cfg/config", "[remote]\n\turl = https://u:ok(@example.com\n");
  RepositoryTools tools(root);
  tools.hideWhatGitHides([] { return Sandbox::GitHidden{{}, kIgnoredByGitWhy, {".cfg/"}}; });
  auto read = tools.execute({"call_1", "read_file", {{"path", ".cfg/config"}}}, CancelToken());
  EXPECT_FALSE(read.ok);
  EXPECT_NE(read.content.find("is git's own data"), std::string::npos) << read.content;
  auto search = tools.execute({"call_2", "search_text", {{"query", "ok("}}}, CancelToken());
  EXPECT_EQ(search.content.find(".cfg"), std::string::npos) << search.content;
}

// Files git reads from the index (GitHidden::indexOnly) are read through the
// given reader, in one ask per search; one git cannot give (or past the search's
// total) is refused by read_file and named as not searched, never passed over silently.
TEST_F(ToolsTest, FilesReadFromTheIndexThatGitCannotGiveAreSaidNotSearched) {
  write("cfg/local.ini", "ok( LOCAL COPY\n");  // skip-worktree: its local copy is not what git has
  RepositoryTools tools(root);
  int asks = 0;
  tools.hideWhatGitHides([&] {
    Sandbox::GitHidden said;
    said.indexOnly = {{"cfg/local.ini", "aaaa"}, {"far/away.txt", "bbbb"}, {"far/huge.txt", "cccc"}};
    said.readBlobs = [&asks](const std::vector<std::string>& ids, std::size_t) {
      ++asks;
      std::map<std::string, std::optional<std::string>> texts;
      for (const std::string& id : ids)
        texts[id] = id == "aaaa" ? std::optional<std::string>("ok( INDEX\n")
                    : id == "bbbb" ? std::optional<std::string>("ok( OUT OF CONE\n")
                                   : std::nullopt;
      return texts;
    };
    return said;
  });
  auto run = [&](const std::string& name, json args) {
    return tools.execute({"call_1", name, std::move(args)}, CancelToken());
  };
  auto search = run("search_text", {{"query", "ok("}});
  EXPECT_EQ(asks, 1);
  EXPECT_NE(search.content.find("cfg/local.ini:1: ok( INDEX"), std::string::npos) << search.content;
  EXPECT_NE(search.content.find("far/away.txt:1: ok( OUT OF CONE"), std::string::npos) << search.content;
  EXPECT_EQ(search.content.find("LOCAL COPY"), std::string::npos) << search.content;
  EXPECT_NE(search.content.find("[not searched: 1 file git keeps out of the work tree"), std::string::npos)
      << search.content;
  auto huge = run("read_file", {{"path", "far/huge.txt"}});
  EXPECT_FALSE(huge.ok);
  EXPECT_NE(huge.content.find("git could not give the index's version of 'far/huge.txt'"), std::string::npos)
      << huge.content;
  auto listing = run("glob", {{"pattern", "far/*"}});
  EXPECT_NE(listing.content.find("far/away.txt"), std::string::npos) << listing.content;
  EXPECT_NE(listing.content.find("far/huge.txt"), std::string::npos) << listing.content;
}

// The index's entries listed beside the work tree's count against the
// listing's bound (a monorepo's sparse checkout: a million entries outside the cone).
TEST_F(ToolsTest, FilesListedFromTheIndexCountAgainstTheListingsBound) {
  ToolLimits limits;
  limits.maxWalkEntries = 1000;
  RepositoryTools tools(root, limits);
  tools.hideWhatGitHides([] {
    Sandbox::GitHidden said;
    for (int i = 0; i < 5000; ++i) said.indexOnly["far/f" + std::to_string(i) + ".txt"] = "aaaa";
    said.readBlobs = [](const std::vector<std::string>&, std::size_t) {
      return std::map<std::string, std::optional<std::string>>{};
    };
    return said;
  });
  auto r = tools.execute({"call_1", "glob", {{"pattern", "far/*"}}}, CancelToken());
  EXPECT_NE(r.content.find("[truncated: the repository listing was cut at 1000 entries]"), std::string::npos)
      << r.content.substr(0, 300);
}

// The builtin reviewer reads the change's files on every save: one on disk is
// the diff's new side, and git is not asked what it keeps out of the work tree
// (a `git ls-files` of the whole index: the save-to-diagnostics bench went
// from 1.04x to 2.56x its baseline when it was).
TEST_F(ToolsTest, ReadingAFileOfTheDiffOnDiskAsksGitNothing) {
  RepositoryTools tools(root);
  int asked = 0;
  tools.hideWhatGitHides([&] {
    ++asked;
    return Sandbox::GitHidden{};
  });
  tools.changeHolds({"src/Service.java"});
  EXPECT_TRUE(tools.newFileText("src/Service.java").has_value());
  EXPECT_EQ(asked, 0);
}

// A result cap under 1 KB (a small request budget's share) is said in bytes, not "0 KB".
TEST_F(ToolsTest, AResultCapUnderOneKilobyteIsSaidInBytes) {
  for (int i = 0; i < 40; ++i) write("many/file_with_a_rather_long_name_" + std::to_string(i) + ".txt", "x\n");
  ToolLimits limits;
  limits.maxResultBytes = 512;
  RepositoryTools tools(root, limits);
  auto r = tools.execute({"call_1", "glob", {{"pattern", "many/*"}}}, CancelToken());
  EXPECT_NE(r.content.find("[truncated: the result exceeded 512 bytes; ask for less]"), std::string::npos) << r.content;
}

TEST_F(ToolsTest, SearchTextIsLiteralAndSmartCase) {
  auto r = call("search_text", {{"query", "service"}});
  ASSERT_TRUE(r.ok);
  EXPECT_NE(r.content.find("README.md:2: Service docs"), std::string::npos) << r.content;
  EXPECT_NE(r.content.find("src/Service.java:1: class Service {"), std::string::npos) << r.content;
  auto exact = call("search_text", {{"query", "Service docs"}, {"path_glob", "*.java"}});
  ASSERT_TRUE(exact.ok);
  EXPECT_NE(exact.content.find("No text file in files matching '*.java'"), std::string::npos) << exact.content;
  auto regexChars = call("search_text", {{"query", "s == \"OK\""}});
  ASSERT_TRUE(regexChars.ok);
  EXPECT_NE(regexChars.content.find("src/Service.java:3:"), std::string::npos);
  auto empty = call("search_text", {{"query", "  "}});
  EXPECT_FALSE(empty.ok);
}

TEST_F(ToolsTest, ACancelledReviewStopsASearchInsteadOfFailingTheTool) {
  // Cancellation is not a tool error for the model: the review stops (support/cancel.h).
  RepositoryTools tools(root);
  CancelToken cancel;
  cancel.cancel();
  EXPECT_THROW(tools.execute({"c1", "search_text", {{"query", "ok"}}}, cancel), Cancelled);
  EXPECT_THROW(tools.execute({"c2", "find_usages", {{"symbol", "ok"}}}, cancel), Cancelled);
  EXPECT_THROW(tools.execute({"c3", "glob", {{"pattern", "**/*.java"}}}, cancel), Cancelled);
  EXPECT_TRUE(tools.execute({"c4", "search_text", {{"query", "ok"}}}, CancelToken()).ok);
}

// A pattern is expanded once and its matching over the walk is bounded: one
// whose braces the first expansion left was expanded again for every path
// (64 x 64 matchers a path; 254 characters ran past 2 minutes over 3,000 names).
TEST_F(ToolsTest, APatternTooCostlyToMatchIsRefusedNotRunForMinutes) {
  // 64 alternatives, each a star before 200 characters that almost match every name.
  const std::string pattern = "data/{a,b,c,d,e,f,g,h}{a,b,c,d,e,f,g,h}*" + std::string(200, 'a') + "b";
  GlobMatcher bounded(pattern, 2'000'000);
  std::size_t tried = 0;
  for (int i = 0; i < 3000 && !bounded.exhausted(); ++i, ++tried)
    EXPECT_FALSE(bounded.matches("data/" + std::string(240, 'a') + std::to_string(i)));
  EXPECT_TRUE(bounded.exhausted());
  EXPECT_LT(tried, 3000u);
  // Left-over braces are literal, not expanded again.
  GlobMatcher deep("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{x,y}");
  EXPECT_FALSE(deep.matches("aaaaaaaaax"));
  // The tool says so.
  for (int i = 0; i < 50; ++i) write("data/aa" + std::string(200, 'a') + std::to_string(i) + ".txt", "x\n");
  ToolLimits limits;
  limits.maxGlobSteps = 20'000;
  RepositoryTools tools(root, limits);
  auto r = tools.execute({"c1", "glob", {{"pattern", pattern}}}, CancelToken());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.content.find("takes too much work to match against the repository's"), std::string::npos) << r.content;
}

TEST_F(ToolsTest, GlobPatterns) {
  auto globMatch = [](std::string_view pattern, std::string_view path) { return toolGlob(pattern).matches(path); };
  EXPECT_TRUE(globMatch("*.java", "src/util/Helper.java"));
  EXPECT_TRUE(globMatch("src/**/*.java", "src/Service.java"));
  EXPECT_TRUE(globMatch("src/**/*.java", "src/util/Helper.java"));
  EXPECT_FALSE(globMatch("src/*.java", "src/util/Helper.java"));
  EXPECT_TRUE(globMatch("**/*.{ts,java}", "src/util/Helper.java"));
  EXPECT_TRUE(globMatch("src/[SH]*.java", "src/Service.java"));
  EXPECT_FALSE(globMatch("src/[!S]*.java", "src/Service.java"));
  EXPECT_TRUE(globMatch("README.?d", "README.md"));
  EXPECT_TRUE(globMatch("./src/*", "src/Service.java"));
  EXPECT_TRUE(globMatch("**", "a/b/c"));

  auto r = call("glob", {{"pattern", "src/**/*.java"}});
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.content, "Files matching 'src/**/*.java' (2):\nsrc/Service.java\nsrc/util/Helper.java\n");
  auto none = call("glob", {{"pattern", "*.rs"}});
  ASSERT_TRUE(none.ok);
  EXPECT_EQ(none.content, "No file matches '*.rs'.");
}

TEST_F(ToolsTest, ResultsAreCappedWithTruncationSaid) {
  std::string many;
  for (int i = 0; i < 80; ++i) many += "needle " + std::to_string(i) + "\n";
  write("many.txt", many);
  for (int i = 0; i < 230; ++i) write("gen/f" + std::to_string(i) + ".txt", "x\n");

  auto search = call("search_text", {{"query", "needle"}});
  ASSERT_TRUE(search.ok);
  EXPECT_NE(search.content.find("(50 matches)"), std::string::npos);
  EXPECT_NE(search.content.find("[truncated: showing the first 50 matches"), std::string::npos);
  EXPECT_EQ(search.content.find("needle 50"), std::string::npos);

  auto usages = call("find_usages", {{"symbol", "needle"}});
  ASSERT_TRUE(usages.ok);
  EXPECT_NE(usages.content.find("[truncated: showing the first 50 matches"), std::string::npos);

  auto paths = call("glob", {{"pattern", "gen/*"}});
  ASSERT_TRUE(paths.ok);
  EXPECT_NE(paths.content.find("(200):"), std::string::npos);
  EXPECT_NE(paths.content.find("[truncated: showing the first 200 paths"), std::string::npos);
}

TEST_F(ToolsTest, FindUsagesValidatesTheSymbol) {
  auto r = call("find_usages", {{"symbol", "ok(); rm -rf /"}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.content.find("is not an identifier"), std::string::npos);
  auto qualified = call("find_usages", {{"symbol", "Helper"}});
  ASSERT_TRUE(qualified.ok);
  EXPECT_NE(qualified.content.find("src/util/Helper.java:1:"), std::string::npos);
}

// A change whose new side is not the work tree (--staged, --stdin): the tools
// read its files as git has them, and refuse one whose new text is not known,
// rather than show the work tree's copy as "the new version shown in the diff".
TEST_F(ToolsTest, TheChangesFilesAreReadAsItsNewSideHasThem) {
  auto versions = std::make_shared<diff::NewVersions>();
  (*versions)["src/Service.java"] = std::string("class Service { /* staged */ int ok() { return 2; } }\n");
  (*versions)["README.md"] = std::nullopt;
  RepositoryTools tools(root);
  tools.readNewSideFrom(versions);
  const review::ToolResult read = tools.execute({"c1", "read_file", {{"path", "src/Service.java"}}}, CancelToken());
  EXPECT_TRUE(read.ok) << read.content;
  EXPECT_NE(read.content.find("/* staged */"), std::string::npos) << read.content;
  const review::ToolResult found = tools.execute({"c2", "search_text", {{"query", "staged"}}}, CancelToken());
  EXPECT_NE(found.content.find("src/Service.java:1:"), std::string::npos) << found.content;
  const review::ToolResult unknown = tools.execute({"c3", "read_file", {{"path", "README.md"}}}, CancelToken());
  EXPECT_FALSE(unknown.ok);
  EXPECT_NE(unknown.content.find("only the diff shows what the change holds of it"), std::string::npos) << unknown.content;
  EXPECT_EQ(tools.newFileText("README.md"), std::nullopt);
  // A file the change does not hold is the work tree's.
  EXPECT_NE(tools.newFileText("src/util/Helper.java")->find("okay"), std::string::npos);
}

}  // namespace
}  // namespace revline::tools
