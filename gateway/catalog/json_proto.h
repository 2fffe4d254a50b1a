// JSON <-> protobuf conversion driven by descriptors, for MCP tool arguments and
// results. Unlike protobuf's JSON printer it prints 64-bit integers as numbers, prints
// enums by their (labgate.mcp.v1.value).name, and accepts the seed's spellings
// (enum numbers, aliases, any case), naming the field in every error.
#pragma once

#include <google/protobuf/message.h>

#include <nlohmann/json.hpp>
#include <string>

#include "absl/status/status.h"

namespace labgate::gateway {

// Fills `message` from `value`, which must be an object. Unknown fields, wrong types,
// out-of-range numbers and unknown enum spellings give InvalidArgument naming the
// field path, e.g. "arguments.parity: invalid value 'maybe' (allowed: none, odd, even)".
// null values leave the field unset.
absl::Status JsonToProto(const nlohmann::json& value, google::protobuf::Message* message);

// Prints every field without presence (so defaults are included), fields with
// presence only when set; proto field names.
nlohmann::json ProtoToJson(const google::protobuf::Message& message);

// The member `name` of ProtoToJson(message), or null when that has no such member; only that
// field is converted.
nlohmann::json ProtoMemberToJson(const google::protobuf::Message& message, const std::string& name);

// The JSON spelling of an enum value: its (labgate.mcp.v1.value).name, else the proto name.
std::string EnumValueJsonName(const google::protobuf::EnumValueDescriptor* value);

}  // namespace labgate::gateway
