// A profile's `simulation` section (issue 33's sim://MODEL) read into a SimulationSpec. The
// section is schema-checked with the rest of the profile (kSimulationSchema); here its
// patterns are compiled and its state is tied to the profile's declared quantities, whose
// units, ranges and SCPI headers the simulation uses.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "absl/status/statusor.h"
#include "serial-service/limits/quantity_limits.h"
#include "serial-service/sim/simulated_instrument.h"

namespace labgate::serial {

// The JSON Schema of the section (draft-07, closed), for the profile's schema.
nlohmann::json SimulationSchema();

// INVALID_ARGUMENT naming `simulation.…` and what is wrong: a bad pattern, a state entry for a
// quantity the profile does not declare (or declares without SCPI headers).
absl::StatusOr<SimulationSpec> SimulationFromJson(const nlohmann::json& section,
                                                  const std::vector<QuantitySpec>& quantities);

}  // namespace labgate::serial
