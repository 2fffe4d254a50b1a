// Keeps labgate_backend_up and labgate_backend_reconnects_total true: every backend (each
// serial bench on its own) is asked grpc.health.v1 Check every period, on a thread of its
// own, since waiting on a backend is blocking by design. A backend that answers again after
// being seen down counts one reconnect.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gateway/backends/backend_channels.h"

namespace labgate::gateway {

class BackendWatch {
 public:
  static std::unique_ptr<BackendWatch> Start(
      const BackendChannels& channels,
      std::chrono::milliseconds period = std::chrono::milliseconds(2000));
  ~BackendWatch();  // stops and joins

 private:
  struct Target {
    std::string service;  // session, serial or actions
    std::string bench;    // the bench's name; "" when unbenched (or the unnamed bench)
    std::shared_ptr<grpc::Channel> channel;
    int last = -1;  // -1 not yet checked, 0 down, 1 up
  };

  BackendWatch(std::vector<Target> targets, std::chrono::milliseconds period);
  void Run();
  void Check(Target& target);

  std::vector<Target> targets_;  // the watching thread's
  const std::chrono::milliseconds period_;
  absl::Notification stop_;
  std::thread thread_;
};

}  // namespace labgate::gateway
