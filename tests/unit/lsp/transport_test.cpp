// The transport and JSON-RPC layer: framing, bad input, classification, ReplyOnce.
#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "lsp/frame_reader.h"
#include "lsp/jsonrpc.h"
#include "lsp/transport.h"
#include "tests/support/lsp/memory_transport.h"

namespace revline::lsp {
namespace {

std::string frame(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

struct Extracted {
  std::vector<std::string> bodies;
  std::vector<std::string> logs;
  std::vector<FrameReader::Oversized> oversized;
  std::size_t held = 0;  // bytes the reader still holds
  std::size_t peak = 0;  // the most it ever held
};

// Feeds `input` to a FrameReader in reads of `chunk` bytes (0: all at once).
Extracted extract(const std::string& input, std::size_t cap = 1000, std::size_t chunk = 0) {
  Extracted e;
  FrameReader reader(cap, [&](const std::string& l) { e.logs.push_back(l); });
  if (chunk == 0) chunk = input.size() + 1;
  for (std::size_t at = 0; at < input.size(); at += chunk)
    reader.feed(std::string_view(input).substr(at, chunk), e.bodies, e.oversized);
  e.held = reader.bufferedBytes();
  e.peak = reader.peakBufferedBytes();
  return e;
}

TEST(Framing, SplitsConsecutiveFramesAndKeepsAPartialOne) {
  auto e = extract(frame("{\"a\":1}") + frame("{\"b\":2}") + "Content-Length: 10\r\n\r\n{\"c\"");
  ASSERT_EQ(e.bodies.size(), 2u);
  EXPECT_EQ(e.bodies[0], "{\"a\":1}");
  EXPECT_EQ(e.bodies[1], "{\"b\":2}");
  EXPECT_EQ(e.held, std::string("Content-Length: 10\r\n\r\n{\"c\"").size());
  EXPECT_TRUE(e.logs.empty());
}

TEST(Framing, HeaderNamesAreCaseInsensitiveAndOtherHeadersIgnored) {
  auto e = extract("content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}");
  ASSERT_EQ(e.bodies.size(), 1u);
  EXPECT_EQ(e.bodies[0], "{}");
}

TEST(Framing, CountsBytesNotCharacters) {
  const std::string body = "{\"t\":\"é😀\"}";
  auto e = extract(frame(body));
  ASSERT_EQ(e.bodies.size(), 1u);
  EXPECT_EQ(e.bodies[0], body);
}

TEST(Framing, MalformedHeaderIsSkippedToTheNextMessage) {
  auto e = extract("garbage line\r\n\r\n" + frame("{}"));
  ASSERT_EQ(e.bodies.size(), 1u);
  EXPECT_EQ(e.bodies[0], "{}");
  ASSERT_EQ(e.logs.size(), 1u);
  EXPECT_NE(e.logs[0].find("malformed header"), std::string::npos);
}

TEST(Framing, NonNumericAndMissingLengthAreSkipped) {
  auto e = extract("Content-Length: ten\r\n\r\n" + frame("{\"x\":1}") + "Content-Type: a\r\n\r\n" + frame("{}"));
  ASSERT_EQ(e.bodies.size(), 2u);
  EXPECT_EQ(e.logs.size(), 2u);
  EXPECT_NE(e.logs[0].find("bad Content-Length"), std::string::npos);
  EXPECT_NE(e.logs[1].find("without Content-Length"), std::string::npos);
}

TEST(Framing, OversizedMessageIsRefusedWithoutBufferingIt) {
  auto e = extract("Content-Length: 99999999999\r\n\r\n{\"huge\":" + frame("{}"), 1000);
  ASSERT_EQ(e.bodies.size(), 1u);
  EXPECT_EQ(e.bodies[0], "{}");
  ASSERT_EQ(e.logs.size(), 1u);
  EXPECT_NE(e.logs[0].find("exceeds the limit"), std::string::npos);
}

// A request over the limit, `padding` bytes of params before or after its id.
std::string oversizedRequest(const std::string& id, std::size_t padding, bool idFirst) {
  // The padding holds what must not fool the scan: an "id" key inside params, an
  // "id" in a string, and header text (without the CR LF JSON cannot hold).
  const std::string params = R"({"textDocument":{"id":7},"text":"\"id\": 99, Content-Length: 12 )" +
                             std::string(padding, 'x') + R"("})";
  return idFirst ? R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":"textDocument/formatting","params":)" + params + "}"
                 : R"({"jsonrpc":"2.0","method":"textDocument/formatting","params":)" + params + R"(,"id":)" + id + "}";
}

TEST(Framing, AnOversizedRequestIsAnsweredWhereverItsIdIsAndTheNextMessageIsRead) {
  const std::size_t cap = 1000, chunk = 4096;
  const std::string first = oversizedRequest("1", 1 << 20, /*idFirst=*/true);
  const std::string last = oversizedRequest("\"late\"", 1 << 20, /*idFirst=*/false);
  auto e = extract(frame(first) + frame(last) + frame(R"({"jsonrpc":"2.0","id":3,"method":"ok"})"), cap, chunk);
  ASSERT_EQ(e.oversized.size(), 2u);
  EXPECT_EQ(e.oversized[0].id, json(1));
  EXPECT_EQ(e.oversized[0].bytes, first.size());
  EXPECT_EQ(e.oversized[1].id, json("late"));  // after a megabyte of params
  ASSERT_EQ(e.bodies.size(), 1u);              // in sync: the next message, whole
  EXPECT_EQ(e.bodies[0], R"({"jsonrpc":"2.0","id":3,"method":"ok"})");
  EXPECT_EQ(e.logs.size(), 2u);  // one line per oversized message
  EXPECT_EQ(e.held, 0u);
  // Two megabytes went through; never more than the limit and one read was held.
  EXPECT_LE(e.peak, cap + chunk);
}

TEST(Framing, TheIdScanSurvivesAnySplitAndIgnoresNestedIds) {
  const std::string message = oversizedRequest("-17", 40, /*idFirst=*/false);
  for (std::size_t chunk : {1u, 2u, 3u, 7u}) {
    auto e = extract(frame(message) + frame("{}"), 10, chunk);
    ASSERT_EQ(e.oversized.size(), 1u) << chunk;
    EXPECT_EQ(e.oversized[0].id, json(-17)) << chunk;
    ASSERT_EQ(e.bodies.size(), 1u) << chunk;
    EXPECT_LE(e.peak, 64u + IdScanner::kMaxIdBytes + 7) << chunk;  // the tail window and the scan, not the body
  }
  // No reply to a notification over the limit (ids only inside params), nor to
  // a response (an id but no method), nor to an id too long to be worth one.
  for (const std::string& unanswered :
       {std::string(R"({"jsonrpc":"2.0","method":"m","params":{"id":1,"x":[{"id":2}]}})"),
        std::string(R"({"jsonrpc":"2.0","id":5,"result":{"method":"m","items":[1,2,3]}})"),
        R"({"jsonrpc":"2.0","id":")" + std::string(IdScanner::kMaxIdBytes, 'i') + R"(\"}","method":"m"})"}) {
    auto e = extract(frame(unanswered) + frame("{}"), 10, 5);
    EXPECT_TRUE(e.oversized.empty()) << unanswered;
    EXPECT_EQ(e.bodies.size(), 1u) << unanswered;
  }
  // The id after a number and a long string (structure read on after each).
  auto e = extract(frame(R"({"n":12,"s":")" + std::string(1000, 's') + R"(","method":"m","id":8})") + frame("{}"), 10, 3);
  ASSERT_EQ(e.oversized.size(), 1u);
  EXPECT_EQ(e.oversized[0].id, json(8));
}

