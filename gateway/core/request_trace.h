// What one request did: its access line (at info) and its counts in the request metrics
// (gateway_metrics.h: requests, request_seconds, requests_in_flight).
// Every request gets one where its dialect takes it, and hands it to its ReplyOnce, which
// notes the outcome when it answers. A dialect that sends something else instead (the 2026
// era's input_required) or nothing at all (a cancelled request) overrides that outcome. The
// line is written and the request counted when the last holder lets go, so what is logged is
// what the client was finally sent.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "common/metrics/metrics.h"

namespace labgate::gateway {

// How a request ended: a short fixed name (a metric label) and the JSON-RPC error code.
struct RequestOutcome {
  const char* name = "unanswered";  // ok, tool_error, input_required, cancelled, an error's name
  int code = 0;                     // the JSON-RPC error code; 0 when none

  static RequestOutcome Ok() { return {"ok", 0}; }
  static RequestOutcome ToolError() { return {"tool_error", 0}; }
  static RequestOutcome InputRequired() { return {"input_required", 0}; }
  static RequestOutcome Cancelled() { return {"cancelled", 0}; }
  // parse_error, invalid_request, method_not_found, invalid_params, internal_error, or
  // "error" for the other codes (which the access line still shows).
  static RequestOutcome Error(int code);
};

class RequestTrace {
 public:
  struct Request {
    const char* dialect = "";    // mcp, mcp-2026, loaf, envelope, http (a static string)
    const char* transport = "";  // stdio or http (a static string)
    std::string principal;
    std::string method;
    // Counted under its own name only when the dialect knows it, else as "other", so a
    // client cannot grow the metrics with made-up names.
    bool known_method = false;
    std::string tool;  // tools/call's tool or an invoke's action; "" for other methods
  };

  explicit RequestTrace(Request request);
  ~RequestTrace();
  RequestTrace(const RequestTrace&) = delete;
  RequestTrace& operator=(const RequestTrace&) = delete;

  static std::shared_ptr<RequestTrace> Start(Request request) {
    return std::make_shared<RequestTrace>(std::move(request));
  }

  // The answer produced for the client (by its ReplyOnce; once).
  void Answered(RequestOutcome outcome);
  // What the dialect sent instead of that answer, or Cancelled() for nothing; it wins.
  void Override(RequestOutcome outcome);

 private:
  using Clock = std::chrono::steady_clock;
  Request request_;
  Clock::time_point started_;
  metrics::Gauge* in_flight_;
  // Each written from one place: Answered by the reply, Override by the dialect; read when
  // the last holder lets go (the shared_ptr's release orders them).
  RequestOutcome answered_;
  Clock::time_point answered_at_{};
  bool has_answer_ = false;
  RequestOutcome override_;
  Clock::time_point overridden_at_{};
  bool has_override_ = false;
};

using SharedTrace = std::shared_ptr<RequestTrace>;

}  // namespace labgate::gateway
