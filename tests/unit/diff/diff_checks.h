// Test helpers for tests/unit/diff: compare a parsed FileDiff with the file
// contents on either side, as git has them.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/diff/diff.h"

namespace revline::diff::testing {

// The lines of a file as the parser reports them: split at '\n', a final
// '\r' dropped (CRLF), no empty entry after a trailing newline.
inline std::vector<std::string> fileLines(const std::string& content) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < content.size()) {
    size_t nl = content.find('\n', pos);
    if (nl == std::string::npos) nl = content.size();
    std::string line = content.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(std::move(line));
    pos = nl + 1;
  }
  return out;
}

// Every hunk's counts agree with its lines, numbers run consecutively, and
// every RIGHT-side line (and LEFT-side line, when oldContent is given) has the
// text of that line of the file.
inline void expectSidesMatch(const FileDiff& f, const std::string* oldContent, const std::string* newContent) {
  const auto newLines = newContent ? fileLines(*newContent) : std::vector<std::string>{};
  const auto oldLines = oldContent ? fileLines(*oldContent) : std::vector<std::string>{};
  for (const Hunk& h : f.hunks) {
    int oldNo = h.oldStart, newNo = h.newStart, olds = 0, news = 0;
    for (const Line& l : h.lines) {
      if (l.kind != LineKind::Removed) {
        EXPECT_EQ(l.newLine, newNo++) << f.path();
        ++news;
        EXPECT_TRUE(f.isRightSideLine(l.newLine)) << f.path() << ":" << l.newLine;
        const auto text = f.newLineText(l.newLine);
        ASSERT_TRUE(text.has_value()) << f.path() << ":" << l.newLine;
        EXPECT_EQ(*text, l.text);
        if (newContent) {
          ASSERT_LE(l.newLine, static_cast<int>(newLines.size())) << f.path();
          EXPECT_EQ(std::string(l.text), newLines[l.newLine - 1]) << f.path() << ":" << l.newLine;
        }
      } else {
        EXPECT_EQ(l.newLine, 0);
      }
      if (l.kind != LineKind::Added) {
        EXPECT_EQ(l.oldLine, oldNo++) << f.path();
        ++olds;
        if (oldContent) {
          ASSERT_LE(l.oldLine, static_cast<int>(oldLines.size())) << f.path();
          EXPECT_EQ(std::string(l.text), oldLines[l.oldLine - 1]) << f.path() << ": old " << l.oldLine;
        }
      } else {
        EXPECT_EQ(l.oldLine, 0);
      }
    }
    EXPECT_EQ(olds, h.oldCount) << f.path();
    EXPECT_EQ(news, h.newCount) << f.path();
  }
}

}  // namespace revline::diff::testing
