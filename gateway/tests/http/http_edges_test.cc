// The HTTP transport's edges against a real server on 127.0.0.1 port 0: the Host rules
// (RFC 9112 §3.2), the header timeout, the connection cap closing the connection idle
// longest, and the responses Beast's serializer writes (keep-alive, pipelining, HEAD, 100
// Continue, 204, 413, 431, chunked SSE), read back with Beast's own parser.
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/dynamic_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "common/metrics/metrics.h"
#include "gateway/http/http_server.h"
#include "gateway/mcp/mcp_server.h"
#include "gateway/tests/drain_io.h"

namespace labgate::gateway::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace beast_http = boost::beast::http;
using asio::ip::tcp;
using namespace std::chrono_literals;

using Reply = beast_http::response<beast_http::string_body>;

// One blocking TCP connection to the server, with Beast's parser on the reading side.
class Client {
 public:
  explicit Client(uint16_t port) : socket_(io_) {
    boost::system::error_code ec;
    socket_.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
    connected_ = !ec;
    timeval timeout{10, 0};
    ::setsockopt(socket_.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  }
  bool connected() const { return connected_; }
  bool Send(const std::string& bytes) {
    boost::system::error_code ec;
    asio::write(socket_, asio::buffer(bytes), ec);
    return !ec;
  }
  // The next response; status 0 (unknown) when the connection closed or nothing came
  // within 10 s.
  Reply Read(bool head_request = false) {
    beast_http::response_parser<beast_http::string_body> parser;
    parser.skip(head_request);
    parser.body_limit(64 * 1024 * 1024);
    boost::system::error_code ec;
    beast_http::read(socket_, buffer_, parser, ec);
    if (ec) {
      Reply none;
      none.result(beast_http::status::unknown);
      return none;
    }
    return parser.release();
  }
  // Bytes as they come, until `text` has arrived; what came, or "" when it did not within
  // 10 s.
  std::string ReadUntil(const std::string& text) {
    std::string seen(static_cast<const char*>(buffer_.data().data()), buffer_.size());
    buffer_.consume(buffer_.size());
    while (seen.find(text) == std::string::npos) {
      char chunk[4096];
      boost::system::error_code ec;
      size_t got = socket_.read_some(asio::buffer(chunk), ec);
      if (ec) return "";
      seen.append(chunk, got);
    }
    return seen;
  }
  // True once the server closed the connection (within 10 s).
  bool Closed() {
    char byte;
    boost::system::error_code ec;
    while (!ec) socket_.read_some(asio::buffer(&byte, 1), ec);
    return ec == asio::error::eof || ec == asio::error::connection_reset;
  }

 private:
  asio::io_context io_;
  tcp::socket socket_;
  beast::flat_buffer buffer_;
  bool connected_ = false;
};

std::string Get(const std::string& target, const std::string& headers = "Host: 127.0.0.1\r\n",
                const std::string& version = "HTTP/1.1") {
  return "GET " + target + " " + version + "\r\n" + headers + "\r\n";
}

std::string PostMcp(const std::string& body, const std::string& extra = "") {
  return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
         "Accept: application/json, text/event-stream\r\n" +
         extra + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string Initialize() {
  return PostMcp(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
      R"("capabilities":{},"clientInfo":{"name":"edges","version":"1"}}})");
}

// The value of labgate_http_connections_closed_total{reason="..."} now.
double ClosedCount(const std::string& reason) {
  const std::string text = metrics::Default().Render();
  const std::string series = "labgate_http_connections_closed_total{reason=\"" + reason + "\"} ";
  size_t at = text.find(series);
  if (at == std::string::npos) return 0;
  return std::stod(text.substr(at + series.size()));
}

class HttpEdgesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.config.instructions = "edges";
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { io_.run(); });
  }
  void TearDown() override {
    if (http_) http_->Stop();
    http_.reset();
    work_.reset();
    gateway::testing::DrainThenStop(io_);
    for (auto& thread : threads_) thread.join();
  }
  void StartServer(HttpOptions options = {}) {
    options.port = 0;
    http_ = std::make_unique<HttpServer>(io_, &server_, options);
    ASSERT_TRUE(http_->Start().ok());
    port_ = http_->port();
  }
  Reply Exchange(const std::string& request) {
    Client client(port_);
    EXPECT_TRUE(client.Send(request));
    return client.Read();
  }
  // The status of the answer to `request` on a new connection; 0 when none came.
  int StatusOf(const std::string& request) { return Exchange(request).result_int(); }
  // Waits (up to 10 s) until the server counts `count` idle connections.
  bool WaitForIdle(size_t count) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (http_->idle_connection_count() != count && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(5ms);
    }
    return http_->idle_connection_count() == count;
  }

  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_ = asio::make_work_guard(io_);
  std::vector<std::thread> threads_;
  McpServer server_;
  std::unique_ptr<HttpServer> http_;
  uint16_t port_ = 0;
};