TEST(Framing, JunkWithoutAnyHeaderIsDroppedEventually) {
  auto e = extract(std::string(9000, 'x'));
  EXPECT_TRUE(e.bodies.empty());
  EXPECT_EQ(e.held, 0u);
  EXPECT_EQ(e.logs.size(), 1u);
}

TEST(Classify, RecognisesEachKind) {
  EXPECT_TRUE(std::holds_alternative<Request>(classify(json::parse(R"({"jsonrpc":"2.0","id":1,"method":"m"})"))));
  EXPECT_TRUE(std::holds_alternative<Notification>(classify(json::parse(R"({"jsonrpc":"2.0","method":"m"})"))));
  EXPECT_TRUE(std::holds_alternative<Response>(classify(json::parse(R"({"jsonrpc":"2.0","id":"a","result":null})"))));
  auto bad = classify(json::parse(R"({"id":3,"method":"m"})"));
  ASSERT_TRUE(std::holds_alternative<Invalid>(bad));
  EXPECT_EQ(std::get<Invalid>(bad).id, json(3));
  auto badParams = classify(json::parse(R"({"jsonrpc":"2.0","id":4,"method":"m","params":7})"));
  ASSERT_TRUE(std::holds_alternative<Invalid>(badParams));
  EXPECT_TRUE(std::holds_alternative<Invalid>(classify(json::parse("[1,2]"))));
}

