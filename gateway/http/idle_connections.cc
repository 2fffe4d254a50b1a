#include "gateway/http/idle_connections.h"

#include <utility>

namespace labgate::gateway::http {

IdleConnections::Ticket IdleConnections::Join(std::weak_ptr<HttpConnection> connection) {
  absl::MutexLock lock(&mutex_);
  return idle_.insert(idle_.end(), Entry{std::move(connection), /*idle=*/true});
}

void IdleConnections::Idle(Ticket ticket) {
  absl::MutexLock lock(&mutex_);
  if (ticket->chosen) return;
  idle_.splice(idle_.end(), ticket->idle ? idle_ : busy_, ticket);
  ticket->idle = true;
}

bool IdleConnections::Busy(Ticket ticket) {
  absl::MutexLock lock(&mutex_);
  if (ticket->chosen) return false;
  if (ticket->idle) {
    busy_.splice(busy_.end(), idle_, ticket);
    ticket->idle = false;
  }
  return true;
}

void IdleConnections::Leave(Ticket ticket) {
  absl::MutexLock lock(&mutex_);
  (ticket->idle ? idle_ : busy_).erase(ticket);
}

std::shared_ptr<HttpConnection> IdleConnections::ChooseOldest() {
  absl::MutexLock lock(&mutex_);
  while (!idle_.empty()) {
    Ticket oldest = idle_.begin();
    busy_.splice(busy_.end(), idle_, oldest);
    oldest->idle = false;
    // A connection being destroyed has not left yet; the next one is taken instead.
    if (auto connection = oldest->connection.lock()) {
      oldest->chosen = true;
      return connection;
    }
  }
  return nullptr;
}

size_t IdleConnections::idle_count() const {
  absl::MutexLock lock(&mutex_);
  return idle_.size();
}

}  // namespace labgate::gateway::http
