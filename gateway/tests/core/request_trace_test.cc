// RequestTrace: the outcome its ReplyOnce reports (or the dialect's override), counted in
// the request metrics and written as one access line when the last holder lets go.
#include "gateway/core/request_trace.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/log.h"
#include "gateway/core/gateway_metrics.h"
#include "gateway/core/reply_once.h"

namespace labgate::gateway {
namespace {

using nlohmann::json;

uint64_t Count(const char* dialect, const char* method, const char* outcome) {
  return GatewayMetrics::Get().requests.With({dialect, "stdio", method, outcome}).value();
}

RequestTrace::Request Named(const char* dialect, std::string method, std::string tool = "") {
  return {dialect, "stdio", "tester", std::move(method), true, std::move(tool)};
}

// Answers a fresh request through ReplyOnce with `answer`; returns the payload sent.
template <typename Fn>
std::string Answer(const char* dialect, const char* method, Fn answer) {
  std::string sent;
  ReplyOnce reply("1", [&sent](MessageText payload) { sent = std::move(payload).Join(); });
  reply.SetTrace(RequestTrace::Start(Named(dialect, method)));
  answer(reply);
  return sent;
}

TEST(RequestTraceTest, TheReplyReportsHowTheRequestEnded) {
  const uint64_t ok = Count("t1", "tools/call", "ok");
  const uint64_t tool_error = Count("t1", "tools/call", "tool_error");
  const uint64_t input = Count("t1", "tools/call", "input_required");
  const uint64_t invalid = Count("t1", "tools/call", "invalid_params");
  const uint64_t cancelled = Count("t1", "tools/call", "cancelled");
  const uint64_t dropped = Count("t1", "tools/call", "internal_error");
  const uint64_t other_code = Count("t1", "tools/call", "error");
  Answer("t1", "tools/call", [](ReplyOnce& r) { r.Result({{"content", json::array()}}); });
  Answer("t1", "tools/call", [](ReplyOnce& r) { r.ResultText(R"({"tools":[]})"); });
  Answer("t1", "tools/call", [](ReplyOnce& r) { r.Result({{"isError", true}}); });
  Answer("t1", "tools/call", [](ReplyOnce& r) { r.Result({{"resultType", "input_required"}}); });
  Answer("t1", "tools/call", [](ReplyOnce& r) { r.Error(-32602, "bad"); });
  Answer("t1", "tools/call",
         [](ReplyOnce& r) { r.Fail(absl::CancelledError("the client went away")); });
  Answer("t1", "tools/call", [](ReplyOnce& r) { ReplyOnce dropped = std::move(r); });
  Answer("t1", "tools/call", [](ReplyOnce& r) { r.Error(-32002, "no such resource"); });
  EXPECT_EQ(Count("t1", "tools/call", "ok"), ok + 2);
  EXPECT_EQ(Count("t1", "tools/call", "tool_error"), tool_error + 1);
  EXPECT_EQ(Count("t1", "tools/call", "input_required"), input + 1);
  EXPECT_EQ(Count("t1", "tools/call", "invalid_params"), invalid + 1);
  EXPECT_EQ(Count("t1", "tools/call", "cancelled"), cancelled + 1);
  EXPECT_EQ(Count("t1", "tools/call", "internal_error"), dropped + 1);
  EXPECT_EQ(Count("t1", "tools/call", "error"), other_code + 1);
}

TEST(RequestTraceTest, TheDialectsOverrideWinsAndTheLastHolderCounts) {
  const uint64_t ok = Count("t2", "tools/call", "ok");
  const uint64_t cancelled = Count("t2", "tools/call", "cancelled");
  auto& in_flight = GatewayMetrics::Get().requests_in_flight.With({"t2"});
  SharedTrace held;
  {
    ReplyOnce reply("1", [](MessageText) {});
    held = RequestTrace::Start(Named("t2", "tools/call"));
    reply.SetTrace(held);
    EXPECT_EQ(in_flight.value(), 1);
    reply.Result(json::object());
  }
  // Answered, but the dialect still holds the trace: nothing counted yet.
  EXPECT_EQ(Count("t2", "tools/call", "ok"), ok);
  EXPECT_EQ(in_flight.value(), 1);
  held->Override(RequestOutcome::Cancelled());  // the reply was suppressed
  held.reset();
  EXPECT_EQ(Count("t2", "tools/call", "ok"), ok);
  EXPECT_EQ(Count("t2", "tools/call", "cancelled"), cancelled + 1);
  EXPECT_EQ(in_flight.value(), 0);
}

TEST(RequestTraceTest, UnknownMethodsAreCountedAsOther) {
  const uint64_t other = Count("t3", "other", "method_not_found");
  RequestTrace::Request request = Named("t3", "made/up/by/the/client");
  request.known_method = false;
  RequestTrace(request).Answered(RequestOutcome::Error(-32601));
  EXPECT_EQ(Count("t3", "other", "method_not_found"), other + 1);
  EXPECT_EQ(Count("t3", "made/up/by/the/client", "method_not_found"), 0u);
}

std::vector<std::string> AccessLines(const std::string& stderr_text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < stderr_text.size()) {
    size_t end = stderr_text.find('\n', start);
    std::string line = stderr_text.substr(start, end - start);
    if (line.find("access") != std::string::npos) lines.push_back(line);
    start = end == std::string::npos ? stderr_text.size() : end + 1;
  }
  return lines;
}

TEST(RequestTraceTest, WritesOneAccessLineWithToolAndCodeOnlyWhenThereAreSome) {
  ::testing::internal::CaptureStderr();
  RequestTrace(Named("mcp", "tools/call", "write")).Answered(RequestOutcome::ToolError());
  RequestTrace(Named("mcp", "ping")).Answered(RequestOutcome::Error(-32600));
  RequestTrace(Named("mcp", std::string(300, 'm'))).Answered(RequestOutcome::Ok());
  const std::vector<std::string> lines = AccessLines(::testing::internal::GetCapturedStderr());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[0].find(" INFO access dialect=mcp transport=stdio principal=tester "
                          "method=tools/call tool=write duration_ms="),
            std::string::npos)
      << lines[0];
  EXPECT_TRUE(lines[0].ends_with(" outcome=tool_error")) << lines[0];
  EXPECT_EQ(lines[1].find("tool="), std::string::npos);
  EXPECT_TRUE(lines[1].ends_with(" outcome=invalid_request code=-32600")) << lines[1];
  // A made-up method name is shown cut short.
  EXPECT_NE(lines[2].find("method=" + std::string(128, 'm') + "... "), std::string::npos);
}

