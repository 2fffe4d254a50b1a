#include "gateway/dialects/mcp_stateless/listen_gate.h"

#include <atomic>
#include <memory>

namespace labgate::gateway::stateless {

std::function<void()> ListenGate::AwaitOne() {
  {
    absl::MutexLock lock(&mutex_);
    ++waiting_;
  }
  auto reported = std::make_shared<std::atomic<bool>>(false);
  return [gate = shared_from_this(), reported] {
    if (reported->exchange(true)) return;
    absl::MutexLock lock(&gate->mutex_);
    gate->ReadyOne();
  };
}

void ListenGate::Arm(nlohmann::json acknowledged) {
  absl::MutexLock lock(&mutex_);
  acknowledgement_ = std::move(acknowledged);
  ReadyOne();
}

void ListenGate::ReadyOne() {
  if (--waiting_ > 0 || closed_) return;
  // Sent under the lock so that nothing delivered meanwhile can overtake what was held.
  send_("notifications/subscriptions/acknowledged", {{"notifications", acknowledgement_}});
  for (auto& [method, body] : held_) send_(method, std::move(body));
  held_.clear();
  open_ = true;
}

void ListenGate::Deliver(const std::string& method, nlohmann::json body) {
  absl::MutexLock lock(&mutex_);
  if (closed_) return;
  if (open_) return send_(method, std::move(body));
  held_.emplace_back(method, std::move(body));
}

void ListenGate::Close() {
  absl::MutexLock lock(&mutex_);
  closed_ = true;
  held_.clear();
}

}  // namespace labgate::gateway::stateless
