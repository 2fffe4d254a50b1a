// The one error vocabulary (DESIGN decision 6). Components return absl::Status;
// this table says what each code becomes on gRPC, in JSON-RPC and in an MCP tool result.
// It needs no gRPC: the conversions to and from grpc::Status that read it are in
// common/grpc_status.h, so the protocol layers that only speak JSON-RPC stay free of gRPC.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace labgate {

// Every JSON-RPC 2.0 and MCP error code labgate sends; code elsewhere names them, never
// writes the number.
namespace jsonrpc_code {
// JSON-RPC 2.0.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
// MCP, both eras.
inline constexpr int kResourceNotFound = -32002;  // resources/read (before 2026-07-28)
inline constexpr int kRequestTimeout = -32001;    // a server-to-client request timed out
// Streamable HTTP: an unknown, expired or terminated Mcp-Session-Id (HTTP 404). The same
// number as kRequestTimeout; the two never meet on one wire.
inline constexpr int kSessionNotFound = -32001;
// The 2026-07-28 era.
inline constexpr int kHeaderMismatch = -32020;              // MCP-* headers vs the body
inline constexpr int kMissingClientCapability = -32021;     // the request needs one not declared
inline constexpr int kUnsupportedProtocolVersion = -32022;  // _meta names a version not served
}  // namespace jsonrpc_code

struct StatusMapping {
  absl::StatusCode code;
  int grpc_code;  // a grpc::StatusCode
  // Used when the failure is a protocol error rather than a tool result.
  int jsonrpc_code;
  // True when retrying later may succeed (backend down, deadline, lock).
  bool retryable;
};

const StatusMapping& MappingFor(absl::StatusCode code);
// The absl code of a gRPC status code (a grpc::StatusCode's value); nullopt when unknown.
std::optional<absl::StatusCode> FromGrpcCode(int grpc_code);

// "NOT_FOUND", "INVALID_ARGUMENT", ...
std::string_view StatusCodeName(absl::StatusCode code);

// The text an MCP tool result with isError:true carries: "<CODE>: <message>".
std::string ToolErrorText(const absl::Status& status);

}  // namespace labgate
