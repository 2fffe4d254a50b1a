// Fans committed session changes out to in-process subscribers (WatchSession streams).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "session-service/store/session_store.h"

namespace labgate::session {

class EventHub {
 public:
  uint64_t Subscribe(std::string session_id, EventCallback callback);
  // Holding the lock while publishing is what guarantees no callback runs after this
  // returns; callbacks therefore must never call back into the hub.
  void Unsubscribe(uint64_t id);
  void Publish(const SessionEventRecord& event);
  size_t subscriber_count() const;

 private:
  struct Subscriber {
    std::string session_id;  // empty = every session
    EventCallback callback;
  };
  mutable absl::Mutex mu_;
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<uint64_t, Subscriber> subscribers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace labgate::session
