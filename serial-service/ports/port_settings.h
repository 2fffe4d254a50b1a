// Argument validation and conversion between the proto messages and PortSettings.
// Every rejection is INVALID_ARGUMENT naming the field and the values allowed.
#pragma once

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "labgate/serial/v1/serial.pb.h"
#include "serial-service/backends/serial_port.h"

namespace labgate::serial {

inline constexpr int64_t kMaxBaudRate = 4'000'000;
inline constexpr int64_t kMaxTimeoutMs = 600'000;
inline constexpr int64_t kDefaultTimeoutMs = 1000;
inline constexpr int64_t kDefaultReadBytes = 1024;
// The terminator is appended after the limits have checked a write, so it must not be able
// to carry a command: at most 4 bytes, each a control character (0x00-0x1F).
inline constexpr size_t kMaxTerminatorBytes = 4;

absl::StatusOr<PortSettings> SettingsFromOpenRequest(const v1::OpenPortRequest& request);
// `current` with the request's present fields applied.
absl::StatusOr<PortSettings> ApplyReconfigure(const PortSettings& current,
                                              const v1::ReconfigurePortRequest& request);
void SettingsToProto(const PortSettings& settings, v1::PortSettings* out);
// A script step as the contract spells it; `send` as given (text; callers decode other
// encodings themselves).
ScriptStepSpec StepFromProto(const v1::ScriptStep& given);
v1::Transport TransportToProto(Transport transport);

// INVALID_ARGUMENT naming `field` unless `terminator` is one a port may use ("" is none).
absl::Status ValidateTerminator(absl::string_view terminator, absl::string_view field);
// Checks a per-call timeout_ms override (0..600000).
absl::Status ValidateTimeout(int64_t timeout_ms);
// Checks read's max_bytes (1..65536).
absl::Status ValidateMaxBytes(int64_t max_bytes);

}  // namespace labgate::serial
