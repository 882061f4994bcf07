// Reading a Jupyter notebook for its cells' source (the code) apart from its
// outputs and metadata, and narrowing a file's hunks to chosen lines.
#include "core/diff/notebook.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/diff/function_context.h"
#include "tests/support/notebook.h"

namespace revline::diff {
namespace {

using testing::jupyterNotebook;
using testing::NotebookCell;

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl - start));
    start = nl == std::string::npos ? text.size() : nl + 1;
  }
  return lines;
}

// The lines of `text` the scan marks as source, as their text.
std::vector<std::string> sourceText(const std::string& text) {
  const auto source = notebookSourceLines(text);
  EXPECT_TRUE(source.has_value());
  std::vector<std::string> out;
  const auto lines = splitLines(text);
  EXPECT_EQ(source ? source->size() : 0, lines.size());
  for (std::size_t i = 0; source && i < lines.size(); ++i)
    if ((*source)[i]) out.push_back(lines[i]);
  return out;
}

TEST(Notebook, TheCellsSourceIsCodeAndTheirOutputsAndMetadataAreNot) {
  const std::string text =
      jupyterNotebook({{"import pandas as pd\\n", "df.head()"}, testing::base64Image(64, 1), {"loss 0.1\\n"}, 7});
  ASSERT_TRUE(nlohmann::json::accept(text)) << "the fixture is a notebook Jupyter could load";
  EXPECT_EQ(sourceText(text), (std::vector<std::string>{"   \"source\": [", "    \"import pandas as pd\\n\",",
                                                        "    \"df.head()\"", "   ]", "   \"source\": [",
                                                        "    \"# Results\"", "   ]"}));
}

TEST(Notebook, ASourceWrittenAsOneStringOrUnderAnEscapedKeyIsSource) {
  const std::string text = "{\"cells\": [\n{\"cell_type\": \"code\",\n \"outputs\": [],\n \"source\": \"x = 1\\ny = 2\"},\n"
                           "{\"cell_type\": \"code\",\n \"outputs\": [],\n \"sourc\\u0065\": [\n \"os.system(cmd)\"\n ]}\n],\n"
                           "\"nbformat\": 4}\n";
  ASSERT_TRUE(nlohmann::json::accept(text));
  // Jupyter loads the escaped key as "source": hiding code there would take it out of review.
  EXPECT_EQ(sourceText(text), (std::vector<std::string>{" \"source\": \"x = 1\\ny = 2\"},", " \"sourc\\u0065\": [",
                                                        " \"os.system(cmd)\"", " ]}"}));
}

// nbformat 3 (2011-2015 notebooks, still in many repositories' history): cells
// under worksheets, a code cell's source as "input", a markdown cell's as "source".
TEST(Notebook, AVersion3NotebooksInputAndSourceAreSource) {
  const std::string text = "{\n \"metadata\": {\"name\": \"\"},\n \"nbformat\": 3,\n \"worksheets\": [\n  {\n"
                           "   \"cells\": [\n    {\n     \"cell_type\": \"code\",\n     \"input\": [\n      \"x = 1\"\n     ],\n"
                           "     \"outputs\": [{\"png\": \"iVBOR\"}],\n     \"prompt_number\": 3\n    },\n"
                           "    {\"cell_type\": \"markdown\", \"source\": [\"# T\"]}\n   ],\n   \"metadata\": {}\n  }\n ]\n}";
  ASSERT_TRUE(nlohmann::json::accept(text));
  EXPECT_EQ(sourceText(text), (std::vector<std::string>{"     \"input\": [", "      \"x = 1\"", "     ],",
                                                        "    {\"cell_type\": \"markdown\", \"source\": [\"# T\"]}"}));
}

TEST(Notebook, ASourceKeyOutsideACellIsNoSource) {
  const std::string text = "{\n \"cells\": [\n  {\n   \"outputs\": [\n    {\"data\": {\"source\": [\n     \"print(1)\"\n"
                           "    ]}}\n   ],\n   \"metadata\": {\"source\": \"x\"}\n  }\n ],\n \"metadata\": {\"source\": 1},\n"
                           " \"nbformat\": 4\n}\n";
  ASSERT_TRUE(nlohmann::json::accept(text));
  EXPECT_TRUE(sourceText(text).empty());
}

TEST(Notebook, WhatIsNotANotebookOfCellsIsReadAsItIs) {
  EXPECT_FALSE(notebookSourceLines("{\"nbformat\": 4, \"cells\": {}}")) << "cells that are no list";
  EXPECT_FALSE(notebookSourceLines("{\"nbformat\": 4, \"cells\": [{\"source\": [\"x\"]}]")) << "cut short";
  EXPECT_FALSE(notebookSourceLines("{\"nbformat\": 4, \"cells\": []} trailing")) << "text after the document";
  EXPECT_FALSE(notebookSourceLines("{\"nbformat\": 4, \"cells\": [{\"source\": [\"a\nb\"]}]}"))
      << "a raw line break in a string";
  EXPECT_FALSE(notebookSourceLines("[1, 2]"));
  EXPECT_FALSE(notebookSourceLines(""));
  // Nesting past what a notebook holds is refused, not recursed into until the stack runs out.
  EXPECT_FALSE(notebookSourceLines("{\"nbformat\": 4, \"cells\": [" + std::string(1'000'000, '[') +
                                   std::string(1'000'000, ']') + "]}"));
  EXPECT_TRUE(notebookSourceLines("{\"nbformat\": 4, \"cells\": [], \"v\": [NaN, -Infinity, 1.5e3, true, null]}"))
      << "what Python's json writes";
}

