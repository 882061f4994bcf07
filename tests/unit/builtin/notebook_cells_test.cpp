// The builtin rules read a Jupyter notebook's cells as code in the kernel's
// language (notebook_view.h): each source line decoded from its JSON string, at
// its own line number. Before, a cell's `eval(input())` was a JSON string to
// them and only the text rules (secrets, conflict markers) applied.
#include <gtest/gtest.h>

#include "core/builtin/notebook_view.h"
#include "tests/support/notebook.h"
#include "tests/unit/builtin/review_fixture.h"

namespace revline::builtin::testing {
namespace {

using revline::testing::jupyterNotebook;

// The notebook with one code cell of `before` lines, then of `after` lines.
std::vector<contract::Finding> reviewCell(const std::vector<std::string>& before, const std::vector<std::string>& after,
                                          const std::string& path = "analysis.ipynb") {
  return reviewWithSource(path, jupyterNotebook({before, "", {}, 1}), jupyterNotebook({after, "", {}, 2}));
}

int lineHolding(const std::string& text, const std::string& needle) {
  int n = 1;
  for (std::size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1, ++n)
    if (text.substr(at, nl - at).find(needle) != std::string::npos) return n;
  return 0;
}

TEST(NotebookCells, ACellsCodeIsReviewedAsPythonOnItsOwnLine) {
  const std::vector<std::string> before{"import subprocess\\n", "d = input()"};
  const std::vector<std::string> after{"import subprocess\\n", "d = input()\\n", "eval(d)\\n",
                                       "subprocess.run(f\\\"ls {d}\\\", shell=True)"};
  const auto found = reviewCell(before, after);
  const std::string text = jupyterNotebook({after, "", {}, 2});
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].line, lineHolding(text, "eval(d)"));
  EXPECT_NE(found[0].title.find("eval()"), std::string::npos) << found[0].title;
  EXPECT_EQ(found[1].line, lineHolding(text, "shell=True"));
  EXPECT_NE(found[1].explanation.find("shell-command"), std::string::npos) << found[1].explanation;
  EXPECT_EQ(found[1].severity, contract::Severity::Major) << "a rule that blocks in a .py blocks in a cell";
  // The same lines as a .py file raise the same rules.
  const auto asPython = reviewWithSource("analysis.py", "import subprocess\nd = input()\n",
                                         "import subprocess\nd = input()\neval(d)\nsubprocess.run(f\"ls {d}\", shell=True)\n");
  ASSERT_EQ(asPython.size(), 2u);
  EXPECT_EQ(asPython[0].title, found[0].title);
  EXPECT_EQ(asPython[1].title, found[1].title);
}

TEST(NotebookCells, ASuppressionCommentInTheCellApplies) {
  const auto found = reviewCell({"x = 1"}, {"x = 1\\n", "# revline: ignore[dynamic-eval]\\n", "eval(x)"});
  EXPECT_TRUE(found.empty()) << found.at(0).title;
}

TEST(NotebookCells, ANotebookOfAnotherKernelIsNotReadAsPython) {
  std::string before = jupyterNotebook({{"x <- 1"}, "", {}, 1});
  std::string after = jupyterNotebook({{"x <- 1\\n", "eval(parse(text = input))"}, "", {}, 2});
  for (std::string* nb : {&before, &after}) {
    const std::string python = "\"display_name\": \"Python 3\",\n   \"language\": \"python\"";
    nb->replace(nb->find(python), python.size(), "\"display_name\": \"R\",\n   \"language\": \"R\"");
  }
  EXPECT_TRUE(reviewWithSource("model.ipynb", before, after).empty());
  const auto view = notebookView(after);
  ASSERT_TRUE(view);
  EXPECT_EQ(view->lang, Language::Other);
}

// A markdown or raw cell is prose: a fenced example in it is no code, and a
// """ in it opens no string that would hide the next code cell.
TEST(NotebookCells, AMarkdownCellIsNotReadAsCode) {
  const std::vector<std::string> code{"x = input()\\n", "eval(x)"};
  const std::string before = jupyterNotebook({{"x = input()"}, "", {}, 1}, {"# Notes"});
  const std::string after = jupyterNotebook({code, "", {}, 2}, {"```python\\n", "eval(input())\\n", "```\\n", "\\\"\\\"\\\""});
  const auto found = reviewWithSource("doc.ipynb", before, after);
  ASSERT_EQ(found.size(), 1u) << "the code cell's eval, not the markdown's";
  EXPECT_EQ(found[0].line, lineHolding(after, "\"eval(x)\""));
  // A """ in a markdown cell above a code cell hides nothing either (read as
  // Python, it opened a string that ran over the code cell's eval).
  auto markdownFirst = [](const std::string& codeElements) {
    return "{\n \"cells\": [\n  {\n   \"cell_type\": \"markdown\",\n   \"metadata\": {},\n   \"source\": [\n"
           "    \"\\\"\\\"\\\"\"\n   ]\n  },\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 1,\n"
           "   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n" +
           codeElements + "   ]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";
  };
  const std::string hidden = markdownFirst("    \"x = input()\\n\",\n    \"eval(x)\"\n");
  ASSERT_TRUE(notebookView(hidden));
  const auto quoted = reviewWithSource("doc.ipynb", markdownFirst("    \"x = input()\"\n"), hidden);
  ASSERT_EQ(quoted.size(), 1u);
  EXPECT_EQ(quoted[0].line, lineHolding(hidden, "\"eval(x)\""));
}

