// A reply message written straight to JSON text: the same bytes as
// ProtoToJson(message).dump() (json_proto.h; keys in name order, UTF-8 kept, invalid UTF-8
// replaced), without building the JSON document first. A tool call's reply is written twice
// into its CallToolResult (as text and as structuredContent), so the document it skips is the
// larger part of turning a reply into JSON.
#pragma once

#include <google/protobuf/message.h>

#include <string>

namespace labgate::gateway {

// Appends `message` as a JSON object to `out`.
void AppendProtoJsonText(const google::protobuf::Message& message, std::string* out);

}  // namespace labgate::gateway
