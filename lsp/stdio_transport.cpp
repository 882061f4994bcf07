// Content-Length framing (LSP base protocol) over file descriptors.
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "lsp/jsonrpc.h"
#include "lsp/transport.h"

namespace revline::lsp {

StdioTransport::StdioTransport(int inFd, int outFd, std::size_t maxMessageBytes)
    : in_(inFd),
      out_(outFd),
      wakeFd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      reader_(maxMessageBytes, [this](const std::string& line) { logInput(line); }) {}

StdioTransport::~StdioTransport() {
  if (wakeFd_ >= 0) ::close(wakeFd_);
}

void StdioTransport::wake() {
  const std::uint64_t one = 1;
  if (wakeFd_ < 0) return;
  [[maybe_unused]] const ssize_t n = ::write(wakeFd_, &one, sizeof one);  // EAGAIN: a wake is pending anyway
}

void StdioTransport::logInput(const std::string& line) {
  // Headerless input arrives as many reads: its first drop is logged, the
  // rest are counted and summed up once.
  if (line.rfind("dropped ", 0) == 0) {
    if (junkLogged_) {
      ++junkSuppressed_;
      return;
    }
    junkLogged_ = true;
  }
  log(line);
}

bool StdioTransport::readBatch(std::vector<std::string>& bodies) {
  while (!eof_) {
    // Input or a wake (posted work). Without an eventfd (none left), a short
    // poll timeout stands in for the wake.
    pollfd fds[2] = {{in_, POLLIN, 0}, {wakeFd_, POLLIN, 0}};
    const int ready = ::poll(fds, wakeFd_ >= 0 ? 2 : 1, wakeFd_ >= 0 ? -1 : 20);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return true;
    if (ready > 0 && wakeFd_ >= 0 && (fds[1].revents & POLLIN)) {
      std::uint64_t count = 0;
      [[maybe_unused]] const ssize_t r = ::read(wakeFd_, &count, sizeof count);
      if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) return true;  // posted work to run
    }
    char chunk[kReadBytes];
    const ssize_t n = ::read(in_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof_ = true;
      break;
    }
    std::vector<FrameReader::Oversized> oversized;
    reader_.feed(std::string_view(chunk, static_cast<std::size_t>(n)), bodies, oversized);
    for (const auto& o : oversized)
      reply(o.id, LspError(ErrorCode::InvalidRequest,
                           "the message of " + std::to_string(o.bytes) + " bytes exceeds the limit of " +
                               std::to_string(reader_.maxMessageBytes()) +
                               " bytes, so it was skipped unread; start the server with a larger limit, "
                               "`revline lsp --max-message-bytes N` (in the editor's server command), "
                               "or send less in one message"));
    if (!bodies.empty()) {
      reportSuppressedJunk();
      return true;
    }
  }
  reportSuppressedJunk();
  reader_.finish();
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
