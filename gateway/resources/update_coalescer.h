// Rate-limits resource update notices: a port's DATA events or counters can change many
// times a second, and a subscriber needs only to know that it should read again.
#pragma once

#include <grpcpp/alarm.h>

#include <chrono>
#include <functional>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace labgate::gateway {

// Calls `fire` at most once per `interval`. A Trigger() inside the interval is merged with
// any others into one call at the interval's end (a gRPC alarm; nothing waits or sleeps).
class UpdateCoalescer : public std::enable_shared_from_this<UpdateCoalescer> {
 public:
  static std::shared_ptr<UpdateCoalescer> Create(std::chrono::milliseconds interval,
                                                 std::function<void()> fire);
  UpdateCoalescer(std::chrono::milliseconds interval, std::function<void()> fire)
      : interval_(interval), fire_(std::move(fire)) {}

  void Trigger();
  // No call after Stop() returns, except one already running.
  void Stop();

 private:
  void OnAlarm(bool ok);

  const std::chrono::milliseconds interval_;
  const std::function<void()> fire_;
  absl::Mutex mutex_;
  bool stopped_ ABSL_GUARDED_BY(mutex_) = false;
  bool pending_ ABSL_GUARDED_BY(mutex_) = false;
  std::chrono::steady_clock::time_point last_fire_ ABSL_GUARDED_BY(mutex_);
  std::unique_ptr<grpc::Alarm> alarm_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace labgate::gateway
