#include "serial-service/ports/event_hub.h"

#include <algorithm>

namespace labgate::serial {

void EventHub::Subscribe(const std::string& port_name, std::shared_ptr<PortEventSink> sink,
                         bool wants_traffic) {
  absl::MutexLock lock(&mu_);
  sinks_[port_name].push_back({std::move(sink), wants_traffic && port_name != kEveryPort});
}

void EventHub::Unsubscribe(const std::string& port_name, const PortEventSink* sink) {
  absl::MutexLock lock(&mu_);
  auto it = sinks_.find(port_name);
  if (it == sinks_.end()) return;
  auto& list = it->second;
  list.erase(std::remove_if(list.begin(), list.end(),
                            [sink](const Subscriber& entry) { return entry.sink.get() == sink; }),
             list.end());
  if (list.empty()) sinks_.erase(it);
}

bool EventHub::HasSubscribers(const std::string& port_name) const {
  absl::MutexLock lock(&mu_);
  return sinks_.contains(port_name);
}

bool EventHub::WantsTraffic(const std::string& port_name) const {
  absl::MutexLock lock(&mu_);
  auto it = sinks_.find(port_name);
  return it != sinks_.end() &&
         std::any_of(it->second.begin(), it->second.end(),
                     [](const Subscriber& entry) { return entry.wants_traffic; });
}

void EventHub::Publish(const PortEventRecord& event) {
  const bool traffic =
      event.type == PortEventRecord::Type::kData || event.type == PortEventRecord::Type::kWritten;
  std::vector<std::shared_ptr<PortEventSink>> targets;
  {
    absl::MutexLock lock(&mu_);
    for (const std::string& name : {event.port_name, std::string(kEveryPort)}) {
      auto it = sinks_.find(name);
      if (it == sinks_.end()) continue;
      for (const Subscriber& entry : it->second) {
        if (!traffic || entry.wants_traffic) targets.push_back(entry.sink);
      }
    }
  }
  for (const auto& sink : targets) sink->OnPortEvent(event);
}

}  // namespace labgate::serial
