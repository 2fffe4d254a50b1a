#include "common/status_map.h"

#include <array>
#include <optional>

#include "absl/strings/str_cat.h"

namespace labgate {
namespace {

using AC = absl::StatusCode;

// grpc::StatusCode's values (grpcpp/support/status_code_enum.h), named here without gRPC.
namespace grpc_code {
constexpr int kOk = 0, kCancelled = 1, kUnknown = 2, kInvalidArgument = 3, kDeadlineExceeded = 4,
              kNotFound = 5, kAlreadyExists = 6, kPermissionDenied = 7, kResourceExhausted = 8,
              kFailedPrecondition = 9, kAborted = 10, kOutOfRange = 11, kUnimplemented = 12,
              kInternal = 13, kUnavailable = 14, kDataLoss = 15, kUnauthenticated = 16;
}  // namespace grpc_code

// Indexed by the numeric code; absl and gRPC share numbering 0..16.
constexpr std::array<StatusMapping, 17> kTable = {{
    {AC::kOk, grpc_code::kOk, 0, false},
    {AC::kCancelled, grpc_code::kCancelled, jsonrpc_code::kInternalError, true},
    {AC::kUnknown, grpc_code::kUnknown, jsonrpc_code::kInternalError, false},
    {AC::kInvalidArgument, grpc_code::kInvalidArgument, jsonrpc_code::kInvalidParams, false},
    {AC::kDeadlineExceeded, grpc_code::kDeadlineExceeded, jsonrpc_code::kInternalError, true},
    {AC::kNotFound, grpc_code::kNotFound, jsonrpc_code::kResourceNotFound, false},
    {AC::kAlreadyExists, grpc_code::kAlreadyExists, jsonrpc_code::kInvalidParams, false},
    {AC::kPermissionDenied, grpc_code::kPermissionDenied, jsonrpc_code::kInternalError, false},
    {AC::kResourceExhausted, grpc_code::kResourceExhausted, jsonrpc_code::kInternalError, true},
    {AC::kFailedPrecondition, grpc_code::kFailedPrecondition, jsonrpc_code::kInvalidParams, false},
    {AC::kAborted, grpc_code::kAborted, jsonrpc_code::kInternalError, true},
    {AC::kOutOfRange, grpc_code::kOutOfRange, jsonrpc_code::kInvalidParams, false},
    {AC::kUnimplemented, grpc_code::kUnimplemented, jsonrpc_code::kMethodNotFound, false},
    {AC::kInternal, grpc_code::kInternal, jsonrpc_code::kInternalError, false},
    {AC::kUnavailable, grpc_code::kUnavailable, jsonrpc_code::kInternalError, true},
    {AC::kDataLoss, grpc_code::kDataLoss, jsonrpc_code::kInternalError, false},
    {AC::kUnauthenticated, grpc_code::kUnauthenticated, jsonrpc_code::kInternalError, false},
}};

}  // namespace

const StatusMapping& MappingFor(absl::StatusCode code) {
  int index = static_cast<int>(code);
  if (index < 0 || index >= static_cast<int>(kTable.size())) return kTable[2];
  return kTable[index];
}

std::optional<absl::StatusCode> FromGrpcCode(int grpc_code) {
  for (const StatusMapping& mapping : kTable) {
    if (mapping.grpc_code == grpc_code) return mapping.code;
  }
  return std::nullopt;
}

std::string_view StatusCodeName(absl::StatusCode code) {
  switch (code) {
    case AC::kOk:
      return "OK";
    case AC::kCancelled:
      return "CANCELLED";
    case AC::kUnknown:
      return "UNKNOWN";
    case AC::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case AC::kDeadlineExceeded:
      return "DEADLINE_EXCEEDED";
    case AC::kNotFound:
      return "NOT_FOUND";
    case AC::kAlreadyExists:
      return "ALREADY_EXISTS";
    case AC::kPermissionDenied:
      return "PERMISSION_DENIED";
    case AC::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
    case AC::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case AC::kAborted:
      return "ABORTED";
    case AC::kOutOfRange:
      return "OUT_OF_RANGE";
    case AC::kUnimplemented:
      return "UNIMPLEMENTED";
    case AC::kInternal:
      return "INTERNAL";
    case AC::kUnavailable:
      return "UNAVAILABLE";
    case AC::kDataLoss:
      return "DATA_LOSS";
    case AC::kUnauthenticated:
      return "UNAUTHENTICATED";
    default:
      return "UNKNOWN";
  }
}

std::string ToolErrorText(const absl::Status& status) {
  std::string_view name = StatusCodeName(status.code());
  return absl::StrCat(absl::string_view(name.data(), name.size()), ": ", status.message());
}

}  // namespace labgate
