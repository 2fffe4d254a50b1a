// The safety policy labgate-serial enforces (--policy FILE): which ports may be used,
// and what may be written to them. Parsed from JSON checked against a schema that
// rejects unknown keys; see docs/OPERATIONS.md for the format.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/byte_pattern.h"
#include "serial-service/ports/line_sequence.h"

namespace labgate::serial {

struct DataRule {
  std::string name;     // named in refusals
  std::string pattern;  // RE2, searched in the written bytes (each byte one character)
  CompiledPattern compiled;
};

struct PortRule {
  std::string match;  // glob on the port name (fnmatch), e.g. "/dev/ttyUSB*", "loop://*"
  bool allow = true;
  bool read_only = false;
  std::optional<int64_t> max_baud;
  std::vector<DataRule> deny;
  std::vector<DataRule> confirm;
  std::optional<double> max_writes_per_s;
  // "signals": "deny" keeps callers off DTR, RTS and break (reading the lines stays allowed);
  // "confirm" asks a person first, as a confirm rule does for a write.
  SignalsRule signals = SignalsRule::kAllow;
  std::vector<LineSequence> sequences;  // by name, in file order
  const LineSequence* SequenceNamed(const std::string& name) const;
};

struct Policy {
  std::vector<PortRule> ports;           // the first match applies; no match: not allowed
  bool show_denied = false;              // list ports that may not be opened, too
  std::set<std::string> confirm_exempt;  // owners whose writes skip `confirm` rules
  std::string source;                    // the file it came from, for messages

  const PortRule* RuleFor(const std::string& port_name) const;
};

// INVALID_ARGUMENT naming what is wrong (schema violations with their JSON path, bad
// regexes with their rule).
absl::StatusOr<std::shared_ptr<const Policy>> ParsePolicy(const std::string& json_text,
                                                          const std::string& source);
absl::StatusOr<std::shared_ptr<const Policy>> LoadPolicyFile(const std::string& path);

}  // namespace labgate::serial
