// The HTTP connections with no request in progress, oldest idle first. At the connection
// cap the server closes the one idle longest to admit a new client, so idle sockets cannot
// lock others out. Thread-safe; connections report from their strands, the acceptor asks.
// Each connection's entry is allocated once, when it joins; going idle and busy only moves
// the entry between two lists.
#pragma once

#include <list>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace labgate::gateway::http {

class HttpConnection;

class IdleConnections {
 private:
  struct Entry {
    std::weak_ptr<HttpConnection> connection;
    bool idle = false;
    bool chosen = false;  // to be closed: it may not become busy again
  };

 public:
  using Ticket = std::list<Entry>::iterator;

  // A new connection: idle (connected and silent) until it reports Busy.
  Ticket Join(std::weak_ptr<HttpConnection> connection) ABSL_LOCKS_EXCLUDED(mutex_);
  // The connection waits for a request: it becomes the newest idle one.
  void Idle(Ticket ticket) ABSL_LOCKS_EXCLUDED(mutex_);
  // The connection starts reading a request. False when the server already chose it to be
  // closed: it must not read, and closes.
  bool Busy(Ticket ticket) ABSL_LOCKS_EXCLUDED(mutex_);
  // The connection is gone; the ticket is then invalid.
  void Leave(Ticket ticket) ABSL_LOCKS_EXCLUDED(mutex_);
  // Chooses the connection idle longest to be closed (it can no longer become busy) and
  // returns it; null when none is idle.
  std::shared_ptr<HttpConnection> ChooseOldest() ABSL_LOCKS_EXCLUDED(mutex_);
  size_t idle_count() const ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  mutable absl::Mutex mutex_;
  std::list<Entry> idle_ ABSL_GUARDED_BY(mutex_);  // oldest first
  std::list<Entry> busy_ ABSL_GUARDED_BY(mutex_);  // and chosen ones
};

}  // namespace labgate::gateway::http
