// Logs what happens to a port after the call that opened it: the device lost, the device
// back (its port opened again). The Subscribe stream of the serial service that serves the
// port (its bench, with several) is followed for the principal that opened it, and its
// events are logged to the session that opened it (RequestContext::LaterLog), naming the
// port as that session does (BENCH:PORT with benches). The 2026 era has no stream once the request
// is answered: its logs are request-scoped and may not travel on subscriptions/listen. (An
// auto-close is logged by the read that caused it, in both eras: call_notices.h.)
#pragma once

#include <grpcpp/channel.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "gateway/backends/serial_stubs.h"
#include "gateway/mcp/providers.h"
#include "gateway/tools/call_notices.h"

namespace labgate::gateway {

// One port's event history, reduced to what a log needs.
class PortEventMapper {
 public:
  // The log line for a PortEvent of `type` (the proto enum's number) with `reason`, or
  // none: the stream's first event is only the current state (unless it shows a lost
  // device open again, or a device lost since the open that started the follow), data is
  // not logged, and an auto-close is logged by its read.
  std::optional<LogNotice> Map(int type, const std::string& port, const std::string& reason);

 private:
  bool lost_ = false;  // the last state event was a lost device
};

class PortEventLog {
 public:
  // `serial` is the one serial service's channel; with `benches` (may be null; must
  // outlive this) each port is followed on its own bench instead.
  PortEventLog(const std::shared_ptr<grpc::Channel>& serial, const SerialBenches* benches);
  ~PortEventLog();

  // Follows `port` (as the client names it) for `owner` from now on, logging to `log`. A
  // later Follow of the same port by the same owner replaces the stream and the sink but
  // keeps what was known (a lost device). A follow holds no client alive; it ends with
  // Unfollow or this object. A port that no bench serves is not followed.
  void Follow(const std::string& owner, const std::string& port, RequestContext::LogSink log);
  void Unfollow(const std::string& owner, const std::string& port);

 private:
  struct SharedMapper {
    absl::Mutex mutex;
    PortEventMapper mapper ABSL_GUARDED_BY(mutex);
  };
  struct Followed {
    std::shared_ptr<SharedMapper> mapper;
    std::shared_ptr<void> stream;  // releasing it cancels the Subscribe stream
  };
  SerialStubs stubs_;
  absl::Mutex mutex_;
  std::map<std::string, Followed> followed_ ABSL_GUARDED_BY(mutex_);  // owner + '\n' + port
};

}  // namespace labgate::gateway
