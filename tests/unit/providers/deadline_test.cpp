// Replies the transport must bound or name: a server that trickles its reply,
// a retry-after too large to represent, a reply that is not UTF-8, and names
// that only look local.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <thread>

#include "core/providers/http_transport.h"
#include "core/providers/openai_provider.h"
#include "tests/unit/providers/provider_test_util.h"

namespace revline::providers {
namespace {

using namespace std::chrono_literals;
using review::ProviderError;

// Answers every POST with headers at once, then one byte every 100 ms, forever
// (or, `silent`, no byte of the body at all).
class TricklingServer {
 public:
  explicit TricklingServer(bool silent = false) {
    server_.Post(".*", [this, silent](const httplib::Request&, httplib::Response& res) {
      ++requests;
      res.set_chunked_content_provider("application/json", [this, silent](std::size_t, httplib::DataSink& sink) {
        if (stopping_) return false;
        std::this_thread::sleep_for(silent ? 10ms : 100ms);
        return silent || sink.write(" ", 1);
      });
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(1ms);
  }
  ~TricklingServer() {
    stopping_ = true;
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::atomic<int> requests{0};

 private:
  httplib::Server server_;
  int port_ = -1;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
};

// A request to `server` under a 1 s read timeout: it ends with the deadline's
// error, once sent (a reply that has started is not sent again), within ~1 s.
void expectTheDeadlineEndsIt(TricklingServer& server) {
  testing::SleepRecorder sleeps;
  TransportOptions options;
  options.readTimeout = 1s;
  options.sleep = sleeps.fn();
  HttpTransport transport("openai", BaseUrl::parse(server.url() + "/v1"), options);
  const auto start = std::chrono::steady_clock::now();
  try {
    transport.postJson("/chat/completions", {}, "{}", CancelToken());
    FAIL() << "the reply was waited out";
  } catch (const ProviderError& e) {
    EXPECT_EQ(e.kind(), ProviderError::Kind::Timeout);
    EXPECT_NE(std::string(e.what()).find("did not arrive in full within 1 s (read_timeout_ms bounds the whole reply)"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(e.unanswered(), 1) << "sent once, maybe billed, no answer";
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, 3s);
  EXPECT_GE(elapsed, 900ms);
  EXPECT_EQ(server.requests.load(), 1) << "a spent deadline is not retried";
}

TEST(Deadline, ATrickledReplyEndsAtReadTimeoutWithAClearErrorAndNoRetry) {
  TricklingServer server;
  expectTheDeadlineEndsIt(server);
}

// A reply whose status and headers came, then nothing: it has started (the
// server took the request and may bill it), so the deadline ends it, not
// retried. Before, only a body byte counted as a start: it was sent three times
// (each maybe billed) and took three read timeouts.
TEST(Deadline, AReplyStalledAfterItsHeadersIsNotSentAgain) {
  TricklingServer server(/*silent=*/true);
  expectTheDeadlineEndsIt(server);
}

TEST(RetryAfter, HugeValuesAreClampedNotOverflowed) {
  HttpResponse r;
  r.headers.emplace("retry-after", "9223372036854775807");
  EXPECT_EQ(retryAfter(r), kMaxRetryAfter);
  HttpResponse ms;
  ms.headers.emplace("retry-after-ms", "1e30");
  EXPECT_EQ(retryAfter(ms), kMaxRetryAfter);
  HttpResponse date;
  date.headers.emplace("retry-after", "Fri, 31 Dec 9999 23:59:59 GMT");
  EXPECT_EQ(retryAfter(date), kMaxRetryAfter);
  HttpResponse small;
  small.headers.emplace("retry-after", "2");
  EXPECT_EQ(retryAfter(small), 2000ms);
}

// The ProviderError an OpenAiProvider raises for `reply` from a fake server (kind, message, sleeps, requests).
struct Failure {
  ProviderError::Kind kind = ProviderError::Kind::Config;
  std::string what;
  std::size_t sleeps = 0, requests = 0;
};
Failure failureFor(testing::Reply reply) {
  testing::FakeServer server;
  server.enqueue(std::move(reply));
  testing::SleepRecorder sleeps;
  OpenAiProvider provider(testing::settingsFor(server.url("/v1"), sleeps));
  Failure f;
  try {
    provider.complete(testing::sampleRequest(), CancelToken());
    ADD_FAILURE() << "no error";
  } catch (const ProviderError& e) {
    f.kind = e.kind();
    f.what = e.what();
  }
  f.sleeps = sleeps.sleeps->size();
  f.requests = server.requestCount();
  return f;
}

TEST(RetryAfter, AHugeRetryAfterIsReportedAsAnHourOrMoreNotRetriedAtOnce) {
  const Failure f = failureFor(testing::Reply{429, R"({"error":{"message":"slow down"}})", {{"retry-after", "99999999999999999"}}, {}});
  EXPECT_EQ(f.kind, ProviderError::Kind::RateLimited) << f.what;
  EXPECT_NE(f.what.find("asks to wait an hour or more"), std::string::npos) << f.what;
  EXPECT_EQ(f.what.find("-9223372036854775"), std::string::npos) << f.what;
  EXPECT_EQ(f.sleeps, 0u);
  EXPECT_EQ(f.requests, 1u);
}

// A 503 (or Anthropic's 529) asking for a longer wait than revline waits out
// says how long it asked, as a 429 does; before, only "try again later".
TEST(RetryAfter, AServerErrorSaysHowLongItAskedToWait) {
  const Failure f = failureFor(testing::Reply{503, R"({"error":{"message":"overloaded"}})", {{"retry-after", "120"}}, {}});
  EXPECT_EQ(f.kind, ProviderError::Kind::Server) << f.what;
  EXPECT_NE(f.what.find("the server asks to wait 120 s; try again later"), std::string::npos) << f.what;
  EXPECT_EQ(f.requests, 1u);
}

// A redirect is not followed (the key would go with it): the error says where it
// pointed and what to change; before, "unexpected HTTP 301" and the HTML body.
TEST(Redirect, TheErrorSaysWhereItPointed) {
  const Failure f = failureFor(
      testing::Reply{301, "<html>Moved</html>", {{"Location", "https://api.example.test/v1/chat/completions"}}, {}});
  EXPECT_EQ(f.kind, ProviderError::Kind::Protocol) << f.what;
  EXPECT_NE(f.what.find("a redirect to https://api.example.test/v1/chat/completions"), std::string::npos) << f.what;
  EXPECT_NE(f.what.find("set base_url to the endpoint itself"), std::string::npos) << f.what;
  // Credentials in the Location are not repeated.
  const Failure g = failureFor(testing::Reply{307, "", {{"Location", "https://bob:hunter2pw@api.example.test/v1?x=@"}}, {}});
  EXPECT_NE(g.what.find("a redirect to https://[credentials removed]@api.example.test/v1?x=@"), std::string::npos) << g.what;
  EXPECT_EQ(g.what.find("hunter2pw"), std::string::npos) << g.what;
  // A status HTTP has none of is no server error to try again later.
  const Failure h = failureFor(testing::Reply{999, "odd", {}, {}});
  EXPECT_EQ(h.kind, ProviderError::Kind::Protocol) << h.what;
  EXPECT_NE(h.what.find("answered with status 999, which HTTP has none of"), std::string::npos) << h.what;
}

// A 200 whose body cannot be read was answered, and maybe billed: the failure
// counts it as a request whose tokens are unknown. Before, a split review whose
// third request got a proxy's HTML said it had spent 2 requests.
TEST(UnreadableReply, CountsAsARequestOfUnknownTokens) {
  for (const std::string& body : {std::string("<html>Bad gateway</html>"), std::string(R"({"usage": {"prompt_tokens": 5}})")}) {
    testing::FakeServer server;
    server.enqueue(testing::Reply::ok(body));
    testing::SleepRecorder sleeps;
    OpenAiProvider provider(testing::settingsFor(server.url("/v1"), sleeps));
    try {
      provider.complete(testing::sampleRequest(), CancelToken());
      ADD_FAILURE() << "no error for " << body;
    } catch (const ProviderError& e) {
      EXPECT_EQ(e.unanswered(), 1) << body << ": " << e.what();
    }
  }
}

// A 200 carrying an upstream's failure, sent by a gateway at `path`: every try
// answering so ends as a 502 saying `says`, retried with backoff; one try so,
// then an answer, is retried once.
void expectReadAsA502(const std::string& body, const std::string& path, const std::string& says) {
  testing::SleepRecorder sleeps;
  {
    testing::FakeServer server;
    for (int i = 0; i < 3; ++i) server.enqueue(testing::Reply::ok(body));  // every try answers so
    OpenAiProvider provider(testing::settingsFor(server.url(path), sleeps));
    std::string what;
    EXPECT_EQ(testing::kindOf([&] { provider.complete(testing::sampleRequest(), CancelToken()); }, &what),
              ProviderError::Kind::Server)
        << what;
    EXPECT_NE(what.find("HTTP 502"), std::string::npos) << what;
    EXPECT_NE(what.find(says), std::string::npos) << what;
    EXPECT_EQ(server.requestCount(), 3u) << "retried with backoff, as a 502";
  }
  testing::FakeServer server;
  server.enqueue(testing::Reply::ok(body));
  server.enqueue(testing::Reply::fromFixture("openai_review.json"));
  OpenAiProvider provider(testing::settingsFor(server.url(path), sleeps));
  EXPECT_NO_THROW(provider.complete(testing::sampleRequest(), CancelToken()));
  EXPECT_EQ(server.requestCount(), 2u) << "retried as a 502";
}

// A gateway's 200 whose body is an upstream's error ({"error": {"code": 502}})
// is that status: retried, and reported with the gateway's details. Before, it
// ended the review at once with only "Provider returned error".
TEST(EmbeddedError, AGatewaysErrorInA200IsItsStatus) {
  const std::string upstream =
      R"({"error":{"message":"Provider returned error","code":502,"metadata":{"raw":"upstream timeout"}}})";
  EXPECT_EQ(embeddedErrorStatus(upstream), 502);
  EXPECT_EQ(embeddedErrorStatus(R"({"error":{"message":"x","code":"429"}})"), 429);
  EXPECT_EQ(embeddedErrorStatus(R"({"choices":[],"error":{"code":502}})"), 0) << "a reply, not an error object";
  EXPECT_EQ(embeddedErrorStatus(R"({"error":{"code":"invalid_api_key"}})"), 0);
  expectReadAsA502(upstream, "/v1", "Provider returned error (upstream timeout)");
}

// OpenRouter's other form, once its upstream had begun: a 200 whose one choice
// failed (finish_reason "error", the error in the choice). It read as an empty
// answer: retried at once as a broken one, the upstream's words never shown.
TEST(EmbeddedError, AChoiceThatFailedIsItsStatus) {
  const std::string failed =
      R"({"id":"gen-1","object":"chat.completion","provider":"Together","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"error","error":{"code":502,"message":"Upstream error from Together: Internal server error"}}]})";
  const auto read = errorInAChoice(failed);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->status, 502);
  EXPECT_EQ(json::parse(read->body)["error"]["message"], "Upstream error from Together: Internal server error");
  EXPECT_EQ(errorInAChoice(R"({"choices":[{"finish_reason":"error","error":{"message":"x"}}]})")->status, 502)
      << "no code: an upstream's failure";
  EXPECT_FALSE(errorInAChoice(R"({"choices":[{"finish_reason":"stop","message":{"content":"\"error\""}}]})"));
  expectReadAsA502(failed, "/api/v1", "Upstream error from Together: Internal server error");
}

