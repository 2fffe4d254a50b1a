// Monotonic milliseconds, injectable so that idle auto-close and the metrics'
// durations can be tested without sleeping.
#pragma once

#include <cstdint>

namespace labgate::serial {

class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds on a monotonic scale with an arbitrary origin.
  virtual int64_t NowMs() = 0;
};

// The process-wide steady clock. Never null, never destroyed.
Clock* SystemClock();

}  // namespace labgate::serial
