// Logs what happens to a port after the call that opened it: an auto-close, the device
// lost, the device back. The serial service's Subscribe stream for the port is followed
// for the principal that opened it, and its events are logged to the session that opened
// it (RequestContext::LaterLog; the 2026 era has no stream once the request is answered).
#pragma once

#include <grpcpp/channel.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "gateway/mcp/providers.h"
#include "gateway/tools/call_notices.h"

namespace labgate::gateway {

// One port's event history, reduced to what a log needs.
class PortEventMapper {
 public:
  // The log line for a PortEvent of `type` (the proto enum's number) with `reason`, or
  // none: the stream's first event is only the current state, and data is not logged.
  std::optional<LogNotice> Map(int type, const std::string& port, const std::string& reason);

 private:
  bool lost_ = false;  // the last state event was a lost device
};

class PortEventLog {
 public:
  // `serial` is the one serial service's channel; null (several benches) logs nothing.
  explicit PortEventLog(std::shared_ptr<grpc::Channel> serial);
  ~PortEventLog();

  // Follows `port` for `owner` from now on, logging to `log` (replacing any earlier follow
  // of the same port by the same owner). A follow holds no client alive; it ends with
  // Unfollow, the next Follow, or this object.
  void Follow(const std::string& owner, const std::string& port, RequestContext::LogSink log);
  void Unfollow(const std::string& owner, const std::string& port);

  struct Stub;

 private:
  std::unique_ptr<Stub> stub_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<void>> watches_;  // owner + '\n' + port
};

}  // namespace labgate::gateway
