// Knowing what answered: an instrument profile's probe (e.g. *IDN?) sent on a port, and its reply
// compared with what the profile and the named instrument expect. Used when an instrument is
// opened, when an idn_serial instrument is looked for, and when a lost one comes back.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "serial-service/backends/serial_port.h"
#include "serial-service/instruments/instrument_catalog.h"
#include "serial-service/instruments/instrument_profile.h"

namespace labgate::serial {

// Writes `command` and `terminator` to an open backend and reads lines (each without its
// terminator and trailing spaces) within `timeout_ms` until one is what `accept` wants: that
// line, or else the last line read (lines before an answer, such as a banner, are read past).
// DEADLINE_EXCEEDED when nothing came back.
absl::StatusOr<std::string> ProbeBackend(SerialPort& port, const std::string& command,
                                         const std::string& terminator, int64_t timeout_ms,
                                         const std::function<bool(const std::string&)>& accept);

// The reply with its line ending trimmed, as messages quote it.
std::string TrimmedReply(std::string reply);

// Whether `reply` is the instrument `named` expects: it matches the profile's probe pattern and,
// for an idn_serial match, its group `serial` is the instrument's. FAILED_PRECONDITION naming
// what was expected and what answered, at `path`.
absl::Status CheckIdentity(const NamedInstrument& named, const InstrumentProfile& profile,
                           const std::string& reply, const std::string& path);

}  // namespace labgate::serial
