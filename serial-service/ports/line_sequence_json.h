// Named sequences as configuration files write them (the policy's and instrument profiles'):
// {"reset": {"steps": [{"signal": "dtr", "level": false, "ms": 100}, {"delay_ms": 50}]}}.
// The schema has checked the keys and types; these check the rest (ValidateStep).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "absl/status/statusor.h"
#include "serial-service/ports/line_sequence.h"

namespace labgate::serial {

// `schema` with definitions/step added: the JSON Schema of one step, which the schemas of the
// policy and of instrument profiles refer to as {"$ref": "#/definitions/step"}.
nlohmann::json WithStepSchema(nlohmann::json schema);

// `entry` holds "steps" (and, in the policy, "signals", read by the caller). `where` prefixes
// errors: "ports[0].sequences" gives "ports[0].sequences.reset.steps[1] must be ...".
absl::StatusOr<LineSequence> SequenceFromJson(const std::string& name, const nlohmann::json& entry,
                                              const std::string& where);

}  // namespace labgate::serial
