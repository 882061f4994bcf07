// The HTTP transport: retry policy (what is retried, backoff, retry-after),
// timeouts, cancellation, proxies, base URL parsing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "core/providers/http_transport.h"
#include "core/providers/openai_provider.h"
#include "tests/unit/providers/provider_test_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <thread>

namespace revline::providers {
namespace {

using namespace std::chrono_literals;
using review::ProviderError;
using testing::FakeServer;
using testing::Reply;
using testing::settingsFor;
using testing::SleepRecorder;
using Kind = ProviderError::Kind;

const std::string kOk = R"({"choices":[{"message":{"role":"assistant","content":"{}"},"finish_reason":"stop"}]})";

struct Caught {
  Kind kind = Kind::Protocol;
  std::string message;
  bool thrown = false;
  int unanswered = 0;
};

template <class F>
Caught catchProviderError(F f) {
  Caught c;
  try {
    f();
  } catch (const ProviderError& e) {
    c = {e.kind(), e.what(), true, e.unanswered()};
  }
  return c;
}

// Cancellation is not a provider failure: it is the one Cancelled exception.
struct CaughtCancel {
  std::string message;
  bool thrown = false;
};
template <class F>
CaughtCancel catchCancelled(F f) {
  CaughtCancel c;
  try {
    f();
  } catch (const Cancelled& e) {
    c = {e.what(), true};
  }
  return c;
}

TEST(BaseUrl, ParsesAndRecognisesLoopback) {
  auto u = BaseUrl::parse("https://api.openai.com/v1/");
  EXPECT_EQ(u.scheme, "https");
  EXPECT_EQ(u.host, "api.openai.com");
  EXPECT_EQ(u.port, 443);
  EXPECT_EQ(u.basePath, "/v1");
  EXPECT_EQ(u.str(), "https://api.openai.com/v1");
  EXPECT_FALSE(u.loopback());
  auto v6 = BaseUrl::parse("http://[::1]:8080");
  EXPECT_EQ(v6.host, "::1");
  EXPECT_EQ(v6.port, 8080);
  EXPECT_EQ(v6.origin(), "http://[::1]:8080");
  EXPECT_TRUE(v6.loopback());
  EXPECT_TRUE(BaseUrl::parse("http://localhost:11434").loopback());
  EXPECT_TRUE(BaseUrl::parse("http://127.0.0.2:1/v1").loopback());
  EXPECT_FALSE(BaseUrl::parse("http://127.example.com").loopback());
  EXPECT_FALSE(BaseUrl::parse("http://10.0.0.5:8000/v1").loopback());
  EXPECT_FALSE(BaseUrl::parse("http://1127.0.0.1").loopback());
  for (const char* bad : {"api.openai.com/v1", "ftp://x", "http://", "http://h:99999", "http://u:p@h/v1"}) {
    EXPECT_THROW(BaseUrl::parse(bad), ProviderError) << bad;
  }
}

TEST(RetryAfter, SecondsMillisecondsAndHttpDate) {
  HttpResponse r;
  EXPECT_FALSE(retryAfter(r));
  r.headers = {{"retry-after", "3"}};
  EXPECT_EQ(*retryAfter(r), 3000ms);
  r.headers = {{"retry-after-ms", "1500"}, {"retry-after", "9"}};
  EXPECT_EQ(*retryAfter(r), 1500ms) << "retry-after-ms wins";
  r.headers = {{"retry-after", "Wed, 21 Oct 2015 07:28:10 GMT"}};
  std::tm tm{};
  strptime("2015-10-21 07:28:00", "%Y-%m-%d %H:%M:%S", &tm);
  auto now = std::chrono::system_clock::from_time_t(timegm(&tm));
  EXPECT_EQ(*retryAfter(r, now), 10000ms);
  EXPECT_EQ(*retryAfter(r, now + 1h), 0ms) << "a date in the past means now";
  r.headers = {{"retry-after", "soon"}};
  EXPECT_FALSE(retryAfter(r));
  // Google's APIs (Gemini) send the wait as a RetryInfo in the error body, wrapped in an array.
  r.headers = {};
  r.body = R"([{"error":{"code":429,"message":"You exceeded your current quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure"},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"39s"}]}}])";
  EXPECT_EQ(*retryAfter(r), 39000ms);
  r.body = R"({"error":{"details":[{"retryDelay":"1.5s"}]}})";
  EXPECT_EQ(*retryAfter(r), 1500ms);
  r.body = R"({"error":{"details":[{"retryDelay":"soon"}]}})";
  EXPECT_FALSE(retryAfter(r));
  r.headers = {{"retry-after", "2"}};
  EXPECT_EQ(*retryAfter(r), 2000ms) << "the header wins";
}

// A 429 without retry-after still says when its limit resets: the error's
// "Please try again in 5.289s" (OpenAI, Groq, Azure), or the reset header of
// the limit spent (x-ratelimit-*, anthropic-ratelimit-*). Before, the backoff's
// second or so was all revline waited, and every try came before the reset.
TEST(RetryAfter, ARateLimitsResetIsTheWait) {
  HttpResponse r;
  r.status = 429;
  r.body = R"({"error":{"message":"Rate limit reached ... Please try again in 900ms. Visit https://platform.openai.com","code":"rate_limit_exceeded"}})";
  r.headers = {{"x-ratelimit-remaining-tokens", "0"}, {"x-ratelimit-reset-tokens", "4s"}};
  EXPECT_EQ(*retryAfter(r), 900ms) << "the error's own words win";
  r.body = R"({"error":{"message":"Please try again in 5.289s."}})";
  EXPECT_EQ(*retryAfter(r), 5289ms);
  r.body = R"({"error":{"message":"Please try again in 1m2.5s."}})";
  EXPECT_EQ(*retryAfter(r), 62500ms);
  r.body = R"({"error":{"message":"Rate limit reached"}})";
  EXPECT_EQ(*retryAfter(r), 4000ms) << "the spent limit's reset";
  r.headers = {{"x-ratelimit-remaining-requests", "0"}, {"x-ratelimit-reset-requests", "1s"},
               {"x-ratelimit-remaining-tokens", "0"}, {"x-ratelimit-reset-tokens", "6m0s"}};
  EXPECT_EQ(*retryAfter(r), 360000ms) << "the last of the spent limits";
  r.headers = {{"x-ratelimit-remaining-requests", "12"}, {"x-ratelimit-reset-requests", "1s"}};
  EXPECT_FALSE(retryAfter(r)) << "a limit not spent says nothing of this 429";
  std::tm tm{};
  strptime("2026-12-07 10:00:00", "%Y-%m-%d %H:%M:%S", &tm);
  const auto now = std::chrono::system_clock::from_time_t(timegm(&tm));
  r.headers = {{"anthropic-ratelimit-input-tokens-remaining", "0"},
               {"anthropic-ratelimit-input-tokens-reset", "2026-12-07T10:00:05Z"}};
  EXPECT_EQ(*retryAfter(r, now), 5000ms);
  r.headers.emplace("retry-after", "2");
  EXPECT_EQ(*retryAfter(r, now), 2000ms) << "retry-after wins";
  r.headers = {};
  r.status = 503;
  r.body = R"({"error":{"message":"Please try again in 9s."}})";
  EXPECT_FALSE(retryAfter(r)) << "only a rate limit's words are read";
}

TEST(RetryPolicy, WhatIsRetried) {
  for (int s : {408, 409, 429, 500, 502, 503, 504, 529}) EXPECT_TRUE(retryableStatus(s, "")) << s;
  for (int s : {200, 400, 401, 403, 404, 413, 422}) EXPECT_FALSE(retryableStatus(s, "")) << s;
  EXPECT_FALSE(retryableStatus(429, R"({"error":{"code":"insufficient_quota"}})"));
}

TEST(Transport, HonoursRetryAfterOn429ThenSucceeds) {
  FakeServer server;
  server.enqueue(Reply::fromFixture("openai_429_rate_limit.json", 429).header("retry-after", "2"));
  server.enqueue(Reply::ok(kOk));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  auto response = provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(response.text, "{}");
  EXPECT_EQ(server.requestCount(), 2u);
  EXPECT_EQ(*sleeps.sleeps, (std::vector<std::chrono::milliseconds>{2000ms}));
  EXPECT_EQ(server.requests()[0].body, server.requests()[1].body) << "the same request is resent";
}

// A 429 that names no retry-after but says when to try again: waited that long.
TEST(Transport, A429sTryAgainInIsWaited) {
  FakeServer server;
  server.enqueue(Reply::fromFixture("openai_429_rate_limit.json", 429));  // "Please try again in 2s."
  server.enqueue(Reply{429, R"({"error":{"message":"Rate limit reached"}})", {}, {}}
                     .header("x-ratelimit-remaining-requests", "0")
                     .header("x-ratelimit-reset-requests", "3.5s"));
  server.enqueue(Reply::ok(kOk));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  EXPECT_EQ(provider.complete(testing::sampleRequest(), CancelToken()).text, "{}");
  EXPECT_EQ(*sleeps.sleeps, (std::vector<std::chrono::milliseconds>{2000ms, 3500ms}));
}

TEST(Transport, ServerErrorThenSuccessUsesBackoff) {
  FakeServer server;
  server.enqueue(Reply{500, R"({"error":{"message":"The server had an error"}})", {}, {}});
  server.enqueue(Reply::ok(kOk));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  provider.complete(testing::sampleRequest(), CancelToken());
  EXPECT_EQ(server.requestCount(), 2u);
  EXPECT_EQ(*sleeps.sleeps, (std::vector<std::chrono::milliseconds>{500ms}));
}

TEST(Transport, AtMostTwoRetriesThenTheErrorSaysSo) {
  FakeServer server;
  for (int i = 0; i < 3; ++i) server.enqueue(Reply::fromFixture("anthropic_overloaded.json", 529));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  auto c = catchProviderError([&] { provider.complete(testing::sampleRequest(), CancelToken()); });
  ASSERT_TRUE(c.thrown);
  EXPECT_EQ(c.kind, Kind::Server);
  EXPECT_NE(c.message.find("HTTP 529 (overloaded) after 2 retries"), std::string::npos) << c.message;
  EXPECT_NE(c.message.find("Overloaded"), std::string::npos) << c.message;
  EXPECT_EQ(server.requestCount(), 3u);
  EXPECT_EQ(*sleeps.sleeps, (std::vector<std::chrono::milliseconds>{500ms, 1000ms}));
}

TEST(Transport, BackoffJitterStaysWithinTheCap) {
  FakeServer server;
  SleepRecorder sleeps;
  TransportOptions options;
  options.maxRetries = 6;
  options.sleep = sleeps.fn();
  double r = 0.999;
  options.random = [&] { return r; };
  for (int i = 0; i < 7; ++i) server.enqueue(Reply{503, "{}", {}, {}});
  HttpTransport transport("test", BaseUrl::parse(server.url()), options);
  auto res = transport.postJson("/x", {}, "{}", CancelToken());
  EXPECT_EQ(res.status, 503);
  EXPECT_EQ(res.retries, 6);
  ASSERT_EQ(sleeps.sleeps->size(), 6u);
  for (auto d : *sleeps.sleeps) EXPECT_LE(d, 8000ms);
  EXPECT_GE((*sleeps.sleeps)[0], 375ms);
  EXPECT_LE((*sleeps.sleeps)[0], 625ms);
  EXPECT_EQ((*sleeps.sleeps)[5], 8000ms);
}

TEST(Transport, RetryAfterBeyondSixtySecondsIsNotWaitedFor) {
  FakeServer server;
  server.enqueue(Reply::fromFixture("openai_429_rate_limit.json", 429).header("retry-after", "600"));
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  auto c = catchProviderError([&] { provider.complete(testing::sampleRequest(), CancelToken()); });
  EXPECT_EQ(c.kind, Kind::RateLimited);
  EXPECT_NE(c.message.find("asks to wait 600 s"), std::string::npos) << c.message;
  EXPECT_EQ(server.requestCount(), 1u);
  EXPECT_TRUE(sleeps.sleeps->empty());
}

TEST(Transport, ConnectionRefusedIsRetriedThenReported) {
  int port;
  {
    FakeServer closed;  // take a free port, then close it
    closed.expectAllRepliesUsed(false);
    port = closed.port();
  }
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor("http://127.0.0.1:" + std::to_string(port) + "/v1", sleeps));
  auto c = catchProviderError([&] { provider.complete(testing::sampleRequest(), CancelToken()); });
  EXPECT_EQ(c.kind, Kind::Network);
  EXPECT_NE(c.message.find("after 3 tries"), std::string::npos) << c.message;
  EXPECT_NE(c.message.find("failed: could not connect (refused, or the host name did not resolve) (after 3 tries)"),
            std::string::npos)
      << c.message;
  EXPECT_NE(c.message.find("is the server running"), std::string::npos) << c.message;
  EXPECT_EQ(sleeps.sleeps->size(), 2u);
}

// Accepts connections on 127.0.0.1 and hands each to `serve`, then closes it.
class RawServer {
 public:
  explicit RawServer(std::function<void(int)> serve) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd_, 8);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this, serve = std::move(serve)] {
      for (int c; (c = ::accept(fd_, nullptr, nullptr)) >= 0;) {
        // Counted before anything is sent: a reply with a Content-Length ends the client's wait before the close.
        ++accepted;
        serve(c);
        ::close(c);
      }
    });
  }
  ~RawServer() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  int port() const { return port_; }
  std::atomic<int> accepted{0};

  static bool wholeRequest(const std::string& request) {
    const std::size_t end = request.find("\r\n\r\n");
    if (end == std::string::npos) return false;
    std::size_t length = 0;
    std::string headers = request.substr(0, end);
    std::transform(headers.begin(), headers.end(), headers.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (const std::size_t at = headers.find("content-length:"); at != std::string::npos)
      length = std::stoul(headers.substr(at + 15));
    return request.size() >= end + 4 + length;
  }
  static void readRequest(int c) {
    std::string request;
    char buf[4096];
    for (ssize_t n; !wholeRequest(request) && (n = ::recv(c, buf, sizeof buf, 0)) > 0;) request.append(buf, n);
  }

 private:
  int fd_ = -1, port_ = 0;
  std::thread thread_;
};

