// Named instruments (--instruments FILE): one JSON file naming each device the lab has, the
// profile (model) it is, and how to find it wherever it is plugged in (a USB serial number, a
// /dev/serial/by-* link, the serial number its probe reply gives, or a fixed path). The file is
// checked against a schema that refuses unknown keys, then against the loaded profiles; an
// error names the file and what is wrong. Together with the profiles it forms the catalog that
// SIGHUP replaces as a whole.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "serial-service/instruments/instrument_profile.h"

namespace labgate::serial {

// How an instrument is found: exactly one of these per instrument.
struct InstrumentMatch {
  enum class Kind {
    kUsbSerial,  // the USB serial number of a listed port (which must fit the profile's USB ids)
    kByPath,     // a path that resolves to the device, e.g. /dev/serial/by-id/usb-...
    kIdnSerial,  // the group `serial` of the profile's probe reply
    kPortName,   // a fixed device path
  };
  Kind kind = Kind::kPortName;
  std::string value;
};

// The key the file spells `kind` with: "usb_serial", "by_path", "idn_serial", "port_name".
const char* MatchKindName(InstrumentMatch::Kind kind);

struct NamedInstrument {
  std::string name;     // "psu-2"
  std::string profile;  // a profile's model
  InstrumentMatch match;
  std::optional<std::string> bench;
  std::vector<std::string> tags;
};

// Profiles and instruments as loaded together; what SIGHUP replaces as a whole.
struct InstrumentCatalog {
  std::vector<std::shared_ptr<const InstrumentProfile>> profiles;
  std::vector<NamedInstrument> instruments;

  // Null: no profile has that model.
  const InstrumentProfile* ProfileFor(const std::string& model) const;
  // Null: no instrument has that name.
  const NamedInstrument* Find(const std::string& name) const;
};

// INVALID_ARGUMENT naming `source` and what is wrong: not JSON, a schema violation with its
// path, a bad name or path, a profile no model in `profiles` has, two instruments with one name
// or one match, an idn_serial whose profile's probe gives no serial.
absl::StatusOr<std::vector<NamedInstrument>> ParseInstrumentsFile(
    const std::string& json_text, const std::string& source,
    const std::vector<std::shared_ptr<const InstrumentProfile>>& profiles);

// The profiles in `profiles_dir` (--profiles; empty: none) and the instruments in
// `instruments_file` (--instruments; empty: none). An instruments file needs profiles.
// NOT_FOUND for a directory or file that cannot be read; otherwise the parsers' errors.
absl::StatusOr<std::shared_ptr<const InstrumentCatalog>> LoadInstrumentCatalog(
    const std::string& profiles_dir, const std::string& instruments_file);
// --check-config's line for the two files ("instruments: 2 profile(s), 3 named instrument(s)"),
// or the error that loading them gives.
absl::StatusOr<std::string> CheckInstrumentFiles(const std::string& profiles_dir,
                                                 const std::string& instruments_file);

}  // namespace labgate::serial
