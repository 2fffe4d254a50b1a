// What a finished proto tool call tells the client besides its result: MCP log entries
// (notifications/message) and whether the resource lists changed. Pure, so that the
// mapping is tested without a backend.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "gateway/backends/backend_reply.h"
#include "gateway/mcp/providers.h"

namespace labgate::gateway {

struct LogNotice {
  McpLogLevel level;
  std::string logger;  // "serial", "session", "actions" or "gateway"
  nlohmann::json data;
};

struct CallNotices {
  std::vector<LogNotice> logs;
  bool ports_changed = false;  // a port was opened or (auto-)closed: resources/list_changed
  std::string port;            // the port the call acted on, if any ("" otherwise)
};

// "labgate.serial.v1.SerialService" -> "serial"; unknown services log as "gateway".
std::string LoggerForService(const std::string& service_name);

// debug (when `with_debug`, i.e. the client hears debug): the backend call and its
// duration; info: a port opened or closed, or a read that auto-closed its idle port;
// error: the call failed.
CallNotices NoticesForCall(const std::string& tool, const std::string& service_name,
                           const nlohmann::json& arguments,
                           const absl::StatusOr<nlohmann::json>& outcome,
                           std::chrono::microseconds duration, bool with_debug = true);
// The same for a backend's reply: `reply` is read when `status` is OK (it may then be null).
CallNotices NoticesForCall(const std::string& tool, const std::string& service_name,
                           const nlohmann::json& arguments, const absl::Status& status,
                           const BackendReply* reply, std::chrono::microseconds duration,
                           bool with_debug);

// Remembers which backends were last found unreachable, so that the first failure says
// so (warning) and the first success after it says it recovered (warning too: the
// client may have retried or given up in between). Each bench of the serial service
// (`bench`, its name; "" for the unnamed one or none) is a backend of its own. Thread-safe.
class BackendHealth {
 public:
  std::optional<LogNotice> Observe(const std::string& service_name, const std::string& bench,
                                   const absl::Status& status);

 private:
  absl::Mutex mutex_;
  // By (service, bench).
  std::map<std::pair<std::string, std::string>, bool> unreachable_ ABSL_GUARDED_BY(mutex_);
  // How many of them are unreachable now: while none is, an answer changes nothing, and
  // every successful call is such an answer.
  std::atomic<int> unreachable_now_{0};
};

}  // namespace labgate::gateway
