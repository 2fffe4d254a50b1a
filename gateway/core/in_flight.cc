#include "gateway/core/in_flight.h"

#include "absl/time/time.h"

namespace labgate::gateway {

InFlightCounter::Token::Token(std::shared_ptr<InFlightCounter> counter)
    : counter_(std::move(counter)) {
  if (counter_) counter_->Add();
}

InFlightCounter::Token& InFlightCounter::Token::operator=(Token&& other) noexcept {
  if (this != &other) {
    Release();
    counter_ = std::move(other.counter_);
  }
  return *this;
}

void InFlightCounter::Token::Release() {
  if (counter_) counter_->Remove();
  counter_.reset();
}

void InFlightCounter::Remove() {
  if (count_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    // Taking the lock wakes a waiter, whose condition is re-evaluated on unlock.
    absl::MutexLock lock(&mutex_);
  }
}

bool InFlightCounter::WaitUntilIdle(std::chrono::milliseconds timeout) const {
  absl::MutexLock lock(&mutex_);
  auto idle = [this]() { return count_.load(std::memory_order_acquire) == 0; };
  return mutex_.AwaitWithTimeout(absl::Condition(&idle), absl::FromChrono(timeout));
}

}  // namespace labgate::gateway