// Closes each connection without a reply, or (`reply` given) after reading the
// whole request and writing those bytes as they are: a reply whose end is the
// connection's close.
class HangingUp : public RawServer {
 public:
  explicit HangingUp(std::string reply = "")
      : RawServer([reply](int c) {
          if (reply.empty()) {
            char buf[4096];
            (void)::recv(c, buf, sizeof buf, 0);
          } else {
            readRequest(c);
            (void)::send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
          }
        }) {}
};

// Reads the request, then writes a status line and `unit` over and over until
// the client goes away: headers that never end. `sent` counts what it wrote.
class Flooding : public RawServer {
 public:
  explicit Flooding(const std::string& unit, std::shared_ptr<std::atomic<std::uint64_t>> sent)
      : RawServer([chunk = repeated(unit), sent](int c) {
          readRequest(c);
          // The client gone, its side may keep the window shut rather than reset: a write waits 0.2 s at most.
          const timeval wait{0, 200000};
          ::setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof wait);
          const std::string status = "HTTP/1.1 200 OK\r\n";
          (void)::send(c, status.data(), status.size(), MSG_NOSIGNAL);
          for (ssize_t n; (n = ::send(c, chunk.data(), chunk.size(), MSG_NOSIGNAL)) > 0;)
            *sent += static_cast<std::uint64_t>(n);
        }) {}

 private:
  static std::string repeated(const std::string& unit) {
    std::string chunk;
    while (chunk.size() < 64 * 1024) chunk += unit;
    return chunk;
  }
};

