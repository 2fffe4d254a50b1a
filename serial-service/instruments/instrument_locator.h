// Where a named instrument is now, from what the host lists (PortDetails, as libserialport's
// sp_list_ports answers) and the filesystem. The locator does no other I/O: an instrument found
// by its probe reply (idn_serial) comes back as the ports to probe, and the caller probes them
// with ProbeReplyMatches / SerialInProbeReply.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "serial-service/backends/serial_port.h"
#include "serial-service/instruments/instrument_catalog.h"
#include "serial-service/instruments/instrument_profile.h"

namespace labgate::serial {

struct InstrumentLocation {
  std::optional<std::string> path;            // found: open this
  std::vector<std::string> probe_candidates;  // idn_serial: the ports to probe, in order
  std::string absent_reason;  // neither: why ("no listed port has USB serial 'A10K1234'")
};

// `profile` is the one `instrument.profile` names.
//  - usb_serial: the one listed port with that serial number that fits the profile's USB ids.
//  - by_path: where the path resolves to (symlinks followed); absent when it does not resolve.
//  - port_name: the path itself, when it exists.
//  - idn_serial: the listed ports that fit the profile's USB ids, as candidates.
InstrumentLocation LocateInstrument(const NamedInstrument& instrument,
                                    const InstrumentProfile& profile,
                                    const std::vector<PortDetails>& listed);

// Whether a listed port fits the profile's match.usb: vid and pid compare as numbers,
// manufacturer and product exactly. True when the profile has no USB match.
bool FitsUsbMatch(const InstrumentProfile& profile, const PortDetails& port);

// Whether two names reach one device: the same name, or two device nodes (a udev link, a
// second spelling of the path, another node made for it) of one character device.
bool SameDevice(const std::string& a, const std::string& b);

// The device node a port name reaches, with links and spellings (`//`, `.`, `..`) resolved, so
// that reservations, instruments and the registry see one device under every name. Names that
// are not paths (loop://, sim://), and paths that do not exist, stay as they are.
std::string DevicePathOf(const std::string& name);

// Whether `reply` matches the profile's probe reply pattern; false when it has no probe.
bool ProbeReplyMatches(const InstrumentProfile& profile, absl::string_view reply);

// The group `serial` of the profile's probe reply pattern in `reply`; nullopt when the profile
// has no probe or no such group, or the reply does not match.
std::optional<std::string> SerialInProbeReply(const InstrumentProfile& profile,
                                              absl::string_view reply);

}  // namespace labgate::serial
