#include "gateway/principals/principal.h"

#include "gateway/core/gateway_metrics.h"

namespace labgate::gateway {

Principal::Principal(std::string name, std::string owner_id, const char* transport, Clock clock)
    : name_(std::move(name)),
      owner_id_(std::move(owner_id)),
      transport_(transport),
      clock_(clock ? std::move(clock) : [] { return std::chrono::steady_clock::now(); }) {
  Touch();
  GatewayMetrics::Get().principals.With({transport_}).Increment();
}

Principal::~Principal() { GatewayMetrics::Get().principals.With({transport_}).Decrement(); }

std::shared_ptr<void> Principal::Hold(const std::string& key,
                                      const std::function<std::shared_ptr<void>()>& make) {
  absl::MutexLock lock(&mutex_);
  std::shared_ptr<void>& held = held_[key];
  if (held == nullptr) held = make();
  return held;
}

void Principal::Release() {
  std::map<std::string, std::shared_ptr<void>> released;
  {
    absl::MutexLock lock(&mutex_);
    released.swap(held_);
  }
  // Destroyed outside the lock: a lease's end may call back into gRPC.
}

bool Principal::holds_anything() const {
  absl::MutexLock lock(&mutex_);
  return !held_.empty();
}

void Principal::Touch() {
  last_active_.store(clock_().time_since_epoch().count(), std::memory_order_relaxed);
}

std::shared_ptr<void> Principal::Busy() {
  busy_.fetch_add(1, std::memory_order_acq_rel);
  Touch();
  // The handle keeps the principal: it may outlive the connection that asked.
  return std::shared_ptr<void>(nullptr, [self = shared_from_this()](void*) {
    self->Touch();
    self->busy_.fetch_sub(1, std::memory_order_acq_rel);
  });
}

std::chrono::steady_clock::time_point Principal::last_active() const {
  return std::chrono::steady_clock::time_point(
      std::chrono::steady_clock::duration(last_active_.load(std::memory_order_relaxed)));
}

}  // namespace labgate::gateway