// cpp-httplib reads a reply's headers without a bound: endless header lines, or
// one endless line, grew the process by 140 MB a second until read_timeout_ms,
// then again on each retry. Stopped past 4 MiB, said, and not retried.
TEST(Transport, HeadersThatNeverEndAreStoppedNotReadIntoMemory) {
  for (const std::string unit : {"X-A: b\r\n", "X-A: bbbbbbbbbbbbbbbb"}) {  // lines, or one line
    auto sent = std::make_shared<std::atomic<std::uint64_t>>(0);
    Flooding server(unit, sent);
    SleepRecorder sleeps;
    OpenAiProvider provider(settingsFor("http://127.0.0.1:" + std::to_string(server.port()) + "/v1", sleeps));
    const Caught c = catchProviderError([&] { provider.complete(testing::sampleRequest(), CancelToken()); });
    ASSERT_TRUE(c.thrown);
    EXPECT_EQ(c.kind, Kind::Protocol) << c.message;
    EXPECT_NE(c.message.find("sent more than 4 MiB before its headers ended (an API's are a few KB); is the base URL "
                             "right?"),
              std::string::npos)
        << c.message;
    EXPECT_TRUE(sleeps.sleeps->empty()) << "not retried";
    // Before, it read until read_timeout_ms (5 s here): hundreds of MB.
    EXPECT_LT(sent->load(), 64u << 20);
  }
}

