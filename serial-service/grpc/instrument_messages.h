// Named instruments in SerialService messages: open_port {instrument} with its profile's
// settings filled in, and list_instruments' entries.
#pragma once

#include "absl/status/statusor.h"
#include "labgate/serial/v1/serial.pb.h"
#include "serial-service/backends/serial_port.h"
#include "serial-service/instruments/instrument_profile.h"
#include "serial-service/port_service.h"

namespace labgate::serial {

// The settings open_port {instrument} opens with: the profile's, and over them whatever the
// request gives (the profile's named sequences join the request's; the request's win by name).
absl::StatusOr<PortSettings> InstrumentSettingsFromOpenRequest(const v1::OpenPortRequest& request,
                                                               const InstrumentProfile& profile);

void InstrumentListingToProto(const InstrumentListing& listing, v1::InstrumentInfo* out);

}  // namespace labgate::serial
