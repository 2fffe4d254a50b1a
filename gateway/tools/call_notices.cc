#include "gateway/tools/call_notices.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "common/status_map.h"

namespace labgate::gateway {

using nlohmann::json;

namespace {

// The port a serial call acted on: the reply names it (also when the argument was left out
// because exactly one port was open), else the argument does.
std::string PortOf(const json& arguments, const BackendReply* reply) {
  if (reply != nullptr) {
    if (json named = reply->Member("port_name");
        named.is_string() && !named.get<std::string>().empty()) {
      return named.get<std::string>();
    }
  }
  if (arguments.is_object()) {
    if (auto it = arguments.find("port_name"); it != arguments.end() && it->is_string()) {
      return it->get<std::string>();
    }
  }
  return "";
}

// BackendCallStatus (gateway/backends/unreachable.cc) words an unreachable backend so.
bool IsUnreachable(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable &&
         absl::EndsWith(status.message(), "is not reachable");
}

// A read's result when the read closed an idle port instead (ReadResponse.event).
bool IsAutoClose(const BackendReply& reply) {
  const json event = reply.Member("event");
  return event.is_string() && event.get<std::string>() == "auto_close";
}

// An integer member, which proto JSON may spell as a string (int64).
std::optional<int64_t> NumberMember(const BackendReply& reply, const char* name) {
  const json value = reply.Member(name);
  if (value.is_number_integer()) return value.get<int64_t>();
  int64_t number = 0;
  if (value.is_string() && absl::SimpleAtoi(value.get<std::string>(), &number)) return number;
  return std::nullopt;
}

}  // namespace

std::string LoggerForService(const std::string& service_name) {
  absl::string_view package = service_name;
  if (absl::ConsumePrefix(&package, "labgate.")) {
    for (const char* component : {"serial", "session", "actions"}) {
      absl::string_view rest = package;
      if (absl::ConsumePrefix(&rest, component) && absl::StartsWith(rest, ".")) return component;
    }
  }
  return "gateway";
}

CallNotices NoticesForCall(const std::string& tool, const std::string& service_name,
                           const json& arguments, const absl::StatusOr<json>& outcome,
                           std::chrono::microseconds duration, bool with_debug) {
  if (!outcome.ok()) {
    return NoticesForCall(tool, service_name, arguments, outcome.status(), nullptr, duration,
                          with_debug);
  }
  const BackendReply reply(*outcome);
  return NoticesForCall(tool, service_name, arguments, outcome.status(), &reply, duration,
                        with_debug);
}

CallNotices NoticesForCall(const std::string& tool, const std::string& service_name,
                           const json& arguments, const absl::Status& status,
                           const BackendReply* reply, std::chrono::microseconds duration,
                           bool with_debug) {
  CallNotices notices;
  const std::string logger = LoggerForService(service_name);
  const bool serial = logger == "serial";
  if (serial) notices.port = PortOf(arguments, status.ok() ? reply : nullptr);
  if (with_debug) {
    notices.logs.push_back(
        {McpLogLevel::kDebug,
         logger,
         {{"event", "backend_call"},
          {"tool", tool},
          {"duration_ms", static_cast<double>(duration.count()) / 1000.0},
          {"status",
           status.ok() ? std::string("OK") : std::string(StatusCodeName(status.code()))}}});
  }
  if (!status.ok()) {
    notices.logs.push_back(
        {McpLogLevel::kError,
         logger,
         {{"event", "tool_failed"}, {"tool", tool}, {"error", ToolErrorText(status)}}});
    return notices;
  }
  if (serial && reply != nullptr && IsAutoClose(*reply)) {
    // The read found the port idle and closed it: the owner hears it here, in the era's
    // own way (a 2026-era request's logs go only to that request).
    notices.ports_changed = true;
    json data = {
        {"event", "port_auto_closed"}, {"port_name", notices.port}, {"reason", "idle_timeout"}};
    if (json reason = reply->Member("reason"); reason.is_string()) data["reason"] = reason;
    if (auto idle = NumberMember(*reply, "idle_ms")) data["idle_ms"] = *idle;
    notices.logs.push_back({McpLogLevel::kInfo, logger, std::move(data)});
    return notices;
  }
  if (serial && (tool == "open_port" || tool == "close")) {
    notices.ports_changed = true;
    notices.logs.push_back({McpLogLevel::kInfo,
                            logger,
                            {{"event", tool == "open_port" ? "port_opened" : "port_closed"},
                             {"port_name", notices.port}}});
  }
  return notices;
}

std::optional<LogNotice> BackendHealth::Observe(const std::string& service_name,
                                                const std::string& bench,
                                                const absl::Status& status) {
  const bool unreachable = IsUnreachable(status);
  // A failure of another kind says nothing about reachability either way.
  if (!unreachable && !status.ok()) return std::nullopt;
  if (!unreachable && unreachable_now_.load(std::memory_order_acquire) == 0) return std::nullopt;
  {
    absl::MutexLock lock(&mutex_);
    bool& was = unreachable_[{service_name, bench}];
    if (was == unreachable) return std::nullopt;
    was = unreachable;
    unreachable_now_.fetch_add(unreachable ? 1 : -1, std::memory_order_release);
  }
  json data = {{"event", unreachable ? "backend_unreachable" : "backend_recovered"},
               {"service", service_name}};
  if (!bench.empty()) data["bench"] = bench;
  if (unreachable) data["error"] = std::string(status.message());
  return LogNotice{McpLogLevel::kWarning, "gateway", std::move(data)};
}

}  // namespace labgate::gateway