// Jupyter reads a version 1 notebook's code from "code" (and a file without
// "nbformat" as version 1): narrowed as a version 4 one, that code would leave
// the review while Jupyter still runs it. Only versions 3 and 4 are narrowed,
// by the version Python reads: the key's last value.
TEST(Notebook, OnlyVersions3And4AreReadForTheirCells) {
  const std::string v1 = "{\"cells\": [{\"cell_type\": \"code\",\n \"code\": \"import os; os.system(cmd)\"}]}";
  EXPECT_FALSE(notebookSourceLines(v1)) << "no nbformat: version 1";
  EXPECT_FALSE(notebookSourceLines("{\"nbformat\": 1, " + v1.substr(1)));
  EXPECT_FALSE(notebookSourceLines("{\"nbformat\": 4, \"nbformat\": 1, " + v1.substr(1))) << "the last one counts";
  EXPECT_FALSE(notebookSourceLines("{\"nbformat\": \"4\", " + v1.substr(1))) << "a string is no version";
  EXPECT_FALSE(notebookSourceLines("{\"nbformat\": 5, " + v1.substr(1))) << "a version not known yet";
  EXPECT_TRUE(notebookSourceLines("{\"nbformat\": 1, \"nbformat\": 4.0, " + v1.substr(1)));
  EXPECT_TRUE(notebookSourceLines("{\"nbformat\": 3, \"worksheets\": [{\"cells\": []}]}"));
}

// Where a notebook editor shows a line: its cell and the line in the cell.
TEST(Notebook, ALineOfACellsSourceIsFoundInItsCell) {
  const std::string text = jupyterNotebook({{"import os\\n", "os.system(cmd)"}, "", {"done\\n"}, 1}, {"# A\\n", "b"});
  const auto source = notebookSourceLines(text);
  ASSERT_TRUE(source);
  const auto lines = splitLines(text);
  const std::vector<std::string_view> views(lines.begin(), lines.end());
  auto lineOf = [&](const std::string& needle) {
    for (std::size_t i = 0; i < lines.size(); ++i)
      if (lines[i].find(needle) != std::string::npos) return static_cast<int>(i) + 1;
    return 0;
  };
  const auto system = cellLineOf(*source, views, lineOf("os.system"));
  ASSERT_TRUE(system);
  EXPECT_EQ(system->cell, 0);
  EXPECT_EQ(system->line, 1);
  const auto markdown = cellLineOf(*source, views, lineOf("\"b\""));
  ASSERT_TRUE(markdown);
  EXPECT_EQ(markdown->cell, 1);
  EXPECT_EQ(markdown->line, 1);
  EXPECT_FALSE(cellLineOf(*source, views, lineOf("\"source\": ["))) << "the key's line is in no cell";
  EXPECT_FALSE(cellLineOf(*source, views, lineOf("done"))) << "an output";
  EXPECT_FALSE(cellLineOf(*source, views, lineOf("os.system") + 1)) << "the closing bracket";
  // A source written as one string is the cell, on its key's line.
  const std::string one = "{\"nbformat\": 4, \"cells\": [\n{\"source\": \"x = 1\"}\n]}\n";
  const auto oneSource = notebookSourceLines(one);
  ASSERT_TRUE(oneSource);
  const auto oneLines = splitLines(one);
  const std::vector<std::string_view> oneViews(oneLines.begin(), oneLines.end());
  const auto at = cellLineOf(*oneSource, oneViews, 2);
  ASSERT_TRUE(at);
  EXPECT_EQ(at->cell, 0);
  EXPECT_EQ(at->line, 0);
}

TEST(Notebook, ANotebookIsNamedIpynbInAnyCase) {
  EXPECT_TRUE(isNotebookPath("analysis/Explore.ipynb"));
  EXPECT_TRUE(isNotebookPath("A.IPYNB"));
  EXPECT_FALSE(isNotebookPath("ipynb"));
  EXPECT_FALSE(isNotebookPath("a.ipynb.json"));
}

// One hunk: a10 +b c -d +e f +h i (old 10-14, new 10-16).
Diff oneHunk() {
  return parse("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -10,5 +10,7 @@ def f():\n a\n+b\n c\n-d\n+e\n f\n+h\n i\n");
}

std::vector<bool> lines(std::initializer_list<int> kept, int upTo = 20) {
  std::vector<bool> out(static_cast<std::size_t>(upTo), false);
  for (int n : kept) out[static_cast<std::size_t>(n - 1)] = true;
  return out;
}

