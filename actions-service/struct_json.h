// google.protobuf.Struct <-> nlohmann::json, without a round trip through JSON text.
#pragma once

#include <google/protobuf/struct.pb.h>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace labgate::actions {

// Integral numbers (within ±2^53) become JSON integers so that "type": "integer" holds;
// NaN and infinities become null.
nlohmann::json StructToJson(const google::protobuf::Struct& value);
nlohmann::json ValueToJson(const google::protobuf::Value& value);

// InvalidArgument when `value` is not an object.
absl::StatusOr<google::protobuf::Struct> JsonToStruct(const nlohmann::json& value);
void JsonToValue(const nlohmann::json& value, google::protobuf::Value* out);

}  // namespace labgate::actions
