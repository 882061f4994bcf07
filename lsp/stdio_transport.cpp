// Content-Length framing (LSP base protocol) over file descriptors.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <string_view>

#include "lsp/jsonrpc.h"
#include "lsp/transport.h"

namespace revline::lsp {

namespace {
constexpr std::string_view kHeaderName = "content-length:";

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Position of the next "Content-Length:" (any case) at or after `from`, or npos.
std::size_t findHeader(const std::string& buffer, std::size_t from) {
  const std::string low = lower(std::string_view(buffer).substr(std::min(from, buffer.size())));
  const std::size_t at = low.find(kHeaderName);
  return at == std::string::npos ? std::string::npos : from + at;
}

std::string printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 80)) out += (std::isprint(static_cast<unsigned char>(c)) ? c : '?');
  return out;
}
}  // namespace

StdioTransport::StdioTransport(int inFd, int outFd, std::size_t maxMessageBytes)
    : in_(inFd), out_(outFd), max_(maxMessageBytes) {}

void StdioTransport::extractFrames(std::string& buffer, std::vector<std::string>& bodies, std::size_t maxBytes,
                                   const std::function<void(const std::string&)>& log, std::vector<json>* oversized) {
  for (;;) {
    const std::size_t headerEnd = buffer.find("\r\n\r\n");
    if (headerEnd == std::string::npos) {
      // An incomplete header block; but junk that can never become one is dropped.
      if (buffer.size() > 8192) {
        std::size_t next = findHeader(buffer, 1);
        log("dropped " + std::to_string(next == std::string::npos ? buffer.size() : next) +
            " bytes of input without a message header");
        buffer.erase(0, next == std::string::npos ? buffer.size() : next);
      }
      return;
    }
    // Parse "Name: value" lines; Content-Length is required, others ignored.
    std::optional<std::size_t> length;
    std::string problem;
    std::string_view block(buffer.data(), headerEnd);
    std::size_t pos = 0;
    while (pos <= block.size() && problem.empty()) {
      std::size_t eol = block.find("\r\n", pos);
      if (eol == std::string_view::npos) eol = block.size();
      std::string_view line = block.substr(pos, eol - pos);
      pos = eol + 2;
      const std::size_t colon = line.find(':');
      if (colon == std::string_view::npos) {
        problem = "malformed header line '" + printable(line) + "'";
        break;
      }
      if (lower(line.substr(0, colon + 1)) != kHeaderName) continue;
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
      while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
      if (value.empty() || value.size() > 18 ||
          !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        problem = "bad Content-Length '" + printable(value) + "'";
        break;
      }
      length = std::stoull(std::string(value));
      if (*length > maxBytes) {
        problem = "message of " + std::string(value) + " bytes exceeds the limit of " + std::to_string(maxBytes);
        break;
      }
    }
    if (problem.empty() && !length) problem = "header without Content-Length";
    if (oversized && length && *length > maxBytes) {
      // The id, when the start of the body is already here: the request gets an error reply.
      const std::string head = buffer.substr(headerEnd + 4, 4096);
      if (auto id = scanId(head)) oversized->push_back(*id);
    }
    if (!problem.empty()) {
      // Resynchronise on the next header after this one.
      std::size_t next = findHeader(buffer, 1);
      log(problem + "; skipping to the next message header");
      buffer.erase(0, next == std::string::npos ? headerEnd + 4 : next);
      continue;
    }
    const std::size_t bodyStart = headerEnd + 4;
    if (buffer.size() - bodyStart < *length) return;  // wait for the rest
    bodies.push_back(buffer.substr(bodyStart, *length));
    buffer.erase(0, bodyStart + *length);
  }
}

bool StdioTransport::readBatch(std::vector<std::string>& bodies) {
  while (!eof_) {
    char chunk[65536];
    const ssize_t n = ::read(in_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof_ = true;
      break;
    }
    buffer_.append(chunk, static_cast<std::size_t>(n));
    // One oversized message arrives as many reads of headerless input: its
    // first drop is logged, the rest are counted and summed up once.
    std::vector<json> oversized;
    extractFrames(
        buffer_, bodies, max_,
        [this](const std::string& line) {
          if (line.rfind("dropped ", 0) == 0) {
            if (junkLogged_) {
              ++junkSuppressed_;
              return;
            }
            junkLogged_ = true;
          }
          log(line);
        },
        &oversized);
    for (const auto& id : oversized)
      reply(id, LspError(ErrorCode::InvalidRequest, "the message exceeds the limit of " + std::to_string(max_) +
                                                        " bytes (revline lsp --max-message-bytes)"));
    if (!bodies.empty()) {
      reportSuppressedJunk();
      return true;
    }
  }
  reportSuppressedJunk();
  if (!buffer_.empty() && buffer_.find_first_not_of(" \r\n\t") != std::string::npos)
    log("input ended inside a message (" + std::to_string(buffer_.size()) + " bytes dropped)");
  buffer_.clear();
  return false;
}

void StdioTransport::reportSuppressedJunk() {
  if (junkSuppressed_ > 0) {
    log("dropped " + std::to_string(junkSuppressed_) + " more chunks of that input without a message header");
  }
  junkLogged_ = false;
  junkSuppressed_ = 0;
}

void StdioTransport::writeBody(const std::string& body) {
  const std::string frame = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  std::size_t done = 0;
  while (done < frame.size()) {
    const ssize_t n = ::write(out_, frame.data() + done, frame.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the client is gone; the read side will see EOF
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace revline::lsp
