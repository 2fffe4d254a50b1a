// An instrument simulated from its profile's `simulation` section (issue 33's sim://NAME): lines
// in, replies out, with state. Pure logic with time passed in; the sim:// backend feeds it what
// is written and hands back what it says.
//
// A line is read as SCPI with labgate's own reader (limits/scpi_message), so it understands what
// the profile's limits understand:
//   - a setter of a state quantity (one of its SCPI headers, e.g. `SOUR1:VOLT 4.9`, `volt
//     4900mV`) updates it; out of its range, or not a number, it is refused into the error queue;
//   - the same header with '?' (or `MEASure:` before it) answers the value, with bounded noise;
//   - `SYSTem:ERRor[:NEXT]?` pops the error queue (`0,"No error"` when empty);
//   - otherwise the first response whose pattern matches the whole line answers with its reply
//     (`{serial}` and `{<quantity>}` are filled in), after its delay, or pushes its error;
//   - anything else pushes -113,"Undefined header".
// A DTR pulse (released, then asserted) reboots it when the profile says so: the state returns
// to its initial values, the error queue empties, and the banner is printed again.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/byte_pattern.h"
#include "serial-service/limits/scpi_header_pattern.h"
#include "serial-service/limits/scpi_message.h"
#include "serial-service/limits/scpi_quantity.h"
#include "serial-service/sim/scripted_device.h"

namespace labgate::serial {

struct SimulationSpec {
  struct Response {
    std::string match_text;
    CompiledPattern match;  // RE2, on the whole received line
    std::string reply;      // template; empty: no reply
    int64_t delay_ms = 0;
    std::optional<std::string> error;  // pushed to the error queue instead of replying
  };
  struct Quantity {
    std::string name, unit;  // "voltage", "V"
    double initial = 0;
    QuantityRange range;
    std::vector<ScpiHeaderPattern> headers;  // where it is set and read
    double noise = 0;                        // readings vary by at most this much
  };
  // An on/off state, such as a supply's output: `OUTP ON|OFF|1|0` sets it, `OUTP?` answers 1 or
  // 0; anything else as its parameter is an illegal value.
  struct Switch {
    std::string name;  // "output"
    bool initial = false;
    std::vector<ScpiHeaderPattern> headers;
  };
  std::string serial = "SIM0001";
  std::string banner;  // printed at open and after a reboot
  std::string terminator = "\n";
  std::vector<Response> responses;
  std::vector<Quantity> quantities;
  std::vector<Switch> switches;
  bool reboot_on_dtr_pulse = false;
  static constexpr size_t kMaxErrors = 32;  // as instruments do, the oldest go first
};

class SimulatedInstrument : public ScriptedDevice {
 public:
  explicit SimulatedInstrument(const SimulationSpec& spec, uint32_t noise_seed = 1);

  // Prints its banner.
  absl::Status Open(Clock::time_point now) override;
  // Bytes written to it; complete lines are answered.
  void Receive(absl::string_view bytes, Clock::time_point now) override;
  // DTR as the host drives it: released and then asserted again is a reboot, if the profile
  // says so.
  void SetDtr(bool asserted, Clock::time_point now) override;
  // What it has said that is due by `now`, removed from its output.
  std::string TakeDue(Clock::time_point now) override;
  // When its next output is due; nullopt when nothing is pending.
  std::optional<Clock::time_point> NextDue() const override;

  // For tests and replay_status-like views.
  double Value(const std::string& quantity, int channel = 1) const;
  bool SwitchOn(const std::string& name, int channel = 1) const;
  size_t ErrorCount() const { return errors_.size(); }

 private:
  void HandleLine(absl::string_view line, Clock::time_point now);
  void Say(std::string text, Clock::time_point at);
  void PushError(std::string error);
  void Reset();
  std::string Fill(const std::string& reply) const;
  std::string Reading(const SimulationSpec::Quantity& quantity, int channel);
  // A command on one of the switches: true when it was one (answered or refused).
  bool HandleSwitch(const ScpiCommand& command, const ScpiNodes& nodes,
                    std::vector<std::string>* replies);

  const SimulationSpec spec_;
  std::string partial_;  // received, not yet a line
  std::map<std::pair<std::string, int>, double> values_;
  std::map<std::pair<std::string, int>, bool> switches_;
  std::deque<std::string> errors_;
  std::multimap<Clock::time_point, std::string> output_;
  bool dtr_ = true;
  std::mt19937 noise_;
};

}  // namespace labgate::serial
