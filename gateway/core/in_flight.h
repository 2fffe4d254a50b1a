// Counts the requests a connection has taken and not yet answered, so that draining can
// wait for "nothing in flight" as a signal instead of polling for it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace labgate::gateway {

class InFlightCounter {
 public:
  // Held while one request is in flight; its destruction counts the request answered.
  class Token {
   public:
    Token() = default;
    explicit Token(std::shared_ptr<InFlightCounter> counter);
    Token(Token&& other) noexcept : counter_(std::move(other.counter_)) {}
    Token& operator=(Token&& other) noexcept;
    Token(const Token&) = delete;
    Token& operator=(const Token&) = delete;
    ~Token() { Release(); }
    void Release();

   private:
    std::shared_ptr<InFlightCounter> counter_;
  };

  static std::shared_ptr<InFlightCounter> Create() { return std::make_shared<InFlightCounter>(); }

  // A token for one more request. (A static helper, so the token can share ownership.)
  static Token Enter(const std::shared_ptr<InFlightCounter>& counter) { return Token(counter); }

  // Lock-free: the fast path asks it for every message.
  size_t count() const { return count_.load(std::memory_order_acquire); }
  // Blocks until nothing is in flight or `timeout` passes; true when idle.
  bool WaitUntilIdle(std::chrono::milliseconds timeout) const;

 private:
  void Add() { count_.fetch_add(1, std::memory_order_acq_rel); }
  void Remove();

  std::atomic<size_t> count_{0};
  // Only a waiter and the request that empties the count take the lock.
  mutable absl::Mutex mutex_;
};

}  // namespace labgate::gateway
