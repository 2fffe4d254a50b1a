// JSON <-> the protobuf well-known types (google.protobuf.*), as json_proto.h uses them.
// google.protobuf.Struct, Value and ListValue, the ones labgate's protos carry, convert
// directly, value by value. Every other well-known type, and the rare values whose
// spelling only protobuf's JSON utilities decide (non-UTF-8 text, non-finite numbers,
// nesting deeper than kDirectDepth, a Value with no kind), go through those utilities, so
// both paths give the same JSON and the same errors.
#pragma once

#include <google/protobuf/message.h>

#include <nlohmann/json.hpp>
#include <string>

#include "absl/status/status.h"

namespace labgate::gateway {

// True for messages of package google.protobuf.
bool IsWellKnownType(const google::protobuf::Descriptor* descriptor);

// Fills `message`, a well-known type, from `value`; an error names `path` ("value" when
// empty) and says what protobuf refused.
absl::Status WellKnownFromJson(const nlohmann::json& value, google::protobuf::Message* message,
                               const std::string& path);

// `message`, a well-known type, as protobuf's JSON printer spells it, parsed (null when
// protobuf cannot print it).
nlohmann::json WellKnownToJson(const google::protobuf::Message& message);

// The same two through protobuf's JSON text (JsonStringToMessage, MessageToJsonString),
// which the direct conversion must match; exposed for the tests that compare them.
absl::Status WellKnownFromJsonViaText(const nlohmann::json& value,
                                      google::protobuf::Message* message, const std::string& path);
nlohmann::json WellKnownToJsonViaText(const google::protobuf::Message& message);

}  // namespace labgate::gateway