TEST(NotebookCells, ACellMagicsCellIsNotTheKernelsLanguage) {
  const auto javascript = reviewCell({"x = 1"}, {"%%javascript\\n", "x = input()\\n", "eval(x)"});
  EXPECT_TRUE(javascript.empty()) << javascript.at(0).title << ": a JavaScript cell is no Python";
  // IPython's own cell magics run the cell as Python, and a line magic is one line.
  EXPECT_EQ(reviewCell({"x = 1"}, {"%%time\\n", "x = input()\\n", "eval(x)"}).size(), 1u);
  EXPECT_EQ(reviewCell({"x = 1"}, {"%matplotlib inline\\n", "x = input()\\n", "eval(x)"}).size(), 1u);
  // A cell written to a .py file is Python; one written to another file is not.
  EXPECT_EQ(reviewCell({"x = 1"}, {"%%writefile app.py\\n", "x = input()\\n", "eval(x)"}).size(), 1u);
  EXPECT_TRUE(reviewCell({"x = 1"}, {"%%writefile app.js\\n", "x = input()\\n", "eval(x)"}).empty());
}

TEST(NotebookCells, AKernelNamedWithoutALanguageIsReadByItsName) {
  std::string nb = jupyterNotebook({{"x <- readline()\\n", "eval(parse(text = x))"}, "", {}, 1});
  const std::string spec = "\"kernelspec\": {\n   \"display_name\": \"Python 3\",\n   \"language\": \"python\",\n   \"name\": \"python3\"\n  }";
  ASSERT_NE(nb.find(spec), std::string::npos);
  nb.replace(nb.find(spec), spec.size(), "\"kernelspec\": {\"display_name\": \"R\", \"name\": \"ir\"}");
  const auto view = notebookView(nb);
  ASSERT_TRUE(view);
  EXPECT_EQ(view->lang, Language::Other);
  // An environment's kernel name ("myenv", "conda-env-py") is Python's kernel; IJulia's is not.
  for (const auto& [name, lang] : {std::pair{"myenv", Language::Python}, std::pair{"conda-env-py-py", Language::Python},
                                   std::pair{"julia-1.9", Language::Other}, std::pair{"ir", Language::Other}}) {
    std::string named = nb;
    named.replace(named.find("\"ir\""), 4, std::string("\"") + name + "\"");
    const auto v = notebookView(named);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->lang, lang) << name;
  }
}

// A credential a cell printed is in the notebook's saved output, not in code:
// the finding says so, and its fix is to clear the output, not to load the
// value from the environment. The same credential in a cell's code is a
// hard-coded one, as in a .py file.
TEST(NotebookCells, ACredentialInASavedOutputIsNamedAsSuch) {
  const std::string before = jupyterNotebook({{"cfg = load()"}, "", {}, 1});
  const std::string printed = jupyterNotebook({{"cfg = load()\\n", "print(cfg)"}, "", {"aws_key=AKIAQ3EGRJ7XWZ5NPTXB\\n"}, 2});
  const auto fromOutput = reviewWithSource("setup.ipynb", before, printed);
  ASSERT_EQ(fromOutput.size(), 1u);
  EXPECT_EQ(fromOutput[0].line, lineHolding(printed, "AKIAQ3EGRJ7XWZ5NPTXB"));
  EXPECT_EQ(fromOutput[0].title, "Credential saved in the notebook: an AWS access key id outside its code cells");
  EXPECT_NE(fromOutput[0].suggestedFix.value_or("").find("Clear All Outputs"), std::string::npos);
  const std::string inCode = jupyterNotebook({{"cfg = load()\\n", "key = \\\"AKIAQ3EGRJ7XWZ5NPTXB\\\""}, "", {}, 2});
  const auto fromCode = reviewWithSource("setup.ipynb", before, inCode);
  ASSERT_EQ(fromCode.size(), 1u);
  EXPECT_EQ(fromCode[0].title, "Hard-coded credential: an AWS access key id in the source");
}

TEST(NotebookCells, TheViewDecodesSourceLinesAndEmptiesTheRest) {
  const std::string text = jupyterNotebook({{"s = \\\"a\\\\tb\\\"\\n", "print(s)"}, "iVBORw0", {"a\\tb\\n"}, 3});
  const auto view = notebookView(text);
  ASSERT_TRUE(view);
  EXPECT_EQ(view->lang, Language::Python);
  const int quoted = lineHolding(text, "s = ");
  EXPECT_EQ(lineOf(view->text, quoted), "s = \"a\\tb\"") << "JSON escapes decoded, the trailing \\n dropped";
  EXPECT_TRUE(view->decoded[static_cast<std::size_t>(quoted - 1)]);
  EXPECT_EQ(lineOf(view->text, lineHolding(text, "image/png")), "") << "an output is no code";
  EXPECT_EQ(lineOf(view->text, lineHolding(text, "\"source\": [")), "") << "the key's line is JSON, not code";
  EXPECT_FALSE(notebookView("{\"cells\": []}")) << "no nbformat: not read as cells";
}

}  // namespace
}  // namespace revline::builtin::testing
