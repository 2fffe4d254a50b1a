// Monotonic milliseconds, injectable so that idle auto-close and the metrics'
// durations can be tested without sleeping.
#pragma once

#include <chrono>
#include <cstdint>

namespace labgate::serial {

class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds on a monotonic scale with an arbitrary origin.
  virtual int64_t NowMs() = 0;
};

// Whole milliseconds since `started` on std::chrono::steady_clock (latencies in results).
inline int64_t MsSince(std::chrono::steady_clock::time_point started) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               started)
      .count();
}

// The process-wide steady clock. Never null, never destroyed.
Clock* SystemClock();

}  // namespace labgate::serial
