// Checks a JSON configuration document (the policy, an instrument profile) against its JSON
// Schema (draft 7). INVALID_ARGUMENT lists each problem with its path, e.g.
// "[ports][0]: Object contains a property that could not be validated using 'properties' or
// 'additionalProperties' constraints: 'alow'".
#pragma once

#include <nlohmann/json.hpp>

#include "absl/status/status.h"

namespace labgate {

absl::Status CheckAgainstSchema(const nlohmann::json& schema, const nlohmann::json& document);

}  // namespace labgate
