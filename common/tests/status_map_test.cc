#include "common/status_map.h"

#include <gtest/gtest.h>

#include "common/grpc_status.h"

namespace labgate {
namespace {

// No gRPC code has this value, yet grpc::StatusCode can hold it (a value outside the
// enum's range would be undefined behaviour, which the asan build reports).
constexpr auto kNoSuchGrpcCode = static_cast<grpc::StatusCode>(20);

TEST(StatusMapTest, AGrpcCodeOutsideTheTableIsUnknown) {
  absl::Status status = FromGrpcStatus(grpc::Status(kNoSuchGrpcCode, "odd"));
  EXPECT_EQ(status.code(), absl::StatusCode::kUnknown);
  EXPECT_EQ(std::string(status.message()), "odd");
  EXPECT_EQ(FromGrpcCode(99), std::nullopt);
  EXPECT_EQ(FromGrpcCode(5), absl::StatusCode::kNotFound);
}

TEST(StatusMapTest, EveryCodeRoundTripsThroughGrpc) {
  for (int code = 0; code <= 16; ++code) {
    absl::Status status(static_cast<absl::StatusCode>(code), code == 0 ? "" : "why");
    grpc::Status wire = ToGrpcStatus(status);
    EXPECT_EQ(static_cast<int>(wire.error_code()), code);
    absl::Status back = FromGrpcStatus(wire);
    EXPECT_EQ(back.code(), status.code());
    if (code != 0) {
      EXPECT_EQ(std::string(back.message()), "why");
    }
  }
}

TEST(StatusMapTest, ProtocolErrorsUseJsonRpcCodes) {
  EXPECT_EQ(MappingFor(absl::StatusCode::kInvalidArgument).jsonrpc_code,
            jsonrpc_code::kInvalidParams);
  EXPECT_EQ(MappingFor(absl::StatusCode::kNotFound).jsonrpc_code, jsonrpc_code::kResourceNotFound);
  EXPECT_EQ(MappingFor(absl::StatusCode::kUnimplemented).jsonrpc_code,
            jsonrpc_code::kMethodNotFound);
  EXPECT_EQ(MappingFor(absl::StatusCode::kInternal).jsonrpc_code, jsonrpc_code::kInternalError);
  EXPECT_TRUE(MappingFor(absl::StatusCode::kUnavailable).retryable);
  EXPECT_FALSE(MappingFor(absl::StatusCode::kInvalidArgument).retryable);
}

// The numbers clients see on the wire (JSON-RPC 2.0, MCP, and the 2026-07-28 era).
TEST(StatusMapTest, NamedCodesHaveTheirWireValues) {
  EXPECT_EQ(jsonrpc_code::kParseError, -32700);
  EXPECT_EQ(jsonrpc_code::kInvalidRequest, -32600);
  EXPECT_EQ(jsonrpc_code::kMethodNotFound, -32601);
  EXPECT_EQ(jsonrpc_code::kInvalidParams, -32602);
  EXPECT_EQ(jsonrpc_code::kInternalError, -32603);
  EXPECT_EQ(jsonrpc_code::kResourceNotFound, -32002);
  EXPECT_EQ(jsonrpc_code::kRequestTimeout, -32001);
  EXPECT_EQ(jsonrpc_code::kSessionNotFound, -32001);
  EXPECT_EQ(jsonrpc_code::kHeaderMismatch, -32020);
  EXPECT_EQ(jsonrpc_code::kMissingClientCapability, -32021);
  EXPECT_EQ(jsonrpc_code::kUnsupportedProtocolVersion, -32022);
}

TEST(StatusMapTest, ToolErrorTextNamesTheCodeAndKeepsTheMessage) {
  EXPECT_EQ(ToolErrorText(absl::NotFoundError("session 'x' not found")),
            "NOT_FOUND: session 'x' not found");
  EXPECT_EQ(ToolErrorText(absl::FailedPreconditionError("Port is already open")),
            "FAILED_PRECONDITION: Port is already open");
}

TEST(StatusMapTest, UnknownGrpcCodesBecomeUnknown) {
  grpc::Status odd(kNoSuchGrpcCode, "strange");
  EXPECT_EQ(FromGrpcStatus(odd).code(), absl::StatusCode::kUnknown);
}

}  // namespace
}  // namespace labgate
