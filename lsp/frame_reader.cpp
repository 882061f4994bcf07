#include "lsp/frame_reader.h"

#include <algorithm>
#include <cctype>

namespace revline::lsp {

namespace {
constexpr std::string_view kHeaderName = "content-length:";
// An incomplete header block longer than this is junk (dropped up to the next header).
constexpr std::size_t kMaxHeaderBytes = 8192;
// Kept of a skipped body's end: enough for a header line cut across two reads.
constexpr std::size_t kTailBytes = 64;

bool isBlank(char c) { return c == ' ' || c == '\t'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isSpace(char c) { return isBlank(c) || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

bool caselessAt(std::string_view text, std::size_t at, std::string_view lowerWord) {
  if (text.size() - at < lowerWord.size()) return false;
  for (std::size_t i = 0; i < lowerWord.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[at + i])) != lowerWord[i]) return false;
  return true;
}

// Position of the next "Content-Length:" (any case) at or after `from`, or npos.
std::size_t findHeader(std::string_view text, std::size_t from) {
  for (std::size_t at = from; at < text.size(); ++at)
    if (caselessAt(text, at, kHeaderName)) return at;
  return std::string_view::npos;
}

// Position of the first complete "Content-Length: <digits>\r\n" line in `text`.
// Valid JSON cannot hold one (a raw CR is not allowed inside a string, and the
// words are not JSON outside one), so in a skipped body it means the body was
// shorter than its Content-Length said and the next message starts there.
std::size_t findHeaderLine(std::string_view text) {
  for (std::size_t at = findHeader(text, 0); at != std::string_view::npos; at = findHeader(text, at + 1)) {
    std::size_t p = at + kHeaderName.size();
    while (p < text.size() && isBlank(text[p])) ++p;
    const std::size_t digits = p;
    while (p < text.size() && isDigit(text[p])) ++p;
    if (p == digits) continue;
    while (p < text.size() && isBlank(text[p])) ++p;
    if (p + 1 < text.size() && text[p] == '\r' && text[p + 1] == '\n') return at;
  }
  return std::string_view::npos;
}

std::string printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 80)) out += (std::isprint(static_cast<unsigned char>(c)) ? c : '?');
  return out;
}
}  // namespace

// ---------------------------------------------------------------- IdScanner

void IdScanner::feed(std::string_view bytes) {
  for (char c : bytes) {
    if (done_) return;
    step(c);
  }
}

void IdScanner::finish() {
  if (!done_ && value_ == Value::Number) settle();
  done_ = true;
}

void IdScanner::settle() {
  value_ = Value::None;
  try {
    if (!id_) id_ = json::parse(token_);  // "-" alone or "01" is no id; the first "id" counts
  } catch (const json::exception&) {
  }
  token_.clear();
}

void IdScanner::step(char c) {
  if (value_ == Value::String) {  // the id, a string: kept as written, escapes and all
    token_ += c;
    if (escape_) escape_ = false;
    else if (c == '\\') escape_ = true;
    else if (c == '"') return settle();
    if (token_.size() > kMaxIdBytes) {  // too long to answer: the rest is an ordinary string
      token_.clear();
      value_ = Value::None;
      inString_ = true, stringIsKey_ = false;
    }
    return;
  }
  if (value_ == Value::Number) {
    if (isDigit(c) && token_.size() < 32) {
      token_ += c;
      return;
    }
    settle();  // and `c` (',', '}', a blank) is read as structure below
  }
  if (inString_) {
    if (escape_) escape_ = false;
    else if (c == '\\') escape_ = true;
    else if (c == '"') {
      inString_ = false;
      if (stringIsKey_) {
        value_ = key_ == "id" ? Value::AwaitColon : Value::None;
        hasMethod_ = hasMethod_ || key_ == "method";
        key_.clear();
      }
      return;
    }
    if (stringIsKey_ && key_.size() < 7) key_ += c;  // "method" is six bytes; a seventh means another key
    return;
  }
  if (isSpace(c)) return;
  if (value_ == Value::AwaitColon) {
    value_ = c == ':' ? Value::AwaitValue : Value::None;
    return;
  }
  if (value_ == Value::AwaitValue) {
    value_ = Value::None;
    if (c == '"' || c == '-' || isDigit(c)) {
      value_ = c == '"' ? Value::String : Value::Number;
      token_ = std::string(1, c);
      return;
    }
    // null, an object, ...: not an id a reply can go to; read on as structure.
  }
  if (depth_ == 0) {
    if (c != '{') done_ = true;  // not an object: no id
    else depth_ = 1, expectKey_ = true;
    return;
  }
  switch (c) {
    case '"':
      inString_ = true;
      stringIsKey_ = depth_ == 1 && expectKey_;
      expectKey_ = false;
      break;
    case '{':
    case '[': ++depth_; break;
    case '}':
    case ']':
      if (--depth_ == 0) done_ = true;  // the whole object was read
      break;
    case ',': expectKey_ = depth_ == 1; break;
    default: break;
  }
}

// ---------------------------------------------------------------- FrameReader

FrameReader::FrameReader(std::size_t maxMessageBytes, Log log) : max_(maxMessageBytes), log_(std::move(log)) {}

std::size_t FrameReader::bufferedBytes() const {
  return buffer_.size() + (skip_ ? skip_->tail.size() + skip_->ids.heldBytes() : 0);
}

void FrameReader::notePeak() { peak_ = std::max(peak_, bufferedBytes()); }

