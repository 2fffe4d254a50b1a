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

void InFlightCounter::Add() {
  absl::MutexLock lock(&mutex_);
  ++count_;
}

void InFlightCounter::Remove() {
  absl::MutexLock lock(&mutex_);
  --count_;
}

size_t InFlightCounter::count() const {
  absl::MutexLock lock(&mutex_);
  return count_;
}

bool InFlightCounter::WaitUntilIdle(std::chrono::milliseconds timeout) const {
  absl::MutexLock lock(&mutex_);
  auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return count_ == 0; };
  return mutex_.AwaitWithTimeout(absl::Condition(&idle), absl::FromChrono(timeout));
}

}  // namespace labgate::gateway
