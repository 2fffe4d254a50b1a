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

namespace labgate::serial {

struct DataRule {
  std::string name;     // named in refusals
  std::string pattern;  // RE2, searched in the written bytes (each byte one character)
  CompiledPattern compiled;
};

// What a port rule (or a sequence) lets callers do with the control lines.
enum class SignalsRule { kAllow, kDeny, kConfirm };

// One step of a send_expect script or of a named sequence: exactly one of send, expect,
// delay_ms and signal (a line, its level, and ms: a pulse, or 0 to set it).
struct ScriptStepSpec {
  std::optional<std::string> send;
  std::vector<std::string> expect;
  std::optional<int64_t> timeout_ms;  // expect's
  std::optional<int64_t> delay_ms;
  std::optional<bool> signal_dtr;  // the signal step's line: DTR (true) or RTS
  std::optional<bool> level;
  std::optional<int64_t> ms;
};

// The steps as a person asked to approve them reads them: "DTR low for 100 ms; wait 50 ms".
std::string DescribeSteps(const std::vector<ScriptStepSpec>& steps);

// A named sequence the operator offers on matching ports, run by run_sequence: e.g. "reset"
// (DTR low 100 ms) or "bootloader". Its `signals` rule, when given, replaces the port rule's
// for this sequence, so an operator can allow the reset sequence on a port whose lines are
// otherwise denied or confirmed.
struct LineSequence {
  std::string name;
  std::vector<ScriptStepSpec> steps;
  std::optional<SignalsRule> signals;
  bool DrivesLines() const;
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

// The policy file's spelling: "allow", "deny", "confirm".
const char* SignalsRuleName(SignalsRule rule);

// INVALID_ARGUMENT naming what is wrong (schema violations with their JSON path, bad
// regexes with their rule).
absl::StatusOr<std::shared_ptr<const Policy>> ParsePolicy(const std::string& json_text,
                                                          const std::string& source);
absl::StatusOr<std::shared_ptr<const Policy>> LoadPolicyFile(const std::string& path);

}  // namespace labgate::serial
