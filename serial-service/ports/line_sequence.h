// Scripts and named sequences: the steps send_expect runs, and the sequences run_sequence runs
// by name, whether the policy offers them or the port was opened with them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace labgate::serial {

// What a port rule (or a sequence) lets callers do with the control lines.
enum class SignalsRule { kAllow, kDeny, kConfirm };

// The policy file's spelling: "allow", "deny", "confirm".
const char* SignalsRuleName(SignalsRule rule);

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

// A named sequence, e.g. "reset" (DTR low 100 ms) or "bootloader". The policy's may carry a
// `signals` rule that replaces the port rule's for it, so an operator can allow the reset
// sequence on a port whose lines are otherwise denied or confirmed; a port's own sequences
// (given at open) never do.
struct LineSequence {
  std::string name;
  std::vector<ScriptStepSpec> steps;
  std::optional<SignalsRule> signals;
  bool DrivesLines() const;
};

inline constexpr size_t kMaxSequenceSteps = 32;

// INVALID_ARGUMENT, naming `where` (e.g. "ports[0].sequences.reset.steps[1]"), unless the step
// is exactly one kind, has a level with its signal, and ranges in bounds; and, with
// `check_patterns`, its expect patterns are RE2 (a caller that compiles them itself, as
// literals or bytes, leaves that to itself).
absl::Status ValidateStep(const ScriptStepSpec& step, const std::string& where,
                          bool check_patterns = true);
// A sequence's name: 1 to 64 letters, digits, '_', '.' and '-'.
absl::Status ValidateSequenceName(const std::string& name, const std::string& where);

// The steps as a person asked to approve them reads them: "DTR low for 100 ms; wait 50 ms".
std::string DescribeSteps(const std::vector<ScriptStepSpec>& steps);

}  // namespace labgate::serial
