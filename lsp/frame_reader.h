// Content-Length framing (LSP base protocol) of bytes as they are read, in
// bounded memory. A message over the size limit is never buffered: its body is
// skipped as it arrives, by its Content-Length, while a streaming scan looks
// for its top-level "id" so the request can still be answered, wherever in the
// body the id is. The reader holds at most one message under the limit (plus
// a header and one read), or, while skipping, a few hundred bytes (a 64-byte
// window for a header cut across reads, and the id being read).
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lsp/jsonrpc.h"

namespace revline::lsp {

// Finds the top-level `"id"` of a request (an object that also has a top-level
// `"method"`: a response must never be answered) fed in pieces, keeping O(1)
// state: nesting depth, string state, the key being read (7 bytes at most) and
// the id token (kMaxIdBytes at most). An "id" inside params is not the message's.
class IdScanner {
 public:
  static constexpr std::size_t kMaxIdBytes = 256;  // a longer id is not answered
  void feed(std::string_view bytes);
  void finish();  // the message ended (a number being read ends here)
  // The id once both it and "method" were read (as soon as that is, not only at the end).
  std::optional<json> requestId() const { return hasMethod_ ? id_ : std::nullopt; }
  std::size_t heldBytes() const { return key_.size() + token_.size(); }

 private:
  enum class Value { None, AwaitColon, AwaitValue, String, Number };
  void step(char c);
  void settle();  // the id token is complete: parse it
  bool done_ = false;
  int depth_ = 0;
  bool inString_ = false, escape_ = false;
  bool expectKey_ = false;  // at depth 1, after '{' or ','
  bool stringIsKey_ = false;
  std::string key_;
  Value value_ = Value::None;  // where the scan is in the top-level "id" member
  std::string token_;
  std::optional<json> id_;
  bool hasMethod_ = false;
};

class FrameReader {
 public:
  struct Oversized {
    json id;
    std::size_t bytes = 0;  // its Content-Length
  };
  using Log = std::function<void(const std::string&)>;

  FrameReader(std::size_t maxMessageBytes, Log log);

  // Consumes `data`: complete bodies go to `bodies`, the ids of oversized
  // requests (as soon as they are read) to `oversized`; bad headers and junk are
  // logged and skipped to the next Content-Length header.
  void feed(std::string_view data, std::vector<std::string>& bodies, std::vector<Oversized>& oversized);
  // End of input: a message cut short is logged and dropped.
  void finish();

  std::size_t bufferedBytes() const;                 // held now
  std::size_t peakBufferedBytes() const { return peak_; }  // the most ever held
  std::size_t maxMessageBytes() const { return max_; }

 private:
  struct Skip {
    std::size_t remaining = 0;  // body bytes still to skip
    std::size_t bytes = 0;      // its Content-Length
    IdScanner ids;
    bool reported = false;
    std::string tail;  // the last bytes skipped: a header line cut across reads
  };
  void extract(std::vector<std::string>& bodies);
  // Skips what belongs to the oversized message; returns the bytes after it.
  std::string skipSome(std::string_view data, std::vector<Oversized>& oversized);
  void report(std::vector<Oversized>& oversized);
  void notePeak();

  std::size_t max_;
  Log log_;
  std::string buffer_;
  std::optional<Skip> skip_;
  std::size_t peak_ = 0;
};

}  // namespace revline::lsp
