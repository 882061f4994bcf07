// A Jupyter notebook as Jupyter writes it (nbformat 4.5: one space of indent,
// keys sorted, each source line its own string), for the tests of how revline
// reads notebooks: a code cell with an image and a printed output, then a
// markdown cell.
#pragma once
#include <string>
#include <vector>

namespace revline::testing {

struct NotebookCell {
  std::vector<std::string> source;  // the cell's lines, each ending in "\n" but the last, JSON-escaped
  std::string image;                // base64 of the cell's plot ("" for none)
  std::vector<std::string> printed; // lines the cell printed
  int executionCount = 1;
};

inline std::string jsonStrings(const std::vector<std::string>& items, const std::string& indent) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += indent + "\"" + items[i] + "\"" + (i + 1 < items.size() ? ",\n" : "\n");
  return out;
}

inline std::string jupyterNotebook(const NotebookCell& code, const std::vector<std::string>& markdown = {"# Results"}) {
  std::string outputs;
  if (!code.image.empty())
    outputs += "    {\n     \"data\": {\n      \"image/png\": \"" + code.image +
               "\",\n      \"text/plain\": [\n       \"<Figure size 640x480 with 1 Axes>\"\n      ]\n     },\n"
               "     \"metadata\": {},\n     \"output_type\": \"display_data\"\n    }";
  if (!code.printed.empty())
    outputs += std::string(outputs.empty() ? "" : ",\n") + "    {\n     \"name\": \"stdout\",\n" +
               "     \"output_type\": \"stream\",\n     \"text\": [\n" + jsonStrings(code.printed, "      ") +
               "     ]\n    }";
  return "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": " +
         std::to_string(code.executionCount) + ",\n   \"id\": \"5f2b1c\",\n   \"metadata\": {},\n   \"outputs\": [" +
         (outputs.empty() ? "]" : "\n" + outputs + "\n   ]") + ",\n   \"source\": [\n" +
         jsonStrings(code.source, "    ") + "   ]\n  },\n  {\n   \"cell_type\": \"markdown\",\n   \"id\": \"9a7e01\",\n" +
         "   \"metadata\": {},\n   \"source\": [\n" + jsonStrings(markdown, "    ") + "   ]\n  }\n ],\n" +
         " \"metadata\": {\n  \"kernelspec\": {\n   \"display_name\": \"Python 3\",\n   \"language\": \"python\",\n" +
         "   \"name\": \"python3\"\n  }\n },\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";
}

// `bytes` of base64 that differ with `seed`, as a plot's PNG does between runs.
inline std::string base64Image(std::size_t bytes, unsigned seed) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned x = seed * 2654435761u + 1;
  for (std::size_t i = 0; i < bytes; ++i) {
    x = x * 1103515245u + 12345u;
    out += kAlphabet[(x >> 16) % 64];
  }
  return out;
}

}  // namespace revline::testing
