// Ports touched by this gateway's own tool calls (a write changes a port's counters but
// sends no serial-service event), for subscriptions to labgate://ports/{name}.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace labgate::gateway {

class PortChanges {
 public:
  // `changed` runs (on the touching thread) for each Touch(port) until the handle goes.
  std::shared_ptr<void> Listen(const std::string& port, std::function<void()> changed);
  void Touch(const std::string& port);

 private:
  absl::Mutex mutex_;
  std::multimap<std::string, std::weak_ptr<std::function<void()>>> listeners_
      ABSL_GUARDED_BY(mutex_);
};

}  // namespace labgate::gateway
