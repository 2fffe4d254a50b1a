// Numeric parameters of SCPI commands in the quantity a limit speaks of: "12", "12 V",
// "12000mV", "1.2e1", "MAX". IEEE 488.2 §7.7.3 (<SUFFIX PROGRAM DATA>) gives the suffixes:
// a unit, optionally after a multiplier, compared without regard to case. So "M" is milli and
// mega is "MA": "MV" is millivolts, "MAV" megavolts, and "MA" for a current is milliamps. The
// same table's note makes "MHZ" and "MOHM" megahertz and megaohms.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace labgate::serial {

// What MIN, MAX and DEF stand for on a given header (the instrument profile declares them).
struct QuantityRange {
  std::optional<double> min, max, def;
};

// `parameter` in units of `unit` ("V", "A", "W", "HZ", "OHM", "S": upper case). INVALID_ARGUMENT
// naming the parameter for anything else: another unit, a multiplier unknown to IEEE 488.2,
// MIN/MAX/DEF with nothing declared for them, text that is not a number, NaN or infinity.
absl::StatusOr<double> ParseQuantity(absl::string_view parameter, absl::string_view unit,
                                     const QuantityRange& range = {});

// "12 V", "0.5 A", "1e+06 HZ": a value and its unit as refusals name them.
std::string FormatQuantity(double value, absl::string_view unit);

}  // namespace labgate::serial
