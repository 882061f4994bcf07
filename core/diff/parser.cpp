// parse(): the parser of parser_engine.h over the whole text, building a Diff
// whose string views point into that text (it runs on patches of many MB, so
// nothing is copied line by line).
#include <cstring>

#include "core/diff/diff.h"
#include "core/diff/parser_engine.h"

namespace revline::diff {
namespace {

// Lines of a text held whole in memory: views into it stay valid for good.
class TextSource {
 public:
  explicit TextSource(std::string_view text) : text_(text) {}

  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    line = lineAt(pos_);
    pos_ += line.size() + (pos_ + line.size() < text_.size() ? 1 : 0);
    current_ = line;
    return true;
  }
  std::optional<std::string_view> peek() const {
    if (pos_ >= text_.size()) return std::nullopt;
    return lineAt(pos_);
  }
  std::string_view current() const { return current_; }
  size_t remaining() const { return text_.size() - pos_; }

 private:
  std::string_view lineAt(size_t pos) const {
    const char* begin = text_.data() + pos;
    const size_t left = text_.size() - pos;
    const auto* nl = static_cast<const char*>(std::memchr(begin, '\n', left));
    return std::string_view(begin, nl ? static_cast<size_t>(nl - begin) : left);
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string_view current_;
};

// Assembles the Diff model.
class DiffBuilder {
 public:
  void hunk(Hunk&& h, size_t reserve) {
    hunks_.push_back(std::move(h));
    hunks_.back().lines.reserve(reserve);
  }
  void line(LineKind kind, int oldLine, int newLine, std::string_view text, bool crlf) {
    hunks_.back().lines.push_back(Line{kind, oldLine, newLine, text, false, crlf});
  }
  void noNewlineAtEnd() { hunks_.back().lines.back().noNewlineAtEnd = true; }
  void hunkEnd() {
    std::vector<Line>& lines = hunks_.back().lines;
    if (lines.capacity() > lines.size() + lines.size() / 4 + 16) lines.shrink_to_fit();
  }
  void file(FileDiff&& f) {
    f.hunks = std::move(hunks_);
    hunks_.clear();
    files.push_back(std::move(f));
  }

  std::vector<FileDiff> files;

 private:
  std::vector<Hunk> hunks_;  // of the section being parsed
};

}  // namespace

Diff parse(std::string text) {
  Diff d;
  d.source = std::make_shared<const std::string>(std::move(text));
  TextSource source(*d.source);
  DiffBuilder builder;
  detail::Parser<TextSource, DiffBuilder>(source, builder).run();
  d.files = std::move(builder.files);
  return d;
}

}  // namespace revline::diff
