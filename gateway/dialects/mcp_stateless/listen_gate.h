// What one subscriptions/listen stream sends, in the order the era requires: its
// acknowledgement first, and only once every resource watch behind it is registered (so a
// change made after the acknowledgement is never missed); whatever the watches and list
// listeners report before then is held and follows the acknowledgement.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace labgate::gateway::stateless {

// Made with std::make_shared: each readiness keeps the gate alive.
class ListenGate : public std::enable_shared_from_this<ListenGate> {
 public:
  using Send = std::function<void(const std::string& method, nlohmann::json body)>;
  explicit ListenGate(Send send) : send_(std::move(send)) {}

  // One more readiness to wait for; the returned function reports it (once; later calls do
  // nothing). Call before Arm.
  std::function<void()> AwaitOne();
  // Every readiness has been asked for: `acknowledged` goes out once they have all come.
  void Arm(nlohmann::json acknowledged);
  // Sends a notification, or holds it until the acknowledgement has gone.
  void Deliver(const std::string& method, nlohmann::json body);
  // The stream has ended: nothing more is sent, the acknowledgement included.
  void Close();

 private:
  void ReadyOne() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const Send send_;
  absl::Mutex mutex_;
  int waiting_ ABSL_GUARDED_BY(mutex_) = 1;  // the 1 is Arm's
  bool open_ ABSL_GUARDED_BY(mutex_) = false;
  bool closed_ ABSL_GUARDED_BY(mutex_) = false;
  nlohmann::json acknowledgement_ ABSL_GUARDED_BY(mutex_);
  std::vector<std::pair<std::string, nlohmann::json>> held_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace labgate::gateway::stateless