TEST(KeepOnlyLines, EachRunOfKeptLinesIsAHunkWithItsOwnHeader) {
  Diff d = oneHunk();
  FileDiff& f = d.files[0];
  EXPECT_EQ(keepOnlyLines(f, {}, lines({10, 11, 14, 15, 16})), 2) << "-d and +e left out";
  ASSERT_EQ(f.hunks.size(), 2u);
  EXPECT_EQ(f.hunks[0].oldStart, 10);
  EXPECT_EQ(f.hunks[0].oldCount, 1);
  EXPECT_EQ(f.hunks[0].newStart, 10);
  EXPECT_EQ(f.hunks[0].newCount, 2);
  EXPECT_EQ(f.hunks[0].section, "def f():");
  ASSERT_EQ(f.hunks[0].lines.size(), 2u);
  EXPECT_EQ(f.hunks[0].lines[1].text, "b");
  EXPECT_EQ(f.hunks[1].oldStart, 13);
  EXPECT_EQ(f.hunks[1].oldCount, 2);
  EXPECT_EQ(f.hunks[1].newStart, 14);
  EXPECT_EQ(f.hunks[1].newCount, 3);
  ASSERT_EQ(f.hunks[1].lines.size(), 3u);
  EXPECT_EQ(f.hunks[1].lines[1].newLine, 15);
}

TEST(KeepOnlyLines, ARunOfContextAloneIsDroppedAndAnEmptySideStartsAtTheLineBefore) {
  Diff d = oneHunk();
  FileDiff& f = d.files[0];
  EXPECT_EQ(keepOnlyLines(f, lines({12}), lines({11, 14, 16})), 2) << "+b and -d kept; +e, +h left out";
  ASSERT_EQ(f.hunks.size(), 2u);
  // +b alone: no old line, so its old side starts, as git writes it, at line 10.
  EXPECT_EQ(f.hunks[0].oldStart, 10);
  EXPECT_EQ(f.hunks[0].oldCount, 0);
  EXPECT_EQ(f.hunks[0].newStart, 11);
  EXPECT_EQ(f.hunks[0].newCount, 1);
  // -d alone: its new side starts at line 12 (c), the line before where it was.
  EXPECT_EQ(f.hunks[1].oldStart, 12);
  EXPECT_EQ(f.hunks[1].oldCount, 1);
  EXPECT_EQ(f.hunks[1].newStart, 12);
  EXPECT_EQ(f.hunks[1].newCount, 0);
  // f and i: context with nothing changed between them once +h is gone.
  Diff again = oneHunk();
  EXPECT_EQ(keepOnlyLines(again.files[0], {}, lines({14, 16})), 4);
  EXPECT_TRUE(again.files[0].hunks.empty());
}

TEST(NotebookFunctionContext, AChangeInACellShowsTheWholeCellAndNoOutput) {
  std::vector<std::string> source;
  for (int i = 0; i < 12; ++i) source.push_back("x" + std::to_string(i) + " = " + std::to_string(i) + "\\n");
  const std::string before = jupyterNotebook({source, testing::base64Image(80, 1), {"done\\n"}, 1});
  source[8] = "x8 = compute()\\n";
  const std::string after = jupyterNotebook({source, testing::base64Image(80, 1), {"done\\n"}, 1});
  // The hunk git would show for the edit: one line changed, three of context each side.
  const auto newLines = splitLines(after);
  int changed = 0;
  for (std::size_t i = 0; i < newLines.size(); ++i)
    if (newLines[i].find("compute()") != std::string::npos) changed = static_cast<int>(i) + 1;
  ASSERT_GT(changed, 0);
  std::string patch = "diff --git a/n.ipynb b/n.ipynb\n--- a/n.ipynb\n+++ b/n.ipynb\n@@ -" + std::to_string(changed - 3) +
                      ",7 +" + std::to_string(changed - 3) + ",7 @@\n";
  const auto oldLines = splitLines(before);
  for (int n = changed - 3; n <= changed + 3; ++n) {
    if (n == changed) patch += "-" + oldLines[static_cast<std::size_t>(n - 1)] + "\n+" + newLines[static_cast<std::size_t>(n - 1)] + "\n";
    else patch += " " + newLines[static_cast<std::size_t>(n - 1)] + "\n";
  }
  const Diff d = parse(patch);
  const auto context = functionContext(d.files[0], after, 200);
  ASSERT_EQ(context.size(), 1u);
  std::string shown;
  for (const auto& l : context[0].before) shown += l.text + "\n";
  for (const auto& l : context[0].after) shown += l.text + "\n";
  EXPECT_NE(shown.find("\"source\": ["), std::string::npos) << shown;
  EXPECT_NE(shown.find("x0 = 0"), std::string::npos) << "the cell's first line" << shown;
  EXPECT_EQ(shown.find("image/png"), std::string::npos) << shown;
  EXPECT_EQ(shown.find("execution_count"), std::string::npos) << shown;
  EXPECT_EQ(shown.find("# Results"), std::string::npos) << "the next cell is another definition" << shown;
}

}  // namespace
}  // namespace revline::diff
