// Instrument profiles (--profiles DIR): one JSON file per instrument model, saying how to know
// the instrument (USB ids, an identification probe), how to talk to it (default port settings),
// what it may be told (quantity limits), its named sequences, and how to read numbers out of its
// replies. Each file is checked against a schema that refuses unknown keys; an error names the
// file and the key. The format is in docs/OPERATIONS.md, "Instrument profiles".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/byte_pattern.h"
#include "serial-service/limits/quantity_limits.h"
#include "serial-service/ports/line_sequence.h"
#include "serial-service/sim/simulated_instrument.h"

namespace labgate::serial {

struct InstrumentProfile {
  std::string model;
  std::string source;  // the file it came from

  struct UsbMatch {
    std::optional<std::string> vid, pid, manufacturer, product;  // vid/pid as "0x1ab1"
  };
  std::optional<UsbMatch> usb;
  // Sent on open; the reply must match. A group named `serial` is the instrument's serial
  // number (what an instrument's idn_serial is compared with).
  struct Probe {
    std::string command = "*IDN?";
    std::string reply;
    CompiledPattern compiled;
  };
  std::optional<Probe> probe;

  // Default port settings; open_port's own arguments override them.
  struct Settings {
    std::optional<int64_t> baud_rate, data_bits, stop_bits, timeout_ms;
    std::optional<std::string> parity, flow_control, terminator;
  };
  Settings settings;
  std::vector<std::string> tags;
  std::shared_ptr<const QuantityLimits> limits;  // null: no limits
  std::vector<LineSequence> sequences;

  // Named numbers in replies, for records and plots: the pattern's group `value` (with a unit
  // suffix, if any) in `unit`, in replies to queries whose command `command` matches (any
  // query when it is empty).
  struct Reading {
    std::string name, unit, pattern, command;
    CompiledPattern compiled, command_compiled;
  };
  std::vector<Reading> readings;

  // How sim://MODEL behaves (issue 33); absent: the model is not simulated.
  std::optional<SimulationSpec> simulation;
};

// INVALID_ARGUMENT naming `source` and what is wrong: not JSON, a schema violation with its
// path, a bad regex or header, a limit on an undeclared quantity.
absl::StatusOr<InstrumentProfile> ParseInstrumentProfile(const std::string& json_text,
                                                         const std::string& source);
// Every *.json file in `directory`, in name order; two files with one model are refused.
absl::StatusOr<std::vector<InstrumentProfile>> LoadInstrumentProfiles(const std::string& directory);

}  // namespace labgate::serial