// A server that is reached and drops the connection is the server's failure
// (the next save tries again), not "check the base URL and the network".
TEST(Transport, AConnectionDroppedBeforeTheReplyIsTheServersFailure) {
  HangingUp server;
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor("http://127.0.0.1:" + std::to_string(server.port()) + "/v1", sleeps));
  auto c = catchProviderError([&] { provider.complete(testing::sampleRequest(), CancelToken()); });
  ASSERT_TRUE(c.thrown);
  EXPECT_EQ(c.kind, Kind::Server) << c.message;
  // Closed while the request was still being written, or after: either way said so.
  EXPECT_THAT(c.message, ::testing::ContainsRegex("the connection closed (before the reply was complete|while the "
                                                  "request was sent) \\(after 3 tries\\)"));
  EXPECT_EQ(c.message.find("base URL"), std::string::npos) << c.message;
  EXPECT_EQ(server.accepted.load(), 3);
}

// What an OpenAiProvider makes of `raw`, the bytes a server on 127.0.0.1 writes
// (then closes) for every request; `tries` is set to how many requests it took.
Caught answeredWith(const std::string& raw, int* tries = nullptr) {
  HangingUp server(raw);
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor("http://127.0.0.1:" + std::to_string(server.port()) + "/v1", sleeps));
  Caught c = catchProviderError([&] { provider.complete(testing::sampleRequest(), CancelToken()); });
  if (tries) *tries = server.accepted.load();
  return c;
}

