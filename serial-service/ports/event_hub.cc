#include "serial-service/ports/event_hub.h"

#include <algorithm>

namespace labgate::serial {

void EventHub::Subscribe(const std::string& port_name, std::shared_ptr<PortEventSink> sink) {
  absl::MutexLock lock(&mu_);
  sinks_[port_name].push_back(std::move(sink));
}

void EventHub::Unsubscribe(const std::string& port_name, const PortEventSink* sink) {
  absl::MutexLock lock(&mu_);
  auto it = sinks_.find(port_name);
  if (it == sinks_.end()) return;
  auto& list = it->second;
  list.erase(std::remove_if(list.begin(), list.end(),
                            [sink](const std::shared_ptr<PortEventSink>& entry) {
                              return entry.get() == sink;
                            }),
             list.end());
  if (list.empty()) sinks_.erase(it);
}

bool EventHub::HasSubscribers(const std::string& port_name) const {
  absl::MutexLock lock(&mu_);
  return sinks_.count(port_name) != 0;
}

void EventHub::Publish(const PortEventRecord& event) {
  std::vector<std::shared_ptr<PortEventSink>> targets;
  {
    absl::MutexLock lock(&mu_);
    if (auto it = sinks_.find(event.port_name); it != sinks_.end()) targets = it->second;
    if (event.type != PortEventRecord::Type::kData &&
        event.type != PortEventRecord::Type::kWritten) {
      if (auto it = sinks_.find(kEveryPort); it != sinks_.end()) {
        targets.insert(targets.end(), it->second.begin(), it->second.end());
      }
    }
  }
  for (const auto& sink : targets) sink->OnPortEvent(event);
}

}  // namespace labgate::serial
