// Appends what bound ports do to the session service, through its gRPC API, without
// ever holding up the I/O: Enqueue only queues. One thread delivers the queue in order
// (so message ids follow the I/O order), retrying a record under the same idempotency
// key until the session service takes it, so a retry never stores it twice. When the
// queue is full the record is lost, counted per port and logged.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "labgate/session/v1/session.grpc.pb.h"

namespace labgate::serial {

struct IoRecord {
  std::string session_id;
  std::string port_name;
  std::string direction;  // "tx", "rx" or "event"
  std::string bytes;      // the bytes on the wire, or the event's text
  std::optional<int64_t> latency_ms;
  // When the bytes went out or arrived (the first of them, for coalesced rx).
  std::optional<std::chrono::system_clock::time_point> occurred_at;
};

struct RecorderOptions {
  size_t queue_limit = 10000;
  int64_t call_timeout_ms = 2000;
  int64_t retry_initial_ms = 50;
  int64_t retry_max_ms = 1000;
};

class SessionRecorder {
 public:
  explicit SessionRecorder(RecorderOptions options);
  // Stops delivering; records still queued are counted lost.
  ~SessionRecorder();
  SessionRecorder(const SessionRecorder&) = delete;
  SessionRecorder& operator=(const SessionRecorder&) = delete;

  // Where to deliver. Until it is set, nothing can be recorded.
  void SetChannel(std::shared_ptr<grpc::Channel> channel) ABSL_LOCKS_EXCLUDED(mu_);
  bool enabled() const ABSL_LOCKS_EXCLUDED(mu_);
  // Waits up to `grace` for the queue to empty (at shutdown, so the last records land).
  void Drain(std::chrono::milliseconds grace) ABSL_LOCKS_EXCLUDED(mu_);

  // Never blocks on the network. False when the record is lost (queue full, or no
  // session service): the caller reports that its I/O was not recorded.
  bool Enqueue(IoRecord record) ABSL_LOCKS_EXCLUDED(mu_);

  struct PortCounts {
    int64_t pending = 0;
    int64_t lost = 0;
  };
  PortCounts CountsFor(const std::string& port_name) const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Queued {
    IoRecord record;
    std::string idempotency_key;
  };
  void Run() ABSL_LOCKS_EXCLUDED(mu_);
  // The append for one record: OK, retry later (true), or give up (false).
  bool Deliver(const Queued& queued, bool* retry) ABSL_LOCKS_EXCLUDED(mu_);
  void CountLost(const std::string& port_name, int64_t count, const std::string& why)
      ABSL_LOCKS_EXCLUDED(mu_);

  const RecorderOptions options_;
  const std::string instance_;  // keys stay unique across restarts of this process

  mutable absl::Mutex mu_;
  absl::CondVar wake_;
  absl::CondVar drained_;
  std::shared_ptr<session::v1::SessionService::Stub> stub_ ABSL_GUARDED_BY(mu_);
  std::deque<Queued> queue_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, PortCounts> counts_ ABSL_GUARDED_BY(mu_);
  uint64_t next_sequence_ ABSL_GUARDED_BY(mu_) = 1;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace labgate::serial