const std::string kClosing = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n";

// A reply with no Content-Length ends at the close: cut off there, its JSON
// stops mid-value. That is a reply cut short (retried, said so), as over chunked
// encoding; before, "not a JSON object; is the base URL right?", not retried.
TEST(Transport, AReplyEndedByTheCloseAndCutShortIsRetried) {
  int tries = 0;
  const Caught c = answeredWith(
      kClosing + R"({"choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"summ)", &tries);
  ASSERT_TRUE(c.thrown);
  EXPECT_EQ(c.kind, Kind::Server) << c.message;
  EXPECT_NE(c.message.find("the connection closed before the reply was complete (after 3 tries)"), std::string::npos)
      << c.message;
  EXPECT_EQ(c.message.find("base URL"), std::string::npos) << c.message;
  EXPECT_EQ(tries, 3);
  EXPECT_EQ(c.unanswered, 3) << "each try was sent and may be billed";
}

// Framed so, an empty 200 ended before it began (cut too); a cut error reply is
// still its status (the status says more than its body).
TEST(Transport, AnEmptyReplyEndedByTheCloseIsCutAndACutErrorKeepsItsStatus) {
  const Caught empty = answeredWith(kClosing);
  ASSERT_TRUE(empty.thrown);
  EXPECT_NE(empty.message.find("the connection closed before the reply was complete (after 3 tries)"),
            std::string::npos)
      << empty.message;
  const Caught error =
      answeredWith("HTTP/1.1 500 Internal Server Error\r\nConnection: close\r\n\r\n{\"error\": {\"message\": \"upstr");
  ASSERT_TRUE(error.thrown);
  EXPECT_EQ(error.kind, Kind::Server) << error.message;
  EXPECT_NE(error.message.find("HTTP 500"), std::string::npos) << error.message;
}

// The same framing, whole, is an ordinary reply (an HTTP/1.0 proxy answers so);
// and a whole page that is not JSON still asks whether the base URL is right.
TEST(Transport, AReplyEndedByTheCloseAndWholeIsRead) {
  const std::string head = "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n";
  int tries = 0;
  EXPECT_FALSE(answeredWith(head + testing::fixture("openai_review.json"), &tries).thrown);
  EXPECT_EQ(tries, 1);
  const Caught c = answeredWith(head + "<html><body>Welcome to nginx!</body></html>", &tries);
  ASSERT_TRUE(c.thrown);
  EXPECT_EQ(c.kind, Kind::Protocol) << c.message;
  EXPECT_NE(c.message.find("is the base URL right?"), std::string::npos) << c.message;
  EXPECT_EQ(tries, 1);
}

TEST(Transport, SlowReplyTimesOut) {
  FakeServer server;
  server.enqueue(Reply::ok(kOk).after(3s));
  SleepRecorder sleeps;
  auto settings = settingsFor(server.url("/v1"), sleeps);
  settings.transport.readTimeout = 300ms;
  settings.transport.maxRetries = 0;
  OpenAiProvider provider(settings);
  auto started = std::chrono::steady_clock::now();
  auto c = catchProviderError([&] { provider.complete(testing::sampleRequest(), CancelToken()); });
  EXPECT_EQ(c.kind, Kind::Timeout);
  EXPECT_NE(c.message.find("no reply from " + server.url("/v1/chat/completions") + " within 0.3 s"),
            std::string::npos)
      << c.message;
  // A stuck server is not only told to be waited for longer (CI waited 3 x 120 s).
  EXPECT_NE(c.message.find("a server that never answers"), std::string::npos) << c.message;
  EXPECT_NE(c.message.find("a lower read_timeout_ms ends each try sooner"), std::string::npos) << c.message;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s);
}