TEST(RequestTraceTest, JsonAccessLinesCarryTheFieldsAsKeys) {
  SetLogFormat(LogFormat::kJson);
  ::testing::internal::CaptureStderr();
  RequestTrace(Named("loaf", "session.send")).Answered(RequestOutcome::Error(-32602));
  const std::vector<std::string> lines = AccessLines(::testing::internal::GetCapturedStderr());
  SetLogFormat(LogFormat::kText);
  ASSERT_EQ(lines.size(), 1u);
  json line = json::parse(lines[0]);
  EXPECT_EQ(line["level"], "info");
  EXPECT_EQ(line["message"], "access");
  EXPECT_EQ(line["dialect"], "loaf");
  EXPECT_EQ(line["principal"], "tester");
  EXPECT_EQ(line["method"], "session.send");
  EXPECT_EQ(line["outcome"], "invalid_params");
  EXPECT_EQ(line["code"], -32602);
  EXPECT_TRUE(line["duration_ms"].is_number());
  EXPECT_FALSE(line.contains("tool"));
}

TEST(RequestTraceTest, BelowInfoNothingIsWrittenButEverythingIsCounted) {
  const uint64_t ok = Count("t4", "ping", "ok");
  SetLogLevel(LogLevel::kWarning);
  ::testing::internal::CaptureStderr();
  RequestTrace(Named("t4", "ping")).Answered(RequestOutcome::Ok());
  const std::string written = ::testing::internal::GetCapturedStderr();
  SetLogLevel(LogLevel::kInfo);
  EXPECT_EQ(written, "");
  EXPECT_EQ(Count("t4", "ping", "ok"), ok + 1);
}

}  // namespace
}  // namespace labgate::gateway
