#include "gateway/resources/port_changes.h"

#include <vector>

namespace labgate::gateway {

std::shared_ptr<void> PortChanges::Listen(const std::string& port, std::function<void()> changed) {
  auto listener = std::make_shared<std::function<void()>>(std::move(changed));
  absl::MutexLock lock(&mutex_);
  listeners_.emplace(port, listener);
  return listener;
}

void PortChanges::Touch(const std::string& port) {
  std::vector<std::shared_ptr<std::function<void()>>> live;
  {
    absl::MutexLock lock(&mutex_);
    auto [begin, end] = listeners_.equal_range(port);
    for (auto it = begin; it != end;) {
      if (auto listener = it->second.lock()) {
        live.push_back(std::move(listener));
        ++it;
      } else {
        it = listeners_.erase(it);
      }
    }
  }
  for (const auto& listener : live) (*listener)();  // outside the lock: listeners may Listen
}

}  // namespace labgate::gateway
