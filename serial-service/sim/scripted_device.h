// A device that exists only as logic with time passed in: a simulated instrument (sim://) or a
// recorded session played back (replay://). ScriptedPort puts one behind the SerialPort
// interface; everything above a port works on it unchanged.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace labgate::serial {

class ScriptedDevice {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~ScriptedDevice() = default;

  // The port opens: what it says on its own is scheduled. An error fails the open.
  virtual absl::Status Open(Clock::time_point now) = 0;
  // Bytes written to it.
  virtual void Receive(absl::string_view bytes, Clock::time_point now) = 0;
  // DTR as the host drives it.
  virtual void SetDtr(bool asserted, Clock::time_point now) = 0;
  // What it has said that is due by `now`, removed from its output.
  virtual std::string TakeDue(Clock::time_point now) = 0;
  // When its next output is due; nullopt when nothing is pending.
  virtual std::optional<Clock::time_point> NextDue() const = 0;
};

}  // namespace labgate::serial