void FrameReader::feed(std::string_view data, std::vector<std::string>& bodies, std::vector<Oversized>& oversized) {
  std::string rest;  // bytes after a skipped message, framed again
  for (;;) {
    if (skip_) {
      rest = skipSome(data, oversized);
      data = rest;
      if (data.empty()) return;
    }
    buffer_.append(data);
    notePeak();
    data = {};
    extract(bodies);
    if (!skip_ || buffer_.empty()) return;
    rest = std::move(buffer_);  // the start of the oversized body: skipped, not kept
    buffer_.clear();
    data = rest;
  }
}

void FrameReader::extract(std::vector<std::string>& bodies) {
  while (!skip_) {
    const std::size_t headerEnd = buffer_.find("\r\n\r\n");
    if (headerEnd == std::string::npos) {
      // An incomplete header block; but junk that can never become one is dropped.
      if (buffer_.size() > kMaxHeaderBytes) {
        const std::size_t next = findHeader(buffer_, 1);
        const std::size_t drop = next == std::string::npos ? buffer_.size() : next;
        log_("dropped " + std::to_string(drop) + " bytes of input without a message header");
        buffer_.erase(0, drop);
        continue;
      }
      return;
    }
    // Parse "Name: value" lines; Content-Length is required, others ignored.
    std::optional<std::size_t> length;
    std::string problem;
    const std::string_view block(buffer_.data(), headerEnd);
    for (std::size_t pos = 0; pos <= block.size() && problem.empty();) {
      std::size_t eol = block.find("\r\n", pos);
      if (eol == std::string_view::npos) eol = block.size();
      const std::string_view line = block.substr(pos, eol - pos);
      pos = eol + 2;
      const std::size_t colon = line.find(':');
      if (colon == std::string_view::npos) {
        problem = "malformed header line '" + printable(line) + "'";
        break;
      }
      if (colon + 1 != kHeaderName.size() || !caselessAt(line, 0, kHeaderName)) continue;
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && isBlank(value.front())) value.remove_prefix(1);
      while (!value.empty() && isBlank(value.back())) value.remove_suffix(1);
      if (value.empty() || value.size() > 18 || !std::all_of(value.begin(), value.end(), isDigit)) {
        problem = "bad Content-Length '" + printable(value) + "'";
        break;
      }
      length = std::stoull(std::string(value));
    }
    if (problem.empty() && !length) problem = "header without Content-Length";
    if (!problem.empty()) {
      // Resynchronise on the next header after this one.
      const std::size_t next = findHeader(buffer_, 1);
      log_(problem + "; skipping to the next message header");
      buffer_.erase(0, next == std::string::npos ? headerEnd + 4 : next);
      continue;
    }
    const std::size_t bodyStart = headerEnd + 4;
    if (*length > max_) {
      // Skipped as it arrives (feed passes on what is already here), never held.
      log_("message of " + std::to_string(*length) + " bytes exceeds the limit of " + std::to_string(max_) +
           "; skipping it");
      buffer_.erase(0, bodyStart);
      skip_ = Skip{};  // (not emplace(): clang 14 judges the nested type not default-constructible)
      skip_->remaining = skip_->bytes = *length;
      return;
    }
    if (buffer_.size() - bodyStart < *length) return;  // wait for the rest
    bodies.push_back(buffer_.substr(bodyStart, *length));
    buffer_.erase(0, bodyStart + *length);
  }
}

std::string FrameReader::skipSome(std::string_view data, std::vector<Oversized>& oversized) {
  Skip& s = *skip_;
  const std::string_view part = data.substr(0, std::min(s.remaining, data.size()));
  // A header line inside means the body was cut short: the next message starts there.
  std::optional<std::string> resume;
  const std::string edge = s.tail + std::string(part.substr(0, std::min(part.size(), kTailBytes)));
  if (const std::size_t e = findHeaderLine(edge); e != std::string::npos && e < s.tail.size()) {
    resume = s.tail.substr(e) + std::string(data);
  } else if (const std::size_t p = findHeaderLine(part); p != std::string::npos) {
    s.ids.feed(part.substr(0, p));
    resume = std::string(data.substr(p));
  }
  if (!resume) {
    s.ids.feed(part);
    s.remaining -= part.size();
    s.tail += part.substr(part.size() - std::min(part.size(), kTailBytes));
    if (s.tail.size() > kTailBytes) s.tail.erase(0, s.tail.size() - kTailBytes);
    notePeak();
    if (s.remaining > 0) {
      report(oversized);
      return {};
    }
    resume = std::string(data.substr(part.size()));
  }
  s.ids.finish();
  report(oversized);
  skip_.reset();
  return std::move(*resume);
}

void FrameReader::report(std::vector<Oversized>& oversized) {
  if (skip_->reported) return;
  const std::optional<json> id = skip_->ids.requestId();
  if (!id) return;
  skip_->reported = true;
  oversized.push_back({*id, skip_->bytes});
}

void FrameReader::finish() {
  if (skip_) {
    log_("input ended inside a message over the size limit (" + std::to_string(skip_->remaining) +
         " of its bytes never came)");
    skip_.reset();
  } else if (buffer_.find_first_not_of(" \r\n\t") != std::string::npos) {
    log_("input ended inside a message (" + std::to_string(buffer_.size()) + " bytes dropped)");
  }
  buffer_.clear();
}

}  // namespace revline::lsp