TEST_F(HttpEdgesTest, AnEmptyHostIsABadRequestOnEveryRoute) {
  StartServer();
  for (const char* target : {"/health", "/mcp", "/metrics", "/nowhere"}) {
    auto reply = Exchange(Get(target, "Host: \r\n"));
    ASSERT_NE(reply.result_int(), 0) << target;
    EXPECT_EQ(reply.result_int(), 400) << target;
    EXPECT_NE(reply.body().find("empty Host header"), std::string::npos) << reply.body();
  }
  // The server keeps serving.
  EXPECT_EQ(StatusOf(Get("/health")), 200);
}

TEST_F(HttpEdgesTest, AnHttp11RequestWithoutHostIsABadRequest) {
  StartServer();
  auto reply = Exchange(Get("/health", ""));
  ASSERT_NE(reply.result_int(), 0);
  EXPECT_EQ(reply.result_int(), 400);
  EXPECT_NE(reply.body().find("HTTP/1.1 request needs a Host header"), std::string::npos);
  auto mcp = Exchange("POST /mcp HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}");
  ASSERT_NE(mcp.result_int(), 0);
  EXPECT_EQ(mcp.result_int(), 400);
}

TEST_F(HttpEdgesTest, AnHttp10RequestWithoutHostIsABadRequestUnlessAllowed) {
  StartServer();
  auto refused = Exchange(Get("/health", "", "HTTP/1.0"));
  ASSERT_NE(refused.result_int(), 0);
  EXPECT_EQ(refused.result_int(), 400);
  EXPECT_NE(refused.body().find("--allow-no-host"), std::string::npos) << refused.body();
  http_->Stop();

  HttpOptions options;
  options.allow_no_host = true;
  StartServer(options);
  auto served = Exchange(Get("/health", "", "HTTP/1.0"));
  ASSERT_NE(served.result_int(), 0);
  EXPECT_EQ(served.result_int(), 200);
  EXPECT_EQ(served.body(), R"({"status":"ok"})");
  // Allowing no Host does not allow an empty one, nor none on HTTP/1.1.
  EXPECT_EQ(StatusOf(Get("/health", "Host: \r\n", "HTTP/1.0")), 400);
  EXPECT_EQ(StatusOf(Get("/health", "")), 400);
}

