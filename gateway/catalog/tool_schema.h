// JSON Schema for a protobuf message, as MCP tools publish in inputSchema/outputSchema.
#pragma once

#include <google/protobuf/descriptor.h>

#include <nlohmann/json.hpp>

namespace labgate::gateway {

enum class SchemaRole {
  kInput,   // what a client may send: closed (additionalProperties false), with required
  kOutput,  // what ProtoToJson prints: fields without presence are always there
};

nlohmann::json MessageSchema(const google::protobuf::Descriptor* descriptor, SchemaRole role);

}  // namespace labgate::gateway
