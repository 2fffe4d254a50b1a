// The HTTP connections with no request in progress, oldest idle first. At the connection
// cap the server closes the one idle longest to admit a new client, so idle sockets cannot
// lock others out. Thread-safe; connections report from their strands, the acceptor asks.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace labgate::gateway::http {

class HttpConnection;

class IdleConnections {
 public:
  // A number that names one connection here for its whole life.
  uint64_t Join();
  // The connection waits for a request: it becomes the newest idle one.
  void Idle(uint64_t ticket, std::weak_ptr<HttpConnection> connection) ABSL_LOCKS_EXCLUDED(mutex_);
  // The connection starts reading a request. False when the server already chose it to be
  // closed: it must not read, and closes.
  bool Busy(uint64_t ticket) ABSL_LOCKS_EXCLUDED(mutex_);
  // The connection closed.
  void Leave(uint64_t ticket) ABSL_LOCKS_EXCLUDED(mutex_);
  // Chooses the connection idle longest to be closed (it can no longer become busy) and
  // returns it; null when none is idle.
  std::shared_ptr<HttpConnection> ChooseOldest() ABSL_LOCKS_EXCLUDED(mutex_);
  size_t idle_count() const ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  using Entry = std::pair<uint64_t, std::weak_ptr<HttpConnection>>;

  mutable absl::Mutex mutex_;
  uint64_t next_ticket_ ABSL_GUARDED_BY(mutex_) = 0;
  std::list<Entry> idle_ ABSL_GUARDED_BY(mutex_);  // oldest first
  std::unordered_map<uint64_t, std::list<Entry>::iterator> where_ ABSL_GUARDED_BY(mutex_);
  std::unordered_set<uint64_t> chosen_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace labgate::gateway::http
