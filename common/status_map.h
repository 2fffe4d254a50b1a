// The one error vocabulary (DESIGN decision 6). Components return absl::Status;
// this table says what each code becomes on gRPC, in JSON-RPC and in an MCP tool result.
#pragma once

#include <grpcpp/support/status.h>

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace labgate {

// JSON-RPC 2.0 and MCP error codes used by the gateway.
namespace jsonrpc_code {
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kResourceNotFound = -32002;  // MCP resources/read
inline constexpr int kRequestTimeout = -32001;    // a server-to-client request timed out
}  // namespace jsonrpc_code

struct StatusMapping {
  absl::StatusCode code;
  grpc::StatusCode grpc_code;
  // Used when the failure is a protocol error rather than a tool result.
  int jsonrpc_code;
  // True when retrying later may succeed (backend down, deadline, lock).
  bool retryable;
};

const StatusMapping& MappingFor(absl::StatusCode code);

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

// "NOT_FOUND", "INVALID_ARGUMENT", ...
std::string_view StatusCodeName(absl::StatusCode code);

// The text an MCP tool result with isError:true carries: "<CODE>: <message>".
std::string ToolErrorText(const absl::Status& status);

}  // namespace labgate
