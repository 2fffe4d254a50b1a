#include "session-service/store/event_hub.h"

#include <utility>

#include "absl/synchronization/mutex.h"

namespace labgate::session {

uint64_t EventHub::Subscribe(std::string session_id, EventCallback callback) {
  absl::MutexLock lock(&mu_);
  uint64_t id = next_id_++;
  subscribers_.emplace(id, Subscriber{std::move(session_id), std::move(callback)});
  return id;
}

void EventHub::Unsubscribe(uint64_t id) {
  absl::MutexLock lock(&mu_);
  subscribers_.erase(id);
}

void EventHub::Publish(const SessionEventRecord& event) {
  absl::MutexLock lock(&mu_);
  for (auto& [id, subscriber] : subscribers_) {
    if (subscriber.session_id.empty() || subscriber.session_id == event.session.id) {
      subscriber.callback(event);
    }
  }
}

size_t EventHub::subscriber_count() const {
  absl::MutexLock lock(&mu_);
  return subscribers_.size();
}

}  // namespace labgate::session
