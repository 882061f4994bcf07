// Open documents: text kept in UTF-8, addressed by LSP positions whose
// character is counted in UTF-16 code units. Changes are applied on the main
// loop only; each change also reports how it moved lines (LineEdit), which is
// what keeps diagnostics on the right code between saves.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lsp/protocol.h"

namespace revline::lsp {

// UTF-16 length of UTF-8 text (astral characters count 2; invalid bytes 1 each).
int utf16Length(std::string_view utf8);
// Byte offset into `utf8` of UTF-16 column `character` (clamped to the end;
// inside a surrogate pair rounds down to the character's start).
std::size_t byteOffsetOfUtf16(std::string_view utf8, int character);

// The lines of a document as the editor counts them ("\r\n" and "\n" end a line).
std::vector<std::string> documentLines(std::string_view text);
// The lines of a repository's file on disk (`relative` to `root`), through the
// confined read (support/repo_file.h: inside the repository, symlinks included;
// no FIFO, device or huge file); nullopt, with the reason in `why` when given,
// when it cannot be read.
std::optional<std::vector<std::string>> readRepositoryLines(const std::filesystem::path& root,
                                                            const std::string& relative, std::string* why = nullptr);

// How one change moved lines, in terms of the text before it.
struct LineEdit {
  Position start, end;      // the replaced range (old text)
  int startLineLength = 0;  // UTF-16 length of line start.line before the change
  int endLineLength = 0;    // UTF-16 length of line end.line before the change
  int insertedNewlines = 0; // line breaks in the new text
  int delta() const { return insertedNewlines - (end.line - start.line); }
};

// Moves the 0-based line span [first, last] across `edit`. Returns false when
// every line of the span was deleted (the span is then meaningless).
bool moveLines(int& first, int& last, const LineEdit& edit);

class Document {
 public:
  Document(std::string uri, int version, std::string text);
  const std::string& uri() const { return uri_; }
  int version() const { return version_; }
  const std::string& text() const { return text_; }
  int lineCount() const { return static_cast<int>(lineStarts_.size()); }
  // Line text without its line break ("\n" or "\r\n"); empty past the end.
  std::string_view line(int index) const;
  std::size_t offsetOf(const Position& p) const;  // clamped into the text
  // Applies one change; returns how lines moved, as one edit per place it
  // changed lines (in the order applied: the last place first).
  std::vector<LineEdit> apply(const TextDocumentContentChangeEvent& change);
  // A whole new text as the ranged change of the lines that differ from this one.
  TextDocumentContentChangeEvent asLinesThatDiffer(std::string text) const;
  void setVersion(int v) { version_ = v; }

 private:
  // `change` has a range. Without `reindex`, lines below the change are left
  // where they were: only a change above it may follow, then index().
  LineEdit applyExactly(const TextDocumentContentChangeEvent& change, bool reindex = true);
  // A ranged change without the whole lines at its start and end that it leaves as they were.
  TextDocumentContentChangeEvent withoutLinesKept(const TextDocumentContentChangeEvent& change) const;
  // A change from a line's start as the changes of the runs of lines it
  // changes, the last first, without the lines between them that it keeps.
  std::vector<TextDocumentContentChangeEvent> splitAtLinesKept(const TextDocumentContentChangeEvent& change) const;
  void index();
  std::string uri_;
  int version_;
  std::string text_;
  std::vector<std::size_t> lineStarts_;
};

class DocumentStore {
 public:
  void open(const TextDocumentItem& item);
  // Applies the changes in order; returns their line edits. Throws LspError
  // (InvalidParams) for a document that is not open.
  std::vector<LineEdit> change(const DidChangeTextDocumentParams& params);
  void close(const std::string& uri);
  const Document* get(const std::string& uri) const;
  std::vector<std::string> uris() const;  // of the open documents

 private:
  std::map<std::string, Document> docs_;
};

}  // namespace revline::lsp