TEST(Classify, ScanIdFindsTheIdOfBrokenJson) {
  EXPECT_EQ(scanId(R"({"jsonrpc":"2.0","id": 17, "method": "x", )"), json(17));
  EXPECT_EQ(scanId(R"({"id":"abc", oops)"), json("abc"));
  EXPECT_FALSE(scanId("{oops").has_value());
  EXPECT_EQ(scanId("{\"id\"\t:\n-3,"), json(-3));
  EXPECT_EQ(scanId(R"({"id":"a\"b", x)"), json("a\"b"));
  // An "id" key without a usable value is passed over for the next one.
  EXPECT_EQ(scanId(R"({"params":{"id":null},"id":5 oops)"), json(5));
  EXPECT_FALSE(scanId(R"({"id":-})").has_value());
  EXPECT_FALSE(scanId(R"({"id":"unterminated)").has_value());
}

TEST(Errors, EncodedInOnePlace) {
  EXPECT_EQ(encodeError(LspError(ErrorCode::MethodNotFound, "no")), json::parse(R"({"code":-32601,"message":"no"})"));
}

TEST(ReplyOnce, RepliesExactlyOnceAndInternalErrorWhenDropped) {
  std::vector<std::pair<json, json>> sent;
  auto sender = [&](const json& id, const ReplyValue& v) {
    sent.emplace_back(id, std::holds_alternative<json>(v) ? std::get<json>(v) : encodeError(std::get<LspError>(v)));
  };
  {
    ReplyOnce r(1, "a", sender);
    r(json("ok"));
    r(json("again"));  // ignored (logged)
  }
  { ReplyOnce dropped(2, "b", sender); }
  {
    ReplyOnce r(3, "c", sender);
    ReplyOnce moved = std::move(r);
    EXPECT_FALSE(static_cast<bool>(r));
    moved(json(1));
  }
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(sent[0].second, "ok");
  EXPECT_EQ(sent[1].first, 2);
  EXPECT_EQ(sent[1].second["code"], -32603);
  EXPECT_EQ(sent[2].first, 3);
}

// A handler that records what it got.
struct Recorder : MessageHandler {
  std::vector<std::string> seen;
  bool onNotify(const std::string& m, const json&) override {
    seen.push_back("notify " + m);
    return m != "exit";
  }
  bool onCall(const std::string& m, const json&, const json& id) override {
    seen.push_back("call " + m + " " + id.dump());
    return true;
  }
  bool onReply(const json& id, const std::optional<json>&, const std::optional<json>&) override {
    seen.push_back("reply " + id.dump());
    return true;
  }
};

TEST(Loop, BadInputIsAnsweredOrLoggedAndNeverStopsTheLoop) {
  MemoryTransport t;
  std::vector<std::string> logs;
  t.log = [&](const std::string& l) { logs.push_back(l); };
  t.clientSendRaw(R"({"jsonrpc":"2.0","id":5,"method":"x", broken)");
  t.clientSendRaw("not json at all");
  t.clientSendRaw(R"({"id":6,"method":"no version"})");
  t.clientSendRaw(R"({"jsonrpc":"2.0"})");
  t.clientSendRaw(R"({"jsonrpc":"2.0","id":7,"method":"ok"})");
  t.clientClose();
  Recorder r;
  EXPECT_FALSE(t.loop(r));  // ended by EOF
  EXPECT_EQ(r.seen, std::vector<std::string>{"call ok 7"});
  // Every bad message is answered (JSON-RPC 2.0), with id null when its id cannot be read.
  std::vector<json> replies;
  while (auto m = t.clientReceive(std::chrono::milliseconds(0))) replies.push_back(*m);
  ASSERT_EQ(replies.size(), 4u);
  EXPECT_EQ(replies[0]["id"], 5);
  EXPECT_EQ(replies[0]["error"]["code"], -32700);
  EXPECT_TRUE(replies[1]["id"].is_null());
  EXPECT_EQ(replies[1]["error"]["code"], -32700);
  EXPECT_EQ(replies[2]["id"], 6);
  EXPECT_EQ(replies[2]["error"]["code"], -32600);
  EXPECT_TRUE(replies[3]["id"].is_null());
  EXPECT_EQ(replies[3]["error"]["code"], -32600);
  EXPECT_EQ(logs.size(), 4u);
}

TEST(Loop, CancellationsInABatchComeFirst) {
  MemoryTransport t;
  t.clientSendBatch({json::parse(R"({"jsonrpc":"2.0","id":1,"method":"slow"})"),
                     json::parse(R"({"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}})"),
                     json::parse(R"({"jsonrpc":"2.0","method":"exit"})")});
  Recorder r;
  EXPECT_TRUE(t.loop(r));
  EXPECT_EQ(r.seen, (std::vector<std::string>{"notify $/cancelRequest", "call slow 1", "notify exit"}));
}