TEST(Transport, TimeoutsAreRetried) {
  FakeServer server;
  server.enqueue(Reply::ok(kOk).after(2s));
  server.enqueue(Reply::ok(kOk));
  SleepRecorder sleeps;
  auto settings = settingsFor(server.url("/v1"), sleeps);
  settings.transport.readTimeout = 300ms;
  OpenAiProvider provider(settings);
  EXPECT_EQ(provider.complete(testing::sampleRequest(), CancelToken()).text, "{}");
  EXPECT_EQ(server.requestCount(), 2u);
}

// What a call waits for is told to whoever started it (the editor's progress,
// the terminal), so a failing or silent model is not one unchanging "reviewing".
TEST(Transport, EachRetryIsToldThroughTheToken) {
  FakeServer server;
  server.enqueue(Reply{503, "{}", {}, {}});
  server.enqueue(Reply::fromFixture("openai_429_rate_limit.json", 429).header("retry-after", "2"));
  server.enqueue(Reply::ok(kOk).after(2s));
  server.enqueue(Reply::ok(kOk));
  SleepRecorder sleeps;
  auto settings = settingsFor(server.url("/v1"), sleeps);
  settings.transport.readTimeout = 300ms;
  settings.transport.maxRetries = 3;
  settings.transport.random = [] { return 0.5; };
  OpenAiProvider provider(settings);
  CancelToken token;
  std::vector<std::string> told;
  token.listen([&](const std::string& what) { told.push_back(what); });
  EXPECT_EQ(provider.complete(testing::sampleRequest(), token).text, "{}");
  EXPECT_EQ(told, (std::vector<std::string>{
                      "openai: the server answered 503; trying again in 0.5 s (try 2 of 4)",
                      "openai: the server answered 429 and asked to wait 2 s; trying again (try 3 of 4)",
                      "openai: no reply within 0.3 s; trying again in 2 s (try 4 of 4)",
                      ""}))  // the wait is over: the last try was answered
      << json(told).dump();
  token.listen({});
  token.notice("after");  // no one listens: nothing, no crash
  EXPECT_EQ(told.size(), 4u);
}

// A try sent and given up on (no reply within read_timeout_ms, a connection
// closed mid-reply) may have been billed: the error, or the answer a later try
// got, says how many there were, so what a review spent can count them. A
// connection refused sent nothing.
TEST(Transport, TriesGivenUpWithoutAnAnswerAreCounted) {
  SleepRecorder sleeps;
  {
    FakeServer server;
    for (int i = 0; i < 3; ++i) server.enqueue(Reply::ok(kOk).after(1s));
    auto settings = settingsFor(server.url("/v1"), sleeps);
    settings.transport.readTimeout = 200ms;
    OpenAiProvider provider(settings);
    auto c = catchProviderError([&] { provider.complete(testing::sampleRequest(), CancelToken()); });
    EXPECT_EQ(c.kind, Kind::Timeout) << c.message;
    EXPECT_EQ(c.unanswered, 3) << c.message;
  }
  {
    FakeServer server;
    server.enqueue(Reply::ok(kOk).after(1s));
    server.enqueue(Reply::ok(kOk));
    auto settings = settingsFor(server.url("/v1"), sleeps);
    settings.transport.readTimeout = 200ms;
    OpenAiProvider provider(settings);
    EXPECT_EQ(provider.complete(testing::sampleRequest(), CancelToken()).unanswered, 1);
  }
  const int closedPort = [] {
    FakeServer gone;
    return gone.port();
  }();
  OpenAiProvider refused(settingsFor("http://127.0.0.1:" + std::to_string(closedPort) + "/v1", sleeps));
  auto c = catchProviderError([&] { refused.complete(testing::sampleRequest(), CancelToken()); });
  EXPECT_EQ(c.kind, Kind::Network) << c.message;
  EXPECT_EQ(c.unanswered, 0) << c.message;
}

