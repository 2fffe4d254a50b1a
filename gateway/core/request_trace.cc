#include "gateway/core/request_trace.h"

#include <cmath>
#include <vector>

#include "common/log.h"
#include "common/status_map.h"
#include "gateway/core/gateway_metrics.h"

namespace labgate::gateway {
namespace {

// Long names (a client may send any) are cut short in the log line.
constexpr size_t kMaxShown = 128;

std::string Shown(std::string text) {
  if (text.size() > kMaxShown) text = text.substr(0, kMaxShown) + "...";
  return text;
}

}  // namespace

RequestOutcome RequestOutcome::Error(int code) {
  switch (code) {
    case jsonrpc_code::kParseError:
      return {"parse_error", code};
    case jsonrpc_code::kInvalidRequest:
      return {"invalid_request", code};
    case jsonrpc_code::kMethodNotFound:
      return {"method_not_found", code};
    case jsonrpc_code::kInvalidParams:
      return {"invalid_params", code};
    case jsonrpc_code::kInternalError:
      return {"internal_error", code};
    default:
      return {"error", code};
  }
}

RequestTrace::RequestTrace(Request request) : request_(std::move(request)), started_(Clock::now()) {
  in_flight_ = &GatewayMetrics::Get().requests_in_flight.With({request_.dialect});
  in_flight_->Increment();
}

void RequestTrace::Answered(RequestOutcome outcome) {
  answered_ = outcome;
  answered_at_ = Clock::now();
  has_answer_ = true;
}

void RequestTrace::Override(RequestOutcome outcome) {
  override_ = outcome;
  overridden_at_ = Clock::now();
  has_override_ = true;
}

RequestTrace::~RequestTrace() {
  const RequestOutcome outcome =
      has_override_ ? override_ : (has_answer_ ? answered_ : RequestOutcome());
  const Clock::time_point ended =
      has_answer_ ? answered_at_ : (has_override_ ? overridden_at_ : Clock::now());
  const double seconds = std::chrono::duration<double>(ended - started_).count();
  GatewayMetrics& families = GatewayMetrics::Get();
  in_flight_->Decrement();
  const std::string_view method =
      request_.known_method ? std::string_view(request_.method) : std::string_view("other");
  families.requests.With({request_.dialect, request_.transport, method, outcome.name}).Increment();
  families.request_seconds.With({request_.dialect, method}).Observe(seconds);
  if (!LogEnabled(LogLevel::kInfo)) return;
  // Microseconds are enough: the line stays short and readable.
  const double duration_ms = std::round(seconds * 1e6) / 1e3;
  const std::string shown_method = Shown(request_.method);
  const std::string shown_tool = Shown(request_.tool);
  std::vector<LogField> fields = {{"dialect", request_.dialect},
                                  {"transport", request_.transport},
                                  {"principal", request_.principal},
                                  {"method", shown_method}};
  if (!shown_tool.empty()) fields.emplace_back("tool", shown_tool);
  fields.emplace_back("duration_ms", duration_ms);
  fields.emplace_back("outcome", outcome.name);
  if (outcome.code != 0) fields.emplace_back("code", outcome.code);
  WriteLogLine(LogLevel::kInfo, "access", fields);
}

}  // namespace labgate::gateway
