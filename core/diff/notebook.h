// Jupyter notebooks (.ipynb): a JSON file whose code is in its cells' "source"
// values. Everything else (outputs: images as base64, printed text, tables;
// execution counts; cell ids; metadata) changes each time the notebook is run
// and is not code: a re-run notebook's diff is mostly base64, which a model
// would be paid to read. Pure functions; no I/O (session/notebooks.h reads the
// two sides and narrows the change).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/diff/diff.h"

namespace revline::diff {

// Largest notebook read to tell its source from its outputs (and for a cell's
// function context): notebooks with plots are megabytes, the ones worth it.
inline constexpr std::size_t kMaxNotebookBytes = 32 * 1024 * 1024;

// A notebook by its name: ends in ".ipynb", in any case.
bool isNotebookPath(std::string_view path);

// Per line of a notebook's text ([0] is line 1): whether the line is part of a
// cell's source, from the line of its key to the line that closes it: "source"
// of each cell of the top-level "cells" (nbformat 4), or of "worksheets"[i]
// ["cells"] with a code cell's "input" (nbformat 3). nullopt when `text` is not
// JSON, has no such cells array, or its "nbformat" (the last, as Python reads
// it) is not 3 or 4: Jupyter reads other versions' code elsewhere (version 1's
// "code", and a file without the key is version 1), so such a file is reviewed
// as it is. `codeCellsOnly`: only code cells' source (not markdown's or raw
// cells', whose cell_type says so), as code is read.
std::optional<std::vector<bool>> notebookSourceLines(std::string_view text, bool codeCellsOnly = false);

// Where a line of a notebook is in its cells, as an editor's notebook view
// shows them: the cell (0-based, in file order) and the line of its source
// (0-based). From notebookSourceLines' result and the file's lines; nullopt for
// a line outside a source list's elements (the key's line, the closing bracket).
struct CellLine {
  int cell = 0;
  int line = 0;
};
std::optional<CellLine> cellLineOf(const std::vector<bool>& source, const std::vector<std::string_view>& lines,
                                   int line);

// Keeps of `file` only the lines `keepOld` (removed lines, by old-file number)
// and `keepNew` (added and context lines, by new-file number) hold as true: each
// run of kept lines becomes a hunk of its own, with its own header, and a run
// without an added or removed line is dropped. Line numbers past a vector's end
// are not kept. Returns how many added and removed lines were dropped.
std::int64_t keepOnlyLines(FileDiff& file, const std::vector<bool>& keepOld, const std::vector<bool>& keepNew);

}  // namespace revline::diff
