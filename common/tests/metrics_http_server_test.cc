#include "common/metrics/metrics_http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>

#include "common/metrics/metrics.h"
#include "common/tests/exposition_parser.h"

namespace labgate::metrics {
namespace {

int Connect(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Sends `request` and reads until the server closes the connection.
std::string Exchange(uint16_t port, const std::string& request) {
  int fd = Connect(port);
  if (fd < 0) return "";
  size_t sent = 0;
  while (sent < request.size()) {
    ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string response;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) break;
    response.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return response;
}

std::string Body(const std::string& response) {
  size_t end = response.find("\r\n\r\n");
  return end == std::string::npos ? "" : response.substr(end + 4);
}

TEST(MetricsHttpServerTest, ServesTheRegistryOnAnyFreePort) {
  Default()
      .Counter("labgate_test_served_total", "Counted by the HTTP server test.")
      .Get()
      .Increment();
  auto server = MetricsHttpServer::Start("127.0.0.1:0");
  ASSERT_TRUE(server.ok()) << server.status();
  ASSERT_NE((*server)->port(), 0);
  const std::string response =
      Exchange((*server)->port(), "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n");
  ASSERT_EQ(response.rfind("HTTP/1.1 200", 0), 0u) << response;
  EXPECT_NE(response.find("Content-Type: text/plain; version=0.0.4; charset=utf-8"),
            std::string::npos);
  auto parsed = testing::ParseExposition(Body(response));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(testing::ValueOf(*parsed, "labgate_test_served_total"), 1);

  EXPECT_EQ(Body(Exchange((*server)->port(), "GET /healthz HTTP/1.1\r\n\r\n")),
            R"({"status":"ok"})");
  const std::string head = Exchange((*server)->port(), "HEAD /metrics HTTP/1.1\r\n\r\n");
  EXPECT_EQ(head.rfind("HTTP/1.1 200", 0), 0u);
  EXPECT_EQ(Body(head), "");
}

TEST(MetricsHttpServerTest, ReadyzAnswersWhatTheServicesCheckSays) {
  std::atomic<bool> ready{true};
  auto server = MetricsHttpServer::Start("127.0.0.1:0", [&ready] {
    return Readiness{ready.load(), ready ? R"({"status":"ready"})" : R"({"status":"away"})"};
  });
  ASSERT_TRUE(server.ok()) << server.status();
  std::string response = Exchange((*server)->port(), "GET /readyz HTTP/1.1\r\n\r\n");
  EXPECT_EQ(response.rfind("HTTP/1.1 200", 0), 0u) << response;
  EXPECT_EQ(Body(response), R"({"status":"ready"})");
  ready = false;
  response = Exchange((*server)->port(), "GET /readyz HTTP/1.1\r\n\r\n");
  EXPECT_EQ(response.rfind("HTTP/1.1 503", 0), 0u) << response;
  EXPECT_EQ(Body(response), R"({"status":"away"})");

  auto plain = MetricsHttpServer::Start("127.0.0.1:0");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(Body(Exchange((*plain)->port(), "GET /readyz HTTP/1.1\r\n\r\n")),
            R"({"status":"ready"})")
      << "without a check, a running service is ready";
}

TEST(MetricsHttpServerTest, BadRequestsGetClearAnswersAndServingGoesOn) {
  auto server = MetricsHttpServer::Start("127.0.0.1:0");
  ASSERT_TRUE(server.ok()) << server.status();
  const uint16_t port = (*server)->port();
  EXPECT_EQ(Exchange(port, "GET /elsewhere HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 404", 0), 0u);
  const std::string post = Exchange(port, "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(post.rfind("HTTP/1.1 405", 0), 0u) << post;
  EXPECT_NE(post.find("Allow: GET, HEAD"), std::string::npos);
  EXPECT_EQ(Exchange(port, "this is not HTTP\r\n\r\n").rfind("HTTP/1.1 400", 0), 0u);
  EXPECT_EQ(
      Exchange(port, "GET /metrics HTTP/1.1\r\nX-Big: " + std::string(20000, 'x') + "\r\n\r\n")
          .rfind("HTTP/1.1 400", 0),
      0u);
  // A client that connects and says nothing holds nobody else up.
  int silent = Connect(port);
  ASSERT_GE(silent, 0);
  EXPECT_EQ(Exchange(port, "GET /metrics HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 200", 0), 0u);
  ::close(silent);
}

TEST(MetricsHttpServerTest, RefusesBadAddresses) {
  EXPECT_FALSE(MetricsHttpServer::Start("nonsense").ok());
  EXPECT_FALSE(MetricsHttpServer::Start("127.0.0.1:99999").ok());
  EXPECT_FALSE(MetricsHttpServer::Start("not-an-ip:0").ok());
}

}  // namespace
}  // namespace labgate::metrics