TEST_F(HttpEdgesTest, AnUnfinishedHeaderIsCutOffAtTheHeaderTimeoutAndCounted) {
  HttpOptions options;
  options.header_timeout = 300ms;
  options.read_timeout = 60s;  // the body's, which must not apply to the header
  StartServer(options);
  const double before = ClosedCount("header_timeout");
  Client slow(port_);
  ASSERT_TRUE(slow.Send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "));
  auto reply = slow.Read();
  ASSERT_NE(reply.result_int(), 0);
  EXPECT_EQ(reply.result_int(), 408);
  EXPECT_TRUE(slow.Closed());
  EXPECT_EQ(ClosedCount("header_timeout"), before + 1);
}

TEST_F(HttpEdgesTest, ASilentConnectionIsClosedAtTheHeaderTimeoutAndCounted) {
  HttpOptions options;
  options.header_timeout = 300ms;
  StartServer(options);
  const double before = ClosedCount("header_timeout");
  Client silent(port_);
  ASSERT_TRUE(silent.connected());
  EXPECT_TRUE(silent.Closed());
  EXPECT_EQ(ClosedCount("header_timeout"), before + 1);
}

TEST_F(HttpEdgesTest, ABodySlowerThanTheReadTimeoutGets408) {
  HttpOptions options;
  options.header_timeout = 60s;
  options.read_timeout = 300ms;
  StartServer(options);
  const double before = ClosedCount("header_timeout");
  Client slow(port_);
  ASSERT_TRUE(
      slow.Send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                "Content-Length: 100\r\n\r\n{\"js"));
  auto reply = slow.Read();
  ASSERT_NE(reply.result_int(), 0);
  EXPECT_EQ(reply.result_int(), 408);
  EXPECT_EQ(ClosedCount("header_timeout"), before);  // the header was whole
}

TEST_F(HttpEdgesTest, AtTheCapTheConnectionIdleLongestMakesRoom) {
  HttpOptions options;
  options.max_connections = 2;
  StartServer(options);
  const double before = ClosedCount("idle_evicted");
  Client oldest(port_);
  ASSERT_TRUE(oldest.Send(Get("/health")));
  ASSERT_EQ(oldest.Read().result_int(), 200);  // served, then idle on keep-alive
  ASSERT_TRUE(WaitForIdle(1));
  Client newer(port_);
  ASSERT_TRUE(newer.connected());
  ASSERT_TRUE(WaitForIdle(2));  // connected and silent: idle too

  Client third(port_);
  ASSERT_TRUE(third.Send(Get("/health")));
  auto reply = third.Read();
  ASSERT_NE(reply.result_int(), 0);
  EXPECT_EQ(reply.result_int(), 200);
  EXPECT_TRUE(oldest.Closed());
  EXPECT_EQ(ClosedCount("idle_evicted"), before + 1);
  // The newer idle connection was left alone and is served.
  ASSERT_TRUE(newer.Send(Get("/health")));
  auto served = newer.Read();
  ASSERT_NE(served.result_int(), 0);
  EXPECT_EQ(served.result_int(), 200);
}

TEST_F(HttpEdgesTest, AtTheCapWithNoneIdleANewClientIsRefusedAndCounted) {
  HttpOptions options;
  options.max_connections = 1;
  options.read_timeout = 60s;
  StartServer(options);
  const double before = ClosedCount("refused");
  Client busy(port_);
  // A header whose body has not come: reading a request, so not idle.
  ASSERT_TRUE(
      busy.Send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                "Accept: application/json, text/event-stream\r\nContent-Length: 10\r\n\r\n"));
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (http_->connection_count() != 1 || http_->idle_connection_count() != 0) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline);
    std::this_thread::sleep_for(5ms);
  }
  Client refused(port_);
  EXPECT_TRUE(refused.Closed());
  EXPECT_EQ(ClosedCount("refused"), before + 1);
  // The busy one still finishes its request.
  ASSERT_TRUE(busy.Send("0123456789"));
  auto reply = busy.Read();
  ASSERT_NE(reply.result_int(), 0);
  EXPECT_EQ(reply.result_int(), 400);  // not JSON-RPC, but read whole and answered
}

