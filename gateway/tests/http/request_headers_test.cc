// The one pass over a request's headers finds what a search per header would.
#include "gateway/http/request_headers.h"

#include <gtest/gtest.h>

namespace labgate::gateway::http {
namespace {

namespace beast_http = boost::beast::http;

TEST(RequestHeadersTest, FindsEachHeaderTheEndpointReadsWhateverItsCase) {
  Request request(beast_http::verb::post, "/mcp", 11);
  request.set(beast_http::field::host, "127.0.0.1:8080");
  request.set(beast_http::field::origin, "http://localhost:3000");
  request.set(beast_http::field::authorization, "Bearer abc");
  request.set(beast_http::field::accept, "application/json, text/event-stream");
  request.set(beast_http::field::content_type, "application/json");
  request.set(beast_http::field::user_agent, "test");
  request.set("MCP-PROTOCOL-VERSION", "2025-11-25");
  request.set("mcp-session-id", "s1");
  request.set("Last-Event-Id", "7");
  const RequestHeaders headers = ReadRequestHeaders(request);
  EXPECT_EQ(headers.host, "127.0.0.1:8080");
  EXPECT_EQ(headers.host_count, 1u);
  EXPECT_EQ(headers.origin, "http://localhost:3000");
  EXPECT_EQ(headers.authorization, "Bearer abc");
  EXPECT_EQ(headers.accept, "application/json, text/event-stream");
  EXPECT_EQ(headers.content_type, "application/json");
  EXPECT_EQ(headers.protocol_version, "2025-11-25");
  EXPECT_EQ(headers.session_id, "s1");
  EXPECT_TRUE(headers.session_id_given);
  EXPECT_EQ(headers.last_event_id, "7");
}

TEST(RequestHeadersTest, AbsentHeadersAreEmptyAndAnEmptySessionIdIsStillGiven) {
  Request request(beast_http::verb::get, "/mcp", 11);
  EXPECT_FALSE(ReadRequestHeaders(request).session_id_given);
  EXPECT_EQ(ReadRequestHeaders(request).host_count, 0u);
  EXPECT_TRUE(ReadRequestHeaders(request).accept.empty());
  request.insert("Mcp-Session-Id", "");
  EXPECT_TRUE(ReadRequestHeaders(request).session_id_given);
  EXPECT_TRUE(ReadRequestHeaders(request).session_id.empty());
}

TEST(RequestHeadersTest, ARepeatedHeaderKeepsItsFirstValueAndHostsAreCounted) {
  Request request(beast_http::verb::post, "/mcp", 11);
  request.insert(beast_http::field::host, "first");
  request.insert(beast_http::field::host, "second");
  request.insert("Mcp-Session-Id", "a");
  request.insert("Mcp-Session-Id", "b");
  request.insert(beast_http::field::accept, "text/event-stream");
  request.insert(beast_http::field::accept, "application/json");
  const RequestHeaders headers = ReadRequestHeaders(request);
  EXPECT_EQ(headers.host_count, 2u);
  EXPECT_EQ(headers.host, "first");
  EXPECT_EQ(headers.session_id, "a");
  EXPECT_EQ(headers.accept, "text/event-stream");
  // The same as a search by name finds.
  EXPECT_EQ(request.find("mcp-session-id")->value(), "a");
  EXPECT_EQ(request.find(beast_http::field::accept)->value(), "text/event-stream");
}

}  // namespace
}  // namespace labgate::gateway::http
