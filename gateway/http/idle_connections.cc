#include "gateway/http/idle_connections.h"

namespace labgate::gateway::http {

uint64_t IdleConnections::Join() {
  absl::MutexLock lock(&mutex_);
  return ++next_ticket_;
}

void IdleConnections::Idle(uint64_t ticket, std::weak_ptr<HttpConnection> connection) {
  absl::MutexLock lock(&mutex_);
  if (chosen_.contains(ticket)) return;
  if (auto found = where_.find(ticket); found != where_.end()) {
    idle_.erase(found->second);
    where_.erase(found);
  }
  where_[ticket] = idle_.insert(idle_.end(), Entry(ticket, std::move(connection)));
}

bool IdleConnections::Busy(uint64_t ticket) {
  absl::MutexLock lock(&mutex_);
  if (chosen_.contains(ticket)) return false;
  if (auto found = where_.find(ticket); found != where_.end()) {
    idle_.erase(found->second);
    where_.erase(found);
  }
  return true;
}

void IdleConnections::Leave(uint64_t ticket) {
  absl::MutexLock lock(&mutex_);
  chosen_.erase(ticket);
  if (auto found = where_.find(ticket); found != where_.end()) {
    idle_.erase(found->second);
    where_.erase(found);
  }
}

std::shared_ptr<HttpConnection> IdleConnections::ChooseOldest() {
  absl::MutexLock lock(&mutex_);
  while (!idle_.empty()) {
    auto [ticket, weak] = std::move(idle_.front());
    idle_.pop_front();
    where_.erase(ticket);
    // A connection being destroyed has not left yet; the next one is taken instead.
    if (auto connection = weak.lock()) {
      chosen_.insert(ticket);
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
