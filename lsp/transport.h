// The transport carries JSON-RPC messages between the server and a client and
// knows nothing of LSP. Outbound: notify / call / reply (thread-safe). Inbound:
// loop() hands classified messages to a MessageHandler. What is not JSON, or
// not JSON-RPC, is answered here (-32700 / -32600) when an id can be read and
// logged otherwise; it never stops the loop.
//
// Implementations supply two hooks: readBatch (what arrived, as message bodies)
// and writeBody. StdioTransport frames with Content-Length over file
// descriptors; tests/support/lsp/memory_transport.h (tests only) passes bodies
// through queues.
#pragma once
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lsp/frame_reader.h"
#include "lsp/jsonrpc.h"

namespace revline::lsp {

class MessageHandler {
 public:
  virtual ~MessageHandler() = default;
  // Each returns false to stop the loop (the `exit` notification).
  virtual bool onNotify(const std::string& method, const json& params) = 0;
  virtual bool onCall(const std::string& method, const json& params, const json& id) = 0;
  virtual bool onReply(const json& id, const std::optional<json>& result, const std::optional<json>& error) = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;

  void notify(const std::string& method, const json& params);
  void call(const std::string& method, const json& params, const json& id);
  void reply(const json& id, const ReplyValue& value);

  // Runs until the handler returns false (true) or the input ends (false).
  // Within one batch of input, `$/cancelRequest` notifications are delivered
  // first: cancellation is handled on receipt, ahead of the work it cancels.
  bool loop(MessageHandler& handler);

  // Runs `task` on the loop thread, between messages (thread-safe): how work
  // done elsewhere (a review on the worker) hands its result to the state the
  // loop thread owns. Tasks still queued when the loop ends never run.
  void post(std::function<void()> task);
  // Drops the tasks not run yet (their owner is going away).
  void discardPosted();

  // Diagnostics about the input (bad frames); goes to stderr by default.
  std::function<void(const std::string&)> log;

 protected:
  Transport();
  // Blocks until at least one message body arrived (appended to `bodies`) or
  // wake() was called (true, maybe with no bodies); false at end of input
  // (bodies may still hold the last ones).
  virtual bool readBatch(std::vector<std::string>& bodies) = 0;
  virtual void writeBody(const std::string& body) = 0;
  // Makes a readBatch blocked now (or the next one) return soon. Thread-safe.
  virtual void wake() = 0;

 private:
  void send(const json& message);
  void runPosted();
  std::mutex postedMutex_;
  std::vector<std::function<void()>> posted_;
  bool dispatch(const std::string& body, const std::optional<Message>& message, const std::string& parseError,
                MessageHandler& handler);
  std::mutex writeMutex_;
};

// Content-Length framing over a pair of file descriptors (0 and 1 for stdio).
// A message over the size limit is skipped unread (frame_reader.h) and, when
// its id can be found anywhere in it, answered with -32600.
class StdioTransport : public Transport {
 public:
  static constexpr std::size_t kReadBytes = 65536;  // one read(2)
  explicit StdioTransport(int inFd = 0, int outFd = 1, std::size_t maxMessageBytes = 64u << 20);
  ~StdioTransport() override;
  StdioTransport(const StdioTransport&) = delete;
  StdioTransport& operator=(const StdioTransport&) = delete;

  // The most input ever held at once (tests: bounded by the limit, a header and one read).
  std::size_t peakBufferedBytes() const { return reader_.peakBufferedBytes(); }

 protected:
  bool readBatch(std::vector<std::string>& bodies) override;
  void writeBody(const std::string& body) override;
  void wake() override;

 private:
  int in_, out_;
  int wakeFd_ = -1;  // an eventfd polled beside the input: post() interrupts a blocked read
  FrameReader reader_;
  bool eof_ = false;
  bool junkLogged_ = false;          // a drop of headerless input was logged since the last message
  std::size_t junkSuppressed_ = 0;   // further drops not logged one by one
  void logInput(const std::string& line);
  void reportSuppressedJunk();
};

}  // namespace revline::lsp
