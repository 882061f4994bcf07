// Jupyter notebooks in a review: only their cells' source is code. Their
// outputs (base64 images, printed text), execution counts and metadata change
// with every run; sent to a model they cost tokens and say nothing about the
// change (a re-run 3-line edit is 80 KB of base64). This narrows each notebook
// of a change to the lines of its cells' source (diff/notebook.h), reading both
// sides as the change has them.
#pragma once
#include <filesystem>
#include <vector>

#include "core/diff/diff.h"
#include "core/review/pipeline.h"

namespace revline::session {

// Narrows each notebook of `change` (repository at `root`) to its cells'
// source lines. An output line that holds a secret is kept (the builtin flags
// it; what is sent to a model is redacted). Returns what was left out, for the
// coverage: a notebook whose change is only outputs and metadata leaves
// `change` and is listed as excluded; one with source changes too is listed as
// partly excluded (`partial`, not over a limit: reviewed, by choice). A
// notebook deleted keeps its cells' removed source. One whose sides cannot be
// read, that is not nbformat 3 or 4 JSON (diff::notebookSourceLines), or whose
// text does not match its hunks is reviewed whole, as any file.
std::vector<review::SkippedFile> leaveOutNotebookOutputs(diff::Diff& change, const std::filesystem::path& root);

}  // namespace revline::session
