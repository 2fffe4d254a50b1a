#include "serial-service/ports/line_sequence.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/byte_pattern.h"

namespace labgate::serial {

const char* SignalsRuleName(SignalsRule rule) {
  switch (rule) {
    case SignalsRule::kDeny:
      return "deny";
    case SignalsRule::kConfirm:
      return "confirm";
    case SignalsRule::kAllow:
      break;
  }
  return "allow";
}

std::string DescribeSteps(const std::vector<ScriptStepSpec>& steps) {
  std::vector<std::string> parts;
  for (const ScriptStepSpec& step : steps) {
    if (step.send.has_value()) {
      parts.push_back(absl::StrCat("send \"", absl::CHexEscape(*step.send), "\""));
    } else if (!step.expect.empty()) {
      parts.push_back(absl::StrCat("expect /", absl::StrJoin(step.expect, "/ or /"), "/"));
    } else if (step.delay_ms.has_value()) {
      parts.push_back(absl::StrCat("wait ", *step.delay_ms, " ms"));
    } else if (step.signal_dtr.has_value()) {
      parts.push_back(absl::StrCat(
          *step.signal_dtr ? "DTR " : "RTS ", step.level.value_or(false) ? "high" : "low",
          step.ms.value_or(0) > 0 ? absl::StrCat(" for ", step.ms.value_or(0), " ms")
                                  : std::string()));
    }
  }
  return absl::StrJoin(parts, "; ");
}

bool LineSequence::DrivesLines() const {
  for (const ScriptStepSpec& step : steps) {
    if (step.signal_dtr.has_value()) return true;
  }
  return false;
}

absl::Status ValidateStep(const ScriptStepSpec& step, const std::string& where,
                          bool check_patterns) {
  const int kinds = (step.send.has_value() ? 1 : 0) + (step.expect.empty() ? 0 : 1) +
                    (step.delay_ms.has_value() ? 1 : 0) + (step.signal_dtr.has_value() ? 1 : 0);
  if (kinds != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, " must be exactly one of send, expect, delay_ms and signal (it has ", kinds, ")"));
  }
  if (step.signal_dtr.has_value() && !step.level.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ".level is required with signal"));
  }
  if (!step.signal_dtr.has_value() && (step.level.has_value() || step.ms.has_value())) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": level and ms go with signal"));
  }
  if (step.expect.empty() && step.timeout_ms.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": timeout_ms goes with expect"));
  }
  if (step.send.has_value() && step.send->empty()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ".send is empty"));
  }
  if (step.delay_ms.has_value() && (*step.delay_ms < 1 || *step.delay_ms > 10000)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ".delay_ms must be 1 to 10000, not ", *step.delay_ms));
  }
  if (step.ms.has_value() && (*step.ms < 0 || *step.ms > 10000)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ".ms must be 0 (set) to 10000, not ", *step.ms));
  }
  for (size_t i = 0; check_patterns && i < step.expect.size(); ++i) {
    absl::StatusOr<CompiledPattern> compiled = CompilePattern(
        step.expect[i], PatternInput::kUtf8, absl::StrCat(where, ".expect[", i, "]"));
    if (!compiled.ok()) return compiled.status();
  }
  return absl::OkStatus();
}

absl::Status ValidateSequenceName(const std::string& name, const std::string& where) {
  const bool valid =
      !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
        return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
               c == '-';
      });
  if (valid) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(where, ": the name '", name,
                   "' may hold only letters, digits, '_', '.' and '-' (1 to 64 of them)"));
}

}  // namespace labgate::serial
