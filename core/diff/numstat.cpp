// numstat(): what `git apply --numstat` prints for the same patch, from a
// parsed Diff or straight from a stream of chunks.
#include <algorithm>
#include <cstring>
#include <memory>

#include "core/diff/parser_engine.h"
#include "core/diff/render.h"

namespace revline::diff {
namespace {

void appendSection(std::string& out, const FileDiff& f, long added, long deleted) {
  if (f.binary) {
    out += "-\t-\t";
  } else {
    out += std::to_string(added);
    out += '\t';
    out += std::to_string(deleted);
    out += '\t';
  }
  // git apply names a section by its new path, the old one when deleted.
  out += quotePath(f.path());
  out += '\n';
}

// Lines read chunk by chunk into a buffer that only ever holds the current
// line, the one after it, and what was read past them: memory is bounded by
// the longest line (plus a chunk), not by the input.
class ChunkSource {
 public:
  explicit ChunkSource(const ChunkReader& read) : read_(read), buf_(new char[kChunk]), cap_(kChunk) {}

  bool next(std::string_view& line) {
    size_t nl;
    while (!findNewline(nl)) {
      if (eof_) {
        if (pos_ == end_) return false;
        nl = end_;
        break;
      }
      fill(pos_);  // the current line is released by next()
    }
    line = current_ = std::string_view(buf_.get() + pos_, nl - pos_);
    pos_ = nl < end_ ? nl + 1 : nl;
    scan_ = pos_;
    return true;
  }

  std::optional<std::string_view> peek() {
    size_t nl;
    while (!findNewline(nl)) {
      if (eof_) {
        if (pos_ == end_) return std::nullopt;
        nl = end_;
        break;
      }
      fill(current_.empty() ? pos_ : static_cast<size_t>(current_.data() - buf_.get()));
    }
    return std::string_view(buf_.get() + pos_, nl - pos_);
  }

  std::string_view current() const { return current_; }
  size_t remaining() const { return end_ - pos_; }

 private:
  static constexpr size_t kChunk = 256 * 1024;

  // The offset of the '\n' ending the line at pos_, if it has been read.
  bool findNewline(size_t& nl) {
    const void* hit = std::memchr(buf_.get() + scan_, '\n', end_ - scan_);
    if (!hit) {
      scan_ = end_;
      return false;
    }
    nl = static_cast<size_t>(static_cast<const char*>(hit) - buf_.get());
    return true;
  }

  // Drops the bytes before `keep`, then reads more (growing the buffer when
  // one line fills it).
  void fill(size_t keep) {
    const size_t kept = end_ - keep;
    const bool currentKept = !current_.empty() && current_.data() >= buf_.get() + keep;
    const size_t currentAt = currentKept ? static_cast<size_t>(current_.data() - buf_.get()) - keep : 0;
    if (kept + kChunk / 4 > cap_) {
      const size_t cap = std::max(cap_ * 2, kept + kChunk);
      std::unique_ptr<char[]> bigger(new char[cap]);
      std::memcpy(bigger.get(), buf_.get() + keep, kept);
      buf_ = std::move(bigger);
      cap_ = cap;
    } else if (keep > 0) {
      std::memmove(buf_.get(), buf_.get() + keep, kept);
    }
    current_ = currentKept ? std::string_view(buf_.get() + currentAt, current_.size()) : std::string_view();
    pos_ -= keep;
    scan_ -= keep;
    end_ = kept;
    const size_t got = read_(buf_.get() + end_, cap_ - end_);
    if (got == 0) eof_ = true;
    end_ += got;
  }

  const ChunkReader& read_;
  std::unique_ptr<char[]> buf_;
  size_t cap_;
  size_t pos_ = 0, end_ = 0, scan_ = 0;
  bool eof_ = false;
  std::string_view current_;
};

// Counts added and deleted lines per file section.
class NumstatSink {
 public:
  void hunk(Hunk&&, size_t) {}
  void line(LineKind kind, int, int, std::string_view, bool) {
    if (kind == LineKind::Added) ++added_;
    else if (kind == LineKind::Removed) ++deleted_;
  }
  void noNewlineAtEnd() {}
  void hunkEnd() {}
  void file(FileDiff&& f) {
    appendSection(out, f, added_, deleted_);
    added_ = deleted_ = 0;
  }

  std::string out;

 private:
  long added_ = 0, deleted_ = 0;
};

}  // namespace

std::string numstat(const Diff& diff) {
  std::string out;
  for (const FileDiff& f : diff.files) {
    long added = 0, deleted = 0;
    for (const Hunk& h : f.hunks) {
      for (const Line& l : h.lines) {
        if (l.kind == LineKind::Added) ++added;
        else if (l.kind == LineKind::Removed) ++deleted;
      }
    }
    appendSection(out, f, added, deleted);
  }
  return out;
}

std::string streamNumstat(const ChunkReader& read) {
  ChunkSource source(read);
  NumstatSink sink;
  detail::Parser<ChunkSource, NumstatSink>(source, sink).run();
  return std::move(sink.out);
}

}  // namespace revline::diff