TEST(InvalidUtf8, TheReplyIsNamedAndItsBytesEscaped) {
  const Failure f = failureFor(testing::Reply::ok("{\"choices\": \"\xff\xfe\x01 garbled\"}"));
  EXPECT_EQ(f.kind, ProviderError::Kind::Protocol);
  EXPECT_NE(f.what.find("is not valid UTF-8 (byte 0xff at offset 13"), std::string::npos) << f.what;
  EXPECT_NE(f.what.find("\\xff\\xfe\\x01"), std::string::npos) << f.what;
  EXPECT_EQ(f.what.find('\xff'), std::string::npos) << "raw bytes in the message";
  EXPECT_EQ(f.what.find("is the base URL right"), std::string::npos) << f.what;
}

TEST(Loopback, OnlyRealLoopbackNamesAreLocal) {
  EXPECT_TRUE(isLoopbackHost("localhost"));
  EXPECT_TRUE(isLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(isLoopbackHost("[::1]"));
  EXPECT_FALSE(isLoopbackHost("collector.localhost")) << "resolved by whoever answers DNS, not by name alone";
  EXPECT_FALSE(isLoopbackHost("localhost.example.com"));
  EXPECT_FALSE(BaseUrl::parse("http://api.localhost:8080/v1").loopback());
}

}  // namespace
}  // namespace revline::providers