TEST(Stdio, RealPipesWithFraming) {
  int toServer[2], fromServer[2];
  ASSERT_EQ(pipe(toServer), 0);
  ASSERT_EQ(pipe(fromServer), 0);
  StdioTransport t(toServer[0], fromServer[1], 1 << 20);
  t.log = [](const std::string&) {};
  const std::string input = frame(R"({"jsonrpc":"2.0","id":1,"method":"a"})") + "Content-Length: x\r\n\r\n" +
                            frame(R"({"jsonrpc":"2.0","method":"exit"})");
  // Written in two pieces that split a header, like a real pipe may.
  ASSERT_EQ(write(toServer[1], input.data(), 10), 10);
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_EQ(write(toServer[1], input.data() + 10, input.size() - 10), static_cast<ssize_t>(input.size() - 10));
  });
  Recorder r;
  EXPECT_TRUE(t.loop(r));
  writer.join();
  EXPECT_EQ(r.seen, (std::vector<std::string>{"call a 1", "notify exit"}));
  t.notify("n", json::object());
  char buf[256];
  ssize_t n = read(fromServer[0], buf, sizeof buf);
  ASSERT_GT(n, 0);
  const std::string out(buf, static_cast<std::size_t>(n));
  const std::string body = R"({"jsonrpc":"2.0","method":"n","params":{}})";
  EXPECT_EQ(out, frame(body));
  for (int fd : {toServer[0], toServer[1], fromServer[0], fromServer[1]}) close(fd);
}

TEST(Stdio, OversizedRequestsThroughRealPipesAreAnsweredInBoundedMemory) {
  int toServer[2], fromServer[2];
  ASSERT_EQ(pipe(toServer), 0);
  ASSERT_EQ(pipe(fromServer), 0);
  const std::size_t cap = 4096;
  StdioTransport t(toServer[0], fromServer[1], cap);
  std::vector<std::string> logs;
  t.log = [&](const std::string& l) { logs.push_back(l); };
  const std::string input = frame(oversizedRequest("1", 600000, /*idFirst=*/true)) +
                            frame(oversizedRequest("2", 600000, /*idFirst=*/false)) +
                            frame(R"({"jsonrpc":"2.0","id":3,"method":"a"})") + frame(R"({"jsonrpc":"2.0","method":"exit"})");
  std::thread writer([&] {  // more than a pipe holds: written while the server reads
    for (std::size_t done = 0; done < input.size();) {
      const ssize_t n = write(toServer[1], input.data() + done, input.size() - done);
      ASSERT_GT(n, 0);
      done += static_cast<std::size_t>(n);
    }
  });
  Recorder r;
  EXPECT_TRUE(t.loop(r));
  writer.join();
  EXPECT_EQ(r.seen, (std::vector<std::string>{"call a 3", "notify exit"}));
  close(fromServer[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fromServer[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  auto replies = extract(out, 1 << 20);
  ASSERT_EQ(replies.bodies.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const json reply = json::parse(replies.bodies[static_cast<std::size_t>(i)]);
    EXPECT_EQ(reply["id"], i + 1);
    EXPECT_EQ(reply["error"]["code"], -32600);
    const std::string message = reply["error"]["message"];
    EXPECT_NE(message.find("exceeds the limit of 4096 bytes"), std::string::npos) << message;
    EXPECT_NE(message.find("revline lsp --max-message-bytes N"), std::string::npos) << message;
  }
  EXPECT_EQ(logs.size(), 2u);
  // 1.2 MB went through: at most the limit and one read were ever held.
  EXPECT_LE(t.peakBufferedBytes(), cap + StdioTransport::kReadBytes);
  for (int fd : {toServer[0], toServer[1], fromServer[0]}) close(fd);
}

TEST(Stdio, EndOfInputEndsTheLoop) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  const std::string partial = "Content-Length: 50\r\n\r\n{";
  ASSERT_EQ(write(p[1], partial.data(), partial.size()), static_cast<ssize_t>(partial.size()));
  close(p[1]);
  StdioTransport t(p[0], -1);
  std::vector<std::string> logs;
  t.log = [&](const std::string& l) { logs.push_back(l); };
  Recorder r;
  EXPECT_FALSE(t.loop(r));
  EXPECT_EQ(logs.size(), 1u);
  close(p[0]);
}

}  // namespace
}  // namespace revline::lsp