TEST_F(HttpEdgesTest, KeepAliveAndPipelinedRequestsAreAnsweredInOrder) {
  StartServer();
  Client client(port_);
  ASSERT_TRUE(client.Send(Get("/health") + Get("/nowhere") + Get("/health")));
  auto first = client.Read();
  auto second = client.Read();
  auto third = client.Read();
  ASSERT_NE(first.result_int() * second.result_int() * third.result_int(), 0);
  EXPECT_EQ(first.result_int(), 200);
  EXPECT_EQ(second.result_int(), 404);
  EXPECT_EQ(third.result_int(), 200);
  EXPECT_TRUE(first.keep_alive());
  EXPECT_EQ(first[beast_http::field::content_length], "15");
  EXPECT_EQ(first[beast_http::field::content_type], "application/json");
  // And the connection is still kept for another request.
  ASSERT_TRUE(client.Send(Get("/health")));
  auto fourth = client.Read();
  ASSERT_NE(fourth.result_int(), 0);
  EXPECT_EQ(fourth.result_int(), 200);
}

// Thousands of requests sent at once, read in large chunks: each is answered, in order, and
// answering the buffered ones does not nest one call inside another's (the stack would run
// out).
TEST_F(HttpEdgesTest, ThousandsOfPipelinedRequestsAreAllAnsweredInOrder) {
  StartServer();
  Client client(port_);
  // A large request first: the connection's read buffer grows, so later reads take in more
  // requests at a time.
  const std::string large(512 * 1024, 'x');
  ASSERT_TRUE(client.Send("POST /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " +
                          std::to_string(large.size()) + "\r\n\r\n" + large));
  ASSERT_EQ(client.Read().result_int(), 404);
  constexpr int kRequests = 4000;
  std::string all;
  for (int n = 0; n < kRequests; ++n) all += Get(n % 2 == 0 ? "/health" : "/nowhere");
  // Sent by another thread while this one reads, so neither side's buffers fill up.
  std::thread sender([&client, &all] { EXPECT_TRUE(client.Send(all)); });
  int answered = 0;
  for (; answered < kRequests; ++answered) {
    auto reply = client.Read();
    if (reply.result_int() != (answered % 2 == 0 ? 200 : 404)) {
      ADD_FAILURE() << "request " << answered << " got " << reply.result_int();
      break;
    }
  }
  sender.join();
  EXPECT_EQ(answered, kRequests);
  // The server is still there for a new client.
  Client next(port_);
  ASSERT_TRUE(next.Send(Get("/health")));
  EXPECT_EQ(next.Read().result_int(), 200);
}

// A reply larger than the socket takes at once (here the instructions in initialize's
// answer): the server writes what it can at once and the rest as the client reads, and the
// client gets all of it, in order, then its next reply.
TEST_F(HttpEdgesTest, AReplyLargerThanTheSocketTakesArrivesWhole) {
  std::string instructions(4 * 1024 * 1024, 'x');
  for (size_t i = 0; i < instructions.size(); i += 4096) {
    instructions[i] = static_cast<char>('a' + (i / 4096) % 26);
  }
  server_.config.instructions = instructions;
  StartServer();
  Client client(port_);
  ASSERT_TRUE(client.Send(Initialize()));
  // More than a new connection's socket buffers hold: the server meets a full socket before
  // anything is read.
  std::this_thread::sleep_for(100ms);
  auto reply = client.Read();
  ASSERT_EQ(reply.result_int(), 200);
  const nlohmann::json answer = nlohmann::json::parse(reply.body(), nullptr, false);
  ASSERT_TRUE(answer.is_object()) << reply.body().substr(0, 200);
  EXPECT_EQ(answer["result"]["instructions"], instructions);
  ASSERT_TRUE(client.Send(Get("/health")));
  EXPECT_EQ(client.Read().result_int(), 200);
}