TEST(Transport, CancellationEndsAWaitingCallPromptly) {
  FakeServer server;
  server.enqueue(Reply::ok(kOk).after(10s));
  SleepRecorder sleeps;
  auto settings = settingsFor(server.url("/v1"), sleeps);
  settings.transport.readTimeout = 30s;
  OpenAiProvider provider(settings);
  CancelToken cancel;
  std::thread canceller([cancel] {
    std::this_thread::sleep_for(200ms);
    cancel.cancel();
  });
  auto started = std::chrono::steady_clock::now();
  auto c = catchCancelled([&] { provider.complete(testing::sampleRequest(), cancel); });
  auto took = std::chrono::steady_clock::now() - started;
  canceller.join();
  EXPECT_TRUE(c.thrown);
  EXPECT_NE(c.message.find("cancelled"), std::string::npos);
  EXPECT_LT(took, 1500ms);
  EXPECT_EQ(server.requestCount(), 1u);
  EXPECT_TRUE(sleeps.sleeps->empty()) << "a cancelled call is not retried";
}

TEST(Transport, CancellationDuringBackoff) {
  FakeServer server;
  server.enqueue(Reply{503, "{}", {{"retry-after", "30"}}, {}});
  SleepRecorder unused;
  auto settings = settingsFor(server.url("/v1"), unused);
  settings.transport.sleep = sleepCancellable;  // the real, cancellable sleep
  OpenAiProvider provider(settings);
  CancelToken cancel;
  std::thread canceller([cancel] {
    std::this_thread::sleep_for(300ms);
    cancel.cancel();
  });
  auto started = std::chrono::steady_clock::now();
  std::optional<int> sentUnanswered = -1;
  bool thrown = false;
  try {
    provider.complete(testing::sampleRequest(), cancel);
  } catch (const Cancelled& c) {
    thrown = true;
    sentUnanswered = c.sentUnanswered;
  }
  canceller.join();
  EXPECT_TRUE(thrown);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s);
  EXPECT_EQ(server.requestCount(), 1u);
  // Nothing was in flight, and what the server refused is not billed: the spend
  // reported for the interruption counts no request (before: one, of unknown tokens).
  EXPECT_EQ(sentUnanswered, std::optional<int>(0));
}

TEST(Transport, AlreadyCancelledSendsNothing) {
  FakeServer server;
  SleepRecorder sleeps;
  OpenAiProvider provider(settingsFor(server.url("/v1"), sleeps));
  CancelToken cancel;
  cancel.cancel();
  EXPECT_TRUE(catchCancelled([&] { provider.complete(testing::sampleRequest(), cancel); }).thrown);
  EXPECT_EQ(server.requestCount(), 0u);
}

// A proxy that refuses the tunnel and closes the connection (a corporate proxy
// asking for credentials): said at once, naming the proxy and what to set. The
// system's cpp-httplib deadlocks on this reply in its own CONNECT, so before,
// the review hung past every timeout, and Ctrl-C or an editor's exit.
TEST(Transport, AProxyThatRefusesTheTunnelIsSaidNotWaitedFor) {
  HangingUp proxy("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"corp\"\r\n"
                  "Connection: close\r\nContent-Length: 23\r\n\r\nauthentication required");
  SleepRecorder sleeps;
  const std::string proxyUrl = "http://127.0.0.1:" + std::to_string(proxy.port());
  OpenAiProvider provider(settingsFor("https://llm.example.test/v1", sleeps,
                                      {{"OPENAI_API_KEY", "sk-x"}, {"HTTPS_PROXY", proxyUrl}}));
  const auto c = catchProviderError([&] { provider.complete(testing::sampleRequest(), CancelToken()); });
  ASSERT_TRUE(c.thrown);
  EXPECT_EQ(c.kind, Kind::Config) << c.message;
  EXPECT_NE(c.message.find("the proxy " + proxyUrl + " refused to open a tunnel to llm.example.test:443: HTTP 407"),
            std::string::npos) << c.message;
  EXPECT_NE(c.message.find("HTTP 407 Proxy Authentication Required"), std::string::npos) << c.message;
  EXPECT_NE(c.message.find("HTTPS_PROXY=http://user:password@host:port"), std::string::npos) << c.message;
  EXPECT_EQ(proxy.accepted.load(), 1) << "not retried";
}

