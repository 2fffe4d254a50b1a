// Host/Origin allow-lists, bearer tokens, Accept matching, listen addresses and SSE ids.
#include "gateway/http/http_security.h"

#include <gtest/gtest.h>

#include "gateway/http/http_flags.h"
#include "gateway/http/sse.h"

namespace labgate::gateway::http {
namespace {

const std::vector<std::string> kLocal = {"localhost", "127.0.0.1", "[::1]"};

TEST(HttpSecurityTest, HostAllowList) {
  EXPECT_TRUE(HostAllowed("localhost:8080", kLocal));
  EXPECT_TRUE(HostAllowed("127.0.0.1", kLocal));
  EXPECT_TRUE(HostAllowed("[::1]:9", kLocal));
  EXPECT_TRUE(HostAllowed("LOCALHOST", kLocal));
  EXPECT_FALSE(HostAllowed("evil.example.com", kLocal));
  EXPECT_FALSE(HostAllowed("localhost.evil.com:80", kLocal));
  EXPECT_TRUE(HostAllowed("lab.local:8080", {"lab.local:8080"}));
  EXPECT_FALSE(HostAllowed("lab.local:9090", {"lab.local:8080"}));
  EXPECT_TRUE(HostAllowed("anything", {"*"}));
}

TEST(HttpSecurityTest, OriginAllowList) {
  EXPECT_TRUE(OriginAllowed("", kLocal));
  EXPECT_TRUE(OriginAllowed("http://localhost:3000", kLocal));
  EXPECT_TRUE(OriginAllowed("https://[::1]", kLocal));
  EXPECT_FALSE(OriginAllowed("http://evil.example.com", kLocal));
  EXPECT_FALSE(OriginAllowed("null", kLocal));
  EXPECT_FALSE(OriginAllowed("http://127.0.0.1.evil.com", kLocal));
  EXPECT_TRUE(OriginAllowed("https://app.example.com", {"https://app.example.com"}));
  EXPECT_FALSE(OriginAllowed("http://app.example.com", {"https://app.example.com"}));
}

TEST(HttpSecurityTest, BearerTokens) {
  std::vector<std::string> tokens = {"alpha", "beta-token"};
  EXPECT_TRUE(BearerAccepted("Bearer alpha", tokens));
  EXPECT_TRUE(BearerAccepted("bearer beta-token", tokens));
  EXPECT_FALSE(BearerAccepted("Bearer alph", tokens));
  EXPECT_FALSE(BearerAccepted("Bearer alphaa", tokens));
  EXPECT_FALSE(BearerAccepted("Basic alpha", tokens));
  EXPECT_FALSE(BearerAccepted("", tokens));
}

TEST(HttpSecurityTest, AcceptMatching) {
  EXPECT_TRUE(AcceptIncludes("application/json, text/event-stream", "text/event-stream"));
  EXPECT_TRUE(AcceptIncludes("text/*;q=0.5", "text/event-stream"));
  EXPECT_TRUE(AcceptIncludes("*/*", "application/json"));
  EXPECT_FALSE(AcceptIncludes("application/json", "text/event-stream"));
  EXPECT_FALSE(AcceptIncludes("", "application/json"));
}

TEST(HttpSecurityTest, SessionIdsAreLongRandomVisibleAscii) {
  std::string a = NewSessionId();
  std::string b = NewSessionId();
  EXPECT_EQ(a.size(), 64u);
  EXPECT_NE(a, b);
  for (char c : a) EXPECT_TRUE(c > 0x20 && c < 0x7f);
}

TEST(HttpSecurityTest, ListenAddresses) {
  HttpOptions options;
  ASSERT_TRUE(ParseListenAddress(":8080", &options).ok());
  EXPECT_EQ(options.host, "127.0.0.1");
  EXPECT_EQ(options.port, 8080);
  ASSERT_TRUE(ParseListenAddress("0.0.0.0:0", &options).ok());
  EXPECT_EQ(options.host, "0.0.0.0");
  ASSERT_TRUE(ParseListenAddress("[::1]:9", &options).ok());
  EXPECT_EQ(options.host, "::1");
  ASSERT_TRUE(ParseListenAddress("7000", &options).ok());
  EXPECT_EQ(options.port, 7000);
  EXPECT_FALSE(ParseListenAddress("host:99999", &options).ok());
  EXPECT_FALSE(ParseListenAddress("host:x", &options).ok());
}

TEST(SseTest, EventIdsNameTheirStream) {
  EXPECT_EQ(FormatEventId({3, 17}), "3.17");
  auto id = ParseEventId("3.17");
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(id->stream, 3u);
  EXPECT_EQ(id->seq, 17u);
  EXPECT_FALSE(ParseEventId("317").has_value());
  EXPECT_FALSE(ParseEventId("a.1").has_value());
  EXPECT_EQ(FormatEvent({0, 1}, "{}"), "id: 0.1\nevent: message\ndata: {}\n\n");
  EXPECT_EQ(FormatEvent({0, 2}, "a\nb"), "id: 0.2\nevent: message\ndata: a\ndata: b\n\n");
  EXPECT_EQ(FormatPrimingEvent({1, 0}, std::chrono::milliseconds(2000)),
            "retry: 2000\nid: 1.0\ndata: \n\n");
}

}  // namespace
}  // namespace labgate::gateway::http
