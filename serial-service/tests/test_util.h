// Helpers for serial-service tests: a settable clock and a way to wait for the
// asynchronous port API.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <utility>

#include "serial-service/ports/clock.h"

namespace labgate::serial::testing {

class FakeClock : public Clock {
 public:
  int64_t NowMs() override { return now_ms_.load(); }
  void Advance(int64_t ms) { now_ms_ += ms; }

 private:
  std::atomic<int64_t> now_ms_{1'000'000};
};

// Calls `start(callback)`; the future holds the callback's value once it comes.
template <typename T>
std::future<T> Started(const std::function<void(std::function<void(T)>)>& start) {
  auto promise = std::make_shared<std::promise<T>>();
  std::future<T> future = promise->get_future();
  start([promise](T value) { promise->set_value(std::move(value)); });
  return future;
}

// Calls `start(callback)` and waits for the callback's value.
template <typename T>
T Await(const std::function<void(std::function<void(T)>)>& start) {
  return Started<T>(start).get();
}

}  // namespace labgate::serial::testing
