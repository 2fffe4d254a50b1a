// Helpers for the principal tests: a clock moved by hand, and a held thing that counts its
// release.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>

#include "gateway/principals/principal.h"

namespace labgate::gateway::testing {

class HandClock {
 public:
  Principal::Clock AsFunction() const {
    return [now = now_] {
      return std::chrono::steady_clock::time_point(
          std::chrono::steady_clock::duration(now->load()));
    };
  }
  std::chrono::steady_clock::time_point Now() const { return AsFunction()(); }
  void Advance(std::chrono::steady_clock::duration by) { now_->fetch_add(by.count()); }

 private:
  std::shared_ptr<std::atomic<std::chrono::steady_clock::rep>> now_ =
      std::make_shared<std::atomic<std::chrono::steady_clock::rep>>(
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::hours(1))
              .count());
};

// Something a principal holds (a lease, say); each release adds one to `*released`.
inline std::shared_ptr<void> CountedHolding(const std::shared_ptr<std::atomic<int>>& released) {
  return std::shared_ptr<void>(new int(0), [released](void* held) {
    delete static_cast<int*>(held);
    ++*released;
  });
}

}  // namespace labgate::gateway::testing
