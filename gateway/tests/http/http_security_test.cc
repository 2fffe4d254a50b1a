// Host/Origin allow-lists, bearer tokens, Accept matching, listen addresses and SSE ids.
#include "gateway/http/http_security.h"

#include <gtest/gtest.h>

#include <fstream>

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

TEST(HttpSecurityTest, BearerTokensNameTheirPrincipal) {
  std::vector<HttpOptions::NamedToken> tokens = {{"alice", "alpha"}, {"bob", "beta-token"}};
  EXPECT_EQ(BearerPrincipal("Bearer alpha", tokens), "alice");
  EXPECT_EQ(BearerPrincipal("bearer beta-token", tokens), "bob");
  EXPECT_EQ(BearerPrincipal("Bearer alph", tokens), std::nullopt);
  EXPECT_EQ(BearerPrincipal("Bearer alphaa", tokens), std::nullopt);
  EXPECT_EQ(BearerPrincipal("Basic alpha", tokens), std::nullopt);
  EXPECT_EQ(BearerPrincipal("", tokens), std::nullopt);
}

TEST(HttpSecurityTest, TokenFilesNameTokensOrDeriveANameForBareOnes) {
  const std::string path = ::testing::TempDir() + "/tokens.txt";
  {
    std::ofstream out(path);
    out << "# the lab's clients\nalice   alpha\n\nbare-token\n";
  }
  auto tokens = LoadTokenFile(path);
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  ASSERT_EQ(tokens->size(), 2u);
  EXPECT_EQ((*tokens)[0].name, "alice");
  EXPECT_EQ((*tokens)[0].token, "alpha");
  EXPECT_EQ((*tokens)[1].token, "bare-token");
  EXPECT_EQ((*tokens)[1].name.rfind("token-", 0), 0u);
  EXPECT_EQ((*tokens)[1].name.size(), 14u);
  {
    std::ofstream out(path);
    out << "alice a\nalice b\n";
  }
  EXPECT_FALSE(LoadTokenFile(path).ok());  // a name twice
  {
    std::ofstream out(path);
    out << "alice a extra\n";
  }
  EXPECT_FALSE(LoadTokenFile(path).ok());
}

TEST(HttpSecurityTest, MalformedAuthoritiesAreRefused) {
  const std::vector<std::string> kLocal = {"localhost", "127.0.0.1", "[::1]"};
  EXPECT_FALSE(OriginAllowed("http://[::1].evil.com", kLocal));
  EXPECT_FALSE(OriginAllowed("http://localhost@evil.com", kLocal));
  EXPECT_FALSE(OriginAllowed("http://evil.com@localhost", kLocal));
  EXPECT_FALSE(OriginAllowed("http://localhost:80x", kLocal));
  EXPECT_TRUE(OriginAllowed("http://[::1]:8080", kLocal));
  EXPECT_FALSE(HostAllowed("[::1].evil.com", kLocal));
  EXPECT_FALSE(HostAllowed("localhost:8080/x", kLocal));
  EXPECT_FALSE(HostAllowed("user@localhost", kLocal));
  EXPECT_TRUE(HostAllowed("[::1]:9", kLocal));
  EXPECT_TRUE(HostAllowed("", kLocal));  // HTTP/1.0 clients send none
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
