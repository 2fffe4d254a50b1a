// Waiting for a condition with a generous deadline, polled, instead of a fixed sleep: tests
// must pass on a slow, loaded machine.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace labgate::gateway::testing {

inline bool Eventually(const std::function<bool()>& condition,
                       std::chrono::seconds within = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace labgate::gateway::testing