TEST_F(HttpEdgesTest, StatusLinesAndHeadersComeFromTheSerializer) {
  StartServer();
  Client client(port_);
  ASSERT_TRUE(client.Send(Get("/health")));
  auto raw = client.ReadUntil("}");
  ASSERT_FALSE(raw.empty());
  EXPECT_EQ(raw.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << raw;
  EXPECT_NE(raw.find("Content-Length: 15\r\n"), std::string::npos) << raw;

  ASSERT_TRUE(client.Send("HEAD /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  auto head = client.Read(true);
  ASSERT_NE(head.result_int(), 0);
  EXPECT_EQ(head.result_int(), 200);
  EXPECT_TRUE(head.body().empty());

  // A 204 has no Content-Length (RFC 9110 §8.6).
  ASSERT_TRUE(client.Send("OPTIONS /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  auto options = client.Read();
  ASSERT_NE(options.result_int(), 0);
  EXPECT_EQ(options.result_int(), 204);
  EXPECT_EQ(options.count(beast_http::field::content_length), 0u);
  EXPECT_NE(options[beast_http::field::allow].find("POST"), std::string::npos);
}

TEST_F(HttpEdgesTest, AnExpectContinueGetsTheInterimResponseBeforeTheBody) {
  StartServer();
  Client client(port_);
  const std::string body = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  ASSERT_TRUE(
      client.Send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  "Accept: application/json, text/event-stream\r\nExpect: 100-continue\r\n"
                  "Content-Length: " +
                  std::to_string(body.size()) + "\r\n\r\n"));
  auto interim = client.ReadUntil("\r\n\r\n");
  ASSERT_FALSE(interim.empty());
  EXPECT_EQ(interim, "HTTP/1.1 100 Continue\r\n\r\n");
}

TEST_F(HttpEdgesTest, OversizedBodiesAndHeadersGet413And431AndTheConnectionCloses) {
  HttpOptions options;
  options.max_body_bytes = 1024;
  options.max_header_bytes = 2048;
  StartServer(options);
  Client big_body(port_);
  ASSERT_TRUE(big_body.Send(PostMcp(std::string(2000, ' '))));
  auto too_large = big_body.Read();
  ASSERT_NE(too_large.result_int(), 0);
  EXPECT_EQ(too_large.result_int(), 413);
  EXPECT_FALSE(too_large.keep_alive());
  EXPECT_NE(too_large.body().find("exceeds 1024 bytes"), std::string::npos);
  EXPECT_TRUE(big_body.Closed());

  Client big_header(port_);
  ASSERT_TRUE(big_header.Send(
      Get("/health", "Host: 127.0.0.1\r\nX-Big: " + std::string(4096, 'x') + "\r\n")));
  auto header_too_large = big_header.Read();
  ASSERT_NE(header_too_large.result_int(), 0);
  EXPECT_EQ(header_too_large.result_int(), 431);
  EXPECT_FALSE(header_too_large.keep_alive());
  EXPECT_TRUE(big_header.Closed());
  EXPECT_EQ(StatusOf(Get("/health")), 200);
}

TEST_F(HttpEdgesTest, AnEventStreamIsChunkedAndEndsWithTheLastChunk) {
  StartServer();
  auto init = Exchange(Initialize());
  ASSERT_NE(init.result_int(), 0);
  ASSERT_EQ(init.result_int(), 200);
  const std::string session(init["Mcp-Session-Id"]);
  ASSERT_FALSE(session.empty());
  Client stream(port_);
  ASSERT_TRUE(stream.Send(Get("/mcp",
                              "Host: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                              "Mcp-Session-Id: " +
                                  session + "\r\nMCP-Protocol-Version: 2025-11-25\r\n")));
  auto head = stream.ReadUntil("\r\n\r\n");
  ASSERT_FALSE(head.empty());
  EXPECT_EQ(head.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << head;
  EXPECT_NE(head.find("Transfer-Encoding: chunked\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("Content-Type: text/event-stream\r\n"), std::string::npos) << head;
  // Ending the session ends the stream with the last chunk.
  Client end(port_);
  ASSERT_TRUE(end.Send("DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nMcp-Session-Id: " + session +
                       "\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n"));
  ASSERT_EQ(end.Read().result_int(), 200);
  auto rest = stream.ReadUntil("0\r\n\r\n");
  ASSERT_FALSE(rest.empty()) << "the stream did not end with the last chunk";
}

}  // namespace
}  // namespace labgate::gateway::http
