// An instrument profile's readings: named numbers with units found in the replies to queries
// ("voltage" 4.9 V in the reply "4.900" to "MEAS:VOLT?"), returned with the query and recorded in
// the port's session, for records and plots.
#pragma once

#include <vector>

#include "absl/strings/string_view.h"
#include "serial-service/instruments/instrument_profile.h"
#include "serial-service/ports/managed_port.h"

namespace labgate::serial {

// Each reading whose `command` matches `command` (or that has none) and whose pattern finds a
// value in `reply`, the value read as a quantity in the reading's unit ("4900mV" is 4.9 V). A
// value that is no number is left out.
std::vector<ReplyReading> ReadingsIn(const InstrumentProfile& profile, absl::string_view command,
                                     absl::string_view reply);

}  // namespace labgate::serial