// Credentials in a proxy or base URL are never repeated by the error that
// refuses it; an https:// proxy (TLS to the proxy) is refused, not spoken to in
// plain text until it looks like a dropped connection.
TEST(Transport, ProxyAndBaseUrlErrorsRepeatNoCredentials) {
  TransportOptions o;
  auto refused = [&](const std::string& proxyUrl) {
    o.getenv = [proxyUrl](const std::string& k) -> std::optional<std::string> {
      return k == "HTTPS_PROXY" ? std::optional<std::string>(proxyUrl) : std::nullopt;
    };
    try {
      HttpTransport("t", BaseUrl::parse("https://api.openai.com/v1"), o);
    } catch (const ProviderError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  const std::string socks = refused("socks5://bob:pr0xyPass@127.0.0.1:1080");
  EXPECT_EQ(socks.find("pr0xyPass"), std::string::npos) << socks;
  EXPECT_NE(socks.find("socks5://***@127.0.0.1:1080"), std::string::npos) << socks;
  const std::string tls = refused("https://bob:pr0xyPass@proxy.corp:3128");
  EXPECT_NE(tls.find("https:// proxy (TLS to the proxy itself)"), std::string::npos) << tls;
  EXPECT_EQ(tls.find("pr0xyPass"), std::string::npos) << tls;
  const std::string port = refused("http://bob:pr0xyPass@127.0.0.1:notaport");
  EXPECT_EQ(port.find("pr0xyPass"), std::string::npos) << port;
  for (const std::string typed : {"http://bob:Pa/ssW0rdXYZ@127.0.0.1:notaport", "socks5://bob:Pa#ssW0rdXYZ@127.0.0.1:1"}) {
    const std::string said = refused(typed);  // a password with an unencoded '/' or '#'
    EXPECT_EQ(said.find("ssW0rdXYZ"), std::string::npos) << said;
  }
  EXPECT_EQ(withoutCredentials("https://x.example/v1#token=T0k3nT0k3n"), "https://x.example/v1#...");
  for (const std::string base : {"https://bob:Sup3rPassw0rd@llm.corp.example/v1", "https://x.example/v1?api-key=K3yK3yK3y K"}) {
    try {
      BaseUrl::parse(base);
      ADD_FAILURE() << base << " was accepted";
    } catch (const ProviderError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find("Sup3rPassw0rd"), std::string::npos) << what;
      EXPECT_EQ(what.find("K3yK3yK3y"), std::string::npos) << what;
    }
  }
}

TEST(Transport, ProxyFromEnvironmentAndNoProxy) {
  FakeServer proxy;  // plays the HTTP proxy
  proxy.enqueue(Reply::ok(kOk));
  SleepRecorder sleeps;
  auto settings = settingsFor("http://llm.example.test/v1", sleeps,
                              {{"OPENAI_API_KEY", "sk-x"}, {"HTTP_PROXY", proxy.url()}});
  OpenAiProvider provider(settings);
  EXPECT_TRUE(provider.remote());
  EXPECT_EQ(provider.complete(testing::sampleRequest(), CancelToken()).text, "{}");
  ASSERT_EQ(proxy.requestCount(), 1u);
  EXPECT_EQ(proxy.requests()[0].header("Host"), "llm.example.test");

  auto env = [](std::map<std::string, std::string> m) {
    return [m](const std::string& k) -> std::optional<std::string> {
      auto it = m.find(k);
      return it == m.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
  };
  TransportOptions o;
  o.getenv = env({{"HTTPS_PROXY", "http://user:pw@proxy.corp:3128"}, {"NO_PROXY", "localhost,.internal.corp"}});
  EXPECT_EQ(HttpTransport("t", BaseUrl::parse("https://api.openai.com/v1"), o).proxy(), "http://proxy.corp:3128");
  EXPECT_EQ(HttpTransport("t", BaseUrl::parse("https://llm.internal.corp/v1"), o).proxy(), "");
  EXPECT_EQ(HttpTransport("t", BaseUrl::parse("http://127.0.0.1:8080/v1"), o).proxy(), "") << "never for loopback";
  EXPECT_EQ(HttpTransport("t", BaseUrl::parse("http://plain.example.com"), o).proxy(), "")
      << "HTTPS_PROXY is for https URLs";
  o.getenv = env({{"https_proxy", "proxy.corp:8080"}, {"no_proxy", "*"}});
  EXPECT_EQ(HttpTransport("t", BaseUrl::parse("https://api.openai.com/v1"), o).proxy(), "");
  o.getenv = env({{"https_proxy", "proxy.corp:8080"}});
  EXPECT_EQ(HttpTransport("t", BaseUrl::parse("https://api.openai.com/v1"), o).proxy(), "http://proxy.corp:8080");
  o.getenv = env({{"HTTPS_PROXY", "socks5://proxy.corp:1080"}});
  EXPECT_THROW(HttpTransport("t", BaseUrl::parse("https://api.openai.com/v1"), o), ProviderError);
}

}  // namespace
}  // namespace revline::providers
